#!/bin/sh
# compare.sh -- two builds of libmemasm against the system C library, over
# several memasm-bench processes, as bench/README.md asks for comparisons
# of a cycle: both builds in every process (--lib), their load order
# swapped from one process to the next, and medians over the processes.
#
#   bench/compare.sh [options] OLD=PATH NEW=PATH [-- memasm-bench options]
#
#   -n N        processes (default 8; an even number balances the orders)
#   -l LEVEL    cap both sides to sse2, avx2 or avx512 (x86_64): MEMASM_ISA
#               for libmemasm, GLIBC_TUNABLES' hwcaps for glibc 2.36;
#               default: no cap
#   -b PATH     memasm-bench to run (default: bench/memasm-bench, then
#               memasm-bench on PATH)
#   -k DIR      keep each process's output in DIR (run.1, run.2, ...)
#
# PATH is a libmemasm.so (a build tree's .libs/libmemasm.so.0.0.0, say).
# Prints, for every row of every section, each build's ratio to glibc
# (time(glibc)/time(build): median [min-max] over the processes) and NEW/OLD,
# the median of the per-process ratios of the two builds, which is what to
# read: both ran interleaved in the same process.  A "*" marks a row where
# NEW/OLD was on the same side of 1 in every process (by chance, 2^(1-N)
# of the rows of identical code: use N >= 8 for sweeps).  The mixes' rows
# are keyed by name (their mean size moves with the seed).
set -eu

usage() {
    sed -n '2,25s/^# \{0,1\}//p' "$0"
    exit 0
}
die() {
    echo "compare.sh: $*" >&2
    exit 2
}

nproc_=8
level=
bench=
keep=
while getopts n:l:b:k:h opt; do
    case $opt in
    n) nproc_=$OPTARG ;;
    l) level=$OPTARG ;;
    b) bench=$OPTARG ;;
    k) keep=$OPTARG ;;
    h) usage ;;
    *) die "unknown option (-h for help)" ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || die "two builds needed: OLD=PATH NEW=PATH (-h for help)"
a=$1
b=$2
shift 2
if [ $# -gt 0 ]; then
    [ "$1" = -- ] || die "expected -- before memasm-bench's options, got '$1'"
    shift
fi

case $nproc_ in
'' | *[!0-9]*) die "-n: not a number: $nproc_" ;;
esac
[ "$nproc_" -ge 1 ] && [ "$nproc_" -le 1000 ] || die "-n: 1 to 1000 processes"

# NAME=PATH: a name memasm-bench accepts as a column, an existing file
check_lib() {
    name=${1%%=*}
    path=${1#*=}
    [ "$name" != "$1" ] && [ -n "$name" ] && [ -n "$path" ] || die "not NAME=PATH: '$1'"
    case $name in
    *[!A-Za-z0-9_.-]*) die "name '$name': letters, digits, '_', '.', '-' only" ;;
    esac
    [ -f "$path" ] || die "no such file: $path"
}
check_lib "$a"
check_lib "$b"
name_a=${a%%=*}
name_b=${b%%=*}
[ "$name_a" != "$name_b" ] || die "the two builds need different names"

caps=
case $level in
'') ;;
sse2) caps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX2,-AVX,-AVX_Fast_Unaligned_Load,-SSSE3 ;;
avx2) caps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ ;;
avx512) ;;
*) die "-l: sse2, avx2 or avx512, not '$level'" ;;
esac

if [ -z "$bench" ]; then
    if [ -x bench/memasm-bench ]; then
        bench=bench/memasm-bench
    else
        bench=$(command -v memasm-bench) || die "no memasm-bench here or on PATH (-b)"
    fi
fi
[ -x "$bench" ] || die "not executable: $bench"

if [ -n "$keep" ]; then
    mkdir -p "$keep"
    out=$keep
else
    out=$(mktemp -d "${TMPDIR:-/tmp}/memasm-compare.XXXXXX")
    trap 'rm -rf "$out"' EXIT
    trap 'exit 130' INT TERM
fi

i=1
while [ "$i" -le "$nproc_" ]; do
    if [ $((i % 2)) -eq 1 ]; then
        set -- --lib "$a" --lib "$b" "$@"
    else
        set -- --lib "$b" --lib "$a" "$@"
    fi
    printf 'compare.sh: process %d of %d\n' "$i" "$nproc_" >&2
    # $level and $caps are checked words (no spaces): unquoted, each
    # expands to one assignment or to nothing
    env ${level:+MEMASM_ISA=$level} ${caps:+GLIBC_TUNABLES=glibc.cpu.hwcaps=$caps} \
        "$bench" --candidates glibc --seed $((100 + i)) "$@" >"$out/run.$i" 2>&1 ||
        { cat "$out/run.$i" >&2; die "memasm-bench failed (process $i)"; }
    shift 4
    i=$((i + 1))
done

head -n 4 "$out/run.1" | sed -n '/^machine:/p;/^libmemasm:/p'
printf 'processes: %d, level: %s\n' "$nproc_" "${level:-as the CPU}"

# Each run: "== SECTION: ..." headers; a column line with "size" and "|",
# the ratio columns' names after the "|"; rows "SIZE values | ratios".
awk -v A="$name_a" -v B="$name_b" '
# "median [min-max]" of the numbers in s (the median alone unless full), one sort
function summary(s, full,    n, v, i, j, t, m) {
    n = split(s, v, " ")
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
            t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
        }
    if (n == 0) return "-"
    m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    return full ? sprintf("%.3f [%.2f-%.2f]", m, v[1], v[n]) : sprintf("%.3f", m)
}
FNR == 1 { sec = ""; ncol = 0 }
/^== / {
    sec = substr($0, 4); sub(/:.*/, "", sec)
    sub(/ \(SPEC CPU2017 sizes and alignments\)/, " SPEC", sec)
    ncol = 0; next
}
sec != "" && /size/ && /\|/ {
    split($0, h, "|"); ncol = split(h[2], cols, " "); next
}
sec != "" && ncol > 0 && /\|/ && $1 ~ /^[0-9.]+[KMG]?$/ {
    split($0, p, "|"); nr = split(p[2], r, " ")
    key = sec SUBSEP (sec ~ /mix/ ? "mix" : $1)
    if (!(key in seen)) { seen[key] = 1; order[++nkeys] = key }
    ra = rb = ""
    for (c = 1; c <= ncol && c <= nr; c++) {
        v = r[c]; sub(/\?$/, "", v)
        if (v !~ /^[0-9.]+$/) continue
        if (cols[c] == A) ra = v
        if (cols[c] == B) rb = v
    }
    if (ra != "") va[key] = va[key] " " ra
    if (rb != "") vb[key] = vb[key] " " rb
    if (ra != "" && rb != "" && ra + 0 > 0) {
        q = rb / ra
        vq[key] = vq[key] " " q
        if (q > 1) up[key]++; else if (q < 1) down[key]++
        nq[key]++
    }
}
END {
    if (nkeys == 0) { print "compare.sh: no rows in the output of the runs" > "/dev/stderr"; exit 1 }
    printf "%-36s %6s  %-20s %-20s %s\n", "section", "size", A " / glibc", B " / glibc", B " / " A
    for (k = 1; k <= nkeys; k++) {
        key = order[k]; split(key, kk, SUBSEP)
        fa = summary(va[key], 1)
        fb = summary(vb[key], 1)
        fq = vq[key] == "" ? "-" : sprintf("%s%s", summary(vq[key], 0), \
            (up[key] == nq[key] || down[key] == nq[key]) && nq[key] > 1 ? " *" : "")
        printf "%-36s %6s  %-20s %-20s %s\n", substr(kk[1], 1, 36), kk[2], fa, fb, fq
    }
}' "$out"/run.*
