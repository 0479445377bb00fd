/*
 * test_reliability.c -- the public entry points under the conditions real
 * programs create: threads from start-up on, fork, signal handlers.
 *
 * Every call made here is checked exactly: each byte of the destination
 * against its source (or the fill value), 64 guard bytes on each side
 * unchanged, the return value, and errno unchanged (set to a sentinel
 * before the call).  No time is asserted; the loops are bounded by time
 * only so that the test stays short.
 *
 *  - first_call: a constructor (priority 101, before the library's own)
 *    makes the process's very first call, an 8 MiB memasm_memcpy whose
 *    source has a PROT_NONE page in the middle: the SIGSEGV handler calls
 *    memcpy and memset itself, opens the page and returns, so the call
 *    resumes; a SIGALRM timer (setitimer) interrupts it as well.
 *  - threads: 8 workers started by the first statement of main() and 2
 *    from a constructor (before the library's) call memcpy, memmove
 *    (overlapping, both directions) and memset with random sizes 0..64 KiB
 *    and some 1..4 MiB at random alignments, while the main thread sets
 *    every threshold key to random legal values (0 and SIZE_MAX included),
 *    caps the ISA at every level and none, forces every usable kernel and
 *    goes back to the automatic choice, and resets the thresholds.
 *  - fork: the main thread forks while a worker is inside a copy of 1 MiB
 *    or more; the child runs a conformance loop under every ISA cap and
 *    reports through its exit status, the parent copies meanwhile.
 *  - signals_nt: every usable kernel forced in turn, with every *nt_min key
 *    at its legal minimum (non-temporal stores on every large call; riscv64
 *    has no such key), large memcpy, memmove and memset calls interrupted
 *    by SIGALRM, whose handler calls memcpy and memset.
 *
 * Under qemu-user (TEST_EMULATOR set) the loops are shorter, and
 * signals_nt skips the RVV kernels (qemu does not keep vector registers
 * across a handler).
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define GUARD 64                      /* guard bytes checked on each side  */
#define SMALL_MAX ((size_t)64 << 10)  /* most calls: 0..64 KiB              */
#define BIG_MIN ((size_t)1 << 20)     /* some calls: 1..4 MiB               */
#define BIG_MAX ((size_t)4 << 20)
#define MAX_DIST 4096                 /* memmove overlap distances 1..this  */
#define SLACK 8192                    /* alignments, guards, distances      */
#define ERRNO_CALL 7171               /* errno sentinel around a call       */
#define ERRNO_HANDLER 7272            /* errno sentinel inside a handler    */

#define NMAIN 8 /* workers the first statement of main() starts */
#define NCTOR 2 /* workers this program's constructor starts     */
#define NWORKERS (NMAIN + NCTOR)

static int emulated(void)
{
    const char *e = getenv("TEST_EMULATOR");
    return e && *e;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- one checked call ----------------------------------------------------- */

/* A thread's buffers: src holds random bytes, dst receives. */
typedef struct ws {
    struct {
        unsigned char *base;
        size_t size;
    } src, dst;
    t_rng rng;
    atomic_size_t busy;  /* size of the call in progress, 0 when none */
    atomic_ulong calls, big;
} ws;

/* The first wrong result of the process (any thread), for the report. */
static atomic_int failed;
static char fail_msg[400];

static void record_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void record_fail(const char *fmt, ...)
{
    int expected = 0;
    if (!atomic_compare_exchange_strong(&failed, &expected, 1))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fail_msg, sizeof fail_msg, fmt, ap);
    va_end(ap);
}

/* Plain mmap, not t_arena_new: workers start before Check runs, where its
 * assertions cannot be used; the guard bytes catch stray writes. */
static void ws_init(ws *w, uint64_t stream)
{
    w->src.size = w->dst.size = BIG_MAX + SLACK;
    void *s = mmap(NULL, w->src.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    void *d = mmap(NULL, w->dst.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED || d == MAP_FAILED) {
        perror("mmap");
        exit(99);
    }
    w->src.base = s;
    w->dst.base = d;
    t_rng_init(&w->rng, stream);
    t_fill(&w->rng, w->src.base, w->src.size);
}

/* Index of the first byte of p[0..n) that is not v, or n. */
static size_t first_not(const unsigned char *p, unsigned char v, size_t n)
{
    size_t i = 0;
    while (i < n && p[i] == v)
        i++;
    return i;
}

/* Guards of value g before p and after p + n still intact? */
static int guards_ok(const unsigned char *p, size_t n, unsigned char g)
{
    return first_not(p - GUARD, g, GUARD) == GUARD && first_not(p + n, g, GUARD) == GUARD;
}

static void set_guards(unsigned char *p, size_t n, unsigned char g)
{
    t_ref_set(p - GUARD, g, GUARD);
    t_ref_set(p + n, g, GUARD);
}

enum { OP_RANDOM = -1 };

/*
 * One call of op (MEMASM_OP_*, or OP_RANDOM) of n bytes (SIZE_MAX: random,
 * 1 in big_one_in of them 1..4 MiB) at random alignments, checked; memmove
 * overlaps (both directions) when overlap is set.  Returns 0, or -1 after
 * recording the failure.
 */
static int check_call(ws *w, int op, size_t n, int overlap, unsigned big_one_in, const char *who)
{
    t_rng *r = &w->rng;
    if (n == SIZE_MAX) {
        n = (size_t)t_below(r, SMALL_MAX + 1);
        if (big_one_in && t_below(r, big_one_in) == 0)
            n = BIG_MIN + (size_t)t_below(r, BIG_MAX - BIG_MIN + 1);
    }
    if (op == OP_RANDOM)
        op = (int)t_below(r, MEMASM_OP_COUNT);
    size_t da = (size_t)t_below(r, 64), sa = (size_t)t_below(r, 64);
    unsigned char *d = w->dst.base + GUARD + da;
    const unsigned char *s = w->src.base + sa;
    unsigned char g = (unsigned char)t_rand(r);
    const char *what = "";
    size_t bad = 0;
    void *ret, *want;
    int e;

    if (n >= BIG_MIN)
        atomic_fetch_add(&w->big, 1);
    if (op == MEMASM_OP_MEMSET) {
        int c = (int)t_rand(r); /* junk above the low byte */
        set_guards(d, n, g);
        errno = ERRNO_CALL;
        atomic_store(&w->busy, n);
        ret = memasm_memset(d, c, n);
        atomic_store(&w->busy, 0);
        e = errno;
        want = d;
        what = "memset";
        bad = first_not(d, (unsigned char)c, n);
        if (!guards_ok(d, n, g))
            bad = SIZE_MAX;
    } else if (op == MEMASM_OP_MEMMOVE && overlap) {
        /* [d, d + n + dist) starts as a copy of s; move n bytes by dist. */
        size_t dist = 1 + (size_t)t_below(r, n > MAX_DIST ? MAX_DIST : n ? n : 1);
        int up = (int)t_below(r, 2);
        memcpy(d, s, n + dist);
        set_guards(d, n + dist, g);
        errno = ERRNO_CALL;
        atomic_store(&w->busy, n);
        if (up)
            ret = memasm_memmove(want = d + dist, d, n);
        else
            ret = memasm_memmove(want = d, d + dist, n);
        atomic_store(&w->busy, 0);
        e = errno;
        what = up ? "memmove up (overlapping)" : "memmove down (overlapping)";
        /* Up: [d, d + dist) keeps s[0..dist), then s[0..n).  Down: s[dist..
         * dist + n), then [d + n, d + n + dist) keeps s[n..n + dist). */
        int kept = up ? t_diff(d, s, dist) == dist : t_diff(d + n, s + n, dist) == dist;
        bad = up ? t_diff(d + dist, s, n) : t_diff(d, s + dist, n);
        if (!kept || !guards_ok(d, n + dist, g))
            bad = SIZE_MAX;
    } else {
        set_guards(d, n, g);
        errno = ERRNO_CALL;
        atomic_store(&w->busy, n);
        if (op == MEMASM_OP_MEMCPY)
            ret = memasm_memcpy(d, s, n);
        else
            ret = memasm_memmove(d, s, n);
        atomic_store(&w->busy, 0);
        e = errno;
        want = d;
        what = op == MEMASM_OP_MEMCPY ? "memcpy" : "memmove (no overlap)";
        bad = t_diff(d, s, n);
        if (!guards_ok(d, n, g))
            bad = SIZE_MAX;
    }
    atomic_fetch_add(&w->calls, 1);
    if (ret != want)
        record_fail("%s: %s n=%zu: returned %p, not %p", who, what, n, ret, want);
    else if (e != ERRNO_CALL)
        record_fail("%s: %s n=%zu: errno changed from %d to %d", who, what, n, ERRNO_CALL, e);
    else if (bad == SIZE_MAX)
        record_fail("%s: %s n=%zu dst align %zu: a byte outside the destination changed", who,
             what, n, da);
    else if (bad < n)
        record_fail("%s: %s n=%zu dst align %zu src align %zu: byte %zu wrong", who, what, n, da, sa, bad);
    else
        return 0;
    return -1;
}

/* ---- signal handlers: copies and fills inside them ------------------------ */

#define HBUF 16384
static unsigned char h_src[HBUF + 64], h_dst[HBUF + 64 + 2 * GUARD];
static volatile sig_atomic_t h_bad;       /* bits: what went wrong in a handler */
static volatile sig_atomic_t h_runs;      /* handler runs                       */
static volatile sig_atomic_t in_big_call; /* the main thread is inside a call   */
static volatile sig_atomic_t h_inside;    /* handler runs that interrupted one  */
static volatile sig_atomic_t h_active;    /* a handler is making its calls      */
static volatile sig_atomic_t h_nested;    /* runs that began inside another     */

/* The handlers block each other (on_signal), so no run can begin while
 * another makes its calls.  qemu-user 7.2 breaks that now and then (a
 * SIGALRM delivered inside the SIGSEGV or SIGALRM handler, one process in
 * 15-20 under qemu-riscv64): such a run would overwrite the interrupted
 * run's buffers between its copy and its check, a failure that is not the
 * library's.  It makes no calls and is counted instead; natively, where only
 * a broken kernel or test could cause one, the count is a failure.  A run
 * that begins before the outer one sets h_active completes before it. */
static int handler_enter(void)
{
    if (h_active) {
        h_nested++;
        return 0;
    }
    h_active = 1;
    return 1;
}

static void handler_leave(void)
{
    h_active = 0;
}

/* The tests' verdict on h_nested. */
static void check_nested(const char *who)
{
    if (!h_nested)
        return;
    ck_assert_msg(emulated(), "%s: %d signal(s) delivered while the handlers blocked them",
                  who, (int)h_nested);
    printf("%s: the emulator delivered %d signal(s) that the running handler blocked "
           "(a qemu-user fault); those runs made no calls\n", who, (int)h_nested);
}

/* What a handler does: a memcpy and a memset of a size that depends on the
 * run count (up to 16 KiB, so non-temporal paths too when forced), checked
 * byte by byte, errno set to a sentinel before and checked after.
 * Async-signal-safe: no locks, no allocation, no stdio. */
static void handler_calls(void)
{
    unsigned k = (unsigned)h_runs;
    size_t n = 1 + (size_t)(k * 2654435761u) % HBUF;
    unsigned char *d = h_dst + GUARD + k % 61;
    const unsigned char *s = h_src + (k * 7) % 64;
    unsigned char c = (unsigned char)(0x5b + k);
    set_guards(d, n, 0xe7);
    errno = ERRNO_HANDLER;
    if (memasm_memcpy(d, s, n) != d)
        h_bad |= 1;
    for (size_t i = 0; i < n; i++)
        if (d[i] != s[i]) {
            h_bad |= 2;
            break;
        }
    if (memasm_memset(d, 0x7700 | c, n) != d)
        h_bad |= 1;
    if (first_not(d, c, n) != n)
        h_bad |= 4;
    if (errno != ERRNO_HANDLER)
        h_bad |= 8;
    if (!guards_ok(d, n, 0xe7))
        h_bad |= 16;
}

static void on_alarm(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)si;
    (void)uc;
    int saved = errno;
    if (!handler_enter())
        return;
    if (in_big_call)
        h_inside++;
    handler_calls();
    h_runs++;
    handler_leave();
    errno = saved;
}

static const char *h_bad_str(int bits)
{
    static char buf[200];
    snprintf(buf, sizeof buf, "%s%s%s%s%s", bits & 1 ? " [wrong return value]" : "",
             bits & 2 ? " [memcpy result wrong]" : "", bits & 4 ? " [memset result wrong]" : "",
             bits & 8 ? " [errno changed]" : "", bits & 16 ? " [guard byte changed]" : "");
    return buf;
}

static void timer_set(long usec)
{
    struct itimerval it = {{0, usec}, {0, usec}};
    setitimer(ITIMER_REAL, &it, NULL);
}

static void on_signal(int sig, void (*fn)(int, siginfo_t *, void *), int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = fn;
    sa.sa_flags = SA_SIGINFO | flags;
    /* The handlers share their buffers: none may interrupt another. */
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGALRM);
    sigaddset(&sa.sa_mask, SIGSEGV);
    sigaction(sig, &sa, NULL);
}

/* ---- the very first call of the process ----------------------------------- */

#define FIRST_N (((size_t)8 << 20) + 13)

static unsigned char *first_src, *first_dst, *first_hole;
static size_t first_map;
static volatile sig_atomic_t first_segv, first_segv_bad;
static struct {
    void *ret;
    int err, guards, alarms_inside, alarms;
    size_t bad;
    const char *kernel;
} first;

/* The SIGSEGV of the hole in the source: copy and fill here, open the page
 * and return, so that the interrupted call resumes where it faulted. */
static void first_on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    unsigned char *a = si->si_addr;
    if (a < first_hole || a >= first_hole + t_page() || first_segv) {
        signal(sig, SIG_DFL); /* not ours: fault again, the default way */
        return;
    }
    int saved = errno;
    first_segv = 1;
    int calls = handler_enter(); /* a SIGALRM run cannot be in progress: checked anyway */
    if (calls) {
        handler_calls();
        h_runs++;
        handler_leave();
    }
    if (mprotect(first_hole, t_page(), PROT_READ) != 0)
        first_segv_bad = 1;
    errno = saved;
}

__attribute__((constructor(101))) static void first_call(void)
{
    t_seed();
    for (size_t i = 0; i < sizeof h_src; i++)
        h_src[i] = (unsigned char)(i * 131 + 7);
    size_t pg = t_page();
    first_map = (FIRST_N + 2 * GUARD + pg - 1) / pg * pg;
    void *s = mmap(NULL, first_map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    void *d = mmap(NULL, first_map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED || d == MAP_FAILED)
        return; /* the test reports that nothing ran */
    first_src = s;
    first_dst = d;
    t_rng r;
    t_rng_init(&r, 0xf125);
    t_fill(&r, first_src, first_map);
    set_guards(first_dst + GUARD, FIRST_N, 0x3c);
    first_hole = first_src + first_map / 2 / pg * pg;
    mprotect(first_hole, pg, PROT_NONE);

    on_signal(SIGSEGV, first_on_segv, 0);
    on_signal(SIGALRM, on_alarm, SA_RESTART);
    timer_set(emulated() ? 1000 : 50);

    errno = ERRNO_CALL;
    in_big_call = 1;
    first.ret = memasm_memcpy(first_dst + GUARD, first_src, FIRST_N);
    in_big_call = 0;
    first.err = errno;

    timer_set(0);
    signal(SIGSEGV, SIG_DFL);
    first.alarms_inside = (int)h_inside;
    first.alarms = (int)h_runs;
    first.kernel = memasm_kernel_current(MEMASM_OP_MEMCPY);
    first.bad = t_diff(first_dst + GUARD, first_src, FIRST_N);
    first.guards = guards_ok(first_dst + GUARD, FIRST_N, 0x3c);
    h_inside = 0;
}

START_TEST(first_call_interrupted)
{
    ck_assert_msg(first_src && first_dst, "the constructor could not map its buffers");
    printf("first call: memcpy of %zu bytes by %s before the library's constructor; "
           "SIGSEGV handler ran %d time(s), SIGALRM interrupted it %d time(s)\n",
           FIRST_N, first.kernel ? first.kernel : "(none)", (int)first_segv, first.alarms_inside);
    ck_assert_msg(first_segv == 1 && !first_segv_bad,
                  "the SIGSEGV handler ran %d times (expected once), mprotect %s",
                  (int)first_segv, first_segv_bad ? "failed" : "ok");
    check_nested("first call");
    ck_assert_msg(!h_bad, "the handlers' own calls went wrong:%s", h_bad_str(h_bad));
    ck_assert_msg(first.ret == first_dst + GUARD, "the first call returned %p, not dst %p",
                  first.ret, (void *)(first_dst + GUARD));
    ck_assert_msg(first.err == ERRNO_CALL, "errno changed across the first call: %d", first.err);
    ck_assert_msg(first.bad == FIRST_N, "first call: byte %zu wrong (the hole is at %ld)",
                  first.bad, (long)(first_hole - first_src));
    ck_assert_msg(first.guards, "first call: a guard byte around the destination changed");
    munmap(first_src, first_map);
    munmap(first_dst, first_map);
}
END_TEST

/* ---- workers ---------------------------------------------------------------- */

static ws workers[NWORKERS];
static pthread_t worker_tid[NWORKERS];
static int worker_started[NWORKERS];
static atomic_int stop_workers;
static atomic_int ready;

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    /* SIGALRM is for the main thread's interrupted calls. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGALRM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    ws *w = &workers[id];
    ws_init(w, 0x1000 + (uint64_t)id);
    atomic_fetch_add(&ready, 1);
    char who[32];
    snprintf(who, sizeof who, "worker %d", id);
    unsigned big_one_in = emulated() ? 200 : 40;
    while (!atomic_load(&stop_workers) && check_call(w, OP_RANDOM, SIZE_MAX, 1, big_one_in, who) == 0)
        ;
    return NULL;
}

static void start_workers(int from, int to)
{
    for (int i = from; i < to; i++)
        worker_started[i] = pthread_create(&worker_tid[i], NULL, worker, (void *)(intptr_t)i) == 0;
}

static void stop_all_workers(void)
{
    atomic_store(&stop_workers, 1);
    for (int i = 0; i < NWORKERS; i++)
        if (worker_started[i]) {
            pthread_join(worker_tid[i], NULL);
            worker_started[i] = 0;
        }
}

/* After the first call, before the library's constructor (default
 * priority): these workers' first calls run on the static baseline. */
__attribute__((constructor(102))) static void ctor_workers(void)
{
    start_workers(NMAIN, NWORKERS);
}

/* ---- control API from the main thread ------------------------------------- */

START_TEST(threads)
{
    for (int i = 0; i < NWORKERS; i++)
        ck_assert_msg(worker_started[i], "could not start worker %d", i);
    size_t nkeys = memasm_threshold_count(), nk = memasm_kernel_count();
    int nlev = memasm_isa_count();
    static const size_t vals[] = {0, 1, 63, 64, 255, 256, 511, 512, 4096, 65536, (size_t)1 << 20,
                                  (size_t)4 << 20, SIZE_MAX};
    t_rng r;
    t_rng_init(&r, 0xc0de);
    double t0 = now(), tmin = emulated() ? 20 : 4, tmax = emulated() ? 90 : 15;
    unsigned long it = 0, forced = 0;
    for (;; it++) {
        double t = now() - t0;
        int done = t >= tmin;
        for (int i = 0; i < NWORKERS && done; i++)
            done = atomic_load(&workers[i].calls) >= 20 && atomic_load(&workers[i].big) >= 1;
        if (done || t >= tmax || atomic_load(&failed))
            break;
        /* Every key in turn, a value from the list or any below 8 MiB. */
        if (nkeys) {
            const char *key = memasm_threshold_key(it % nkeys);
            size_t v = t_below(&r, 3) ? vals[t_below(&r, sizeof vals / sizeof vals[0])]
                                      : (size_t)t_below(&r, (size_t)8 << 20);
            ck_assert_msg(memasm_threshold_set(key, v, NULL) == 0, "threshold_set(%s, %zu)", key, v);
        }
        switch (it % 4) {
        case 0: { /* every level in turn, then no cap */
            int l = (int)(it / 4 % (unsigned long)(nlev + 1));
            const char *name = l < nlev ? memasm_isa_name(l) : NULL;
            ck_assert_msg(memasm_isa_set_cap(name) == 0, "isa_set_cap(%s)", name ? name : "NULL");
            break;
        }
        case 1: { /* every usable kernel in turn */
            memasm_kernel_desc d;
            ck_assert(memasm_kernel_info(it / 4 % nk, &d) == 0);
            if (d.usable) {
                ck_assert_msg(memasm_kernel_force(d.name) == 0, "kernel_force(%s)", d.name);
                forced++;
            }
            break;
        }
        case 2:
            ck_assert(memasm_kernel_auto((memasm_op)t_below(&r, MEMASM_OP_COUNT)) == 0);
            break;
        default:
            if (it % 12 == 3)
                memasm_threshold_reset();
            break;
        }
        struct timespec ts = {0, 50000};
        nanosleep(&ts, NULL);
    }
    unsigned long total = 0, big = 0;
    for (int i = 0; i < NWORKERS; i++) {
        total += atomic_load(&workers[i].calls);
        big += atomic_load(&workers[i].big);
    }
    printf("threads: %d workers (%d from main, %d from a constructor) made %lu checked calls "
           "(%lu of 1-4 MiB) during %lu configuration changes (%lu forced kernels) in %.1f s\n",
           NWORKERS, NMAIN, NCTOR, total, big, it, forced, now() - t0);
    ck_assert_msg(!atomic_load(&failed), "wrong result: %s", fail_msg);
    for (int i = 0; i < NWORKERS; i++)
        ck_assert_msg(atomic_load(&workers[i].calls) > 0, "worker %d made no call", i);
    memasm_threshold_reset();
    memasm_isa_set_cap(NULL);
    for (int op = 0; op < MEMASM_OP_COUNT; op++)
        memasm_kernel_auto((memasm_op)op);
}
END_TEST

/* ---- fork ------------------------------------------------------------------ */

static ws main_ws;

/* The child: a conformance loop under every ISA cap; exit status 0 when
 * every result was exact, 1 otherwise (with the message on stdout). */
static void child_loop(int k) __attribute__((noreturn));
static void child_loop(int k)
{
    ws w;
    memset(&w, 0, sizeof w);
    atomic_store(&failed, 0); /* report the child's own failure */
    ws_init(&w, 0x2000 + (uint64_t)k);
    int calls = emulated() ? 60 : 400;
    for (int l = -1; l < memasm_isa_count(); l++) {
        memasm_isa_set_cap(l < 0 ? NULL : memasm_isa_name(l));
        for (int i = 0; i < calls; i++)
            if (check_call(&w, OP_RANDOM, SIZE_MAX, 1, 50, "fork child") != 0) {
                printf("FAIL in the child (cap %s): %s\n", l < 0 ? "none" : memasm_isa_name(l),
                       fail_msg);
                fflush(stdout);
                _exit(1);
            }
    }
    _exit(0);
}

START_TEST(fork_while_copying)
{
    int nfork = emulated() ? 3 : 8, during_big = 0;
    unsigned long parent_calls = 0;
    for (int k = 0; k < nfork; k++) {
        /* Wait (bounded) for a worker to be inside a call of 1 MiB or more. */
        double t0 = now();
        int busy = 0;
        while (!busy && now() - t0 < 5) {
            for (int i = 0; i < NWORKERS && !busy; i++)
                busy = atomic_load(&workers[i].busy) >= BIG_MIN;
            if (!busy)
                sched_yield();
        }
        during_big += busy;
        fflush(stdout);
        pid_t pid = fork();
        ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
        if (pid == 0)
            child_loop(k);
        int status;
        pid_t got;
        while ((got = waitpid(pid, &status, WNOHANG)) == 0) {
            ck_assert_msg(check_call(&main_ws, OP_RANDOM, SIZE_MAX, 1, 50, "fork parent") == 0,
                          "wrong result: %s", fail_msg);
            parent_calls++;
        }
        ck_assert_msg(got == pid, "waitpid: %s", strerror(errno));
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                      "fork %d: the child %s %d", k, WIFEXITED(status) ? "exited with" : "died of signal",
                      WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    }
    printf("fork: %d children (%d forked while a worker was inside a copy of >= 1 MiB) "
           "each ran a conformance loop under every ISA cap; the parent made %lu checked calls "
           "meanwhile\n", nfork, during_big, parent_calls);
    ck_assert_msg(!atomic_load(&failed), "wrong result in a worker: %s", fail_msg);
}
END_TEST

/* ---- signals during large (non-temporal) calls ---------------------------- */

START_TEST(signals_nt)
{
    int nt_keys = 0;
    for (size_t i = 0; i < memasm_threshold_count(); i++) {
        const char *key = memasm_threshold_key(i);
        size_t applied;
        const char *nt = strstr(key, "nt_min");
        if (nt && !nt[6]) { /* every key ending in nt_min */
            ck_assert(memasm_threshold_set(key, 0, &applied) == 0);
            printf("signals: %s = %zu (its legal minimum)\n", key, applied);
            nt_keys++;
        }
    }
    if (!nt_keys)
        printf("signals: this architecture has no non-temporal threshold key "
               "(riscv64 has none): the large calls take the default paths\n");
    on_signal(SIGALRM, on_alarm, SA_RESTART);
    h_bad = 0;
    h_nested = 0;
    long usec = emulated() ? 2000 : 100;
    int min_inside = 2, max_calls = emulated() ? 6 : 40;
    int inside_op[MEMASM_OP_COUNT] = {0};
    unsigned long calls = 0;
    timer_set(usec);
    for (size_t i = 0; i < memasm_kernel_count(); i++) {
        memasm_kernel_desc d;
        ck_assert(memasm_kernel_info(i, &d) == 0);
        if (!d.usable) {
            printf("signals: %s skipped: %s\n", d.name, t_skip_reason(&d));
            continue;
        }
        /* qemu-user 7.2 does not save RVV state in the signal frame (Linux
         * does since 6.5): the handler's vector calls would clobber the
         * interrupted call's registers, the emulator's fault, not ours. */
        if (emulated() && strcmp(d.isa, "rvv") == 0) {
            printf("signals: %s skipped under emulation: qemu-user does not save the vector "
                   "registers across a signal handler\n", d.name);
            continue;
        }
        ck_assert(memasm_kernel_force(d.name) == 0);
        int before = (int)h_inside;
        for (int c = 0; c < max_calls && (int)h_inside - before < min_inside; c++) {
            size_t n = BIG_MIN + (size_t)t_below(&main_ws.rng, BIG_MAX - BIG_MIN + 1);
            in_big_call = 1;
            int r = check_call(&main_ws, (int)d.op, n, 0, 0, d.name);
            in_big_call = 0;
            calls++;
            if (r != 0)
                break;
        }
        inside_op[d.op] += (int)h_inside - before;
        ck_assert(memasm_kernel_auto(d.op) == 0);
        if (atomic_load(&failed))
            break;
    }
    timer_set(0);
    memasm_threshold_reset();
    printf("signals: %lu large calls, SIGALRM handler ran %d times, %d of them inside a call "
           "(memcpy %d, memmove %d, memset %d)\n", calls, (int)h_runs, (int)h_inside,
           inside_op[0], inside_op[1], inside_op[2]);
    ck_assert_msg(!atomic_load(&failed), "wrong result: %s", fail_msg);
    check_nested("signals");
    ck_assert_msg(!h_bad, "the handler's own calls went wrong:%s", h_bad_str(h_bad));
    for (int op = 0; op < MEMASM_OP_COUNT; op++)
        ck_assert_msg(inside_op[op] > 0, "no SIGALRM landed inside a large %s call",
                      memasm_op_name((memasm_op)op));
}
END_TEST

int main(void)
{
    start_workers(0, NMAIN); /* first: the workers run from here on */
    t_print_time("start");
    t_print_kernels();
    ws_init(&main_ws, 0x3000);
    /* Every worker has its buffers before the tests start. */
    int started = 0;
    for (int i = 0; i < NWORKERS; i++)
        started += worker_started[i];
    while (atomic_load(&ready) < started)
        sched_yield();
    Suite *s = suite_create("reliability");
    TCase *tc = tcase_create("reliability");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, first_call_interrupted);
    tcase_add_test(tc, threads);
    tcase_add_test(tc, fork_while_copying);
    tcase_add_test(tc, signals_nt);
    suite_add_tcase(s, tc);
    /* The workers live in this process: a forked test would not have them. */
    int status = t_run_suite_nofork(s);
    stop_all_workers();
    if (atomic_load(&failed) && status == 0) {
        printf("FAIL: %s\n", fail_msg);
        status = 1;
    }
    t_print_time("reliability");
    return status;
}
