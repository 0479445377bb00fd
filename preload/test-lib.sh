# test-lib.sh -- sourced by preload/preload-*.sh: skip on a cross build,
# find the module and the test programs in the build tree, report failures.
if [ -n "${TEST_EMULATOR:-}" ]; then
    echo "SKIP: the preload tests put the module into host programs with LD_PRELOAD, which makes no sense under $TEST_EMULATOR"
    exit 77
fi
# --enable-sanitizers: the module is instrumented too, and LD_PRELOAD puts it
# ahead of the sanitizer's runtime, which then refuses to start (ASan) or
# intercepts these very names itself; a plain build runs these tests.
if [ -n "${MEMASM_SANITIZE:-}" ]; then
    echo "SKIP: a -fsanitize=$MEMASM_SANITIZE build: the sanitizer's runtime must come first and intercepts memcpy, memmove and memset itself, so LD_PRELOAD of the module cannot be tested here"
    exit 77
fi
so=$PWD/preload/.libs/libmemasm-preload.so
pso=$PWD/preload/.libs/libmemasm-profile.so
prog=$PWD/preload/test-preload
early=$PWD/preload/test-preload-early
if [ ! -f "$so" ]; then
    echo "FAIL: $so not built"
    exit 1
fi
tmp=${TMPDIR:-/tmp}/memasm-preload.$$
trap 'rm -f "$tmp".*' EXIT
status=0
fail() {
    echo "FAIL: $*"
    status=1
}
# run NAME CMD...: run CMD, stdout and stderr to the log, fail NAME on a
# non-zero status.
run() {
    name=$1
    shift
    echo "== $name"
    "$@" || fail "$name (status $?)"
}
