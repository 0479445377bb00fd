#!/bin/sh
# header-compile.sh -- include/memasm.h compiles cleanly as C89 (-pedantic),
# C99, C11, C++11 and C++17 with -Wall -Wextra -Werror (and -Wrestrict where
# the compiler knows it), in a file that calls memasm_memcpy(p, p, n), which
# the header allows, each once as it is and once with MEMASM_INLINE_SMALL
# (constant small copies, self-copies and overlapping moves expanded by the
# compiler).  Only compiles (-c), so the host's compilers serve on a cross
# build too.
#
# Compilers: configure's CC (tests/header-compile.env, written by make), the
# CC and CXX of the environment, and gcc, clang, g++, clang++ from PATH;
# each one found is used.  Skipped (77) when there is no C compiler at all.
set -u
srcdir=${srcdir:-.}
tmp=${TMPDIR:-/tmp}/memasm-hdr.$$
mkdir "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT
CONFIGURED_CC=
[ -f tests/header-compile.env ] && . ./tests/header-compile.env
configured_cc=$CONFIGURED_CC

cat >"$tmp/use.c" <<'EOF'
#include <memasm.h>

int main(void)
{
    char buf[64] = {0};
    char *p = buf;
    size_t n = sizeof buf;
    memasm_memcpy(p, p, n); /* self-copy: allowed */
    memasm_memmove(p + 1, p, n - 1);
    memasm_memset(p, 0, n);
    memasm_memcpy(p, p, 8); /* the small constant sizes MEMASM_INLINE_SMALL expands */
    memasm_memmove(p + 1, p, 8);
    memasm_memset(p, 0, 0);
    return memasm_memcpy(p, p + 32, 16) == p ? 0 : 1;
}
EOF
cp "$tmp/use.c" "$tmp/use.cc"

tried=0
failed=0
seen=' '
# check LANG COMPILER STD...: compile use.c (LANG c) or use.cc (c++) once
# per standard.
check() {
    lang=$1 cc=$2
    shift 2
    case $seen in *" $lang:$cc "*) return ;; esac
    seen="$seen$lang:$cc "
    src=$tmp/use.c
    [ "$lang" = c++ ] && src=$tmp/use.cc
    # Does this compiler run at all, and does it know -Wrestrict (clang
    # does not, and -Werror makes an unknown warning option an error)?
    probe=$tmp/probe.c
    [ "$lang" = c++ ] && probe=$tmp/probe.cc
    echo 'int memasm_probe;' >"$probe"
    $cc -c -o "$tmp/probe.o" "$probe" >/dev/null 2>&1 || {
        echo "skip: $cc does not compile here"
        return
    }
    wrestrict=-Wrestrict
    $cc -Werror -Wrestrict -c -o "$tmp/probe.o" "$probe" >/dev/null 2>&1 || wrestrict=
    for std; do
        for inline in "" -DMEMASM_INLINE_SMALL; do
            flags="-std=$std -pedantic -Wall -Wextra $wrestrict -Werror -O2 $inline"
            tried=$((tried + 1))
            if $cc $flags -I"$srcdir/include" -c -o "$tmp/use.o" "$src" 2>"$tmp/err"; then
                echo "ok: $cc $flags"
            else
                echo "FAIL: $cc $flags"
                cat "$tmp/err"
                failed=$((failed + 1))
            fi
        done
    done
}

# A compiler is a command with its options ("gcc -m32"): split when run.
for cc in "$configured_cc" "${CC:-}" gcc clang; do
    [ -n "$cc" ] && command -v "${cc%% *}" >/dev/null 2>&1 && check c "$cc" c89 c99 c11
done
for cxx in "${CXX:-}" g++ clang++; do
    [ -n "$cxx" ] && command -v "${cxx%% *}" >/dev/null 2>&1 && check c++ "$cxx" c++11 c++17
done

if [ "$tried" -eq 0 ]; then
    echo "SKIP: no compiler to include memasm.h with"
    exit 77
fi
if [ "$failed" -ne 0 ]; then
    echo "FAIL: memasm.h failed in $failed of $tried compilations"
    exit 1
fi
echo "PASS: memasm.h in $tried compilations"
exit 0
