#!/bin/sh
# preload-exports.sh -- each module's dynamic symbol table (libmemasm-preload.so,
# libmemasm-profile.so) defines exactly the names of preload/exports.sym:
# nothing of libmemasm or cpu_features, and nothing the toolchain adds
# (nm -D --defined-only; $NM from configure).
. "${srcdir:-.}/preload/test-lib.sh"

sort "${srcdir:-.}/preload/exports.sym" >"$tmp".want
for module in "$so" "$pso"; do
    echo "== $module"
    ${NM:-nm} -D --defined-only "$module" | awk '{ print $NF }' | sort >"$tmp".got
    cat "$tmp".got
    if ! cmp -s "$tmp".got "$tmp".want; then
        diff "$tmp".want "$tmp".got
        fail "the defined dynamic symbols differ from preload/exports.sym (< expected, > found)"
    fi
done
exit $status
