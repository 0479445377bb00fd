/*
 * engine.c -- buffers, worker threads, call tables, samples and the
 * interleaved measurement of a point, for memasm-bench and memasm-tune
 * (engine.h says what each piece is for; bench/README.md the method).
 */
#include "config.h"

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "tables.h"

struct engine_opts eng = {.threads = 1, .pin = -1, .rounds = 11, .min_time_us = 100, .seed = 0x6d656d61736dULL};

const char *const op_names[OP_KINDS] = {"memcpy", "memmove-fwd", "memmove-bwd", "memset"};
const char *const align_names[AL_KINDS] = {"aligned", "random", "alias4k", "near", "table"};
const char *const temp_names[3] = {"hot", "cold", "edge"};

/* dst - src for the 4K-aliasing case: a multiple of 4096 plus this. */
#define ALIAS_DELTA 16

const char *temp_name(const struct workload *wl)
{
    return temp_names[wl->edge ? 2 : wl->cold ? 1 : 0];
}

int cand_has_op(const struct cand *c, enum op_kind op)
{
    switch (op) {
    case OP_MEMCPY:
        return c->cpy != NULL;
    case OP_MOVE_FWD:
    case OP_MOVE_BWD:
        return c->mov != NULL;
    case OP_MEMSET:
        return c->set != NULL;
    default:
        return 0;
    }
}

/* ---- memory ------------------------------------------------------------- */

static void *map_bytes(size_t len, int huge)
{
    if (huge) {
        /* The cold pool asks for transparent huge pages, so that a cold
         * call misses the caches but not (mostly) the TLB: with 4 KiB pages
         * every cold call would also pay a page walk, which under nested
         * paging costs more than the copy and is not what "cold" means here.
         * Without THP (or with it disabled) this is plain 4 KiB memory. */
        void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            fprintf(stderr, "%s: cannot map %zu bytes: %s\n", program_invocation_short_name, len, strerror(errno));
            exit(1);
        }
#ifdef MADV_HUGEPAGE
        madvise(p, len, MADV_HUGEPAGE);
#endif
        memset(p, 0x5a, len);
        return p;
    }
    /* Every page is faulted in now (MAP_POPULATE on a writable private
     * mapping allocates real pages, not the shared zero page), so no page
     * fault lands inside a sample; it is also twice as fast as touching the
     * pages one by one, which matters in a VM that backs memory lazily. */
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "%s: cannot map %zu bytes: %s\n", program_invocation_short_name, len, strerror(errno));
        exit(1);
    }
    return p;
}

static size_t round_up(size_t x, size_t a)
{
    return (x + a - 1) / a * a;
}

/* ---- timing ------------------------------------------------------------- */

uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct call {
    unsigned char *dst;
    const unsigned char *src;
    size_t n;
};

/*
 * Edge runs (x86_64 and aarch64): before every call, flush the cache line
 * just past the last byte of the destination and of the source.  The call's
 * own lines stay hot; only an implementation whose accesses reach beyond
 * the bytes it was given (a 64-byte masked window, say, with its masked-off
 * part in the next line) finds that line in memory.  The flushes are inside
 * the timed loop for every candidate alike.
 */
#if HAVE_EDGE
static inline void flush_line(uintptr_t a)
{
#if defined(__x86_64__)
    __builtin_ia32_clflush((const void *)a);
#else
    __asm__ volatile("dc civac, %0" : : "r"(a) : "memory");
#endif
}

/* The line after the one holding p[n - 1] (n >= 1). */
static inline uintptr_t line_after(const unsigned char *p, size_t n)
{
    return (((uintptr_t)p + n - 1) | 63) + 1;
}
#endif

/*
 * The read pass of a readback workload: one byte of every cache line of
 * the n bytes at p, what a program that goes on to use the copied data
 * costs at least.  A store strategy that leaves the destination out of the
 * caches (non-temporal stores) pays here for the lines it sent to memory;
 * one load per line keeps the pass itself cheap against the copy.
 */
static inline __attribute__((always_inline)) unsigned read_pass(const unsigned char *p, size_t n)
{
    const volatile unsigned char *v = p;
    unsigned sum = v[n - 1];
    for (size_t i = 0; i < n; i += 64)
        sum += v[i];
    return sum;
}

/*
 * The timing loops: one template, inlined into a noinline function per
 * kind with constant arguments, so each is the same code for every
 * candidate and carries no test for the kinds it is not (is_set picks the
 * call, edge == 0 drops the flushes, rb == 0 the read pass, zero fills
 * with 0 instead of alternating 0x5a and 0x5b).  The empty asm takes the
 * result and clobbers memory, so neither the call nor the bytes it writes
 * can be optimised away or moved across the clock.
 */
static inline __attribute__((always_inline)) uint64_t timed_loop(copy_fn cpy, set_fn set, int is_set, int edge,
                                                                 int rb, int zero, const struct call *calls, size_t len,
                                                                 size_t iters, size_t *pos)
{
    size_t j = *pos;
    unsigned sink = 0;
    (void)edge;
    uint64_t t0 = now_ns();
    __asm__ volatile("" ::: "memory");
    for (size_t i = 0; i < iters; i++) {
#if HAVE_EDGE
        if (edge) {
            flush_line(line_after(calls[j].dst, calls[j].n));
            if (!is_set)
                flush_line(line_after(calls[j].src, calls[j].n));
        }
#endif
        void *r = is_set ? set(calls[j].dst, zero ? 0 : 0x5a ^ (int)(i & 1), calls[j].n)
                      : cpy(calls[j].dst, calls[j].src, calls[j].n);
        __asm__ volatile("" : : "r"(r) : "memory");
        if (rb && calls[j].n)
            sink += read_pass(calls[j].dst, calls[j].n);
        if (++j == len)
            j = 0;
    }
    __asm__ volatile("" : : "r"(sink) : "memory");
    uint64_t t1 = now_ns();
    *pos = j;
    return t1 - t0;
}

__attribute__((noinline)) static uint64_t loop_copy(copy_fn fn, const struct call *calls, size_t len,
                                                    size_t iters, size_t *pos)
{
    return timed_loop(fn, NULL, 0, 0, 0, 0, calls, len, iters, pos);
}

__attribute__((noinline)) static uint64_t loop_set(set_fn fn, const struct call *calls, size_t len, size_t iters,
                                                   size_t *pos)
{
    return timed_loop(NULL, fn, 1, 0, 0, 0, calls, len, iters, pos);
}

__attribute__((noinline)) static uint64_t loop_copy_rb(copy_fn fn, const struct call *calls, size_t len,
                                                       size_t iters, size_t *pos)
{
    return timed_loop(fn, NULL, 0, 0, 1, 0, calls, len, iters, pos);
}

__attribute__((noinline)) static uint64_t loop_set_rb(set_fn fn, const struct call *calls, size_t len,
                                                      size_t iters, size_t *pos)
{
    return timed_loop(NULL, fn, 1, 0, 1, 0, calls, len, iters, pos);
}

__attribute__((noinline)) static uint64_t loop_set_zero(set_fn fn, const struct call *calls, size_t len,
                                                        size_t iters, size_t *pos)
{
    return timed_loop(NULL, fn, 1, 0, 0, 1, calls, len, iters, pos);
}

__attribute__((noinline)) static uint64_t loop_set_zero_rb(set_fn fn, const struct call *calls, size_t len,
                                                           size_t iters, size_t *pos)
{
    return timed_loop(NULL, fn, 1, 0, 1, 1, calls, len, iters, pos);
}

#if HAVE_EDGE
__attribute__((noinline)) static uint64_t loop_copy_edge(copy_fn fn, const struct call *calls, size_t len,
                                                         size_t iters, size_t *pos)
{
    return timed_loop(fn, NULL, 0, 1, 0, 0, calls, len, iters, pos);
}

__attribute__((noinline)) static uint64_t loop_set_edge(set_fn fn, const struct call *calls, size_t len,
                                                        size_t iters, size_t *pos)
{
    return timed_loop(NULL, fn, 1, 1, 0, 0, calls, len, iters, pos);
}
#endif

/* ---- threads ------------------------------------------------------------ */

/* Each thread owns its buffers and its call table; thread 0 is main. */
struct worker {
    pthread_t tid;
    int index;
    unsigned char *hot;
    size_t hot_len;
    unsigned char *cold;
    size_t cold_len;
    struct call *calls;
    size_t ncalls, calls_cap;
    size_t cursor;   /* cold runs: where the next sample starts in the table */
    uint64_t t0, t1; /* last sample, absolute times */
    int preempted;   /* the last sample was interrupted by the scheduler */
};

static struct worker *workers;
/* Threads start a sample together: main bumps go_gen, the workers spin on
 * it (a sleeping barrier would wake them tens of microseconds apart), and
 * each counts itself into n_done when finished. */
static atomic_uint go_gen;
static atomic_int n_done, n_ready;

static void spin_pause(unsigned *spins)
{
    if (++*spins < 100000) {
#if defined(__x86_64__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ volatile("yield");
#else
        __asm__ volatile("" ::: "memory");
#endif
    } else {
        sched_yield(); /* more threads than CPUs, or a loaded machine */
    }
}
static struct {
    enum op_kind op;
    const struct cand *cand;
    size_t iters;
    int cold;
    int edge;
    int readback;
    int zero;
    int quit;
} job;

static void pin_self(int index)
{
    if (eng.pin < 0)
        return;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int cpu = (int)((eng.pin + index) % (ncpu > 0 ? ncpu : 1));
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        fprintf(stderr, "%s: cannot pin thread %d to CPU %d: %s\n", program_invocation_short_name, index, cpu, strerror(errno));
}

/* Involuntary context switches of the calling thread so far. */
static long preemptions(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return 0;
    return ru.ru_nivcsw;
}

/*
 * Cold samples: write back and drop from every cache level the lines that
 * the next `iters` calls will touch, so each call really starts cold however
 * large the last-level cache is (a pool alone is not enough when the cache
 * is hundreds of MiB).  x86_64 (clflush) and aarch64 (dc civac, which Linux
 * lets user space run) only; elsewhere cold relies on the pool alone.
 */
#if HAVE_FLUSH
static void flush_range(const unsigned char *p, size_t n)
{
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)63, end = (uintptr_t)p + n;
    for (; a < end; a += 64) {
#if defined(__x86_64__)
        __builtin_ia32_clflush((const void *)a);
#else
        __asm__ volatile("dc civac, %0" : : "r"(a) : "memory");
#endif
    }
}

static void flush_calls(const struct worker *w, size_t pos, size_t iters)
{
    if (iters > w->ncalls)
        iters = w->ncalls;
    for (size_t i = 0; i < iters; i++) {
        const struct call *c = &w->calls[(pos + i) % w->ncalls];
        if (c->src)
            flush_range(c->src, c->n);
        flush_range(c->dst, c->n);
    }
#if defined(__x86_64__)
    __builtin_ia32_mfence();
#else
    __asm__ volatile("dsb ish" ::: "memory");
#endif
}
#endif

/* One timed (or untimed) pass of the current job's loop from table
 * position *pos; returns the nanoseconds it took. */
static uint64_t run_loop(struct worker *w, size_t iters, size_t *pos)
{
#if HAVE_EDGE
    if (job.edge && job.op == OP_MEMSET)
        return loop_set_edge(job.cand->set, w->calls, w->ncalls, iters, pos);
    if (job.edge)
        return loop_copy_edge(job.cand->cpy, w->calls, w->ncalls, iters, pos);
#endif
    copy_fn cpy = job.op == OP_MEMCPY ? job.cand->cpy : job.cand->mov;
    if (job.zero && job.op == OP_MEMSET)
        return (job.readback ? loop_set_zero_rb : loop_set_zero)(job.cand->set, w->calls, w->ncalls, iters, pos);
    if (job.readback)
        return job.op == OP_MEMSET ? loop_set_rb(job.cand->set, w->calls, w->ncalls, iters, pos)
                                   : loop_copy_rb(cpy, w->calls, w->ncalls, iters, pos);
    if (job.op == OP_MEMSET)
        return loop_set(job.cand->set, w->calls, w->ncalls, iters, pos);
    return loop_copy(cpy, w->calls, w->ncalls, iters, pos);
}

static void run_job(struct worker *w)
{
#if HAVE_FLUSH
    if (job.cold)
        flush_calls(w, 0, job.iters);
#endif
    /* Hot samples start from the caches as this candidate leaves them, not
     * as the candidate before it in the round did: one untimed pass over
     * the first calls of the table (all of them, or the sample's length if
     * shorter).  Without it, a candidate whose large overlapping moves
     * leave the lines elsewhere in the hierarchy slowed the next one in
     * the rotation, which is always the same candidate: memmove 64 bytes
     * apart at 4 MiB read 0.57-0.66x behind such a candidate, 0.99-1.01x
     * without it. */
    if (!job.cold) {
        size_t wpos = 0;
        (void)run_loop(w, job.iters < w->ncalls ? job.iters : w->ncalls, &wpos);
    }
    if (eng.threads > 1) {
        /* Rendezvous: nobody starts the clock until every thread is on a
         * CPU and here, so the copies really run at the same time. */
        unsigned spins = 0;
        atomic_fetch_add_explicit(&n_ready, 1, memory_order_acq_rel);
        while (atomic_load_explicit(&n_ready, memory_order_acquire) < eng.threads)
            spin_pause(&spins);
    }
    /* Every sample starts at the top of the table, so every candidate makes
     * the same calls; without a cache flush, cold runs instead go on through
     * the pool from where the last sample stopped, so that no sample finds
     * the slots the previous one left in the cache. */
    size_t pos = job.cold && !HAVE_FLUSH ? w->cursor : 0;
    long cs = preemptions();
    uint64_t t0 = now_ns();
    uint64_t dt = run_loop(w, job.iters, &pos);
    w->cursor = pos;
    w->t0 = t0;
    w->t1 = t0 + dt;
    w->preempted = preemptions() != cs;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    pin_self(w->index);
    /* First touch from the thread that will use the memory. */
    w->hot = map_bytes(w->hot_len, 0);
    if (w->cold_len)
        w->cold = map_bytes(w->cold_len, 1);
    unsigned seen = atomic_load(&go_gen);
    atomic_fetch_add_explicit(&n_done, 1, memory_order_release);
    for (;;) {
        unsigned spins = 0, g;
        while ((g = atomic_load_explicit(&go_gen, memory_order_acquire)) == seen)
            spin_pause(&spins);
        seen = g;
        if (job.quit)
            break;
        run_job(w);
        atomic_fetch_add_explicit(&n_done, 1, memory_order_release);
    }
    return NULL;
}

/* Samples taken and samples thrown away because the scheduler took the CPU
 * away in the middle of one (several engineers share this machine).  Only
 * short samples are taken again: a long one (a single copy of many MiB) is
 * preempted nearly every time on a loaded machine, and one lost time slice
 * matters less to it. */
uint64_t n_samples, n_preempted, n_kept_preempted;
#define MAX_RETRIES 50
#define RETRY_MAX_NS 5000000

static uint64_t sample_once(const struct cand *c, enum op_kind op, size_t iters, int *preempted);

/* One sample: every thread runs `iters` calls; returns the wall time from
 * the first thread's start to the last one's end, in ns.  A sample during
 * which any thread was preempted (involuntary context switch) is taken
 * again, up to MAX_RETRIES times. */
static uint64_t sample(const struct cand *c, enum op_kind op, size_t iters)
{
    uint64_t t = 0;
    for (int k = 0; k <= MAX_RETRIES; k++) {
        int pre;
        t = sample_once(c, op, iters, &pre);
        n_samples++;
        if (!pre)
            break;
        if (t > RETRY_MAX_NS || k == MAX_RETRIES) {
            n_kept_preempted++;
            break;
        }
        n_preempted++;
    }
    return t;
}

static uint64_t sample_once(const struct cand *c, enum op_kind op, size_t iters, int *preempted)
{
    if (c->setup)
        c->setup(c);
    job.op = op;
    job.cand = c;
    job.iters = iters;
    if (eng.threads == 1) {
        run_job(&workers[0]);
        *preempted = workers[0].preempted;
        return workers[0].t1 - workers[0].t0;
    }
    atomic_store(&n_done, 0);
    atomic_store(&n_ready, 0);
    atomic_fetch_add_explicit(&go_gen, 1, memory_order_release);
    run_job(&workers[0]);
    unsigned spins = 0;
    while (atomic_load_explicit(&n_done, memory_order_acquire) < eng.threads - 1)
        spin_pause(&spins);
    uint64_t lo = UINT64_MAX, hi = 0;
    *preempted = 0;
    for (int i = 0; i < eng.threads; i++) {
        *preempted |= workers[i].preempted;
        if (workers[i].t0 < lo)
            lo = workers[i].t0;
        if (workers[i].t1 > hi)
            hi = workers[i].t1;
    }
    /* Threads that did not start together did not copy at the same time:
     * treat the sample like a preempted one. */
    uint64_t t0_max = 0;
    for (int i = 0; i < eng.threads; i++)
        if (workers[i].t0 > t0_max)
            t0_max = workers[i].t0;
    if (t0_max - lo > (hi - lo) / 50)
        *preempted = 1;
    return hi - lo;
}

void workers_start(size_t hot_len, size_t cold_len)
{
    workers = calloc((size_t)eng.threads, sizeof *workers);
    if (!workers)
        exit(1);
    for (int i = 0; i < eng.threads; i++) {
        workers[i].index = i;
        workers[i].hot_len = hot_len;
        workers[i].cold_len = cold_len;
    }
    pin_self(0);
    workers[0].hot = map_bytes(hot_len, 0);
    if (cold_len)
        workers[0].cold = map_bytes(cold_len, 1);
    if (eng.threads == 1)
        return;
    atomic_store(&n_done, 0);
    for (int i = 1; i < eng.threads; i++) {
        if (pthread_create(&workers[i].tid, NULL, worker_main, &workers[i]) != 0) {
            fprintf(stderr, "%s: cannot start thread %d\n", program_invocation_short_name, i);
            exit(1);
        }
    }
    unsigned spins = 0; /* wait until everyone has mapped its buffers */
    while (atomic_load_explicit(&n_done, memory_order_acquire) < eng.threads - 1)
        spin_pause(&spins);
}

void workers_stop(void)
{
    if (eng.threads > 1) {
        job.quit = 1;
        atomic_fetch_add_explicit(&go_gen, 1, memory_order_release);
        for (int i = 1; i < eng.threads; i++)
            pthread_join(workers[i].tid, NULL);
    }
}

/* ---- call tables -------------------------------------------------------- */

/* The built-in tables (SPEC CPU2017), and the tables each operation's mix
 * draws from: the built-in ones, or a --mix file's.  An operation whose
 * source table is empty draws no source offset (memset in a profile). */
static struct bench_dist dist_memcpy_sizes, dist_memset_sizes, dist_src_align, dist_dst_align;
static const struct bench_dist *mix_size[OP_KINDS], *mix_src[OP_KINDS], *mix_dst[OP_KINDS];
static struct bench_mix mix_file;
/* The largest size a mix draws: the built-in tables' bound, or a file's
 * largest size up to MIX_FILE_MAX. */
static size_t mix_max = MIX_MAX_SIZE;

static const char *table_text(const char *name)
{
    for (const struct memasm_bench_table *t = memasm_bench_tables; t->name; t++)
        if (strcmp(t->name, name) == 0)
            return t->text;
    return NULL;
}

static void load_dist(struct bench_dist *d, const char *table, const char *key)
{
    char err[160];
    const char *text = table_text(table);
    if (!text || bench_dist_parse(text, key, d, err, sizeof err) != 0) {
        fprintf(stderr, "%s: built-in table %s%s%s: %s\n", program_invocation_short_name, table, key ? "/" : "", key ? key : "",
                text ? err : "missing");
        exit(1);
    }
}

void eng_load_tables(void)
{
    load_dist(&dist_memcpy_sizes, "memcpy_sizes", NULL);
    load_dist(&dist_memset_sizes, "memset_sizes", NULL);
    load_dist(&dist_src_align, "memcpy_align", "src");
    load_dist(&dist_dst_align, "memcpy_align", "dst");
    for (int op = 0; op < OP_KINDS; op++) {
        mix_size[op] = op == OP_MEMSET ? &dist_memset_sizes : &dist_memcpy_sizes;
        mix_src[op] = &dist_src_align;
        mix_dst[op] = &dist_dst_align;
    }
}

/* The file's operation for a mix of op. */
static int mix_op(enum op_kind op)
{
    return op == OP_MEMSET ? BENCH_MIX_MEMSET : op == OP_MEMCPY ? BENCH_MIX_MEMCPY : BENCH_MIX_MEMMOVE;
}

static int set_mix(const char *text, uint64_t *clamped, char *err, size_t errlen)
{
    struct bench_mix m;
    if (bench_mix_parse(text, &m, err, errlen) != 0)
        return -1;
    bench_mix_free(&mix_file);
    mix_file = m;
    *clamped = 0;
    mix_max = MIX_MAX_SIZE;
    for (int i = 0; i < BENCH_MIX_OPS; i++) {
        struct bench_dist *d = &mix_file.size[i];
        uint64_t prev = 0;
        for (size_t k = 0; k < d->n; prev = d->cum[k], k++) {
            if (d->value[k] > MIX_FILE_MAX) {
                d->value[k] = MIX_FILE_MAX;
                *clamped += d->cum[k] - prev;
            }
            if (d->value[k] > mix_max)
                mix_max = (size_t)d->value[k];
        }
    }
    for (int op = 0; op < OP_KINDS; op++) {
        int i = mix_file.profile ? mix_op((enum op_kind)op) : 0;
        mix_size[op] = &mix_file.size[i];
        if (mix_file.profile) { /* a size table keeps the built-in alignments */
            mix_src[op] = &mix_file.src[i];
            mix_dst[op] = &mix_file.dst[i];
        }
    }
    return 0;
}

int eng_load_mix(const char *path, char *err, size_t errlen)
{
    uint64_t clamped;
    char *text = bench_read_file(path, (size_t)16 << 20, err, errlen);
    if (!text)
        return -1;
    int r = set_mix(text, &clamped, err, errlen);
    free(text);
    if (r == 0 && clamped)
        fprintf(stderr, "%s: --mix %s: %llu calls above 16M are made at 16M\n", program_invocation_short_name, path,
                (unsigned long long)clamped);
    return r;
}

const struct bench_dist *eng_mix_sizes(enum op_kind op)
{
    return mix_size[op]->n ? mix_size[op] : NULL;
}

static void calls_reserve(struct worker *w, size_t n)
{
    if (n <= w->calls_cap)
        return;
    free(w->calls);
    w->calls = calloc(n, sizeof *w->calls);
    if (!w->calls) {
        fprintf(stderr, "%s: out of memory for %zu calls\n", program_invocation_short_name, n);
        exit(1);
    }
    w->calls_cap = n;
}

/* Calls in a table of varying (random / mixed) calls. */
#define VARY_CALLS 4096

/* Edge runs: the calls cycle through EDGE_SLOTS slots per buffer, each the
 * call's bytes plus room for its offset and two lines of gap, so the line
 * flushed past one call is never a line another call touches; up to
 * EDGE_MAX_SIZE bytes all slots together (38 KiB) stay in a 48 KiB L1d. */
#define EDGE_SLOTS 16
static size_t edge_stride(size_t n)
{
    return round_up(n + 64, 64) + 128;
}
/* Most slots a cold table visits: 2^20 calls, 24 MiB of table. */
#define MAX_COLD_SLOTS ((size_t)1 << 20)

/* Distance between source and destination for a memmove of n bytes: half
 * the size, so the regions overlap by half; a multiple of 64 when the
 * workload is aligned and that still overlaps.  "near": NEAR_DELTA bytes
 * (half the size below 2 * NEAR_DELTA), the short shift of an element
 * inserted into or deleted from an array, both pointers 64-byte aligned.
 * A workload's own delta (at most n / 2, so the arena still holds it)
 * comes before all of these. */
#define NEAR_DELTA ((size_t)64)
static size_t move_delta(size_t n, const struct workload *wl)
{
    size_t d = n / 2 ? n / 2 : 1;
    enum align_kind al = wl->align;
    if (wl->delta)
        return wl->delta < d ? wl->delta : d;
    if (al == AL_NEAR && d > NEAR_DELTA)
        return NEAR_DELTA;
    if (al == AL_ALIGNED && n > 64)
        d = round_up(d, 64);
    return d;
}

/*
 * Hot layout: the source region at the start of the arena, the destination
 * region hot_half(n) further on (a whole number of pages past the source's
 * end, so destination - source == 0 mod 4096 when both are aligned).
 */
static size_t hot_half(size_t n)
{
    return round_up(n + 128, 4096) + 4096;
}

/* Bytes a hot call of size n needs in the arena. */
static size_t hot_footprint(size_t n, enum op_kind op)
{
    switch (op) {
    case OP_MOVE_FWD:
    case OP_MOVE_BWD:
        return round_up(n + n / 2 + 256, 4096);
    default: /* source, destination (memset too), the 4K-aliasing delta */
        return 2 * hot_half(n) + 4096;
    }
}

/*
 * Cold layout: the pool's first half holds source slots, its second half
 * the destination slots (slot i's destination is exactly half a pool, a
 * whole number of pages, after its source).  A slot is the call's bytes plus
 * room for the offsets, rounded to a cache line, so that small calls spread
 * over up to MAX_COLD_SLOTS slots and many distinct lines instead of
 * touching one line per page and coming back to it soon.
 */
static size_t cold_stride(size_t n, enum op_kind op)
{
    if (op == OP_MOVE_FWD || op == OP_MOVE_BWD)
        return round_up(n + n / 2 + 192, 64);
    return round_up(n + 128, 64);
}

/* Place one call: source region src_r and destination region dst_r (both
 * at least 64-byte aligned; memmove works inside src_r). */
static void place(struct call *c, unsigned char *src_r, unsigned char *dst_r, size_t n, const struct workload *wl,
                  unsigned src_off, unsigned dst_off)
{
    c->n = n;
    switch (wl->op) {
    case OP_MEMSET:
        c->dst = dst_r + dst_off;
        c->src = NULL;
        break;
    case OP_MOVE_FWD: /* dst below src: a forward copy is safe */
        c->dst = src_r + dst_off;
        c->src = c->dst + move_delta(n, wl);
        break;
    case OP_MOVE_BWD: /* dst above src: needs a backward copy */
        c->src = src_r + src_off;
        c->dst = (unsigned char *)c->src + move_delta(n, wl);
        break;
    default:
        c->src = src_r + src_off;
        if (wl->align == AL_ALIAS4K) /* dst - src = k * 4096 + ALIAS_DELTA */
            c->dst = dst_r + src_off + ALIAS_DELTA;
        else
            c->dst = dst_r + dst_off;
        break;
    }
}

/*
 * Fill thread w's call table for workload wl at size n (ignored for mixes).
 * Every thread gets the same sequence of sizes and offsets (same seed).
 */
static void build_calls(struct worker *w, const struct workload *wl, size_t n, uint64_t seed)
{
    struct bench_rng rng;
    bench_rng_seed(&rng, seed ^ ((uint64_t)wl->op << 40) ^ ((uint64_t)wl->align << 48) ^ n);
    size_t ncalls = 1;
    if (wl->mix || wl->align == AL_RANDOM)
        ncalls = VARY_CALLS;
    if (wl->edge && ncalls < EDGE_SLOTS)
        ncalls = EDGE_SLOTS;
    /* One sequence of VARY_CALLS sizes and offsets (all equal for a plain
     * aligned sweep), drawn first so that it does not depend on the pool. */
    static struct { size_t sz; unsigned so, d_o, slide; } seq[VARY_CALLS];
    for (size_t i = 0; i < VARY_CALLS; i++) {
        seq[i].sz = n;
        seq[i].so = seq[i].d_o = seq[i].slide = 0;
        if (wl->mix) {
            seq[i].sz = (size_t)bench_dist_sample(mix_size[wl->op], &rng);
            if (mix_src[wl->op]->n)
                seq[i].so = bench_offset_with_align((unsigned)bench_dist_sample(mix_src[wl->op], &rng), &rng);
            seq[i].d_o = bench_offset_with_align((unsigned)bench_dist_sample(mix_dst[wl->op], &rng), &rng);
            /* hot: slide through an 8 KiB window, still L1-resident (drawn
             * for cold too, so both get the same sizes and offsets) */
            seq[i].slide = 64 * (unsigned)bench_rng_below(&rng, 128);
            if (wl->cold)
                seq[i].slide = 0;
        } else if (wl->align == AL_RANDOM) {
            seq[i].so = (unsigned)bench_rng_below(&rng, 64);
            seq[i].d_o = (unsigned)bench_rng_below(&rng, 64);
        }
    }
    size_t nslots = 0, stride = 0, pool_half = (w->cold_len / 2) & ~(size_t)4095, *perm = NULL;
    if (wl->cold) {
        stride = cold_stride(wl->mix ? mix_max + 64 : n, wl->op);
        nslots = pool_half / stride;
        if (nslots > MAX_COLD_SLOTS)
            nslots = MAX_COLD_SLOTS;
        if (nslots == 0)
            nslots = 1;
        /* Visit the slots in a random order the prefetchers cannot follow
         * (a generator of its own: hot and cold mixes make the same calls). */
        struct bench_rng prng;
        bench_rng_seed(&prng, seed ^ 0x636f6c64u ^ n);
        perm = malloc(nslots * sizeof *perm);
        if (!perm)
            exit(1);
        for (size_t i = 0; i < nslots; i++)
            perm[i] = i;
        for (size_t i = nslots - 1; i > 0; i--) {
            size_t k = (size_t)bench_rng_below(&prng, i + 1), t = perm[i];
            perm[i] = perm[k];
            perm[k] = t;
        }
        if (ncalls < nslots)
            ncalls = nslots;
    }
    /* A varying table repeats the sequence, so any VARY_CALLS consecutive
     * calls starting at a multiple of it make the same multiset of calls,
     * whichever slots they land in. */
    if (ncalls > 1)
        ncalls = round_up(ncalls, VARY_CALLS);
    calls_reserve(w, ncalls);
    w->ncalls = ncalls;
    size_t hh = hot_half(wl->mix ? mix_max + 64 : n);
    size_t es = edge_stride(n), eh = hot_half(EDGE_SLOTS * es);
    for (size_t i = 0; i < ncalls; i++) {
        size_t k = i % VARY_CALLS;
        unsigned char *src_r, *dst_r;
        if (wl->cold) {
            src_r = w->cold + perm[i % nslots] * stride;
            dst_r = src_r + pool_half;
        } else if (wl->edge) {
            src_r = w->hot + (i % EDGE_SLOTS) * es;
            dst_r = src_r + eh;
        } else {
            src_r = w->hot + seq[k].slide;
            dst_r = src_r + hh;
        }
        place(&w->calls[i], src_r, dst_r, seq[k].sz, wl, seq[k].so, seq[k].d_o);
    }
    free(perm);
}

/* ---- measuring a point -------------------------------------------------- */

void eng_measure(const struct workload *wl, size_t n, const struct cand *cands, int ncands, int ref_index,
                 struct row *row)
{
    int idx[MAX_CANDS], m = 0;
    for (int i = 0; i < ncands; i++) {
        row->c[i].status = !cands[i].available ? 1 : !cand_has_op(&cands[i], wl->op) ? 2 : 0;
        if (row->c[i].status == 0)
            idx[m++] = i;
    }
    for (int t = 0; t < eng.threads; t++) {
        build_calls(&workers[t], wl, n, eng.seed);
        workers[t].cursor = 0;
    }
    job.cold = wl->cold;
    job.edge = wl->edge;
    job.readback = wl->readback;
    job.zero = wl->zero;
    double bytes = 0;
    for (size_t i = 0; i < workers[0].ncalls; i++)
        bytes += (double)workers[0].calls[i].n;
    double mean = bytes / (double)workers[0].ncalls;
    row->mean_size = mean;
    row->size = wl->mix ? 0 : n;
    if (m == 0)
        return;

    /* Calibrate on the reference (or the first measured candidate): grow
     * the batch until it lasts min_time; whole passes over varying tables. */
    int cal = row->c[ref_index].status == 0 ? ref_index : idx[0];
    /* Cold samples are dominated by memory latency, which other cores and
     * tenants disturb: they get five times the sample length. */
    double target = eng.min_time_us * 1000.0 * (wl->cold ? 5 : 1);
    /* A mix always runs whole periods of its sequence (see build_calls), so
     * every sample has the same mean size; other tables just cycle (every
     * candidate makes the same calls since they all use the same count). */
    size_t unit = wl->mix ? VARY_CALLS : 1;
    size_t iters = unit;
    for (;;) {
        uint64_t t = sample(&cands[cal], wl->op, iters);
        if ((double)t >= target / 4 || iters >= ((size_t)1 << 40))
            {
                double per = (double)t / (double)iters;
                size_t want = (size_t)ceil(target / (per > 0 ? per : 1));
                iters = want < unit ? unit : round_up(want, unit);
                break;
            }
        iters *= 4;
    }
    row->iters = iters;

    /* Warm-up: every candidate runs one sample (code, TLB and branch
     * predictors warm, and the buffers in the state the workload wants). */
    for (int k = 0; k < m; k++)
        sample(&cands[idx[k]], wl->op, iters);

    int R = eng.rounds;
    double *t = calloc((size_t)(R * ncands), sizeof *t);
    double *tmp = calloc((size_t)R, sizeof *tmp);
    if (!t || !tmp)
        exit(1);
    for (int r = 0; r < R; r++)
        for (int k = 0; k < m; k++) {
            int ci = idx[(k + r) % m];
            t[r * ncands + ci] = (double)sample(&cands[ci], wl->op, iters);
        }
    for (int k = 0; k < m; k++) {
        int ci = idx[k];
        for (int r = 0; r < R; r++)
            tmp[r] = t[r * ncands + ci];
        double med = bench_median(tmp, (size_t)R);
        struct cres *cr = &row->c[ci];
        cr->ns = med / (double)iters;
        cr->gbps = bytes * (double)eng.threads * ((double)iters / (double)workers[0].ncalls) / med;
        if (row->c[ref_index].status == 0) {
            double *num = calloc((size_t)R, sizeof *num), *den = calloc((size_t)R, sizeof *den);
            if (!num || !den)
                exit(1);
            for (int r = 0; r < R; r++) {
                num[r] = t[r * ncands + ref_index];
                den[r] = t[r * ncands + ci];
            }
            cr->ratio = bench_paired_ratio(num, den, (size_t)R, tmp);
            cr->r_lo = bench_quantile(tmp, (size_t)R, 0.25);
            cr->r_hi = bench_quantile(tmp, (size_t)R, 0.75);
            free(num);
            free(den);
        } else {
            cr->ratio = cr->r_lo = cr->r_hi = NAN;
        }
    }
    free(t);
    free(tmp);
}

/* ---- set-up ------------------------------------------------------------- */

size_t eng_hot_len(const struct workload *wls, int nwls, size_t max_n)
{
    size_t hot_len = hot_footprint(mix_max + 64 + 8192, OP_MEMCPY) + 16384;
    for (int w = 0; w < nwls; w++)
        if (!wls[w].mix && !wls[w].cold && hot_footprint(max_n, wls[w].op) + 16384 > hot_len)
            hot_len = hot_footprint(max_n, wls[w].op) + 16384;
    size_t edge_len = hot_half(EDGE_SLOTS * edge_stride(EDGE_MAX_SIZE)) + EDGE_SLOTS * edge_stride(EDGE_MAX_SIZE);
    if (edge_len + 16384 > hot_len)
        hot_len = edge_len + 16384;
    return hot_len;
}

void eng_spin_up(const struct cand *cands, int ncands, unsigned ms)
{
    unsigned char *h = workers[0].hot;
    for (uint64_t t_end = now_ns() + (uint64_t)ms * 1000000u; now_ns() < t_end;)
        for (int i = 0; i < ncands; i++) {
            if (cands[i].setup)
                cands[i].setup(&cands[i]);
            if (cands[i].cpy)
                cands[i].cpy(h, h + 32768, 16384);
            if (cands[i].set)
                cands[i].set(h, 1, 16384);
            __asm__ volatile("" ::: "memory");
        }
}
