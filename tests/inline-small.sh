#!/bin/sh
# inline-small.sh -- with MEMASM_INLINE_SMALL, memasm.h lets the compiler
# expand constant small copies: at -O2 an object whose functions copy,
# move and fill 8 (and MEMASM_INLINE_SMALL_MAX) bytes needs no symbol at
# all (no memasm_*, no memcpy/memmove/memset of the C library), while one
# whose sizes are variables, or a constant above the bound, needs
# memasm_memcpy, memasm_memmove and memasm_memset.  Without the macro the
# constant object calls the library too, which shows the check can fail.
#
# Compilers: configure's CC (tests/header-compile.env, the cross compiler
# on a cross build, with configure's NM), and on a native build also gcc and
# clang from PATH.  Only compiles; the results at run time are
# tests/test_inline_small's.  Exit status 0 pass, 1 fail, 77 skip.
set -u
srcdir=${srcdir:-.}
NM=${NM:-nm}
tmp=${TMPDIR:-/tmp}/memasm-inline.$$
mkdir "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT
CONFIGURED_CC=
[ -f tests/header-compile.env ] && . ./tests/header-compile.env

cat >"$tmp/const.c" <<'EOF'
#include <memasm.h>
void *c_cpy(void *d, const void *s) { return memasm_memcpy(d, s, 8); }
void *c_self(void *d) { return memasm_memcpy(d, d, 8); }
void *c_mov(void *d) { return memasm_memmove((char *)d + 1, d, 8); }
void *c_set(void *d, int c) { return memasm_memset(d, c, 8); }
void *c_zero(void *d, int c) { return memasm_memset(d, c, 0); }
#ifdef MEMASM_INLINE_SMALL_MAX
void *c_max(void *d, const void *s) { return memasm_memcpy(d, s, MEMASM_INLINE_SMALL_MAX); }
#endif
EOF
cat >"$tmp/var.c" <<'EOF'
#include <memasm.h>
void *v_cpy(void *d, const void *s, size_t n) { return memasm_memcpy(d, s, n); }
void *v_mov(void *d, const void *s, size_t n) { return memasm_memmove(d, s, n); }
void *v_set(void *d, int c, size_t n) { return memasm_memset(d, c, n); }
EOF
cat >"$tmp/big.c" <<'EOF'
#include <memasm.h>
void *b_cpy(void *d, const void *s) { return memasm_memcpy(d, s, 65); }
void *b_mov(void *d, const void *s) { return memasm_memmove(d, s, 65); }
void *b_set(void *d, int c) { return memasm_memset(d, c, 65); }
EOF

failed=0
tried=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

# undefined CC FLAGS FILE: the undefined symbols of FILE compiled with CC,
# one a line; the compiler's messages go to $tmp/err.
undefined() {
    cc=$1 flags=$2 file=$3
    # shellcheck disable=SC2086 # a compiler is a command with its options
    $cc $flags -Wall -Wextra -Werror -I"$srcdir/include" -c -o "$tmp/o.o" "$tmp/$file" 2>"$tmp/err" || {
        cat "$tmp/err"
        echo "(compile failed)"
        return 1
    }
    $NM -u "$tmp/o.o" | awk '{ print $NF }' | sort -u
}

# expect CC: the three cases with one compiler.
expect() {
    cc=$1
    tried=$((tried + 1))
    u=$(undefined "$cc" "-O2 -DMEMASM_INLINE_SMALL" const.c) || { fail "$cc: const.c"; return; }
    if [ -n "$u" ]; then
        fail "$cc -O2 -DMEMASM_INLINE_SMALL: constant 8-byte calls still need: $(echo $u)"
    else
        echo "ok: $cc -O2 -DMEMASM_INLINE_SMALL: constant 8-byte memcpy, self-copy, memmove, memset and 0-byte memset need no symbol"
    fi
    u=$(undefined "$cc" "-O2 -DMEMASM_INLINE_SMALL" var.c) || { fail "$cc: var.c"; return; }
    for f in memasm_memcpy memasm_memmove memasm_memset; do
        echo "$u" | grep -qx "$f" || fail "$cc -O2 -DMEMASM_INLINE_SMALL: a variable size does not call $f (needs: $(echo $u))"
    done
    echo "$u" | grep -Eqx 'memcpy|memmove|memset' && fail "$cc: a variable size calls the C library: $(echo $u)"
    u=$(undefined "$cc" "-O2 -DMEMASM_INLINE_SMALL" big.c) || { fail "$cc: big.c"; return; }
    [ "$(echo "$u" | grep -c '^memasm_mem')" -eq 3 ] ||
        fail "$cc -O2 -DMEMASM_INLINE_SMALL: 65 bytes does not call the three functions (needs: $(echo $u))"
    u=$(undefined "$cc" "-O2" const.c) || { fail "$cc: const.c without the macro"; return; }
    [ "$(echo "$u" | grep -c '^memasm_mem')" -eq 3 ] ||
        fail "$cc -O2 without the macro: the constant calls do not call the library (needs: $(echo $u))"
    echo "ok: $cc: variable sizes and 65 bytes call memasm_memcpy, memasm_memmove, memasm_memset; without the macro so do 8 bytes"
}

# The expansion exists only on x86_64 and aarch64 (memasm.h says why):
# on another target the constant object must call the library as well.
target=$(${CONFIGURED_CC:-cc} -dumpmachine 2>/dev/null)
case $target in
x86_64* | aarch64*) ;;
*)
    echo "target $target: no expansion (the header calls libmemasm for every size)"
    tried=1
    u=$(undefined "$CONFIGURED_CC" "-O2 -DMEMASM_INLINE_SMALL" const.c) || fail "$CONFIGURED_CC: const.c"
    [ "$(echo "$u" | grep -c '^memasm_mem')" -eq 3 ] || fail "$CONFIGURED_CC: constant calls on $target: $(echo $u)"
    [ $failed -eq 0 ] && echo "PASS: every call on $target goes to libmemasm"
    [ $failed -eq 0 ]
    exit $?
    ;;
esac

seen=' '
native=no
[ "$target" = "$(gcc -dumpmachine 2>/dev/null)" ] && native=yes
for cc in "$CONFIGURED_CC" gcc clang; do
    [ -n "$cc" ] && command -v "${cc%% *}" >/dev/null 2>&1 || continue
    [ "$cc" = "$CONFIGURED_CC" ] || [ $native = yes ] || continue
    case $seen in *" $cc "*) continue ;; esac
    seen="$seen$cc "
    expect "$cc"
done
if [ $tried -eq 0 ]; then
    echo "SKIP: no compiler"
    exit 77
fi
if [ $failed -ne 0 ]; then
    echo "FAIL: $failed checks"
    exit 1
fi
echo "PASS: $tried compilers"
exit 0
