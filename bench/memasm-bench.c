/*
 * memasm-bench.c -- measure libmemasm's memcpy/memmove/memset side by side
 * with the system C library, LLVM libc and musl, in one process.
 *
 * Method (bench/README.md explains it at length):
 *   - Every candidate is called through a function pointer from the same
 *     timing loop (one loop for copies, one for memset), so the compiler can
 *     neither inline nor elide any of them and all pay the same call cost.
 *   - A "point" is one workload at one size.  For each point the loop runs a
 *     table of calls (destination, source, size): identical calls for a hot
 *     sweep, varying offsets for random alignment, rotating slots of a pool
 *     larger than the last-level cache for cold runs, sizes drawn from a
 *     published frequency table for the mixes.
 *   - Per point: every candidate warms up, the batch length is calibrated on
 *     the reference so one sample lasts at least --min-time, then R rounds
 *     follow; in each round every candidate runs one sample, and the order
 *     rotates from round to round (A B C, B C A, C A B, ...) so that drift
 *     and position effects hit every candidate alike.
 *   - A candidate's time is the median of its samples; its ratio to the
 *     reference is the median of the per-round ratios time(ref)/time(cand)
 *     (paired, so slow drift cancels), > 1 meaning faster than the reference.
 *   - Clock: CLOCK_MONOTONIC around each batch.  A batch lasts >= 100 us, so
 *     the clock's own cost (~20-30 ns) is below 0.05% of a sample.
 *
 * Assumes Linux (sched_setaffinity, sysconf cache sizes) and a C11 compiler.
 */
#include "config.h"

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

#include "memasm.h"
#include "engine.h"
#include "harness.h"
#include "tables.h"

/* ---- peers -------------------------------------------------------------- */

/* A peer's archive (configure's path) and its three renamed functions, or
 * NULLs when configure did not find it. */
#ifdef MEMASM_BENCH_LLVMLIBC
void *memasm_peer_llvmlibc_memcpy(void *, const void *, size_t);
void *memasm_peer_llvmlibc_memmove(void *, const void *, size_t);
void *memasm_peer_llvmlibc_memset(void *, int, size_t);
#define PEER_LLVMLIBC MEMASM_BENCH_LLVMLIBC, memasm_peer_llvmlibc_memcpy, \
    memasm_peer_llvmlibc_memmove, memasm_peer_llvmlibc_memset
#else
#define PEER_LLVMLIBC NULL, NULL, NULL, NULL
#endif
#ifdef MEMASM_BENCH_MUSL
void *memasm_peer_musl_memcpy(void *, const void *, size_t);
void *memasm_peer_musl_memmove(void *, const void *, size_t);
void *memasm_peer_musl_memset(void *, int, size_t);
#define PEER_MUSL MEMASM_BENCH_MUSL, memasm_peer_musl_memcpy, memasm_peer_musl_memmove, \
    memasm_peer_musl_memset
#else
#define PEER_MUSL NULL, NULL, NULL, NULL
#endif

struct peer {
    const char *name;    /* candidate name and column label                 */
    const char *label;   /* what it is, for the description                 */
    const char *archive; /* where its objects came from; NULL: not found    */
    copy_fn cpy, mov;
    set_fn set;
    const char *missing; /* why it is not available, when archive is NULL   */
};

static const struct peer peers[] = {
    {"llvm-libc", "LLVM libc", PEER_LLVMLIBC,
     "configure found no LLVM libc archive (apt-get install libllvmlibc-22-dev, or --with-llvm-libc=ARCHIVE; none on cross builds)"},
    {"musl", "musl", PEER_MUSL,
     "configure found no musl libc.a (apt-get install musl-dev, or --with-musl=ARCHIVE; none on cross builds)"},
};

/* The system library's functions, read through volatile pointers so the
 * compiler cannot see which function is called and replace it with its
 * built-in expansion. */
static copy_fn volatile sys_memcpy = memcpy;
static copy_fn volatile sys_memmove = memmove;
static set_fn volatile sys_memset = memset;

/* ---- candidates --------------------------------------------------------- */

static struct cand cands[MAX_CANDS];
static int ncands;

static struct cand *cand_add(const char *name)
{
    if (ncands == MAX_CANDS) {
        fprintf(stderr, "memasm-bench: too many candidates (at most %d)\n", MAX_CANDS);
        exit(2);
    }
    struct cand *c = &cands[ncands++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    return c;
}

static const char *sys_libc_name(void)
{
#ifdef __GLIBC__
    return "glibc";
#else
    return "libc";
#endif
}

/* Add the built-in candidate called name; returns 0, -1 if unknown. */
static int cand_add_builtin(const char *name)
{
    struct cand *c;
    if (strcmp(name, "memasm") == 0) {
        c = cand_add("memasm");
        c->available = 1;
        c->cpy = memasm_memcpy;
        c->mov = memasm_memmove;
        c->set = memasm_memset;
        snprintf(c->desc, sizeof c->desc, "libmemasm %s entry points (memcpy: %s, memmove: %s, memset: %s)",
                 memasm_version(), memasm_kernel_current(MEMASM_OP_MEMCPY),
                 memasm_kernel_current(MEMASM_OP_MEMMOVE), memasm_kernel_current(MEMASM_OP_MEMSET));
    } else if (strcmp(name, sys_libc_name()) == 0 || strcmp(name, "libc") == 0) {
        c = cand_add(sys_libc_name());
        c->available = 1;
        c->cpy = sys_memcpy;
        c->mov = sys_memmove;
        c->set = sys_memset;
#ifdef __GLIBC__
        snprintf(c->desc, sizeof c->desc, "system C library, glibc %s (its own run-time choice), via function pointer",
                 gnu_get_libc_version());
#else
        snprintf(c->desc, sizeof c->desc, "system C library, via function pointer");
#endif
    } else {
        for (size_t i = 0; i < sizeof peers / sizeof peers[0]; i++) {
            const struct peer *p = &peers[i];
            if (strcmp(name, p->name) != 0)
                continue;
            c = cand_add(p->name);
            if (p->archive) {
                c->available = 1;
                c->cpy = p->cpy;
                c->mov = p->mov;
                c->set = p->set;
                snprintf(c->desc, sizeof c->desc, "%s, objects from %s, renamed at build time", p->label,
                         p->archive);
            } else {
                snprintf(c->desc, sizeof c->desc, "NOT AVAILABLE: %s", p->missing);
            }
            return 0;
        }
        return -1;
    }
    return 0;
}

/*
 * Add the entry points of another libmemasm build, NAME=PATH (a shared
 * libmemasm.so): loaded with RTLD_LOCAL, so its dispatcher, thresholds and
 * kernels are its own, side by side with the one linked in.  Two builds in
 * one process, interleaved round by round, is the way to compare a change
 * at small sizes, where separate runs land a cycle apart.  Returns 0, or
 * -1 after a message for a malformed argument; a library that does not
 * load is a candidate marked NOT AVAILABLE with the loader's reason.
 */
static int cand_add_lib(const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1]) {
        fprintf(stderr, "memasm-bench: --lib wants NAME=PATH (PATH: a libmemasm.so)\n");
        return -1;
    }
    char name[40];
    snprintf(name, sizeof name, "%.*s", (int)(eq - arg), arg);
    struct cand *c = cand_add(name);
    void *h = dlopen(eq + 1, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(c->desc, sizeof c->desc, "NOT AVAILABLE: %s", dlerror());
        return 0;
    }
    c->cpy = (copy_fn)dlsym(h, "memasm_memcpy");
    c->mov = (copy_fn)dlsym(h, "memasm_memmove");
    c->set = (set_fn)dlsym(h, "memasm_memset");
    if (!c->cpy || !c->mov || !c->set) {
        snprintf(c->desc, sizeof c->desc, "NOT AVAILABLE: %s has no memasm_memcpy/memmove/memset", eq + 1);
        c->cpy = c->mov = NULL;
        c->set = NULL;
        return 0;
    }
    c->available = 1;
    snprintf(c->desc, sizeof c->desc, "libmemasm entry points from %s (its own dispatcher)", eq + 1);
    return 0;
}

/* Add kernel NAME from libmemasm's master list; returns 0 or -1 (message). */
static int cand_add_kernel(const char *name)
{
    long i = memasm_kernel_find(name);
    memasm_kernel_desc d;
    if (i < 0 || memasm_kernel_info((size_t)i, &d) != 0) {
        fprintf(stderr, "memasm-bench: no kernel called '%s' (--list shows them)\n", name);
        return -1;
    }
    struct cand *c = cand_add(d.name);
    if (!d.usable) {
        snprintf(c->desc, sizeof c->desc, "NOT AVAILABLE: kernel %s (%s) needs CPU features this machine lacks",
                 d.name, d.isa);
        return 0;
    }
    c->available = 1;
    switch (d.op) {
    case MEMASM_OP_MEMCPY:
        c->cpy = (copy_fn)d.fn;
        break;
    case MEMASM_OP_MEMMOVE: /* a memmove kernel is also a memcpy */
        c->cpy = (copy_fn)d.fn;
        c->mov = (copy_fn)d.fn;
        break;
    case MEMASM_OP_MEMSET:
        c->set = (set_fn)d.fn;
        break;
    default:
        break;
    }
    snprintf(c->desc, sizeof c->desc, "libmemasm kernel %s (%s, ISA level %s), called directly", d.name,
             memasm_op_name(d.op), d.isa);
    return 0;
}

/* ---- options ------------------------------------------------------------ */

static struct {
    int full;
    unsigned ops;       /* bit per enum op_kind                  */
    unsigned aligns;    /* bit per enum align_kind (sweeps)      */
    unsigned temps;     /* 1 hot, 2 cold, 4 edge                 */
    int sweeps, mixes;  /* which kinds of workload               */
    size_t size_lo, size_hi;
    int pow2;
    int sizes_given;
    int readback;       /* each call followed by a read of its destination */
    const char *csv;
    const char *plot;
    const char *ref;
    const char *self_check;
    size_t cold_pool;
    size_t llc;
} opt = {
    .ops = 0, .aligns = 0, .temps = 0, .sweeps = 1, .mixes = 1, .size_lo = 1, .size_hi = (size_t)256 << 20,
};

static struct workload *wls;
static int nwls;
static struct row *rows;
static size_t nrows, rows_cap;
static int ref_index;
static FILE *csv_file;

/* ---- output ------------------------------------------------------------- */

static int col_width(int ci)
{
    int w = (int)strlen(cands[ci].name);
    return w < 9 ? 9 : w;
}

static void print_table_header(const struct workload *wl)
{
    const char *unit = wl->mix ? "ns per call (lower is better)" : "GB/s (higher is better)";
    printf("\n== %s: %s; ratio = time(%s)/time(candidate), > 1 is faster than %s\n", wl->name, unit,
           cands[ref_index].name, cands[ref_index].name);
    printf("%9s", wl->mix ? "mean size" : "size");
    for (int i = 0; i < ncands; i++)
        printf(" %*s", col_width(i), cands[i].name);
    printf(" |");
    for (int i = 0; i < ncands; i++)
        if (i != ref_index)
            printf(" %*s", col_width(i), cands[i].name);
    printf("\n");
}

static void print_row(const struct workload *wl, const struct row *row)
{
    char sb[32];
    if (wl->mix)
        printf("%9.1f", row->mean_size);
    else
        printf("%9s", bench_format_size(row->size, sb, sizeof sb));
    for (int i = 0; i < ncands; i++) {
        const struct cres *c = &row->c[i];
        if (c->status == 1)
            printf(" %*s", col_width(i), "n/a");
        else if (c->status == 2)
            printf(" %*s", col_width(i), "-");
        else if (wl->mix)
            printf(" %*.2f", col_width(i), c->ns);
        else
            printf(" %*.*f", col_width(i), c->gbps < 10 ? 3 : 2, c->gbps);
    }
    printf(" |");
    for (int i = 0; i < ncands; i++) {
        if (i == ref_index)
            continue;
        const struct cres *c = &row->c[i];
        if (c->status != 0 || isnan(c->ratio))
            printf(" %*s", col_width(i), c->status == 1 ? "n/a" : "-");
        else /* '?' flags a wide spread: quartiles more than 10% apart */
            printf(" %*.3f%c", col_width(i) - 1, c->ratio, c->r_hi - c->r_lo > 0.10 * c->ratio ? '?' : ' ');
    }
    printf("\n");
    fflush(stdout);
}

static void csv_header(void)
{
    static const char *const h[] = {"workload", "op", "align", "temp", "threads", "size", "mean_size",
                                    "candidate", "status", "ns_per_call", "gbps", "ratio_vs_ref",
                                    "ratio_q1", "ratio_q3", "reference", "rounds", "iters"};
    bench_csv_record(csv_file, h, sizeof h / sizeof h[0]);
}

static void csv_row(const struct workload *wl, const struct row *row)
{
    for (int i = 0; i < ncands; i++) {
        const struct cres *c = &row->c[i];
        char num[9][32];
        const char *p[17];
        for (int k = 0; k < 9; k++)
            num[k][0] = 0;
        snprintf(num[0], 32, "%d", eng.threads);
        snprintf(num[1], 32, "%zu", row->size);
        snprintf(num[2], 32, "%.2f", row->mean_size);
        if (c->status == 0) {
            snprintf(num[3], 32, "%.4f", c->ns);
            snprintf(num[4], 32, "%.4f", c->gbps);
            if (!isnan(c->ratio)) {
                snprintf(num[5], 32, "%.4f", c->ratio);
                snprintf(num[6], 32, "%.4f", c->r_lo);
                snprintf(num[7], 32, "%.4f", c->r_hi);
            }
        }
        snprintf(num[8], 32, "%zu", row->iters);
        p[0] = wl->name;
        p[1] = op_names[wl->op];
        p[2] = align_names[wl->align];
        p[3] = temp_name(wl);
        p[4] = num[0];
        p[5] = num[1];
        p[6] = num[2];
        p[7] = cands[i].name;
        p[8] = c->status == 0 ? "ok" : c->status == 1 ? "not available" : "not applicable";
        p[9] = num[3];
        p[10] = num[4];
        p[11] = num[5];
        p[12] = num[6];
        p[13] = num[7];
        p[14] = cands[ref_index].name;
        char rounds[16];
        snprintf(rounds, sizeof rounds, "%d", eng.rounds);
        p[15] = rounds;
        p[16] = num[8];
        bench_csv_record(csv_file, p, 17);
    }
    fflush(csv_file);
}

static struct row *row_new(void)
{
    if (nrows == rows_cap) {
        rows_cap = rows_cap ? rows_cap * 2 : 256;
        rows = realloc(rows, rows_cap * sizeof *rows);
        if (!rows)
            exit(1);
    }
    struct row *r = &rows[nrows++];
    memset(r, 0, sizeof *r);
    return r;
}

/* ---- plot --------------------------------------------------------------- */

static const char *gnuplot_path(void)
{
    const char *g = getenv("GNUPLOT");
    if (g && *g)
        return g;
#ifdef MEMASM_BENCH_GNUPLOT
    if (MEMASM_BENCH_GNUPLOT[0])
        return MEMASM_BENCH_GNUPLOT;
#endif
    return NULL;
}

/* Write a CSV with every row measured so far to path (the fallback when
 * there is no gnuplot). */
static int write_csv_file(const char *path)
{
    FILE *save = csv_file;
    csv_file = fopen(path, "w");
    if (!csv_file) {
        csv_file = save;
        return -1;
    }
    csv_header();
    for (size_t i = 0; i < nrows; i++)
        csv_row(&wls[rows[i].wl], &rows[i]);
    fclose(csv_file);
    csv_file = save;
    return 0;
}

static void plot(const char *png)
{
    const char *g = gnuplot_path();
    if (g && access(g, X_OK) != 0)
        g = NULL;
    if (!g) {
        char alt[PATH_MAX];
        size_t len = strlen(png);
        if (len > 4 && strcmp(png + len - 4, ".png") == 0)
            len -= 4;
        snprintf(alt, sizeof alt, "%.*s.csv", (int)len, png);
        if (write_csv_file(alt) == 0)
            printf("\nplot: gnuplot is not installed (apt-get install gnuplot-nox, or set GNUPLOT); "
                   "wrote the data to %s instead\n", alt);
        else
            printf("\nplot: gnuplot is not installed, and %s cannot be written: %s\n", alt, strerror(errno));
        return;
    }
    /* Which sweep workloads have rows? */
    int present[64], np = 0;
    for (int w = 0; w < nwls && np < 64; w++) {
        if (wls[w].mix)
            continue;
        for (size_t i = 0; i < nrows; i++)
            if (rows[i].wl == w) {
                present[np++] = w;
                break;
            }
    }
    if (np == 0) {
        printf("\nplot: no size sweep was run, nothing to draw\n");
        return;
    }
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "'%s'", g);
    FILE *p = popen(cmd, "w");
    if (!p) {
        printf("\nplot: cannot run %s: %s\n", g, strerror(errno));
        return;
    }
    int cols = np > 1 ? 2 : 1, prow = (np + cols - 1) / cols;
    fprintf(p, "set terminal pngcairo size %d,%d font ',9'\n", 700 * cols, 420 * prow);
    fprintf(p, "set output '%s'\n", png);
    fprintf(p, "set datafile missing 'NaN'\n");
    for (int k = 0; k < np; k++) {
        fprintf(p, "$d%d << EOD\n", k);
        for (size_t i = 0; i < nrows; i++) {
            if (rows[i].wl != present[k])
                continue;
            fprintf(p, "%zu", rows[i].size);
            for (int c = 0; c < ncands; c++)
                if (rows[i].c[c].status == 0)
                    fprintf(p, " %.5g", rows[i].c[c].gbps);
                else
                    fprintf(p, " NaN");
            fprintf(p, "\n");
        }
        fprintf(p, "EOD\n");
    }
    fprintf(p, "set multiplot layout %d,%d title 'memasm-bench: bandwidth against size (%d thread%s)'\n", prow, cols,
            eng.threads, eng.threads > 1 ? "s" : "");
    fprintf(p, "set logscale x 2\nset grid\nset key top left\nset ylabel 'GB/s'\nset yrange [0:*]\n");
    fprintf(p, "set xtics ('1' 1, '16' 16, '256' 256, '4K' 4096, '64K' 65536, '1M' 1048576, "
               "'16M' 16777216, '256M' 268435456)\n");
    for (int k = 0; k < np; k++) {
        fprintf(p, "set title '%s'\nplot", wls[present[k]].name);
        int first = 1;
        for (int c = 0; c < ncands; c++) {
            if (!cands[c].available)
                continue;
            fprintf(p, "%s $d%d using 1:%d with linespoints pt 7 ps 0.4 title '%s'", first ? "" : ",", k, c + 2,
                    cands[c].name);
            first = 0;
        }
        fprintf(p, "\n");
    }
    fprintf(p, "unset multiplot\n");
    int rc = pclose(p);
    if (rc != 0)
        printf("\nplot: gnuplot failed (status %d); use --csv and plot by hand\n", rc);
    else
        printf("\nplot: wrote %s\n", png);
}

/* ---- machine description ------------------------------------------------ */

static void cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        const char *keys[] = {"model name", "uarch", "isa", NULL};
        for (int k = 0; keys[k]; k++) {
            size_t kl = strlen(keys[k]);
            if (strncmp(line, keys[k], kl) == 0) {
                char *colon = strchr(line, ':');
                if (!colon)
                    continue;
                colon++;
                while (*colon == ' ' || *colon == '\t')
                    colon++;
                colon[strcspn(colon, "\n")] = 0;
                snprintf(buf, len, "%s", colon);
                fclose(f);
                return;
            }
        }
    }
    fclose(f);
}

static size_t llc_size(void)
{
    long v = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    v = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (v <= 0)
        v = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return v > 0 ? (size_t)v : 0;
}

/* Cold sweeps.  With a cache flush before every sample (x86_64, aarch64)
 * every size can be measured cold: the sweep goes up to the size whose
 * source and destination slots still fit the pool (half of it each).  The
 * quick run takes the sizes up to 1 MiB and the powers of two from 64 MiB
 * (the range where a copy streams from memory and non-temporal stores and
 * rep movsb are chosen); --full and --sizes take every size.  Without a
 * flush (riscv64) cold means a pool walk, which only makes a call cold if
 * it is small against the pool and the last-level cache is smaller still,
 * so the sweep stops at the LLC (8 MiB if unknown) and at a sixteenth of
 * the pool, and at 1 MiB in the quick run. */
#define QUICK_COLD_LOW ((size_t)1 << 20)
#define QUICK_COLD_HIGH ((size_t)64 << 20)

static size_t cold_max_size(void)
{
#if HAVE_FLUSH
    return opt.cold_pool / 2 - 4096;
#else
    size_t m = opt.llc ? opt.llc : (size_t)8 << 20;
    if (!opt.full && m > QUICK_COLD_LOW)
        m = QUICK_COLD_LOW;
    if (m > opt.cold_pool / 16)
        m = opt.cold_pool / 16;
    return m;
#endif
}

/* Whether a cold sweep measures size n. */
static int cold_size_wanted(size_t n)
{
    if (n > cold_max_size())
        return 0;
    if (opt.full || opt.sizes_given || !HAVE_FLUSH)
        return 1;
    return n <= QUICK_COLD_LOW || (n >= QUICK_COLD_HIGH && !(n & (n - 1)));
}

static void print_header(void)
{
    char model[256];
    struct utsname u;
    cpu_model(model, sizeof model);
    uname(&u);
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
    printf("memasm-bench (libmemasm %s), %s\n", memasm_version(), date);
    printf("machine: %s; %ld CPUs online; kernel %s %s\n", model, sysconf(_SC_NPROCESSORS_ONLN), u.sysname,
           u.release);
    printf("compiler: %s\n", __VERSION__);
    printf("libmemasm: ISA cpu=%s cap=%s; thresholds:", memasm_isa_name(memasm_isa_cpu()),
           memasm_isa_name(memasm_isa_cap()));
    for (size_t i = 0; i < memasm_threshold_count(); i++) {
        size_t v;
        const char *k = memasm_threshold_key(i);
        if (memasm_threshold_get(k, &v) == 0) {
            if (v == SIZE_MAX)
                printf(" %s=never", k);
            else
                printf(" %s=%zu", k, v);
        }
    }
    printf("\n");
    char b1[32], b2[32], b3[32];
    printf("method: %d rounds per point, candidates interleaved (order rotates each round), "
           "samples >= %.0f us (cold x5), median; clock CLOCK_MONOTONIC; seed %#llx; threads %d; pin %s\n",
           eng.rounds, eng.min_time_us, (unsigned long long)eng.seed, eng.threads,
           eng.pin < 0 ? "no" : eng.threads > 1 ? "thread i on CPU pin+i" : "yes");
    if (opt.readback)
        printf("readback: every call is followed by one read of each cache line of its destination, timed\n");
    printf("cold runs: pool of %s per thread (visited in random order), sizes %s%s; LLC %s%s\n",
           bench_format_size(opt.cold_pool, b1, sizeof b1),
           HAVE_FLUSH && !opt.full && !opt.sizes_given ? "up to 1M and 64M.." : "up to ",
           bench_format_size(cold_max_size(), b2, sizeof b2),
           opt.llc ? bench_format_size(opt.llc, b3, sizeof b3) : "unknown",
           opt.llc ? " (as sysconf reports it, or --llc)" : "");
    printf("candidates:\n");
    for (int i = 0; i < ncands; i++)
        printf("  %-12s %s%s\n", cands[i].name, cands[i].desc, i == ref_index ? "  [reference]" : "");
}

/* ---- self-check --------------------------------------------------------- */

static int self_check_report(void)
{
    /* Per-point median ratios time(A)/time(B), A = reference, B = the other. */
    int b = ref_index == 0 ? 1 : 0;
    double *v = malloc((nrows + 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < nrows; i++)
        if (rows[i].c[b].status == 0 && !isnan(rows[i].c[b].ratio))
            v[n++] = rows[i].c[b].ratio;
    if (n == 0) {
        printf("\nself-check: nothing measured\n");
        free(v);
        return 1;
    }
    double gm = bench_geomean(v, n);
    double p10 = bench_quantile(v, n, 0.10), p25 = bench_quantile(v, n, 0.25);
    double med = bench_median(v, n);
    double p75 = bench_quantile(v, n, 0.75), p90 = bench_quantile(v, n, 0.90);
    printf("\n== self-check: %s against itself, %zu points; per-point ratio time(A)/time(B)\n", cands[b].name, n);
    printf("   median %.4f  geomean %.4f  q1 %.4f  q3 %.4f  p10 %.4f  p90 %.4f  min %.4f  max %.4f\n", med, gm, p25,
           p75, p10, p90, v[0], v[n - 1]);
    static const double edges[] = {0.90, 0.95, 0.98, 0.99, 0.995, 1.005, 1.01, 1.02, 1.05, 1.10};
    const int ne = (int)(sizeof edges / sizeof edges[0]);
    size_t cnt[16] = {0};
    for (size_t i = 0; i < n; i++) {
        int k = 0;
        while (k < ne && v[i] >= edges[k])
            k++;
        cnt[k]++;
    }
    for (int k = 0; k <= ne; k++) {
        char lab[32];
        if (k == 0)
            snprintf(lab, sizeof lab, "< %.3f", edges[0]);
        else if (k == ne)
            snprintf(lab, sizeof lab, ">= %.3f", edges[ne - 1]);
        else
            snprintf(lab, sizeof lab, "%.3f-%.3f", edges[k - 1], edges[k]);
        printf("   %13s %4zu ", lab, cnt[k]);
        size_t bar = (cnt[k] * 50 + n - 1) / n;
        for (size_t j = 0; j < bar; j++)
            putchar('#');
        putchar('\n');
    }
    printf("   per workload (points, median, p10, p90):\n");
    for (int w = 0; w < nwls; w++) {
        size_t k = 0;
        for (size_t i = 0; i < nrows; i++)
            if (rows[i].wl == w && rows[i].c[b].status == 0 && !isnan(rows[i].c[b].ratio))
                v[k++] = rows[i].c[b].ratio;
        if (k)
            printf("     %-66s %3zu  %.4f  %.4f  %.4f\n", wls[w].name, k, bench_median(v, k),
                   bench_quantile(v, k, 0.1), bench_quantile(v, k, 0.9));
    }
    int ok = fabs(med - 1.0) <= 0.02 && fabs(gm - 1.0) <= 0.02;
    printf("   verdict: %s (median and geometric mean must lie within 1.00 +- 0.02)\n", ok ? "PASS" : "FAIL");
    free(v);
    return ok ? 0 : 1;
}

/* ---- command line ------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
"Usage: memasm-bench [OPTION]...\n"
"Measure libmemasm's memcpy/memmove/memset against the system C library,\n"
"LLVM libc and musl (when the build found them) in one process.\n"
"\n"
"What to run (default: the quick set, see bench/README.md):\n"
"  --full               the long run: every op x alignment x hot/cold, x1.5 size\n"
"                       steps, more rounds\n"
"  --op LIST            memcpy,memmove-fwd,memmove-bwd,memset (or memmove = both)\n"
"  --align LIST         aligned,random,alias4k,near (size sweeps; near:\n"
"                       memmove 64 bytes apart)\n"
"  --temp LIST          hot,cold,edge (edge: hot, and the cache line just past\n"
"                       each buffer flushed before every call; memcpy and\n"
"                       memset up to 1 KiB, x86_64 and aarch64)\n"
"  --sizes LO:HI        sweep sizes, e.g. 1:64K or 1M:256M (K/M/G binary)\n"
"  --pow2               powers of two only (default also the x1.5 points)\n"
"  --no-sweep           only the size mixes;   --no-mix   only the sweeps\n"
"  --readback           every call followed by one read of its destination (the\n"
"                       cost of using the data, memasm-tune's default objective)\n"
"Candidates (default: memasm, the system libc, llvm-libc, musl):\n"
"  --candidates LIST    any of memasm,glibc,llvm-libc,musl\n"
"  --kernel NAME        add one libmemasm kernel by name (repeatable; --list)\n"
"  --lib NAME=PATH      add the entry points of another libmemasm build (a\n"
"                       libmemasm.so, e.g. before a change) as column NAME\n"
"  --ref NAME           reference for the ratios (default: the system libc)\n"
"  --self-check[=NAME]  run NAME (default memasm) as both A and B and report\n"
"                       the ratio distribution; exit 1 unless centred on 1.00+-2%%\n"
"libmemasm settings:\n"
"  --isa LEVEL          cap libmemasm's ISA level (sse2, avx2, ...)\n"
"  --threshold KEY=VAL  set a libmemasm threshold (repeatable; VAL a size or never)\n"
"Method:\n"
"  --rounds N           samples per candidate and point (quick 11, full 21)\n"
"  --min-time US        shortest sample in microseconds (quick 100, full 300)\n"
"  --threads N          N threads copy their own buffers at once; GB/s is the\n"
"                       aggregate\n"
"  --pin CPU            pin thread i to CPU+i (with --threads the default is 0)\n"
"  --seed N             seed of the offsets and mixes (printed)\n"
"  --cold-pool SIZE     per-thread buffer pool for cold runs (default 1G)\n"
"  --llc SIZE           last-level cache size for the cold-size limit\n"
"Output:\n"
"  --csv FILE           one row per point and candidate\n"
"  --plot FILE.png      bandwidth against size, log-x, one panel per sweep\n"
"                       (gnuplot; without it the data goes to FILE.csv)\n"
"  --list               list candidates and libmemasm's kernels, then exit\n"
"  --help               this text\n"
"\n"
"Ratios are time(reference)/time(candidate), the median of per-round pairs:\n"
"> 1 means faster than the reference.  'n/a' marks a candidate that is not\n"
"available in this build, '-' one that does not implement the operation.\n");
}

static unsigned parse_list(const char *arg, const char *const *names, int count, const char *what)
{
    unsigned bits = 0;
    char *copy = strdup(arg), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int i = 0; i < count; i++)
            if (strcmp(tok, names[i]) == 0) {
                bits |= 1u << i;
                found = 1;
            }
        if (!found && names == op_names && strcmp(tok, "memmove") == 0) {
            bits |= 1u << OP_MOVE_FWD | 1u << OP_MOVE_BWD;
            found = 1;
        }
        if (!found) {
            fprintf(stderr, "memasm-bench: unknown %s '%s'\n", what, tok);
            exit(2);
        }
    }
    free(copy);
    return bits;
}

static void list_and_exit(void)
{
    printf("candidates:\n");
    for (int i = 0; i < ncands; i++)
        printf("  %-12s %s\n", cands[i].name, cands[i].desc);
    printf("libmemasm kernels (--kernel NAME):\n");
    for (size_t i = 0; i < memasm_kernel_count(); i++) {
        memasm_kernel_desc d;
        if (memasm_kernel_info(i, &d) == 0)
            printf("  %-20s %-8s %-8s %s\n", d.name, memasm_op_name(d.op), d.isa,
                   d.usable ? "usable" : "not usable on this CPU");
    }
    exit(0);
}

static void add_workload(enum op_kind op, enum align_kind al, int cold, int mix, int edge)
{
    wls = realloc(wls, (size_t)(nwls + 1) * sizeof *wls);
    if (!wls)
        exit(1);
    struct workload *w = &wls[nwls++];
    w->op = op;
    w->align = al;
    w->cold = cold;
    w->edge = edge;
    w->mix = mix;
    w->readback = opt.readback;
    if (mix)
        snprintf(w->name, sizeof w->name, "%s mix (SPEC CPU2017 sizes and alignments), %s", op_names[op],
                 temp_name(w));
    else
        snprintf(w->name, sizeof w->name, "%s %s %s", op_names[op], align_names[al], temp_name(w));
}

/* Quick run without --sizes: the aligned hot sweeps go to the top size, the
 * others stop at QUICK_SIDE_MAX; above QUICK_FINE_MAX powers of two only. */
#define QUICK_SIDE_MAX ((size_t)4 << 20)
#define QUICK_FINE_MAX ((size_t)1 << 20)

static size_t sweep_max_size(const struct workload *wl)
{
    if (wl->edge)
        return opt.size_hi < EDGE_MAX_SIZE ? opt.size_hi : EDGE_MAX_SIZE;
    if (opt.full || opt.sizes_given || wl->align == AL_ALIGNED)
        return opt.size_hi;
    return opt.size_hi < QUICK_SIDE_MAX ? opt.size_hi : QUICK_SIDE_MAX;
}

/* The default (quick) set, or everything with --full; filtered by options. */
static void plan_workloads(void)
{
    unsigned ops = opt.ops ? opt.ops : (1u << OP_KINDS) - 1;
    for (int op = 0; op < OP_KINDS; op++) {
        if (!(ops & 1u << op) || !opt.sweeps)
            continue;
        for (int al = 0; al < AL_TABLE; al++) {
            if (al == AL_ALIAS4K && (op == OP_MEMSET || op == OP_MOVE_FWD || op == OP_MOVE_BWD))
                continue; /* aliasing is about a source and a separate destination */
            if (al == AL_NEAR && (op == OP_MEMSET || op == OP_MEMCPY))
                continue; /* the distance of an overlapping move */
            for (int cold = 0; cold < 2; cold++) {
                int chosen;
                if (opt.aligns || opt.temps)
                    chosen = (!opt.aligns || (opt.aligns & 1u << al)) && (!opt.temps || (opt.temps & 1u << cold));
                else if (opt.full)
                    chosen = 1;
                else /* quick: aligned hot for all, plus the cases that tell most */
                    chosen = (al == AL_ALIGNED && !cold) || (op == OP_MEMCPY && al == AL_RANDOM && !cold) ||
                             (op == OP_MEMCPY && al == AL_ALIAS4K && !cold) || (al == AL_NEAR && !cold) ||
                             (al == AL_ALIGNED && cold && (op == OP_MEMCPY || op == OP_MEMSET));
                if (chosen)
                    add_workload((enum op_kind)op, (enum align_kind)al, cold, 0, 0);
            }
            /* Edge runs: memcpy and memset, at the small sizes where an
             * implementation may reach past the bytes it was given. */
            if (HAVE_EDGE && (op == OP_MEMCPY || op == OP_MEMSET)) {
                int chosen;
                if (opt.aligns || opt.temps)
                    chosen = (!opt.aligns || (opt.aligns & 1u << al)) && (!opt.temps || (opt.temps & 4u));
                else
                    chosen = opt.full || al == AL_RANDOM;
                if (chosen)
                    add_workload((enum op_kind)op, (enum align_kind)al, 0, 0, 1);
            }
        }
    }
    if (!opt.mixes)
        return;
    for (int op = 0; op < OP_KINDS; op++) {
        if (op == OP_MOVE_BWD || !(ops & 1u << op))
            continue;
        if (op == OP_MOVE_FWD && !opt.full && !opt.ops)
            continue;
        for (int cold = 0; cold < 2; cold++)
            if (!opt.temps || (opt.temps & 1u << cold))
                add_workload((enum op_kind)op, AL_TABLE, cold, 1, 0);
    }
}

int main(int argc, char **argv)
{
    enum {
        O_FULL = 256, O_OP, O_ALIGN, O_TEMP, O_SIZES, O_POW2, O_NOSWEEP, O_NOMIX, O_CANDS, O_KERNEL, O_LIB, O_REF,
        O_SELF, O_ISA, O_THR, O_ROUNDS, O_MINTIME, O_THREADS, O_PIN, O_SEED, O_POOL, O_LLC, O_CSV, O_PLOT, O_READBACK,
        O_LIST, O_HELP
    };
    static const struct option lo[] = {
        {"full", no_argument, 0, O_FULL},          {"op", required_argument, 0, O_OP},
        {"align", required_argument, 0, O_ALIGN},  {"temp", required_argument, 0, O_TEMP},
        {"sizes", required_argument, 0, O_SIZES},  {"pow2", no_argument, 0, O_POW2},
        {"no-sweep", no_argument, 0, O_NOSWEEP},   {"no-mix", no_argument, 0, O_NOMIX},
        {"candidates", required_argument, 0, O_CANDS}, {"kernel", required_argument, 0, O_KERNEL},
        {"lib", required_argument, 0, O_LIB},
        {"ref", required_argument, 0, O_REF},      {"self-check", optional_argument, 0, O_SELF},
        {"isa", required_argument, 0, O_ISA},      {"threshold", required_argument, 0, O_THR},
        {"rounds", required_argument, 0, O_ROUNDS}, {"min-time", required_argument, 0, O_MINTIME},
        {"threads", required_argument, 0, O_THREADS}, {"pin", required_argument, 0, O_PIN},
        {"seed", required_argument, 0, O_SEED},    {"cold-pool", required_argument, 0, O_POOL},
        {"llc", required_argument, 0, O_LLC},      {"csv", required_argument, 0, O_CSV},
        {"plot", required_argument, 0, O_PLOT},    {"list", no_argument, 0, O_LIST},
        {"readback", no_argument, 0, O_READBACK},
        {"help", no_argument, 0, O_HELP},          {0, 0, 0, 0},
    };
    const char *cand_list = NULL;
    const char *kernels[MAX_CANDS], *libs[MAX_CANDS];
    int nkernels = 0, nlibs = 0, list = 0, pool_given = 0;
    opt.cold_pool = (size_t)1 << 30;
    eng.rounds = 0; /* 0: the quick or full run's default, once known */
    eng.min_time_us = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case O_FULL: opt.full = 1; break;
        case O_OP: opt.ops = parse_list(optarg, op_names, OP_KINDS, "operation"); break;
        case O_ALIGN: opt.aligns = parse_list(optarg, align_names, AL_TABLE, "alignment"); break;
        case O_TEMP: opt.temps = parse_list(optarg, temp_names, (int)(sizeof temp_names / sizeof temp_names[0]), "temperature"); break;
        case O_SIZES: {
            char *colon = strchr(optarg, ':');
            char lo_s[64];
            snprintf(lo_s, sizeof lo_s, "%.*s", colon ? (int)(colon - optarg) : (int)strlen(optarg), optarg);
            if (bench_parse_size(lo_s, &opt.size_lo) || bench_parse_size(colon ? colon + 1 : optarg, &opt.size_hi) ||
                opt.size_lo > opt.size_hi || opt.size_hi > ((size_t)1 << 34)) {
                fprintf(stderr, "memasm-bench: --sizes wants LO:HI with LO <= HI <= 16G, e.g. 1:64K\n");
                return 2;
            }
            opt.sizes_given = 1;
            break;
        }
        case O_POW2: opt.pow2 = 1; break;
        case O_NOSWEEP: opt.sweeps = 0; break;
        case O_NOMIX: opt.mixes = 0; break;
        case O_CANDS: cand_list = optarg; break;
        case O_KERNEL:
            if (nkernels < MAX_CANDS)
                kernels[nkernels++] = optarg;
            break;
        case O_LIB:
            if (nlibs < MAX_CANDS)
                libs[nlibs++] = optarg;
            break;
        case O_REF: opt.ref = optarg; break;
        case O_SELF: opt.self_check = optarg ? optarg : "memasm"; break;
        case O_ISA:
            if (memasm_isa_set_cap(optarg) != 0) {
                fprintf(stderr, "memasm-bench: unknown ISA level '%s'\n", optarg);
                return 2;
            }
            break;
        case O_THR: {
            char *eq = strchr(optarg, '=');
            size_t v, applied;
            if (eq && strcmp(eq + 1, "never") == 0)
                v = SIZE_MAX; /* as in a configuration file */
            else if (!eq || bench_parse_size(eq + 1, &v) != 0) {
                fprintf(stderr, "memasm-bench: --threshold wants KEY=VALUE, VALUE a size (4096, 27K, 1.5M) or "
                                "'never'\n");
                return 2;
            }
            *eq = 0;
            if (memasm_threshold_set(optarg, v, &applied) != 0) {
                fprintf(stderr, "memasm-bench: unknown threshold '%s'\n", optarg);
                return 2;
            }
            if (applied != v)
                fprintf(stderr, "memasm-bench: %s=%zu was clamped to %zu\n", optarg, v, applied);
            break;
        }
        case O_ROUNDS: eng.rounds = atoi(optarg); break;
        case O_MINTIME: eng.min_time_us = atof(optarg); break;
        case O_THREADS: eng.threads = atoi(optarg); break;
        case O_PIN: eng.pin = atoi(optarg); break;
        case O_SEED: eng.seed = strtoull(optarg, NULL, 0); break;
        case O_POOL:
            pool_given = 1;
            if (bench_parse_size(optarg, &opt.cold_pool) != 0 || opt.cold_pool < ((size_t)16 << 20)) {
                fprintf(stderr, "memasm-bench: bad --cold-pool size (at least 16M)\n");
                return 2;
            }
            break;
        case O_LLC:
            if (bench_parse_size(optarg, &opt.llc) != 0) {
                fprintf(stderr, "memasm-bench: bad --llc size\n");
                return 2;
            }
            break;
        case O_CSV: opt.csv = optarg; break;
        case O_PLOT: opt.plot = optarg; break;
        case O_READBACK: opt.readback = 1; break;
        case O_LIST: list = 1; break;
        case 'h':
        case O_HELP: usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "memasm-bench: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (eng.threads < 1 || eng.threads > 256) {
        fprintf(stderr, "memasm-bench: --threads must be 1..256\n");
        return 2;
    }
    if (eng.rounds == 0)
        eng.rounds = opt.full ? 21 : 11;
    if (eng.rounds < 1 || eng.rounds > 1000) {
        fprintf(stderr, "memasm-bench: --rounds must be 1..1000\n");
        return 2;
    }
    if (eng.min_time_us <= 0)
        eng.min_time_us = opt.full ? 300 : 100;
    if (!opt.llc)
        opt.llc = llc_size();
    if (eng.threads > 1 && eng.pin < 0)
        eng.pin = 0; /* threads left to the scheduler may share a CPU */
    if (!pool_given && eng.threads > 1) { /* 1G in all, at least 256M each */
        opt.cold_pool = ((size_t)1 << 30) / (size_t)eng.threads;
        if (opt.cold_pool < ((size_t)256 << 20))
            opt.cold_pool = (size_t)256 << 20;
        opt.cold_pool &= ~(size_t)4095;
    }

    /* Candidates. */
    if (opt.self_check) {
        if (cand_add_builtin(opt.self_check) != 0 && cand_add_kernel(opt.self_check) != 0)
            return 2;
        if (!cands[0].available) {
            fprintf(stderr, "memasm-bench: %s: %s\n", cands[0].name, cands[0].desc);
            return 2;
        }
        char base[32];
        snprintf(base, sizeof base, "%.30s", cands[0].name);
        cands[1] = cands[0];
        snprintf(cands[0].name, sizeof cands[0].name, "%s#A", base);
        snprintf(cands[1].name, sizeof cands[1].name, "%s#B", base);
        ncands = 2;
        ref_index = 0;
    } else {
        const char *deflist = "memasm,libc,llvm-libc,musl";
        char *copy = strdup(cand_list ? cand_list : deflist), *save = NULL;
        for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
            if (cand_add_builtin(tok) != 0) {
                fprintf(stderr, "memasm-bench: unknown candidate '%s' (memasm, %s, llvm-libc, musl)\n", tok,
                        sys_libc_name());
                return 2;
            }
        free(copy);
        for (int k = 0; k < nkernels; k++)
            if (cand_add_kernel(kernels[k]) != 0)
                return 2;
        for (int k = 0; k < nlibs; k++)
            if (cand_add_lib(libs[k]) != 0)
                return 2;
        ref_index = -1;
        const char *ref = opt.ref ? opt.ref : sys_libc_name();
        for (int i = 0; i < ncands; i++)
            if (strcmp(cands[i].name, ref) == 0)
                ref_index = i;
        if (ref_index < 0 && !opt.ref && ncands > 0)
            ref_index = 0;
        if (ref_index < 0) {
            fprintf(stderr, "memasm-bench: reference '%s' is not among the candidates\n", ref);
            return 2;
        }
    }
    if (ncands == 0) {
        fprintf(stderr, "memasm-bench: no candidates\n");
        return 2;
    }
    if (list)
        list_and_exit();

    eng_load_tables();

    plan_workloads();
    if (nwls == 0) {
        fprintf(stderr, "memasm-bench: the options select no workload\n");
        return 2;
    }

    /* Sizes of each sweep. */
    size_t hi = opt.size_hi;
    size_t ngrid = bench_size_grid(opt.size_lo, hi, opt.pow2, NULL, 0);
    size_t *grid = calloc(ngrid + 1, sizeof *grid);
    bench_size_grid(opt.size_lo, hi, opt.pow2, grid, ngrid);

    /* Buffers: the largest hot footprint, and the cold pool if needed. */
    size_t hot_len = eng_hot_len(wls, nwls, ngrid ? grid[ngrid - 1] : 0);
    int any_cold = 0;
    for (int w = 0; w < nwls; w++)
        any_cold |= wls[w].cold;
    if (!HAVE_EDGE && (opt.temps & 4u))
        fprintf(stderr, "memasm-bench: edge runs need a cache-line flush (x86_64, aarch64): none on this machine\n");

    if (opt.csv) {
        csv_file = fopen(opt.csv, "w");
        if (!csv_file) {
            fprintf(stderr, "memasm-bench: cannot write %s: %s\n", opt.csv, strerror(errno));
            return 1;
        }
        csv_header();
    }
    print_header();
    workers_start(hot_len, any_cold ? opt.cold_pool : 0);

    /* Spin the machine up before the first point, so that clock ramp-up,
     * wide-vector power-up and the first touches of code do not land on
     * the first point of the first table. */
    eng_spin_up(cands, ncands, 200);

    uint64_t t_start = now_ns();
    for (int w = 0; w < nwls; w++) {
        const struct workload *wl = &wls[w];
        uint64_t t_wl = now_ns();
        size_t wmax = sweep_max_size(wl);
        print_table_header(wl);
        if (wl->mix) {
            struct row *r = row_new();
            r->wl = w;
            eng_measure(wl, 0, cands, ncands, ref_index, r);
            print_row(wl, r);
            if (csv_file)
                csv_row(wl, r);
            continue;
        }
        for (size_t i = 0; i < ngrid; i++) {
            if (grid[i] > wmax)
                break;
            if (wl->cold && !cold_size_wanted(grid[i]))
                continue;
            if (!opt.full && !opt.sizes_given && grid[i] > QUICK_FINE_MAX && (grid[i] & (grid[i] - 1)))
                continue; /* quick run: powers of two only above 1 MiB */
            struct row *r = row_new();
            r->wl = w;
            eng_measure(wl, grid[i], cands, ncands, ref_index, r);
            print_row(wl, r);
            if (csv_file)
                csv_row(wl, r);
        }
        printf("   (%.1f s)\n", (double)(now_ns() - t_wl) / 1e9);
    }
    printf("\nelapsed: %.1f s; %llu samples, %llu (%.1f%%) discarded and taken again because the thread was "
           "preempted, %llu long or repeatedly preempted ones kept\n",
           (double)(now_ns() - t_start) / 1e9, (unsigned long long)n_samples, (unsigned long long)n_preempted,
           n_samples ? 100.0 * (double)n_preempted / (double)n_samples : 0.0,
           (unsigned long long)n_kept_preempted);
    workers_stop();
    if (csv_file) {
        fclose(csv_file);
        printf("csv: wrote %s\n", opt.csv);
    }
    if (opt.plot)
        plot(opt.plot);
    int rc = 0;
    if (opt.self_check)
        rc = self_check_report();
    free(grid);
    return rc;
}
