#!/bin/sh
# preload-profile.sh -- libmemasm-profile.so and the mix files it writes.
#
#   - test-preload symbols, functions and chk (every name resolves into
#     this module, every function against a byte loop, the _chk aborts)
#     pass with this module, recording; so do exit() while threads copy,
#     from a signal handler and after stderr is closed, leaving a profile;
#   - test-profile calls prints the same bytes with and without the module
#     (it forwards every call correctly), and the profile holds exactly the
#     calls the program made: every size, source and destination alignment
#     count, from the main thread, a thread that ended early and two
#     concurrent ones, and none of libmemasm's own (its configuration is
#     read at start-up); 300 threads in turn, counted exactly in 2 blocks
#     (an ended thread's block is reused);
#   - %p is the process id; a relative name is in the start directory;
#     after fork the child's profile holds the child's calls only;
#   - a set-user-ID process ignores MEMASM_PROFILE (when run as root);
#   - a symbolic link at FILE is replaced, its target left alone; a file
#     that cannot be written is one line on stderr and the program's output
#     and exit status are unchanged; a bad MEMASM_PROFILE is refused with
#     one line;
#   - memasm-bench --mix runs the profile's mixes, and memasm-bench and
#     memasm-tune reject broken files naming the line and the problem.
. "${srcdir:-.}/preload/test-lib.sh"

tprog=$PWD/preload/test-profile
bench=$PWD/bench/memasm-bench
tune=$PWD/memasm-tune
[ -f "$pso" ] || { echo "FAIL: $pso not built"; exit 1; }
dir=$tmp.d
mkdir "$dir" || exit 1
trap 'rm -rf "$tmp".* "$dir"' EXIT

# rows FILE: the data rows, equal keys added up, sorted.
rows() {
    grep -v '^#' "$1" | grep -v '^checksum' |
        awk -F '\t' '{ s[$1 "\t" $2] += $3 } END { for (k in s) print k "\t" s[k] }' | LC_ALL=C sort
}

# libmemasm's own start-up reads a configuration (which makes calls of
# its own, not the program's): a file and inline keys.
conf=
[ -x "$PWD/memasm-info" ] && "$PWD/memasm-info" --config >"$tmp".conf 2>/dev/null && conf=$tmp.conf
echo "== test-profile calls, without and with the module (MEMASM_CONFIG=${conf:-none})"
"$tprog" calls >"$tmp".plain || fail "test-profile calls (status $?)"
MEMASM_CONFIG="$conf" MEMASM_TUNABLES=memcpy.erms_min=4096 MEMASM_PROFILE="$dir/calls.tsv" LD_PRELOAD="$pso" \
    "$tprog" calls >"$tmp".prof 2>"$tmp".err || fail "test-profile calls with the module (status $?)"
cmp "$tmp".plain "$tmp".prof || fail "the output differs with the module"
[ -s "$tmp".err ] && { cat "$tmp".err; fail "something on stderr"; }
if [ -f "$dir/calls.tsv" ]; then
    head -4 "$dir/calls.tsv"
    rows "$tmp".plain >"$tmp".want
    rows "$dir/calls.tsv" >"$tmp".got
    if ! cmp -s "$tmp".want "$tmp".got; then
        diff "$tmp".want "$tmp".got
        fail "the profile's counts are not the program's calls"
    else
        echo "profile: $(wc -l <"$tmp".got) rows, each the program's count"
    fi
    grep -q '^# pid [0-9]*; calls: memcpy 624, memmove 80, memset 304; per-thread blocks [1-4]$' "$dir/calls.tsv" ||
        fail "the header's call counts, or more than one block per thread"
    ls "$dir" | grep -q tmp && fail "a temporary file was left"
else
    fail "no profile written"
fi

# The exported functions against a byte loop, and the _chk aborts, with
# the calls recorded (preload-functions.sh runs the same on the other module).
export TEST_PRELOAD_MODULE=libmemasm-profile
run "test-preload symbols" env LD_PRELOAD="$pso" "$prog" symbols
run "test-preload functions, recording" env LD_PRELOAD="$pso" MEMASM_PROFILE="$dir/fn.tsv" "$prog" functions
run "test-preload chk, recording" env LD_PRELOAD="$pso" MEMASM_PROFILE="$dir/chk.tsv" "$prog" chk
grep -q '^memmove.size	' "$dir/fn.tsv" || fail "no memmove calls in the profile of test-preload functions"
# exit() while 4 threads copy, from a signal handler, after stderr is closed:
# no crash, no hang, a profile.
for mode in exit-threads exit-signal exit-closed; do
    run "test-preload $mode, recording" env LD_PRELOAD="$pso" MEMASM_PROFILE="$dir/$mode.tsv" "$prog" $mode
    grep -q '^memcpy.size	' "$dir/$mode.tsv" || fail "$mode: no profile"
done

# 300 threads one after another (more than the module's 256 blocks): every
# call counted, and the ended threads' blocks reused (2 blocks in all).
echo "== 300 threads in turn"
MEMASM_PROFILE="$dir/threads.tsv" LD_PRELOAD="$pso" "$tprog" threads 300 >"$tmp".thr || fail "status $?"
rows "$tmp".thr >"$tmp".want
rows "$dir/threads.tsv" >"$tmp".got
cmp -s "$tmp".want "$tmp".got || { diff "$tmp".want "$tmp".got | head; fail "300 threads: the counts"; }
sed -n 3p "$dir/threads.tsv"
grep -q '; per-thread blocks [12]$' "$dir/threads.tsv" || fail "300 threads in turn took more than 2 blocks"

echo "== fork, MEMASM_PROFILE with %p"
MEMASM_PROFILE="$dir/fork.%p.tsv" LD_PRELOAD="$pso" "$tprog" fork >"$tmp".fork ||
    fail "test-profile fork (status $?)"
n=$(ls "$dir" | grep -c '^fork\.[0-9]*\.tsv$')
[ "$n" -eq 2 ] || fail "expected 2 profiles (parent and child), found $n"
for f in "$dir"/fork.*.tsv; do
    if grep -q '^memset.size	77	' "$f"; then
        printf 'memset.dst\t64\t1\nmemset.size\t77\t1\n' >"$tmp".want
        rows "$f" >"$tmp".got
        cmp -s "$tmp".want "$tmp".got || { cat "$tmp".got; fail "the child's profile is not its one call"; }
    else
        rows "$tmp".fork >"$tmp".want
        rows "$f" >"$tmp".got
        cmp -s "$tmp".want "$tmp".got || fail "the parent's profile is not its calls"
    fi
done

echo "== a relative name (the program changes directory before it exits)"
(cd "$dir" && MEMASM_PROFILE=rel.%p.tsv LD_PRELOAD="$pso" "$tprog" calls >/dev/null) || fail "status $?"
ls "$dir" | grep -q '^rel\.[0-9]*\.tsv$' || fail "no profile in the directory the program started in"

echo "== a symbolic link at FILE"
echo "keep" >"$dir/victim"
ln -s "$dir/victim" "$dir/link.tsv"
MEMASM_PROFILE="$dir/link.tsv" LD_PRELOAD="$pso" "$tprog" calls >/dev/null || fail "status $?"
[ "$(cat "$dir/victim")" = keep ] || fail "the link's target was written"
[ -L "$dir/link.tsv" ] && fail "the link is still there"
grep -q '^memcpy.size	7	' "$dir/link.tsv" || fail "no profile in place of the link"

echo "== a file that cannot be written"
MEMASM_PROFILE="$dir/no/such/dir/p.tsv" LD_PRELOAD="$pso" "$tprog" calls >"$tmp".out 2>"$tmp".err
st=$?
cat "$tmp".err
[ $st -eq 0 ] || fail "status $st"
cmp -s "$tmp".plain "$tmp".out || fail "the output differs"
grep -q '^libmemasm-profile: .*p.tsv: cannot create a temporary file beside it (no such file or directory); no profile written$' \
    "$tmp".err || fail "no line saying the profile was not written"

for v in "$dir/x%d.tsv" ""; do
    echo "== MEMASM_PROFILE='$v'"
    MEMASM_PROFILE="$v" LD_PRELOAD="$pso" "$tprog" calls >"$tmp".out 2>"$tmp".err || fail "status $?"
    cat "$tmp".err
    [ "$(grep -c '^libmemasm-profile: MEMASM_PROFILE.*nothing recorded$' "$tmp".err)" -eq 1 ] ||
        fail "expected one line refusing it"
    cmp -s "$tmp".plain "$tmp".out || fail "the output differs"
done
ls "$dir" | grep -q '^x' && fail "a file was written for a refused name"

# Secure execution (AT_SECURE): a set-user-ID copy of the program linked to
# the module, run by root as another user, must ignore MEMASM_PROFILE (no
# file, no attempt, the same output); the copy without the bit records.
linked=$PWD/preload/test-profile-linked
if [ "$(id -u)" -eq 0 ] && [ -x "$linked" ]; then
    echo "== MEMASM_PROFILE in a set-user-ID process"
    chmod 777 "$dir"
    cp "$linked" "$dir/suid"
    MEMASM_PROFILE="$dir/linked.tsv" "$dir/suid" calls >"$tmp".out 2>&1 || fail "linked (status $?)"
    [ -f "$dir/linked.tsv" ] || fail "the linked program wrote no profile (the check below would prove nothing)"
    chown 65534 "$dir/suid" && chmod 4755 "$dir/suid" || fail "cannot make a set-user-ID copy"
    MEMASM_PROFILE="$dir/secure.tsv" "$dir/suid" calls >"$tmp".out 2>"$tmp".err || fail "set-user-ID (status $?)"
    cat "$tmp".err
    [ -e "$dir/secure.tsv" ] && fail "a set-user-ID process wrote MEMASM_PROFILE's file"
    [ -s "$tmp".err ] && fail "a set-user-ID process said something about MEMASM_PROFILE"
    cmp -s "$tmp".plain "$tmp".out || fail "the set-user-ID process's output differs"
    chmod 755 "$dir"
else
    echo "== (not root: the set-user-ID check is skipped)"
fi

if [ -x "$bench" ] && [ -f "$dir/calls.tsv" ]; then
    echo "== memasm-bench --mix (the profile)"
    "$bench" --mix "$dir/calls.tsv" --candidates memasm,libc --temp hot --rounds 3 --min-time 20 >"$tmp".bench 2>&1 ||
        fail "memasm-bench --mix (status $?)"
    grep '^mix:\|^== ' "$tmp".bench
    for op in memcpy memmove-fwd memset; do
        grep -q "^== $op mix (calls.tsv), hot" "$tmp".bench || fail "no $op mix"
    done
    grep -q '^== .* aligned ' "$tmp".bench && fail "sweeps ran with --mix"
    grep -q 'memcpy 624 calls' "$tmp".bench || fail "the header does not count the profile's memcpy calls"

    # Broken files: exit status 2 and the line and problem named.
    check_bad() { # TEXT EXPECTED-MESSAGE
        printf "$1" >"$tmp".bad
        for prog in "$bench" "$tune --output $dir/t.conf"; do
            # shellcheck disable=SC2086 # the tuner's words
            $prog --mix "$tmp".bad >"$tmp".out 2>&1
            st=$?
            if [ $st -eq 0 ] || ! grep -qF -- "$2" "$tmp".out; then
                cat "$tmp".out
                fail "${prog%% *} --mix accepted, or did not say '$2' (status $st), for: $1"
            fi
        done
        echo "rejected: $2"
    }
    check_bad 'memcpy.size\t8\t3\nmemcpy.src\t8\t3\nmemcpy.dst\n' 'line 3: expected key<TAB>value<TAB>count, or value<TAB>count'
    check_bad 'memcpy.size\t8\t3\nmemcpy.src\t8\t3\nmemcpy.dst\t8\n' 'line 3: value<TAB>count in a profile'
    check_bad '# c\nmemcpy.size\t8\t3\nmemcpy.sizes\t8\t3\n' "line 3: unknown key 'memcpy.sizes'"
    check_bad 'memcpy.size\t8\t3\nmemcpy.src\t12\t3\nmemcpy.dst\t8\t3\n' 'line 2: an alignment is a power of two from 1 to 64'
    check_bad 'memcpy.size\t8\tmany\n' 'line 1: value and count must be unsigned integers'
    check_bad 'memcpy.size\t8\t3\n64\t1\n' 'line 2: value<TAB>count in a profile'
    check_bad 'memcpy.size\t8\t3\nmemcpy.src\t8\t3\n' 'memcpy.size has calls but memcpy.dst has none'
    check_bad 'memset.src\t8\t3\n' "line 1: unknown key 'memset.src'"
    check_bad '# nothing\n' 'no calls (no rows, or all counts are zero)'
    check_bad '8\t1\t2\t3\n' 'line 1: too many fields'
    "$bench" --mix "$dir/none.tsv" >"$tmp".out 2>&1 && fail "a missing file was accepted"
    grep -q 'none.tsv: No such file' "$tmp".out || fail "a missing file: no reason given"
fi
exit $status
