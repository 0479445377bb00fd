#!/bin/sh
# exports.sh -- libmemasm.so exports exactly the API include/memasm.h
# declares (every MEMASM_API function, nothing else), and the header's
# version macros name the library's version.
# Exit status: 0 pass, 1 fail, 77 skipped (automake's convention).
srcdir=${srcdir:-.}
lib=.libs/libmemasm.so
NM=${NM:-nm}
if [ ! -f "$lib" ]; then
    echo "SKIP: no $lib (a build without shared libraries)"
    exit 77
fi
tmp=${TMPDIR:-/tmp}/memasm-exports.$$
trap 'rm -f "$tmp".*' EXIT
# Functions: the name before '(' on every MEMASM_API line of the header.
sed -n 's/^MEMASM_API[^(]*[ *]\(memasm_[a-z0-9_]*\)(.*/\1/p' "$srcdir/include/memasm.h" | sort -u > "$tmp.api"
$NM -D --defined-only "$lib" | awk '$2 ~ /^[TtWDdBbRrVvi]$/ { print $3 }' | sed 's/@.*//' | sort -u > "$tmp.lib"
status=0
if ! cmp -s "$tmp.api" "$tmp.lib"; then
    echo "FAIL: the exports of $lib differ from include/memasm.h (< header only, > library only):"
    diff "$tmp.api" "$tmp.lib" | grep '^[<>]'
    status=1
else
    echo "ok: $(wc -l < "$tmp.api") exported functions, exactly the header's"
fi
[ -s "$tmp.api" ] || { echo "FAIL: no MEMASM_API function found in the header"; status=1; }
# The header's version against configure's (config.h's PACKAGE_VERSION).
hv=$(sed -n 's/^#define MEMASM_VERSION "\(.*\)"$/\1/p' "$srcdir/include/memasm.h")
parts=$(sed -n 's/^#define MEMASM_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' "$srcdir/include/memasm.h" | paste -sd.)
pv=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' config.h)
if [ -z "$hv" ] || [ "$hv" != "$pv" ] || [ "$parts" != "$pv" ]; then
    echo "FAIL: memasm.h says MEMASM_VERSION '$hv' ($parts), configure says '$pv'"
    status=1
else
    echo "ok: MEMASM_VERSION $hv, as configure's"
fi
exit $status
