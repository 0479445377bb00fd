#!/bin/sh
# run-test.sh -- LOG_COMPILER of the test suite on a cross build.
#
#   run-test.sh [QEMU_CPU] TEST
#
# Runs TEST under $TEST_EMULATOR (qemu-user with the target's sysroot, from
# configure) with CK_FORK=no: Check's fork mode hangs under qemu-user.  With
# a QEMU_CPU argument (riscv64: "rv64" or "rv64,v=true,vlen=N") the
# emulated CPU is set through qemu's QEMU_CPU variable; TEST is then the
# stub tests/<name>-<cpu>.<ext> that make writes for that configuration,
# and the test run is tests/<name> (or the script tests/<name>.sh).
# A native build does not use this script.
if [ $# -eq 2 ]; then
    QEMU_CPU=$1
    export QEMU_CPU
    shift
    echo "QEMU_CPU=$QEMU_CPU"
fi
t=$1
CK_FORK=no
export CK_FORK TEST_EMULATOR
case $t in
*.sh) exec ${SHELL:-/bin/sh} "$t" ;;
esac
if [ -n "${QEMU_CPU:-}" ]; then
    base=${t%.*}
    base=${base%-*}
    if [ -f "$base" ]; then
        t=$base
    else
        name=$(basename "$base")
        exec ${SHELL:-/bin/sh} "${srcdir:-.}/tests/$name.sh"
    fi
fi
exec $TEST_EMULATOR "$t"
