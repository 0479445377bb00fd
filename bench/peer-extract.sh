#!/bin/sh
# peer-extract.sh -- take memcpy/memmove/memset out of another C library's
# static archive and rename them, so memasm-bench can call them next to the
# system libc's in the same process.
#
# Usage: peer-extract.sh TAG ARCHIVE OUTPUT.o MEMBER...
#   Environment: AR, LD, OBJCOPY, NM (the build's tools; defaults ar, ld,
#   objcopy, nm).
#
# The members are linked into one relocatable object (ld -r, so references
# between them, such as musl's memmove -> __memcpy_fwd, are kept inside),
# memcpy/memmove/memset are renamed to memasm_peer_TAG_memcpy and so on,
# and every other global symbol is made local, so nothing can clash with
# or interpose on glibc.  The object is then checked with nm: it must define
# exactly the three renamed globals and leave no symbol undefined; anything
# else fails the build rather than linking something we did not mean to.
# A .note.GNU-stack section is added (musl's assembly objects lack one), so
# the benchmark does not get an executable stack.
set -eu

tag=$1
archive=$2
output=$3
shift 3
: "${AR:=ar}" "${LD:=ld}" "${OBJCOPY:=objcopy}" "${NM:=nm}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/memasm-peer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

members=
for m in "$@"; do
    (cd "$tmp" && $AR x "$archive" "$m") || {
        echo "peer-extract: $archive has no member $m" >&2
        exit 1
    }
    members="$members $tmp/$m"
done

# shellcheck disable=SC2086 # word splitting of $members is intended
$LD -r -z noexecstack -o "$tmp/combined.o" $members

renames=
keeps=
for f in memcpy memmove memset; do
    renames="$renames --redefine-sym $f=memasm_peer_${tag}_$f"
    keeps="$keeps --keep-global-symbol memasm_peer_${tag}_$f"
done
# objcopy applies --redefine-sym before --keep-global-symbol.
# shellcheck disable=SC2086
$OBJCOPY $renames $keeps "$tmp/combined.o" "$tmp/renamed.o"

# NM may carry flags (libtool sets "nm -B"); -B output is "value type name".
undef=$($NM "$tmp/renamed.o" | awk 'NF == 2 && $1 == "U" { print $2 }')
if test -n "$undef"; then
    echo "peer-extract: $tag objects need symbols we do not provide:" $undef >&2
    exit 1
fi
globals=$($NM -g --defined-only "$tmp/renamed.o" | awk 'NF == 3 { print $3 }' | sort | tr '\n' ' ')
want="memasm_peer_${tag}_memcpy memasm_peer_${tag}_memmove memasm_peer_${tag}_memset "
if test "$globals" != "$want"; then
    echo "peer-extract: $tag: expected globals '$want', found '$globals'" >&2
    exit 1
fi
mv "$tmp/renamed.o" "$output"
