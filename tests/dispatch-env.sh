#!/bin/sh
# dispatch-env.sh -- MEMASM_ISA read from the environment at start-up.
#
# Runs tests/test_dispatch (through $TEST_EMULATOR on a cross build) with
#   - MEMASM_ISA=<each level of this build>: the choice is capped there, and
#     a level above the CPU's does not raise anything (--expect-cap checks);
#   - unknown values: ignored, exactly one line on stderr, no crash, the
#     choice is the uncapped one.
# Exit status: 0 pass, 1 fail (automake's test driver convention).
prog=${MEMASM_TEST_DISPATCH:-tests/test_dispatch}
tmp=${TMPDIR:-/tmp}/memasm-dispatch-env.$$
trap 'rm -f "$tmp".out "$tmp".err' EXIT
status=0

run() {
    $TEST_EMULATOR "$prog" "$@"
}

unset MEMASM_ISA
levels=$(run --levels) || {
    echo "FAIL: $prog --levels did not run"
    exit 1
}
echo "ISA levels: $(echo $levels)"

for l in $levels; do
    if ! MEMASM_ISA=$l run --expect-cap "$l" >"$tmp".out 2>"$tmp".err; then
        status=1
    fi
    cat "$tmp".out
    if [ -s "$tmp".err ]; then
        echo "FAIL: MEMASM_ISA=$l wrote to stderr:"
        cat "$tmp".err
        status=1
    fi
done

# Unknown values, including an empty one and one with control characters.
ctl=$(printf 'bad\001level\033[31m')
long=$(printf '%0300d' 0)
for v in no-such-level "" "$ctl" "$long" "$(echo $levels | sed 's/ /,/g')"; do
    if ! MEMASM_ISA=$v run --expect-cap - >"$tmp".out 2>"$tmp".err; then
        echo "FAIL: MEMASM_ISA='$v' (unknown): choice or result wrong, or it crashed"
        status=1
    fi
    cat "$tmp".out
    lines=$(wc -l <"$tmp".err)
    if [ "$lines" -ne 1 ] || ! grep -q MEMASM_ISA "$tmp".err; then
        echo "FAIL: MEMASM_ISA=(unknown value): expected exactly one line on stderr naming MEMASM_ISA, got $lines:"
        cat "$tmp".err
        status=1
    else
        echo "  stderr: $(cat "$tmp".err)"
    fi
done
exit $status
