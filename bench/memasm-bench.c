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
#include "harness.h"
#include "tables.h"

typedef void *(*copy_fn)(void *, const void *, size_t);
typedef void *(*set_fn)(void *, int, size_t);

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

enum { MAX_CANDS = 16 };

struct cand {
    char name[40];  /* column label                                          */
    char desc[200]; /* what it is, or why it is not available                */
    int available;
    copy_fn cpy;    /* NULL: does not implement memcpy                        */
    copy_fn mov;    /* NULL: does not implement memmove                       */
    set_fn set;     /* NULL: does not implement memset                        */
};

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

/* ---- workloads ---------------------------------------------------------- */

enum op_kind { OP_MEMCPY, OP_MOVE_FWD, OP_MOVE_BWD, OP_MEMSET, OP_KINDS };
static const char *const op_names[OP_KINDS] = {"memcpy", "memmove-fwd", "memmove-bwd", "memset"};

enum align_kind { AL_ALIGNED, AL_RANDOM, AL_ALIAS4K, AL_NEAR, AL_TABLE, AL_KINDS };
static const char *const align_names[AL_KINDS] = {"aligned", "random", "alias4k", "near", "table"};

/* dst - src for the 4K-aliasing case: a multiple of 4096 plus this. */
#define ALIAS_DELTA 16

struct workload {
    enum op_kind op;
    enum align_kind align;
    int cold;
    int edge;         /* hot, the line past each buffer flushed per call */
    int mix;          /* sizes from a frequency table, one point */
    char name[64];
};

/* Temperatures, in the order of --temp's bits (1 hot, 2 cold, 4 edge). */
static const char *const temp_names[] = {"hot", "cold", "edge"};

static const char *temp_name(const struct workload *wl)
{
    return temp_names[wl->edge ? 2 : wl->cold ? 1 : 0];
}

static int cand_has_op(const struct cand *c, enum op_kind op)
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
    int rounds;
    double min_time_us;
    int threads;
    int pin;            /* -1: do not pin                        */
    uint64_t seed;
    const char *csv;
    const char *plot;
    const char *ref;
    const char *self_check;
    size_t cold_pool;
    size_t llc;
} opt = {
    .ops = 0, .aligns = 0, .temps = 0, .sweeps = 1, .mixes = 1, .size_lo = 1, .size_hi = (size_t)256 << 20,
    .rounds = 0, .min_time_us = 0, .threads = 1, .pin = -1, .seed = 0x6d656d61736dULL,
};

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
            fprintf(stderr, "memasm-bench: cannot map %zu bytes: %s\n", len, strerror(errno));
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
        fprintf(stderr, "memasm-bench: cannot map %zu bytes: %s\n", len, strerror(errno));
        exit(1);
    }
    return p;
}

static size_t round_up(size_t x, size_t a)
{
    return (x + a - 1) / a * a;
}

/* ---- timing ------------------------------------------------------------- */

static inline uint64_t now_ns(void)
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
#if defined(__x86_64__) || defined(__aarch64__)
#define HAVE_EDGE 1
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
#else
#define HAVE_EDGE 0
#endif

/*
 * The timing loops: one template, inlined into a noinline function per
 * kind with constant arguments, so each is the same code for every
 * candidate and carries no test for the kinds it is not (is_set picks the
 * call, edge == 0 drops the flushes).  The empty asm takes the
 * result and clobbers memory, so neither the call nor the bytes it writes
 * can be optimised away or moved across the clock.
 */
static inline __attribute__((always_inline)) uint64_t timed_loop(copy_fn cpy, set_fn set, int is_set, int edge,
                                                                 const struct call *calls, size_t len,
                                                                 size_t iters, size_t *pos)
{
    size_t j = *pos;
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
        void *r = is_set ? set(calls[j].dst, 0x5a ^ (int)(i & 1), calls[j].n)
                      : cpy(calls[j].dst, calls[j].src, calls[j].n);
        __asm__ volatile("" : : "r"(r) : "memory");
        if (++j == len)
            j = 0;
    }
    __asm__ volatile("" ::: "memory");
    uint64_t t1 = now_ns();
    *pos = j;
    return t1 - t0;
}

__attribute__((noinline)) static uint64_t loop_copy(copy_fn fn, const struct call *calls, size_t len,
                                                    size_t iters, size_t *pos)
{
    return timed_loop(fn, NULL, 0, 0, calls, len, iters, pos);
}

__attribute__((noinline)) static uint64_t loop_set(set_fn fn, const struct call *calls, size_t len, size_t iters,
                                                   size_t *pos)
{
    return timed_loop(NULL, fn, 1, 0, calls, len, iters, pos);
}

#if HAVE_EDGE
__attribute__((noinline)) static uint64_t loop_copy_edge(copy_fn fn, const struct call *calls, size_t len,
                                                         size_t iters, size_t *pos)
{
    return timed_loop(fn, NULL, 0, 1, calls, len, iters, pos);
}

__attribute__((noinline)) static uint64_t loop_set_edge(set_fn fn, const struct call *calls, size_t len,
                                                        size_t iters, size_t *pos)
{
    return timed_loop(NULL, fn, 1, 1, calls, len, iters, pos);
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
    int quit;
} job;

static void pin_self(int index)
{
    if (opt.pin < 0)
        return;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int cpu = (int)((opt.pin + index) % (ncpu > 0 ? ncpu : 1));
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        fprintf(stderr, "memasm-bench: cannot pin thread %d to CPU %d: %s\n", index, cpu, strerror(errno));
}

/* Involuntary context switches of the calling thread so far. */
static long preemptions(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return 0;
    return ru.ru_nivcsw;
}

static void spin_pause(unsigned *spins);

/*
 * Cold samples: write back and drop from every cache level the lines that
 * the next `iters` calls will touch, so each call really starts cold however
 * large the last-level cache is (a pool alone is not enough when the cache
 * is hundreds of MiB).  x86_64 (clflush) and aarch64 (dc civac, which Linux
 * lets user space run) only; elsewhere cold relies on the pool alone.
 */
#if defined(__x86_64__) || defined(__aarch64__)
#define HAVE_FLUSH 1
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
#else
#define HAVE_FLUSH 0
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
    if (job.op == OP_MEMSET)
        return loop_set(job.cand->set, w->calls, w->ncalls, iters, pos);
    if (job.op == OP_MEMCPY)
        return loop_copy(job.cand->cpy, w->calls, w->ncalls, iters, pos);
    return loop_copy(job.cand->mov, w->calls, w->ncalls, iters, pos);
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
    if (opt.threads > 1) {
        /* Rendezvous: nobody starts the clock until every thread is on a
         * CPU and here, so the copies really run at the same time. */
        unsigned spins = 0;
        atomic_fetch_add_explicit(&n_ready, 1, memory_order_acq_rel);
        while (atomic_load_explicit(&n_ready, memory_order_acquire) < opt.threads)
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
static uint64_t n_samples, n_preempted, n_kept_preempted;
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
    job.op = op;
    job.cand = c;
    job.iters = iters;
    if (opt.threads == 1) {
        run_job(&workers[0]);
        *preempted = workers[0].preempted;
        return workers[0].t1 - workers[0].t0;
    }
    atomic_store(&n_done, 0);
    atomic_store(&n_ready, 0);
    atomic_fetch_add_explicit(&go_gen, 1, memory_order_release);
    run_job(&workers[0]);
    unsigned spins = 0;
    while (atomic_load_explicit(&n_done, memory_order_acquire) < opt.threads - 1)
        spin_pause(&spins);
    uint64_t lo = UINT64_MAX, hi = 0;
    *preempted = 0;
    for (int i = 0; i < opt.threads; i++) {
        *preempted |= workers[i].preempted;
        if (workers[i].t0 < lo)
            lo = workers[i].t0;
        if (workers[i].t1 > hi)
            hi = workers[i].t1;
    }
    /* Threads that did not start together did not copy at the same time:
     * treat the sample like a preempted one. */
    uint64_t t0_max = 0;
    for (int i = 0; i < opt.threads; i++)
        if (workers[i].t0 > t0_max)
            t0_max = workers[i].t0;
    if (t0_max - lo > (hi - lo) / 50)
        *preempted = 1;
    return hi - lo;
}

static void workers_start(size_t hot_len, size_t cold_len)
{
    workers = calloc((size_t)opt.threads, sizeof *workers);
    if (!workers)
        exit(1);
    for (int i = 0; i < opt.threads; i++) {
        workers[i].index = i;
        workers[i].hot_len = hot_len;
        workers[i].cold_len = cold_len;
    }
    pin_self(0);
    workers[0].hot = map_bytes(hot_len, 0);
    if (cold_len)
        workers[0].cold = map_bytes(cold_len, 1);
    if (opt.threads == 1)
        return;
    atomic_store(&n_done, 0);
    for (int i = 1; i < opt.threads; i++) {
        if (pthread_create(&workers[i].tid, NULL, worker_main, &workers[i]) != 0) {
            fprintf(stderr, "memasm-bench: cannot start thread %d\n", i);
            exit(1);
        }
    }
    unsigned spins = 0; /* wait until everyone has mapped its buffers */
    while (atomic_load_explicit(&n_done, memory_order_acquire) < opt.threads - 1)
        spin_pause(&spins);
}

static void workers_stop(void)
{
    if (opt.threads > 1) {
        job.quit = 1;
        atomic_fetch_add_explicit(&go_gen, 1, memory_order_release);
        for (int i = 1; i < opt.threads; i++)
            pthread_join(workers[i].tid, NULL);
    }
}

/* ---- call tables -------------------------------------------------------- */

static struct bench_dist dist_memcpy_sizes, dist_memset_sizes, dist_src_align, dist_dst_align;

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
        fprintf(stderr, "memasm-bench: built-in table %s%s%s: %s\n", table, key ? "/" : "", key ? key : "",
                text ? err : "missing");
        exit(1);
    }
}

static void calls_reserve(struct worker *w, size_t n)
{
    if (n <= w->calls_cap)
        return;
    free(w->calls);
    w->calls = calloc(n, sizeof *w->calls);
    if (!w->calls) {
        fprintf(stderr, "memasm-bench: out of memory for %zu calls\n", n);
        exit(1);
    }
    w->calls_cap = n;
}

/* Calls in a table of varying (random / mixed) calls. */
#define VARY_CALLS 4096
#define MIX_MAX_SIZE 4096 /* the tables' sizes stay below this */

/* Edge runs: the calls cycle through EDGE_SLOTS slots per buffer, each the
 * call's bytes plus room for its offset and two lines of gap, so the line
 * flushed past one call is never a line another call touches; up to
 * EDGE_MAX_SIZE bytes all slots together (38 KiB) stay in a 48 KiB L1d. */
#define EDGE_SLOTS 16
#define EDGE_MAX_SIZE ((size_t)1024)
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
 * inserted into or deleted from an array, both pointers 64-byte aligned. */
#define NEAR_DELTA ((size_t)64)
static size_t move_delta(size_t n, enum align_kind al)
{
    size_t d = n / 2 ? n / 2 : 1;
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
static void place(struct call *c, unsigned char *src_r, unsigned char *dst_r, size_t n, enum op_kind op,
                  enum align_kind al, unsigned src_off, unsigned dst_off)
{
    c->n = n;
    switch (op) {
    case OP_MEMSET:
        c->dst = dst_r + dst_off;
        c->src = NULL;
        break;
    case OP_MOVE_FWD: /* dst below src: a forward copy is safe */
        c->dst = src_r + dst_off;
        c->src = c->dst + move_delta(n, al);
        break;
    case OP_MOVE_BWD: /* dst above src: needs a backward copy */
        c->src = src_r + src_off;
        c->dst = (unsigned char *)c->src + move_delta(n, al);
        break;
    default:
        c->src = src_r + src_off;
        if (al == AL_ALIAS4K) /* dst - src = k * 4096 + ALIAS_DELTA */
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
            seq[i].sz = (size_t)bench_dist_sample(wl->op == OP_MEMSET ? &dist_memset_sizes : &dist_memcpy_sizes, &rng);
            seq[i].so = bench_offset_with_align((unsigned)bench_dist_sample(&dist_src_align, &rng), &rng);
            seq[i].d_o = bench_offset_with_align((unsigned)bench_dist_sample(&dist_dst_align, &rng), &rng);
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
        stride = cold_stride(wl->mix ? MIX_MAX_SIZE + 64 : n, wl->op);
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
    size_t hh = hot_half(wl->mix ? MIX_MAX_SIZE + 64 : n);
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
        place(&w->calls[i], src_r, dst_r, seq[k].sz, wl->op, wl->align, seq[k].so, seq[k].d_o);
    }
    free(perm);
}

/* ---- results ------------------------------------------------------------ */

struct cres {
    int status;     /* 0 measured, 1 not available, 2 not applicable */
    double ns;      /* median ns per call (per thread)              */
    double gbps;    /* aggregate bytes / median time                */
    double ratio;   /* median of time(ref)/time(cand) per round     */
    double r_lo, r_hi; /* quartiles of those ratios                  */
};

struct row {
    int wl;          /* index into the workload list */
    size_t size;     /* 0 for a mix                  */
    double mean_size;
    size_t iters;
    struct cres c[MAX_CANDS];
};

static struct workload *wls;
static int nwls;
static struct row *rows;
static size_t nrows, rows_cap;
static int ref_index;
static FILE *csv_file;

/* ---- measuring a point -------------------------------------------------- */

static void measure_point(int wi, size_t n, struct row *row)
{
    const struct workload *wl = &wls[wi];
    int idx[MAX_CANDS], m = 0;
    for (int i = 0; i < ncands; i++) {
        row->c[i].status = !cands[i].available ? 1 : !cand_has_op(&cands[i], wl->op) ? 2 : 0;
        if (row->c[i].status == 0)
            idx[m++] = i;
    }
    for (int t = 0; t < opt.threads; t++) {
        build_calls(&workers[t], wl, n, opt.seed);
        workers[t].cursor = 0;
    }
    job.cold = wl->cold;
    job.edge = wl->edge;
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
    double target = opt.min_time_us * 1000.0 * (wl->cold ? 5 : 1);
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

    int R = opt.rounds;
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
        cr->gbps = bytes * (double)opt.threads * ((double)iters / (double)workers[0].ncalls) / med;
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
        snprintf(num[0], 32, "%d", opt.threads);
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
        snprintf(rounds, sizeof rounds, "%d", opt.rounds);
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
            opt.threads, opt.threads > 1 ? "s" : "");
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
           opt.rounds, opt.min_time_us, (unsigned long long)opt.seed, opt.threads,
           opt.pin < 0 ? "no" : opt.threads > 1 ? "thread i on CPU pin+i" : "yes");
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
        O_SELF, O_ISA, O_THR, O_ROUNDS, O_MINTIME, O_THREADS, O_PIN, O_SEED, O_POOL, O_LLC, O_CSV, O_PLOT,
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
        {"help", no_argument, 0, O_HELP},          {0, 0, 0, 0},
    };
    const char *cand_list = NULL;
    const char *kernels[MAX_CANDS], *libs[MAX_CANDS];
    int nkernels = 0, nlibs = 0, list = 0, pool_given = 0;
    opt.cold_pool = (size_t)1 << 30;
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
        case O_ROUNDS: opt.rounds = atoi(optarg); break;
        case O_MINTIME: opt.min_time_us = atof(optarg); break;
        case O_THREADS: opt.threads = atoi(optarg); break;
        case O_PIN: opt.pin = atoi(optarg); break;
        case O_SEED: opt.seed = strtoull(optarg, NULL, 0); break;
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
    if (opt.threads < 1 || opt.threads > 256) {
        fprintf(stderr, "memasm-bench: --threads must be 1..256\n");
        return 2;
    }
    if (opt.rounds == 0)
        opt.rounds = opt.full ? 21 : 11;
    if (opt.rounds < 1 || opt.rounds > 1000) {
        fprintf(stderr, "memasm-bench: --rounds must be 1..1000\n");
        return 2;
    }
    if (opt.min_time_us <= 0)
        opt.min_time_us = opt.full ? 300 : 100;
    if (!opt.llc)
        opt.llc = llc_size();
    if (opt.threads > 1 && opt.pin < 0)
        opt.pin = 0; /* threads left to the scheduler may share a CPU */
    if (!pool_given && opt.threads > 1) { /* 1G in all, at least 256M each */
        opt.cold_pool = ((size_t)1 << 30) / (size_t)opt.threads;
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

    load_dist(&dist_memcpy_sizes, "memcpy_sizes", NULL);
    load_dist(&dist_memset_sizes, "memset_sizes", NULL);
    load_dist(&dist_src_align, "memcpy_align", "src");
    load_dist(&dist_dst_align, "memcpy_align", "dst");

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
    size_t hot_len = hot_footprint(MIX_MAX_SIZE + 64 + 8192, OP_MEMCPY) + 16384;
    int any_cold = 0;
    for (int w = 0; w < nwls; w++) {
        if (wls[w].cold)
            any_cold = 1;
        if (!wls[w].mix && !wls[w].cold && ngrid && hot_footprint(grid[ngrid - 1], wls[w].op) + 16384 > hot_len)
            hot_len = hot_footprint(grid[ngrid - 1], wls[w].op) + 16384;
    }
    size_t edge_len = hot_half(EDGE_SLOTS * edge_stride(EDGE_MAX_SIZE)) + EDGE_SLOTS * edge_stride(EDGE_MAX_SIZE);
    if (edge_len + 16384 > hot_len)
        hot_len = edge_len + 16384;
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

    /* Spin the machine up before the first point: 200 ms of copies by every
     * candidate, so that clock ramp-up, wide-vector power-up and the first
     * touches of code do not land on the first point of the first table. */
    for (uint64_t t_end = now_ns() + 200000000u; now_ns() < t_end;)
        for (int i = 0; i < ncands; i++) {
            unsigned char *h = workers[0].hot;
            if (cands[i].cpy)
                cands[i].cpy(h, h + 32768, 16384);
            if (cands[i].set)
                cands[i].set(h, 1, 16384);
            __asm__ volatile("" ::: "memory");
        }

    uint64_t t_start = now_ns();
    for (int w = 0; w < nwls; w++) {
        const struct workload *wl = &wls[w];
        uint64_t t_wl = now_ns();
        size_t wmax = sweep_max_size(wl);
        print_table_header(wl);
        if (wl->mix) {
            struct row *r = row_new();
            r->wl = w;
            measure_point(w, 0, r);
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
            measure_point(w, grid[i], r);
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
