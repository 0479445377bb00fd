#!/bin/sh
# config-roundtrip.sh -- memasm-info and MEMASM_CONFIG end to end:
#  1. `memasm-info --config` prints a file that MEMASM_CONFIG accepts back,
#     silently, with every threshold then coming from the file;
#  2. a hand-written file with every key of every architecture
#     (tests/config-data/every-key.conf) is accepted and memasm-info shows
#     its values for this architecture's keys;
#  3. a broken file gives exactly one "libmemasm:" line and the defaults,
#     and memasm-info reports the problem;
#  4. which file memasm-info says was read: MEMASM_CONFIG= (empty) reads
#     none, silently; a MEMASM_CONFIG path is named; with MEMASM_CONFIG unset
#     stderr stays silent whatever the system file is (present, absent or
#     refused), and the file line names it or says there is none;
#  5. memasm-info reports an ignored MEMASM_ISA or MEMASM_DEBUG as a problem
#     (never "status ok"), in text and JSON, and names a bad option;
#  6. --json writes "never" as a string, and sizes above 2^53 as strings of
#     digits (a double, as jq reads JSON numbers, would round them).
# Runs memasm-info under $TEST_EMULATOR on a cross build.
set -u
srcdir=${srcdir:-.}
info="${TEST_EMULATOR:-} ./memasm-info"
tmp=${TMPDIR:-/tmp}/memasm-rt.$$
mkdir "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

unset MEMASM_CONFIG MEMASM_TUNABLES MEMASM_ISA MEMASM_DEBUG
$info --version >/dev/null 2>&1 || { echo "SKIP: memasm-info does not run here"; exit 77; }

# 1. round trip
$info --config >"$tmp/rt.conf" 2>"$tmp/err" || fail "memasm-info --config"
[ -s "$tmp/err" ] && fail "memasm-info --config printed on stderr: $(cat "$tmp/err")"
cat "$tmp/rt.conf"
MEMASM_CONFIG="$tmp/rt.conf" $info --json >"$tmp/rt.json" 2>"$tmp/err" || fail "memasm-info --json"
[ -s "$tmp/err" ] && fail "the round-trip file was refused: $(cat "$tmp/err")"
keys=$(grep -o '"key":' "$tmp/rt.json" | wc -l)
from_file=$(grep -o '"source":"file","doc"' "$tmp/rt.json" | wc -l)
[ "$keys" -gt 0 ] && [ "$keys" -eq "$from_file" ] ||
    fail "round trip: $from_file of $keys thresholds from the file"
MEMASM_CONFIG="$tmp/rt.conf" $info --config >"$tmp/rt2.conf" 2>&1
cmp "$tmp/rt.conf" "$tmp/rt2.conf" || fail "memasm-info --config differs after a round trip"

# 2. every key, hand-written
MEMASM_CONFIG="$srcdir/tests/config-data/every-key.conf" $info >"$tmp/every.txt" 2>"$tmp/err" ||
    fail "memasm-info with every-key.conf"
[ -s "$tmp/err" ] && fail "every-key.conf was refused: $(cat "$tmp/err")"
cat "$tmp/every.txt"
n=0
while read -r key eq value rest; do
    case $key in ''|'#'*|cpu*) continue ;; esac
    line=$(grep "^  $key " "$tmp/every.txt") || continue  # another architecture's key
    n=$((n + 1))
    echo "$line" | grep -q "= $value *(file)" || fail "$key: expected $value (file), got: $line"
done <"$srcdir/tests/config-data/every-key.conf"
[ "$n" -eq "$keys" ] || fail "every-key.conf set $n keys, this architecture has $keys"

# 3. a broken file
printf 'cpu = any\nmemcpy.nt_min = 12Q\n' >"$tmp/bad.conf"
MEMASM_CONFIG="$tmp/bad.conf" $info --json >"$tmp/bad.json" 2>"$tmp/err" || fail "memasm-info --json (bad)"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "expected one line on stderr: $(cat "$tmp/err")"
grep -q '^libmemasm: MEMASM_CONFIG .*bad.conf:2: not a number' "$tmp/err" || fail "message: $(cat "$tmp/err")"
grep -q '"problem":"MEMASM_CONFIG ' "$tmp/bad.json" || fail "memasm-info does not report the problem"
grep -q '"source":"file"' "$tmp/bad.json" && fail "a refused file set a threshold"
grep -q '"file":{"path":"[^"]*bad.conf","system":false}' "$tmp/bad.json" ||
    fail "--json does not name the refused MEMASM_CONFIG file"

# 4. which file
MEMASM_CONFIG= $info >"$tmp/empty.txt" 2>"$tmp/err" || fail "memasm-info (MEMASM_CONFIG=)"
[ -s "$tmp/err" ] && fail "MEMASM_CONFIG= printed on stderr: $(cat "$tmp/err")"
grep -q '^  file            none (MEMASM_CONFIG is empty)$' "$tmp/empty.txt" ||
    fail "MEMASM_CONFIG=: $(grep '^  file ' "$tmp/empty.txt")"
grep -q '^  status          ok$' "$tmp/empty.txt" || fail "MEMASM_CONFIG=: status not ok"
MEMASM_CONFIG= $info --json >"$tmp/empty.json" 2>&1 || fail "memasm-info --json (MEMASM_CONFIG=)"
grep -q '"file":null' "$tmp/empty.json" || fail "MEMASM_CONFIG=: --json file is not null"
grep -q '"source":"file"' "$tmp/empty.json" && fail "MEMASM_CONFIG= set a threshold from a file"
MEMASM_CONFIG="$tmp/rt.conf" $info >"$tmp/named.txt" 2>&1 || fail "memasm-info (rt.conf)"
grep -q "^  file            $tmp/rt.conf\$" "$tmp/named.txt" ||
    fail "MEMASM_CONFIG path: $(grep '^  file ' "$tmp/named.txt")"
$info >"$tmp/unset.txt" 2>"$tmp/err" || fail "memasm-info (MEMASM_CONFIG unset)"
[ -s "$tmp/err" ] && fail "MEMASM_CONFIG unset printed on stderr: $(cat "$tmp/err")"
sys_re='(none \(no system file /.*memasm\.conf\)|/.*memasm\.conf \(system file\))'
grep -E -q "^  file            $sys_re\$" "$tmp/unset.txt" ||
    fail "MEMASM_CONFIG unset: $(grep '^  file ' "$tmp/unset.txt")"
grep '^  file ' "$tmp/unset.txt"

# 5. ignored environment values, bad options
for var in MEMASM_ISA=avx9 MEMASM_DEBUG=yes; do
    name=${var%%=*}
    env MEMASM_CONFIG= "$var" $info >"$tmp/env.txt" 2>"$tmp/err" || fail "memasm-info ($var)"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^libmemasm: $name: .*'${var#*=}' ignored" "$tmp/err" ||
        fail "$var: expected one libmemasm: line: $(cat "$tmp/err")"
    grep -q "^  status          $name: .*'${var#*=}' ignored" "$tmp/env.txt" ||
        fail "$var: no status line: $(grep status "$tmp/env.txt")"
    grep -q '^  status          ok$' "$tmp/env.txt" && fail "$var: status ok"
    env MEMASM_CONFIG= "$var" $info --json >"$tmp/env.json" 2>/dev/null || fail "memasm-info --json ($var)"
    grep -q "\"env_problems\":\[\"$name: [^\"]*'${var#*=}' ignored" "$tmp/env.json" ||
        fail "$var: not in --json env_problems: $(cat "$tmp/env.json")"
done
grep -q '"env_problems":\[\]' "$tmp/empty.json" || fail "env_problems is not [] without problems"
$info --bogus >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || fail "memasm-info --bogus: exit status is not 2"
[ -s "$tmp/out" ] && fail "memasm-info --bogus printed on stdout"
[ "$(head -n 1 "$tmp/err")" = "memasm-info: unknown option '--bogus'" ] && grep -q '^usage: ' "$tmp/err" ||
    fail "memasm-info --bogus: $(cat "$tmp/err")"

# 6. sizes in --json: "never" and values beyond 2^53 as strings
key=$(grep -o '"key":"[^"]*"' "$tmp/empty.json" | head -n 1 | cut -d'"' -f4)
big=18014397435740160   # 16777215G, above 2^53
for v in never 16777215G; do
    MEMASM_CONFIG= MEMASM_TUNABLES="$key=$v" $info --json >"$tmp/big.json" 2>"$tmp/err" ||
        fail "memasm-info --json ($key=$v)"
    [ -s "$tmp/err" ] && fail "$key=$v: $(cat "$tmp/err")"
    want=$v
    [ "$v" = never ] || want=$big
    grep -q "\"key\":\"$key\",\"value\":\"$want\"," "$tmp/big.json" ||
        fail "$key=$v: --json value is not \"$want\": $(cat "$tmp/big.json")"
    grep -q 18446744073709551615 "$tmp/big.json" && fail "--json writes never as a number"
    if command -v jq >/dev/null 2>&1; then
        got=$(jq -r --arg k "$key" '.thresholds[] | select(.key == $k) | .value' "$tmp/big.json")
        [ "$got" = "$want" ] || fail "jq reads $key as $got, not $want"
    fi
done
echo "PASS: round trip ($keys keys), every-key.conf, broken file, which file, problems, JSON sizes"
exit 0
