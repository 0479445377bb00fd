#!/bin/sh
# preload-early.sh -- the copy functions before libmemasm's constructor.
#
# test-preload-early links preload/test-early.c, whose malloc uses memset
# and memcpy from its first call, and whose constructor checks the copy
# functions and starts 8 threads that copy while libmemasm initialises.
# Asserts: LD_DEBUG=files ("calling init" lines) shows that constructor
# running before the module's; the program passes, also with LD_BIND_NOW=1
# and with MEMASM_DEBUG=1 (libmemasm's configuration messages at start-up).
. "${srcdir:-.}/preload/test-lib.sh"

echo "== constructor order"
LD_PRELOAD="$so" LD_DEBUG=files "$early" early >"$tmp".out 2>"$tmp".err || fail "run with LD_DEBUG=files"
order=$(sed -n 's/.*calling init: .*\/\(lib[a-z-]*\)\.so.*/\1/p' "$tmp".err | grep -E '^libtest-early$|^libmemasm-preload$' | tr '\n' ' ')
echo "init order: $order"
case $order in
"libtest-early libmemasm-preload ") ;;
*) fail "libtest-early's constructor does not run before libmemasm-preload's: $order" ;;
esac

run "early" env LD_PRELOAD="$so" "$early" early
run "early, LD_BIND_NOW=1" env LD_PRELOAD="$so" LD_BIND_NOW=1 "$early" early
run "early, MEMASM_DEBUG=1" env LD_PRELOAD="$so" MEMASM_DEBUG=1 "$early" early
exit $status
