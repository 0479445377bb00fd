#!/bin/sh
# interrupt.sh -- Ctrl-C during a tuning run leaves the file as it was and
# no temporary beside it; a finished run replaces it with one the library
# accepts.  Native builds only: it times nothing, but runs the tuner.
# Exit status: 0 pass, 1 fail, 77 skipped (automake's convention).
if [ -n "${TEST_EMULATOR:-}" ]; then
    echo "SKIP: runs memasm-tune natively only (cross build)"
    exit 77
fi
tune=${MEMASM_TUNE:-./memasm-tune}
dir=$(mktemp -d "${TMPDIR:-/tmp}/memasm-interrupt.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
out=$dir/memasm.conf
./memasm-info --config > "$out" || { echo "FAIL: memasm-info --config"; exit 1; }
cp "$out" "$dir/before"

# Interrupted while measuring: SIGINT, as a terminal's Ctrl-C sends it.
# A non-interactive shell starts background jobs with SIGINT ignored;
# env --default-signal gives the tuner the disposition a terminal would.
env --default-signal=INT "$tune" --quick --output "$out" > "$dir/log" 2>&1 &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
if [ "$rc" -eq 0 ]; then
    echo "FAIL: memasm-tune ran to its end (status 0): the interrupt tested nothing"
    exit 1
fi
cmp -s "$out" "$dir/before" || { echo "FAIL: the file changed after an interrupt"; exit 1; }
left=$(ls "$dir" | grep -v -x -e memasm.conf -e before -e log)
[ -z "$left" ] || { echo "FAIL: left behind: $left"; exit 1; }
grep -q "interrupted" "$dir/log" || { echo "FAIL: no message on the interrupt:"; cat "$dir/log"; exit 1; }
echo "ok: interrupted run (status $rc) left the file unchanged and nothing beside it"
exit 0
