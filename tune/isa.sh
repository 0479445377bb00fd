#!/bin/sh
# isa.sh -- memasm-tune --isa: an unknown level and one above the CPU's are
# refused (status 2, a message, no file); a quick run at the baseline level
# writes a file that caps the library there with its thresholds in force,
# and the knob that only a higher level's kernels have is reported as not
# measured, its default kept.  Native builds only: it runs the tuner
# (about 10 s), asserting nothing about its figures.
# Exit status: 0 pass, 1 fail, 77 skipped (automake's convention).
test_name=isa
. "${srcdir:-.}/tune/test-lib.sh"

# The CPU's level.
cpu=$("$info" | sed -n 's/^isa: *cpu \([a-z0-9]*\),.*/\1/p')
[ -n "$cpu" ] || fail "memasm-info names no CPU level"

refused() {
    what=$1
    shift
    "$tune" --quick --no-verify --output "$dir/no.conf" "$@" > "$dir/log" 2> "$dir/err"
    rc=$?
    [ "$rc" -eq 2 ] || fail "$what: status $rc, not 2"
    grep -q "^memasm-tune: --isa" "$dir/err" || fail "$what: no message"
    [ ! -e "$dir/no.conf" ] || fail "$what: a file was written"
}
refused "an unknown level" --isa avx3000
# the refusal lists the architecture's levels, lowest first
all=$(sed -n 's/.*on this architecture (\(.*\))$/\1/p' "$dir/err" | tr -d ',')
case " $all " in
*" $cpu "*) ;;
*) fail "the refusal lists the levels '$all', without the CPU's ($cpu)" ;;
esac
base=${all%% *}
above=$(echo "$all" | tr ' ' '\n' | sed -n "/^$cpu\$/{n;p;}")
if [ -n "$above" ]; then
    refused "a level above the CPU's ($above)" --isa "$above"
    echo "ok: --isa $above refused on a $cpu CPU"
else
    echo "note: the CPU has the highest level ($cpu); no level above it to refuse"
fi

# A quick run at the baseline level.
"$tune" --quick --no-verify --isa "$base" --output "$dir/t.conf" > "$dir/log" 2> "$dir/err" ||
    fail "memasm-tune --isa $base: status $?"
grep -q "^isa = $base\$" "$dir/t.conf" || fail "the file does not set isa = $base"
grep -q "set by --isa $base" "$dir/t.conf" || fail "the file does not say the level was set by --isa"
MEMASM_CONFIG=$dir/t.conf "$info" > "$dir/info" 2>&1 || fail "memasm-info with the file: status $?"
grep -q "^isa: *cpu $cpu, in force $base (file)" "$dir/info" ||
    { cat "$dir/info"; fail "the file does not cap the library at $base"; }
grep -q "status *ok" "$dir/info" || { cat "$dir/info"; fail "the library did not accept the file"; }
# at the file's own level its thresholds are the ones in force
nthr=$(grep -c -E '^  [a-z]+\.[a-z_]+ += ' "$dir/info")
nfile=$(grep -c -E '^  [a-z]+\.[a-z_]+ += .*\(file\)' "$dir/info")
[ "$nthr" -gt 0 ] && [ "$nfile" -eq "$nthr" ] ||
    { cat "$dir/info"; fail "$nfile of $nthr thresholds from the file at its own level"; }
if [ "$base" = sse2 ] || [ "$base" = scalar ]; then
    # the knob only a higher level's kernels have
    key=$([ "$base" = sse2 ] && echo memcpy.bwd_prefetch_min || echo memcpy.rvv_min)
    grep -q "^$key .*not measured" "$dir/log" ||
        fail "$key was measured at $base (its strategies are the same code there)"
    echo "ok: $key not measured at $base"
fi
echo "ok: --isa $base wrote a file that caps the library at $base"
exit 0
