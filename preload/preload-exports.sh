#!/bin/sh
# preload-exports.sh -- the module's dynamic symbol table defines exactly
# the names of preload/exports.sym: nothing of libmemasm or cpu_features,
# and nothing the toolchain adds (nm -D --defined-only; $NM from configure).
. "${srcdir:-.}/preload/test-lib.sh"

${NM:-nm} -D --defined-only "$so" | awk '{ print $NF }' | sort >"$tmp".got
sort "${srcdir:-.}/preload/exports.sym" >"$tmp".want
cat "$tmp".got
if ! cmp -s "$tmp".got "$tmp".want; then
    diff "$tmp".want "$tmp".got
    fail "the defined dynamic symbols differ from preload/exports.sym (< expected, > found)"
fi
exit $status
