#!/bin/sh
# test-compare.sh -- bench/compare.sh end to end on this build's
# libmemasm.so, loaded twice under two names: its table has the rows the
# runs made, with a ratio for each build and for the pair; bad arguments
# and a failing memasm-bench stop it with status 2 and a message; the
# preload module loads as a build too (its own memcpy, memmove and
# memset), and a library with neither set is refused.  Nothing
# about the figures is asserted (they are timings).  Native builds only.
# Exit status: 0 pass, 1 fail, 77 skipped (automake's convention).
if [ -n "${TEST_EMULATOR:-}" ]; then
    echo "SKIP: runs memasm-bench natively only (cross build)"
    exit 77
fi
compare="$(dirname "$0")/compare.sh"
lib=.libs/libmemasm.so
if [ ! -f "$lib" ]; then
    echo "SKIP: no shared library in this build ($lib; --disable-shared?)"
    exit 77
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/memasm-compare-test.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail() {
    echo "FAIL: $*"
    [ ! -f "$dir/out" ] || cat "$dir/out"
    exit 1
}

# Two processes, two sizes, two sections; the runs kept (-k).
sh "$compare" -n 2 -k "$dir/runs" old="$lib" new="$lib" -- \
    --op memcpy,memset --align aligned --temp hot --sizes 64:128 --pow2 \
    --no-mix --rounds 3 --min-time 20 > "$dir/out" 2> "$dir/err" ||
    { cat "$dir/err"; fail "status $? on a valid run"; }
[ -f "$dir/runs/run.1" ] && [ -f "$dir/runs/run.2" ] || fail "-k kept no run.1 and run.2"
# the order of the --lib options alternates between the processes
grep -q '^  old .*libmemasm' "$dir/runs/run.1" || fail "run.1 lists no candidate old"
c1=$(grep -m1 -E '^ +size ' "$dir/runs/run.1" | awk -F'|' '{print $2}' | tr -s ' ')
c2=$(grep -m1 -E '^ +size ' "$dir/runs/run.2" | awk -F'|' '{print $2}' | tr -s ' ')
[ "$c1" = " old new" ] && [ "$c2" = " new old" ] ||
    fail "columns '$c1' then '$c2', not ' old new' then ' new old'"
grep -q '^section .*old / glibc .*new / glibc .*new / old' "$dir/out" || fail "no header"
for row in 'memcpy aligned hot +64' 'memcpy aligned hot +128' \
    'memset aligned hot +64' 'memset aligned hot +128'; do
    grep -E "^$row +[0-9.]+ \[[0-9.]+-[0-9.]+\] +[0-9.]+ \[[0-9.]+-[0-9.]+\] +[0-9.]+" \
        "$dir/out" > /dev/null || fail "no row '$row' with three ratios"
done
n=$(grep -c -E '^mem(cpy|set) ' "$dir/out")
[ "$n" -eq 4 ] || fail "$n rows, not 4"

# Refusals: status 2 and a message, and no run.
expect_refusal() {
    what=$1
    shift
    sh "$compare" "$@" > "$dir/out" 2> "$dir/err"
    rc=$?
    [ "$rc" -eq 2 ] || fail "$what: status $rc, not 2"
    grep -q "^compare.sh: " "$dir/err" || fail "$what: no message"
    ! grep -q 'process 1 of' "$dir/err" || fail "$what: ran anyway"
}
expect_refusal "a missing library" a="$lib" b="$dir/none.so"
expect_refusal "one name twice" a="$lib" a="$lib"
expect_refusal "no NAME=" "$lib" b="$lib"
expect_refusal "a name with a space" "a b=$lib" c="$lib"
expect_refusal "an unknown level" -l avx3 a="$lib" b="$lib"
expect_refusal "a bad count" -n 2x a="$lib" b="$lib"
expect_refusal "zero processes" -n 0 a="$lib" b="$lib"
expect_refusal "bench options without --" a="$lib" b="$lib" --op memcpy
expect_refusal "one build only" a="$lib"

# memasm-bench refusing its options: status 2, its message passed on
sh "$compare" -n 1 a="$lib" b="$lib" -- --sizes nonsense > "$dir/out" 2> "$dir/err"
rc=$?
[ "$rc" -eq 2 ] || fail "a failing memasm-bench: status $rc, not 2"
grep -q 'memasm-bench failed' "$dir/err" || fail "a failing memasm-bench: no message"
grep -q -i 'size' "$dir/err" || fail "memasm-bench's own message not passed on"

# A drop-in module as a build: its memcpy, memmove and memset are the column.
pre=preload/.libs/libmemasm-preload.so
if [ -f "$pre" ]; then
    sh "$compare" -n 1 -k "$dir/pre" so="$lib" pre="$pre" -- \
        --op memcpy,memset --align aligned --temp hot --sizes 64:64 \
        --no-mix --rounds 3 --min-time 20 > "$dir/out" 2> "$dir/err" ||
        { cat "$dir/err"; fail "status $? with the preload module"; }
    grep -q "^  pre .*the C library's names from .*libmemasm-preload.so" "$dir/pre/run.1" ||
        fail "the preload module is not listed as the C library's names"
    grep -E "^memset aligned hot +64 +[0-9.]+ \[[0-9.]+-[0-9.]+\] +[0-9.]+ " "$dir/out" > /dev/null ||
        fail "no memset row with the preload module"
    echo "ok: the preload module measured through its own memcpy/memmove/memset"
else
    echo "SKIPPED: the preload module (not built)"
fi
# A library with neither memasm_* nor memcpy of its own (dlsym would find
# the C library's through its dependencies): not measured, and said so.
gs=$(${CC:-cc} -print-file-name=libgcc_s.so.1 2>/dev/null)
if [ -f "$gs" ]; then
    ./bench/memasm-bench --candidates glibc --lib gs="$gs" --op memcpy --sizes 64:64 \
        --no-mix --rounds 3 --min-time 20 > "$dir/out" 2>&1
    grep -q "^  gs .*NOT AVAILABLE: .* has neither memasm_memcpy/memmove/memset nor memcpy/memmove/memset of its own" \
        "$dir/out" || fail "$gs was not refused"
    echo "ok: a library without copy functions of its own is refused"
fi

echo "ok: 2 processes, 4 rows with three ratios each; 10 refusals with status 2"
exit 0
