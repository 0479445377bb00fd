#!/bin/sh
# preload-debug.sh -- MEMASM_DEBUG=1: one line per operation at exit.
#
#   - test-preload count 1000 makes 1000 calls of each of memcpy, memmove
#     and memset: the lines say at least 1000 each and name a kernel and
#     the set of entry points the names went to, the one memasm-info
#     names (libmemasm.so's on this CPU); where qemu-x86_64 is installed
#     on an x86_64 host, the base entries on an emulated CPU without AVX2
#     (Nehalem) and the AVX2 entries on one without AVX-512 (Haswell);
#   - without MEMASM_DEBUG, or with MEMASM_DEBUG=0, nothing on stderr;
#   - exit() while 4 threads copy, exit() from a signal handler, and a
#     program whose atexit handler closes stderr: status 0, the three
#     lines, no crash.
. "${srcdir:-.}/preload/test-lib.sh"

# count_of OP FILE: the number on OP's line.
count_of() {
    sed -n "s/^libmemasm-preload: $1 \([0-9]*\) calls (kernel [a-z0-9_]*, [a-z0-9]* entries)\$/\1/p" "$2"
}

# check_entries NAME FILE SET: all three lines name SET's entries.
check_entries() {
    m=$(grep -c "^libmemasm-preload: .*, $3 entries)\$" "$2")
    if [ "$m" -ne 3 ]; then
        fail "$1: $m of the lines name the $3 entries, not 3"
    else
        echo "ok: $1: the names went to the $3 entries"
    fi
}

check_lines() { # NAME FILE MIN
    for op in memcpy memmove memset; do
        n=$(count_of $op "$2")
        if [ -z "$n" ]; then
            fail "$1: no '$op' line"
        elif [ "$n" -lt "$3" ]; then
            fail "$1: $op $n calls, expected at least $3"
        fi
    done
}

echo "== count 1000, MEMASM_DEBUG=1"
LD_PRELOAD="$so" MEMASM_DEBUG=1 "$prog" count 1000 2>"$tmp".err || fail "count (status $?)"
grep '^libmemasm-preload:' "$tmp".err
check_lines count "$tmp".err 1000
if [ "$(grep -c '^libmemasm-preload:' "$tmp".err)" -ne 3 ]; then
    fail "expected exactly 3 libmemasm-preload lines"
fi
set=$(./memasm-info --json 2>/dev/null | sed -n 's/.*"entries":"\([a-z0-9]*\)".*/\1/p')
check_entries "this CPU" "$tmp".err "${set:-?}"
if command -v qemu-x86_64 > /dev/null 2>&1 && [ "$(uname -m)" = x86_64 ]; then
    for cpu in Nehalem:base Haswell:avx2; do
        echo "== count 100, MEMASM_DEBUG=1, qemu-x86_64 -cpu ${cpu%:*}"
        qemu-x86_64 -cpu "${cpu%:*}" -E LD_PRELOAD="$so" -E MEMASM_DEBUG=1 "$prog" count 100 \
            2>"$tmp".err || fail "count under qemu-x86_64 -cpu ${cpu%:*} (status $?)"
        grep '^libmemasm-preload:' "$tmp".err
        check_lines "qemu ${cpu%:*}" "$tmp".err 100
        check_entries "qemu-x86_64 -cpu ${cpu%:*}" "$tmp".err "${cpu#*:}"
    done
else
    echo "SKIPPED: the emulated CPUs (no qemu-x86_64 on an x86_64 host; ./bootstrap --cross installs qemu-user)"
fi

for v in unset 0; do
    echo "== count 1000, MEMASM_DEBUG $v"
    if [ $v = unset ]; then
        (unset MEMASM_DEBUG; LD_PRELOAD="$so" "$prog" count 1000) 2>"$tmp".err
    else
        LD_PRELOAD="$so" MEMASM_DEBUG=$v "$prog" count 1000 2>"$tmp".err
    fi || fail "count with MEMASM_DEBUG $v"
    if [ -s "$tmp".err ]; then
        cat "$tmp".err
        fail "MEMASM_DEBUG $v: something on stderr"
    fi
done

for mode in exit-threads exit-signal exit-closed; do
    echo "== $mode, MEMASM_DEBUG=1"
    LD_PRELOAD="$so" MEMASM_DEBUG=1 "$prog" $mode 2>"$tmp".err
    st=$?
    cat "$tmp".err
    [ $st -eq 0 ] || fail "$mode: status $st"
    check_lines $mode "$tmp".err 1
done
exit $status
