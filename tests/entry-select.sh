#!/bin/sh
# entry-select.sh -- libmemasm.so binds memasm_memcpy, memasm_memmove and
# memasm_memset per CPU (c/entry-select.c): to the base entries on a CPU
# without AVX2, to the shared ones otherwise.  tests/entry-select (linked
# with the shared library) prints where each name landed and checks every
# length through it; this script compares the places with the library's
# own symbols (nm), on this CPU and, where qemu-x86_64 is installed, on
# emulated CPUs without AVX2 (Nehalem) and with it (Haswell); memasm-info
# must name the same set (memasm_entries_bound, which memasm-bench and
# memasm-tune call), and the LD_PRELOAD modules must bind the C library's
# memcpy, memmove and memset the same way (preload_<op>_<set>,
# preload/entry-points.h).
# Exit status: 0 pass, 1 fail, 77 skipped (automake's convention).
lib=.libs/libmemasm.so
prog=tests/entry-select
NM=${NM:-nm}
if [ ! -f "$lib" ] || [ ! -x "$prog" ] || [ ! -x memasm-info ]; then
    echo "SKIP: no $lib, $prog or memasm-info (a build without shared libraries)"
    exit 77
fi
if [ -n "$TEST_EMULATOR" ]; then
    echo "SKIP: a cross build (the x86_64 entries only)"
    exit 77
fi
tmp=${TMPDIR:-/tmp}/memasm-entry-select.$$
trap 'rm -f "$tmp".*' EXIT
status=0
# addr OBJECT SYMBOL: the symbol's address in the object's symbol table
addr() {
    a=$($NM "$1" | awk -v s="$2" '$3 == s { print $1 }')
    [ -n "$a" ] || { echo "FAIL: no symbol $2 in $1" >&2; return 1; }
    printf '0x%x\n' "0x$a"
}
# bound WHAT EXPECT OBJECT NAMEPREFIX SYMPREFIX ARG RUNNER...: run the
# program (through RUNNER, with ARG), expect each name NAMEPREFIX<op> at
# SYMPREFIX<op>_EXPECT in OBJECT.
bound() {
    b_what=$1 b_expect=$2 b_obj=$3 b_np=$4 b_sp=$5 b_arg=$6
    shift 6
    if ! "$@" "$prog" $b_arg > "$tmp.out" 2>&1; then
        echo "FAIL: $b_what: $prog $b_arg failed:"
        cat "$tmp.out"
        status=1
        return 1
    fi
    for op in memcpy memmove memset; do
        got=$(awk -v s="$b_np$op" '$1 == s { print $2 }' "$tmp.out")
        want=$(addr "$b_obj" "$b_sp${op}_$b_expect") || { status=1; continue; }
        if [ "$got" != "$want" ]; then
            echo "FAIL: $b_what: $b_np$op bound to $got, not $b_sp${op}_$b_expect ($want)"
            status=1
        else
            echo "ok: $b_what: $b_np$op bound to $b_sp${op}_$b_expect ($got)"
        fi
    done
    grep '^ok: .* calls' "$tmp.out"
}
# check WHAT EXPECT [CPU]: libmemasm.so's names, memasm-info, and each
# preload module's names of the C library, natively or under qemu-x86_64
# -cpu CPU.
check() {
    what=$1 expect=$2 cpu=$3
    if [ -n "$cpu" ]; then
        set -- qemu-x86_64 -cpu "$cpu"
    else
        set -- env
    fi
    bound "$what" "$expect" "$lib" memasm_ memasm_ "" "$@" || return
    # memasm-info (linked with the archive, as memasm-bench and memasm-tune)
    # names the same set, by the same rule
    info=$("$@" ./memasm-info --json 2>/dev/null | sed -n 's/.*"entries":"\([a-z]*\)".*/\1/p')
    if [ "$info" != "$expect" ]; then
        echo "FAIL: $what: memasm-info says the entries are '$info', not $expect"
        status=1
    else
        echo "ok: $what: memasm-info names the $expect entries too"
    fi
    [ -z "$MEMASM_SANITIZE" ] || return
    for m in $modules; do
        if [ -n "$cpu" ]; then
            set -- qemu-x86_64 -E "LD_PRELOAD=$PWD/$m" -cpu "$cpu"
        else
            set -- env "LD_PRELOAD=$PWD/$m"
        fi
        bound "$what, LD_PRELOAD=$m" "$expect" "$m" "" preload_ --libc "$@"
    done
}
# The LD_PRELOAD modules (not in a sanitizer build: the sanitizer's runtime
# must come first, preload/test-lib.sh).
modules=
for m in preload/.libs/libmemasm-preload.so preload/.libs/libmemasm-profile.so; do
    [ -f "$m" ] && modules="$modules $m"
done
# This CPU: AVX2 as the kernel sees it (cpuinfo's flag also needs the OS to
# save the ymm state, as the resolver's test).
if grep -qw avx2 /proc/cpuinfo; then
    check "this CPU (AVX2)" shared
else
    check "this CPU (no AVX2)" base
fi
[ -n "$modules" ] || [ -n "$MEMASM_SANITIZE" ] || {
    echo "FAIL: no preload module built"
    status=1
}
if [ -n "$MEMASM_SANITIZE" ]; then
    # a sanitizer's shadow memory does not map under qemu-user (the
    # process is killed)
    echo "SKIPPED: the emulated CPUs (a build with sanitizers: $MEMASM_SANITIZE)"
elif command -v qemu-x86_64 > /dev/null 2>&1; then
    check "qemu-x86_64 -cpu Nehalem (no AVX2)" base Nehalem
    check "qemu-x86_64 -cpu Haswell (AVX2)" shared Haswell
else
    echo "SKIPPED: the emulated CPUs (no qemu-x86_64; ./bootstrap --cross installs qemu-user)"
fi
exit $status
