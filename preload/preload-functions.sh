#!/bin/sh
# preload-functions.sh -- the exported functions, as a program sees them.
#
#   - with LD_PRELOAD every name resolves (dlsym, and the program's own
#     &memcpy) into libmemasm-preload.so; without it the same check fails
#     (it has teeth);
#   - every function against a byte-loop reference (test-preload functions),
#     also with LD_BIND_NOW=1, and where qemu-x86_64 is installed on an
#     x86_64 host on emulated CPUs without AVX2 (Nehalem) and without
#     AVX-512 (Haswell), whose names go to the base and AVX2 entries;
#   - each _chk function aborts with SIGABRT and glibc's message when the
#     object is smaller than n (test-preload chk);
#   - the module writes nothing to a program's stderr, with LD_BIND_NOW=1
#     too, in ls (whose libraries are relocated before the module): an
#     indirect function among the exported names makes glibc's loader print
#     "Relink `lib' with `module' for IFUNC symbol `memcpy'" there.
. "${srcdir:-.}/preload/test-lib.sh"

run "symbols" env LD_PRELOAD="$so" "$prog" symbols
echo "== symbols without LD_PRELOAD (must fail)"
if "$prog" symbols >"$tmp".out 2>&1; then
    cat "$tmp".out
    fail "without LD_PRELOAD the names were found in libmemasm-preload.so"
else
    head -n 3 "$tmp".out
fi
run "functions" env LD_PRELOAD="$so" "$prog" functions
run "functions, LD_BIND_NOW=1" env LD_PRELOAD="$so" LD_BIND_NOW=1 "$prog" functions
if command -v qemu-x86_64 > /dev/null 2>&1 && [ "$(uname -m)" = x86_64 ]; then
    for cpu in Nehalem Haswell; do
        run "functions, qemu-x86_64 -cpu $cpu" qemu-x86_64 -cpu $cpu -E LD_PRELOAD="$so" \
            "$prog" functions
    done
else
    echo "SKIPPED: the emulated CPUs (no qemu-x86_64 on an x86_64 host)"
fi
run "chk" env LD_PRELOAD="$so" "$prog" chk
for bind in "" 1; do
    echo "== ls with the module${bind:+, LD_BIND_NOW=1}: nothing on stderr"
    if ! env LD_PRELOAD="$so" ${bind:+LD_BIND_NOW=1} ls / >/dev/null 2>"$tmp".err; then
        fail "ls / with the module failed"
    fi
    if [ -s "$tmp".err ]; then
        head -n 5 "$tmp".err
        fail "the module made ls write to stderr${bind:+ (LD_BIND_NOW=1)}"
    fi
done
exit $status
