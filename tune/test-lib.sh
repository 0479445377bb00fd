# test-lib.sh -- sourced by the tuner's script tests (isa.sh, repeat.sh):
# the skip on a cross build, the tuner and memasm-info to run, a scratch
# directory removed on exit, and fail(), which prints the last run's output.
# test_name: the scratch directory's name.
if [ -n "${TEST_EMULATOR:-}" ]; then
    echo "SKIP: runs memasm-tune natively only (cross build)"
    exit 77
fi
tune=${MEMASM_TUNE:-./memasm-tune}
info=./memasm-info
dir=$(mktemp -d "${TMPDIR:-/tmp}/memasm-$test_name.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
fail() {
    echo "FAIL: $*"
    for f in "$dir/log" "$dir/err"; do [ ! -f "$f" ] || cat "$f"; done
    exit 1
}
