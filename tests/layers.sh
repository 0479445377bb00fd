#!/bin/sh
# layers.sh -- c/ is layered (c/README.md): each file of the library uses
# only symbols defined by its own layer or the layers below it.  Proved on
# the objects of this build: the undefined symbols of each object (nm -u)
# against the symbols each object defines, with each c/*.c file's layer
# read from the "Layer N" line at the top of the file, and the kernels
# under asm/<arch>/ in the layer of c/kernels.c.  A use of a symbol
# defined in a higher layer fails.  The same check with the layers in
# reverse order must fail too, or this test proves nothing.  One upward
# reference is allowed: c/thresholds.c's start-up anchor, a pointer to
# memasm_init in data (no code refers to it), checked as such.
# Exit status: 0 pass, 1 fail, 77 skipped (automake's convention).
srcdir=${srcdir:-.}
NM=${NM:-nm}
tmp=${TMPDIR:-/tmp}/memasm-layers.$$
trap 'rm -f "$tmp".*' EXIT

# The object a libtool .lo stands for (either kind names the same code).
object_of() {
    dir=$(dirname "$1")
    for kind in non_pic_object pic_object; do
        o=$(sed -n "s/^$kind='\(.*\)'$/\1/p" "$1")
        if [ -n "$o" ] && [ "$o" != none ] && [ -f "$dir/$o" ]; then
            echo "$dir/$o"
            return 0
        fi
    done
    return 1
}

layer_of() {
    sed -n '1,20s/^ \* Layer \([0-9][0-9]*\)[ (:].*/\1/p' "$1" | head -n 1
}

kernels_layer=$(layer_of "$srcdir/c/kernels.c")
[ -n "$kernels_layer" ] || { echo "FAIL: c/kernels.c has no 'Layer N' line"; exit 1; }

# "layer file object" for every object of libmemasm.
status=0
: > "$tmp.objs"
for src in "$srcdir"/c/*.c; do
    base=$(basename "$src" .c)
    layer=$(layer_of "$src")
    if [ -z "$layer" ]; then
        echo "FAIL: c/$base.c has no 'Layer N' line at the top"
        status=1
        continue
    fi
    lo=c/libmemasm_la-$base.lo
    [ -f "$lo" ] || continue # another architecture's kernel list
    obj=$(object_of "$lo") || { echo "FAIL: no object for $lo"; status=1; continue; }
    echo "$layer c/$base.c $obj" >> "$tmp.objs"
done
for lo in asm/*/*.lo; do
    [ -f "$lo" ] || continue
    # the preload module's own objects (preload-jump: its memcpy, memmove
    # and memset), not the library's
    case $(basename "$lo") in preload_* | preload-*) continue ;; esac
    obj=$(object_of "$lo") || { echo "FAIL: no object for $lo"; status=1; continue; }
    name=$(basename "$lo" .lo | sed 's/^libmemasm_la-//')
    echo "$kernels_layer $(dirname "$lo")/$name $obj" >> "$tmp.objs"
done
[ -s "$tmp.objs" ] || { echo "SKIP: no library objects here"; exit 77; }
grep -q ' c/init.c ' "$tmp.objs" || { echo "FAIL: c/init.c's object not found"; status=1; }

# "symbol layer file" for every global symbol defined; "symbol layer file"
# for every symbol used.
: > "$tmp.defs"
: > "$tmp.uses"
while read -r layer file obj; do
    $NM --defined-only "$obj" | awk -v l="$layer" -v f="$file" \
        '$(NF-1) ~ /^[A-Z]$/ { print $NF, l, f }' >> "$tmp.defs"
    $NM -u "$obj" | awk -v l="$layer" -v f="$file" '{ print $NF, l, f }' >> "$tmp.uses"
done < "$tmp.objs"

# Each use of a library symbol: "user layer, definer layer, user -> definer: symbol".
join_uses() {
    awk 'NR == FNR { dl[$1] = $2; df[$1] = $3; next }
         ($1 in dl) && df[$1] != $3 { print $2, dl[$1], $3 " -> " df[$1] ": " $1 }' \
        "$tmp.defs" "$tmp.uses"
}
join_uses > "$tmp.edges"
[ -s "$tmp.edges" ] || { echo "FAIL: no use of one library file by another found"; status=1; }

# Upward uses (definer's layer above the user's); with reverse, the layers
# are turned upside down.
upward() {
    awk -v rev="$1" '{ u = rev ? -$1 : $1; d = rev ? -$2 : $2 } d > u' "$tmp.edges"
}

# The one exception: the start-up anchor, a pointer to memasm_init in data
# (c/thresholds.c says why), which makes a static link take c/init.c and
# its constructor.  It is allowed only as data: no relocation against
# memasm_init in a code section of that object, so nothing there calls it.
is_anchor() { # file symbol
    [ "$2" = memasm_init ] || return 1
    obj=$(awk -v f="$1" '$2 == f { print $3 }' "$tmp.objs")
    ${READELF:-readelf} -rW "$obj" > "$tmp.rel" || return 1
    awk -v s="$2" '/^Relocation section/ { sec = $3; next }
        { for (i = 1; i <= NF; i++) if ($i == s) print sec }' "$tmp.rel" > "$tmp.secs"
    [ -s "$tmp.secs" ] && ! grep -q "text" "$tmp.secs"
}
upward 0 > "$tmp.up"
anchors=0
while read -r ul dl file arrow def sym; do
    if is_anchor "$file" "$sym"; then
        echo "ok: $file -> $def $sym is the start-up anchor (data only, no call)"
        anchors=$((anchors + 1))
    else
        echo "FAIL: $file (layer $ul) uses $sym of ${def%:} (layer $dl), a higher layer"
        status=1
    fi
done < "$tmp.up"
if [ $anchors -gt 1 ]; then
    echo "FAIL: $anchors start-up anchors; one is enough"
    status=1
fi
if ! upward 1 | grep -q .; then
    echo "FAIL: the check with the layers reversed finds nothing to refuse"
    status=1
fi
[ $status -eq 0 ] || exit 1

# The layering found, for the log: each file and the files it uses.
sort -n -k1,1 -k2,2 "$tmp.objs" | while read -r layer file obj; do
    used=$(awk -v f="$file" '$3 == f { split($5, d, ":"); print d[1] }' "$tmp.edges" |
        sort -u | paste -sd' ')
    echo "ok: layer $layer $file uses: ${used:-(only the C library)}"
done
echo "ok: $(wc -l < "$tmp.edges") uses between library files, none of them upward but the anchor"
exit 0
