#!/bin/sh
# entry-select.sh -- libmemasm.so binds memasm_memcpy, memasm_memmove and
# memasm_memset per CPU (c/entry-select.c): to the base entries on a CPU
# without AVX2, to the AVX2 entries on one with AVX2 and without AVX-512,
# to the shared ones otherwise.  tests/entry-select (linked
# with the shared library) prints where each name landed and checks every
# length through it; this script compares the places with the library's
# own symbols (nm), on this CPU and, where qemu-x86_64 is installed, on
# emulated CPUs without AVX2 (Nehalem) and with it (Haswell; qemu-user has
# no AVX-512); memasm-info
# must name the same set (memasm_entries_bound, which memasm-bench and
# memasm-tune call).
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
$NM "$lib" > "$tmp.nm"
addr() {
    a=$(awk -v s="$1" '$3 == s { print $1 }' "$tmp.nm")
    [ -n "$a" ] || { echo "FAIL: no symbol $1 in $lib" >&2; return 1; }
    printf '0x%x\n' "0x$a"
}
status=0
# check WHAT EXPECT RUNNER...: run the program (through RUNNER), expect
# every name at its <op>_<EXPECT> entry.
check() {
    what=$1 expect=$2
    shift 2
    if ! "$@" "$prog" > "$tmp.out" 2>&1; then
        echo "FAIL: $what: $prog failed:"
        cat "$tmp.out"
        status=1
        return
    fi
    for op in memcpy memmove memset; do
        got=$(awk -v s="memasm_$op" '$1 == s { print $2 }' "$tmp.out")
        want=$(addr "memasm_${op}_$expect") || { status=1; continue; }
        if [ "$got" != "$want" ]; then
            others=
            for o in base avx2 shared; do
                [ "$o" = "$expect" ] || others="$others $o: $(addr "memasm_${op}_$o")"
            done
            echo "FAIL: $what: memasm_$op bound to $got, not memasm_${op}_$expect ($want;$others)"
            status=1
        else
            echo "ok: $what: memasm_$op bound to memasm_${op}_$expect ($got)"
        fi
    done
    grep '^ok: .* calls' "$tmp.out"
    # memasm-info (linked with the archive, as memasm-bench and memasm-tune)
    # names the same set, by the same rule
    info=$("$@" ./memasm-info --json 2>/dev/null | sed -n 's/.*"entries":"\([a-z0-9]*\)".*/\1/p')
    if [ "$info" != "$expect" ]; then
        echo "FAIL: $what: memasm-info says the entries are '$info', not $expect"
        status=1
    else
        echo "ok: $what: memasm-info names the $expect entries too"
    fi
}
# This CPU: AVX2 and AVX-512 as the kernel sees them (cpuinfo's flags also
# need the OS to save the ymm and zmm state, as the resolver's test).
flags=$(grep -m1 '^flags' /proc/cpuinfo)
has() { case " $flags " in *" $1 "*) return 0 ;; esac; return 1; }
if has avx2 && has avx512f && has avx512bw && has avx512vl; then
    check "this CPU (AVX-512)" shared env
elif has avx2; then
    check "this CPU (AVX2, no AVX-512)" avx2 env
else
    check "this CPU (no AVX2)" base env
fi
if [ -n "$MEMASM_SANITIZE" ]; then
    # a sanitizer's shadow memory does not map under qemu-user (the
    # process is killed)
    echo "SKIPPED: the emulated CPUs (a build with sanitizers: $MEMASM_SANITIZE)"
elif command -v qemu-x86_64 > /dev/null 2>&1; then
    check "qemu-x86_64 -cpu Nehalem (no AVX2)" base qemu-x86_64 -cpu Nehalem
    check "qemu-x86_64 -cpu Haswell (AVX2)" avx2 qemu-x86_64 -cpu Haswell
else
    echo "SKIPPED: the emulated CPUs (no qemu-x86_64; ./bootstrap --cross installs qemu-user)"
fi
exit $status
