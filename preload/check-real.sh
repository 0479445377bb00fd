#!/bin/bash
# check-real.sh -- real programs with and without libmemasm-preload.so
# (make check-real; .ci/run runs it after the native make check).
#
#   check-real.sh [--mib N]
#
# MEMASM_PRELOAD names libmemasm-preload.so; MEMASM_PROFILE_SO and
# MEMASM_BENCH, when set, libmemasm-profile.so and memasm-bench for a last
# run: sqlite3's job under the profile module, outputs compared, and
# memasm-bench --mix on its profile.
#
# Each program runs the same job twice, without and with
# LD_PRELOAD=$MEMASM_PRELOAD, and every output (compressed streams,
# decompressed data, database dumps, checksums, sorted text, copies) must be
# the same byte for byte; decompressed data and copies must also equal the
# input.  Then each runs once more with the module and MEMASM_DEBUG=1 on a
# small input, and its exit lines must show calls served.  Printed per
# program: the wall-clock seconds of both runs and their ratio
# (preload / no preload; one run each, after sync, so a few percent is
# noise).
#
# The jobs: gzip and zstd compress and decompress an N MiB file (default
# 256; mixed text and random bytes), xz the same on N/16 MiB (xz -6 runs
# at about 1 MB/s here); sqlite3 builds a database of 100000 rows with blobs of 50 to
# 1000 bytes (some doubled), updates, deletes, queries, vacuums and dumps
# it; python3 slices, copies, joins and
# edits bytes, bytearray, memoryview and array objects of 0 to 64 MiB and
# prints checksums; sort sorts 2 million lines in 16 MiB of memory (so it
# merges temporary files, with 2 threads); cp copies the N MiB file, dd
# copies it with several block sizes (different ibs and obs make dd copy
# between its buffers).  About 2 minutes at N = 256 on 2 cores.
set -euo pipefail

mib=256
while [ $# -gt 0 ]; do
    case $1 in
    --mib) mib=$2; shift 2 ;;
    *) echo "check-real: unknown argument '$1' (usage: check-real.sh [--mib N])" >&2; exit 2 ;;
    esac
done

if [ -n "${TEST_EMULATOR:-}" ]; then
    echo "check-real: a cross build; LD_PRELOAD into host programs makes no sense under $TEST_EMULATOR" >&2
    exit 1
fi
so=${MEMASM_PRELOAD:?set MEMASM_PRELOAD to libmemasm-preload.so}
[ -f "$so" ] || { echo "check-real: $so not found (make first)" >&2; exit 1; }
# The Debian packages' programs (bootstrap installs them), not whatever a
# user's PATH puts first.
py=/usr/bin/python3
for p in gzip xz zstd sqlite3 sort cp dd; do
    [ -x "/usr/bin/$p" ] || [ -x "/bin/$p" ] || { echo "check-real: $p missing (./bootstrap installs it)" >&2; exit 1; }
done
[ -x $py ] || { echo "check-real: $py missing (./bootstrap installs it)" >&2; exit 1; }
export PATH=/usr/bin:/bin LC_ALL=C PYTHONHASHSEED=0
unset MEMASM_DEBUG

work=$(mktemp -d "${TMPDIR:-/tmp}/memasm-check-real.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
failed=0
results=

now() { date +%s.%N; }

# ---- inputs (generated without the module) ---------------------------------
$py -I - "$mib" <<'EOF'
import random, sys
mib = int(sys.argv[1])
rnd = random.Random(16)
words = ["".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(2, 12)))
         for _ in range(5000)]
blocks = []
for b in range(16):
    lines, size = [], 0
    while size < 768 * 1024:
        line = "%d,%s,%s,%.6f\n" % (rnd.randrange(10**9), rnd.choice(words), rnd.choice(words),
                                    rnd.random() * 1000)
        lines.append(line)
        size += len(line)
    blocks.append("".join(lines).encode()[: 768 * 1024])
with open("data", "wb") as f:
    for i in range(mib):
        f.write(blocks[i % 16][i % 4096:] + blocks[(i * 7) % 16][: i % 4096])
        f.write(rnd.randbytes(256 * 1024))
with open("data-small", "wb") as f:
    f.write(blocks[3][: 300 * 1024] + rnd.randbytes(100 * 1024))
with open("lines", "w") as f:
    for i in range(2_000_000):
        f.write("%s %s %d\n" % (rnd.choice(words), rnd.choice(words), rnd.randrange(10**7)))
EOF
head -c $((mib / 16 * 1048576)) data >data-xz
head -n 5000 lines >lines-small

cat >bytes.py <<'EOF'
# Slicing, copying and editing of bytes-like objects of 0 to 64 MiB; one
# line of checksums per size.
import array, copy, hashlib, sys
top = int(sys.argv[1])
base = bytes(range(251)) * (top // 251 + 2)
sizes = [0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256, 511, 512,
         1000, 4095, 4096, 4097, 65536, 100003, 1 << 20, (1 << 20) + 1, 8 << 20, 64 << 20]
total = hashlib.sha256()
for n in [s for s in sizes if s <= top]:
    b = base[7:7 + n]                     # bytes slice
    ba = bytearray(b)                     # copy
    ba[1:n // 2 + 1] = ba[0:n // 2]       # overlapping move within the object
    mv = memoryview(ba)
    c = bytes(mv[n // 3:n // 3 + n // 2])  # memoryview slice to bytes
    z = bytearray(n)                      # zero-filled
    z[:] = b
    z[n // 4:n // 4] = b[:n // 8]         # insertion: the tail moves up
    del z[:n // 5]                        # deletion at the front
    arr = array.array("I", b[:n - n % 4])
    arr2 = copy.copy(arr)
    arr2.extend(arr[:len(arr) // 2])
    arr2.reverse()
    deep = copy.deepcopy([b[:16], ba[:16], n])
    joined = b"".join([b[:n // 3], c, b[:10]])
    rep = (b[:4096] * (n // 4096 + 1))[:n]
    parts = (b, ba, c, z, arr2.tobytes(), joined, rep, repr(deep).encode())
    for p in parts:
        total.update(p)
    print(n, " ".join(hashlib.sha256(p).hexdigest()[:12] for p in parts))
print("total", total.hexdigest())
EOF

cat >db.sql <<'EOF'
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, data BLOB);
CREATE INDEX t_name ON t(name);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ROWS)
INSERT INTO t SELECT i, printf('row-%08d-%s', i * 7919 % 1000003, hex(i * 31)),
  CAST(replace(printf('%.*c', 50 + i * 37 % 950, 'x'), 'x', char(65 + i % 26)) AS BLOB)
FROM n;
UPDATE t SET data = data || data WHERE id % 10 = 0;
DELETE FROM t WHERE id % 7 = 0;
SELECT count(*), sum(length(data)), max(length(data)) FROM t;
SELECT name, length(data), hex(substr(data, 1, 8)) FROM t ORDER BY name LIMIT 20;
SELECT id % 26, count(*), sum(length(data)) FROM t GROUP BY id % 26;
VACUUM;
EOF

# ---- the jobs ----------------------------------------------------------------
# Each job writes its outputs into the current directory; $1 is "full" or
# "small" (the MEMASM_DEBUG run).  Only the programs under test run with
# "${pre[@]}" (the module, or nothing); checking is done afterwards.
job_gzip() {
    local in=../data; [ "$1" = full ] || in=../data-small
    "${pre[@]}" gzip -6 -c "$in" >out.gz && "${pre[@]}" gzip -dc out.gz >out.dec
}
job_xz() {
    local in=../data-xz; [ "$1" = full ] || in=../data-small
    "${pre[@]}" xz -6 -T1 -c "$in" >out.xz && "${pre[@]}" xz -dc out.xz >out.dec
}
job_zstd() {
    local in=../data; [ "$1" = full ] || in=../data-small
    "${pre[@]}" zstd -q -3 -T1 -c "$in" >out.zst && "${pre[@]}" zstd -q -dc out.zst >out.dec
}
job_sqlite3() {
    local rows=100000; [ "$1" = full ] || rows=500
    sed "s/ROWS/$rows/" ../db.sql >db.sql &&
    "${pre[@]}" sqlite3 db <db.sql >query.out && "${pre[@]}" sqlite3 db .dump >dump.sql
}
job_python3() {
    local top=$((64 << 20)); [ "$1" = full ] || top=65536
    "${pre[@]}" $py -I ../bytes.py $top >sums.out
}
job_sort() {
    local in=../lines; [ "$1" = full ] || in=../lines-small
    "${pre[@]}" sort -S 16M --parallel=2 -T . "$in" >sorted.out
}
job_cp_dd() {
    local in=../data; [ "$1" = full ] || in=../data-small
    "${pre[@]}" cp "$in" copy &&
    "${pre[@]}" dd if="$in" of=dd-4k bs=4k status=none &&
    "${pre[@]}" dd if="$in" of=dd-odd ibs=1000 obs=4096 status=none &&
    "${pre[@]}" dd if="$in" of=dd-1m ibs=1M obs=65000 status=none &&
    "${pre[@]}" dd if="$in" of=dd-sync ibs=3000 obs=512 conv=sync status=none
}
# The outputs that must equal an input (the rest are compared between runs).
same_as_input() {
    case $1 in
    gzip | zstd) echo "out.dec ../data" ;;
    xz) echo "out.dec ../data-xz" ;;
    cp_dd) echo "copy ../data dd-4k ../data dd-odd ../data dd-1m ../data" ;;
    esac
}

# run_job NAME DIR MODE: the job in directory DIR (made afresh).
run_job() {
    rm -rf "$2" && mkdir "$2" && (cd "$2" && "job_$1" "$3")
}

# digest NAME DIR: check the outputs that must equal an input, then keep only
# a checksum of every output (frees the disk for the next run, whose
# timing would otherwise include writing back this one's files).
digest() {
    set -- "$1" "$2" $(same_as_input "$1")
    local name=$1 dir=$2
    shift 2
    while [ $# -ge 2 ]; do
        cmp -s "$dir/$1" "$dir/$2" || { echo "FAIL: $name: $1 differs from $2"; failed=1; }
        shift 2
    done
    (cd "$dir" && sha256sum -- *) >"$dir.sums"
    rm -rf "$dir"
}

for name in gzip xz zstd sqlite3 python3 sort cp_dd; do
    pre=()
    sync
    t0=$(now)
    run_job $name "$name-plain" full || { echo "FAIL: $name without the module failed"; failed=1; continue; }
    t1=$(now)
    digest $name "$name-plain"
    pre=(env LD_PRELOAD="$so")
    sync
    t2=$(now)
    run_job $name "$name-preload" full || { echo "FAIL: $name with the module failed"; failed=1; continue; }
    t3=$(now)
    digest $name "$name-preload"
    same="outputs identical: $(awk '{ printf "%s ", $2 }' "$name-plain.sums")"
    if ! cmp -s "$name-plain.sums" "$name-preload.sums"; then
        same="OUTPUTS DIFFER"
        diff "$name-plain.sums" "$name-preload.sums" || true
        failed=1
    fi
    # Every run of a program under test prints its lines; sum them per op.
    pre=(env LD_PRELOAD="$so" MEMASM_DEBUG=1)
    run_job $name "$name-debug" small 2>"$name.debug" ||
        { echo "FAIL: $name under MEMASM_DEBUG=1 failed"; failed=1; }
    rm -rf "$name-debug"
    calls=$(awk '$1 == "libmemasm-preload:" { n[$2] += $3 } END { printf "memcpy %d, memmove %d, memset %d", n["memcpy"], n["memmove"], n["memset"] }' "$name.debug")
    case $calls in
    "memcpy 0, memmove 0, memset 0")
        echo "FAIL: $name: MEMASM_DEBUG=1 showed no calls served:"
        cat "$name.debug"
        failed=1
        ;;
    esac
    line=$(awk -v n="$name" -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" \
        'BEGIN { printf "%-8s %7.2f s %7.2f s  ratio %.3f", n, b - a, d - c, (d - c) / (b - a) }')
    echo "$line  $same; MEMASM_DEBUG=1 (small input): $calls"
    results="$results$line
"
done

# libmemasm-profile.so on sqlite3's job (small input): the same outputs as
# without it, one profile per process (%p: the job runs sqlite3 twice), and
# memasm-bench --mix reads the larger one and measures its mixes.
if [ -n "${MEMASM_PROFILE_SO:-}" ]; then
    echo "== sqlite3 under libmemasm-profile.so"
    pre=()
    run_job sqlite3 sqlite3-small small && digest sqlite3 sqlite3-small
    pre=(env LD_PRELOAD="$MEMASM_PROFILE_SO" MEMASM_PROFILE="$work/sqlite3.%p.prof")
    run_job sqlite3 sqlite3-profile small && digest sqlite3 sqlite3-profile
    if ! cmp -s sqlite3-small.sums sqlite3-profile.sums; then
        echo "FAIL: sqlite3's outputs differ under libmemasm-profile.so"
        failed=1
    fi
    n=$(find . -maxdepth 1 -name 'sqlite3.*.prof' | wc -l)
    if [ "$n" -ne 2 ]; then
        echo "FAIL: expected 2 profiles (two sqlite3 processes), found $n"
        failed=1
    else
        prof=$(ls -S sqlite3.*.prof | head -n 1)
        sed -n 3p "$prof"
        if ! "${MEMASM_BENCH:?}" --mix "$prof" --candidates memasm,libc --rounds 5 --min-time 50 >bench.out 2>&1; then
            cat bench.out
            echo "FAIL: memasm-bench --mix $prof"
            failed=1
        fi
        grep '^mix:' bench.out || true
        grep -A 2 '^== ' bench.out | grep -v '^--$\|^mean size' || true
    fi
fi

echo
echo "check-real ($mib MiB for gzip, zstd, cp/dd; $((mib / 16)) MiB for xz): no preload, preload, ratio"
printf '%s' "$results"
if [ $failed -ne 0 ]; then
    echo "check-real: FAILED"
    exit 1
fi
echo "check-real: all outputs identical"
