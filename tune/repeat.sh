#!/bin/sh
# repeat.sh -- memasm-tune --repeat N: a count outside 1-9 is refused
# (status 2, a message, no file); a quick run with --repeat 2 writes a file
# in which every tuned key says whether both repetitions chose its value,
# and every key they disagreed on holds the library's default.  Native
# builds only: it runs the tuner twice over (about 25 s), asserting nothing
# about its figures.
# Exit status: 0 pass, 1 fail, 77 skipped (automake's convention).
test_name=repeat
. "${srcdir:-.}/tune/test-lib.sh"

for n in 0 10 2x ""; do
    "$tune" --quick --no-verify --repeat "$n" --output "$dir/no.conf" > "$dir/log" 2> "$dir/err"
    rc=$?
    [ "$rc" -eq 2 ] || fail "--repeat '$n': status $rc, not 2"
    grep -q "^memasm-tune: --repeat takes 1 to 9" "$dir/err" || fail "--repeat '$n': no message"
    [ ! -e "$dir/no.conf" ] || fail "--repeat '$n': a file was written"
done
echo "ok: --repeat 0, 10, 2x and '' refused"

# The defaults, as the library has them on this CPU without a file.
env -u MEMASM_CONFIG -u MEMASM_TUNABLES -u MEMASM_ISA "$info" > "$dir/defaults" 2>&1 ||
    fail "memasm-info: status $?"

"$tune" --quick --no-verify --repeat 2 --output "$dir/t.conf" > "$dir/log" 2> "$dir/err" ||
    fail "memasm-tune --repeat 2: status $?"
grep -q "every choice made 2 times" "$dir/t.conf" || fail "the header does not say the choices were made twice"
# Each key's remark is the line above it; a window's end says "tuned with
# the window start above".
awk '
    /^# / { remark = $0; next }
    /^[a-z]+\.[a-z_0-9]+ = / && $1 !~ /^cpu\./ {
        if (remark ~ /window start above/) next
        if (remark ~ /^# all 2 repetitions chose this/) print "agree", $1, $3
        else if (remark ~ /^# the repetitions chose .*: they differ, default kept/) print "differ", $1, $3
        else print "bad", $1, remark
    }' "$dir/t.conf" > "$dir/keys"
[ -s "$dir/keys" ] || fail "no tuned keys in the file"
! grep -q '^bad' "$dir/keys" || { cat "$dir/keys"; fail "a key's remark says neither agreement nor disagreement"; }
grep -q "^isa = " "$dir/t.conf" || fail "no isa line"
grep -B1 "^isa = " "$dir/t.conf" | grep -q -E "all 2 repetitions chose|they differ" ||
    fail "the isa remark says nothing of the repetitions"
while read -r what key value; do
    [ "$what" = differ ] || continue
    def=$(sed -n "s/^  $key *= *\([^ ]*\) .*/\1/p" "$dir/defaults")
    [ -n "$def" ] || fail "memasm-info has no default for $key"
    [ "$value" = "$def" ] || fail "$key: the repetitions differ, yet the file holds $value (default $def)"
    echo "ok: $key: the repetitions differ, the file keeps the default $def"
done < "$dir/keys"
MEMASM_CONFIG=$dir/t.conf "$info" > "$dir/info" 2>&1 || fail "memasm-info with the file: status $?"
grep -q "status *ok" "$dir/info" || { cat "$dir/info"; fail "the library did not accept the file"; }
echo "ok: --repeat 2 wrote a file whose $(wc -l < "$dir/keys") tuned keys each say whether both runs chose them"
exit 0
