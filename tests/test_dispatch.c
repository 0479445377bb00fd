/*
 * test_dispatch.c -- the dispatcher: ISA caps, forcing, threads at start-up.
 *
 * Without arguments it runs the Check suite:
 *  - caps: for every level (and no cap) the kernel serving each operation is
 *    the best usable one at or below min(cap, CPU level), never above;
 *  - an unknown level name is refused with EINVAL and changes nothing;
 *  - memasm_kernel_force: usable kernels serve their operation, unusable
 *    ones fail with ENOTSUP, unknown names with ENOENT;
 *  - x86_64 with ERMS: the defaults of memcpy.erms_min and memset.erms_min
 *    follow the level of the kernel in force; set values stay;
 *  - threads: worker threads start in a constructor that runs before the
 *    library's, call memasm_memcpy/memmove/memset from then on and check
 *    every result, while the main thread keeps changing thresholds, the cap
 *    and forced kernels.  No timing is asserted, only correctness.
 *
 * tests/dispatch-env.sh runs it with MEMASM_ISA set and these arguments:
 *   --levels            print the ISA level names, lowest first
 *   --expect-cap NAME   check the choice made from MEMASM_ISA=NAME at
 *                       start-up ('-': no cap in force); exit 0 or 1
 * Those modes write only to stdout, so the script can count the library's
 * own lines on stderr.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "memasm-internal.h"

/* ---- expected choice ----------------------------------------------------- */

static int min_i(int a, int b)
{
    return a < b ? a : b;
}

/* Index of the kernel the dispatcher should pick for op under cap (the
 * dispatcher's documented rule: highest eligible level <= cap, first in the
 * list among equals), or -1. */
static long best_kernel(memasm_op op, int cap)
{
    long best = -1;
    int best_level = -1;
    for (size_t i = 0; i < memasm_kernel_count(); i++) {
        memasm_kernel_desc d;
        if (memasm_kernel_info(i, &d) != 0 || d.op != op || !d.eligible || d.level > cap)
            continue;
        if (d.level > best_level) {
            best = (long)i;
            best_level = d.level;
        }
    }
    return best;
}

/* Check the current choice for every op against cap; returns a message or
 * NULL when all is right. */
static const char *check_choice(int cap)
{
    static char msg[256];
    for (int op = 0; op < MEMASM_OP_COUNT; op++) {
        const char *cur = memasm_kernel_current((memasm_op)op);
        long want = best_kernel((memasm_op)op, cap);
        memasm_kernel_desc w, c;
        if (want < 0 || memasm_kernel_info((size_t)want, &w) != 0) {
            snprintf(msg, sizeof msg, "no usable %s kernel at level <= %d", memasm_op_name((memasm_op)op), cap);
            return msg;
        }
        long ci = cur ? memasm_kernel_find(cur) : -1;
        if (ci < 0 || memasm_kernel_info((size_t)ci, &c) != 0) {
            snprintf(msg, sizeof msg, "%s is served by an unknown kernel", memasm_op_name((memasm_op)op));
            return msg;
        }
        if (!c.usable || c.level > cap || strcmp(c.name, w.name) != 0) {
            snprintf(msg, sizeof msg, "%s is served by %s (level %s%s), expected %s under cap %s",
                     memasm_op_name((memasm_op)op), c.name, c.isa, c.usable ? "" : ", NOT usable",
                     w.name, memasm_isa_name(cap));
            return msg;
        }
    }
    return NULL;
}

/* A quick end-to-end call of the three entry points. */
static int entry_points_work(void)
{
    unsigned char a[333], b[333];
    for (size_t i = 0; i < sizeof a; i++)
        a[i] = (unsigned char)(i * 7 + 1);
    if (memasm_memcpy(b, a, sizeof a) != b || memcmp(a, b, sizeof a) != 0)
        return 0;
    if (memasm_memmove(b + 1, b, 300) != b + 1 || memcmp(b + 1, a, 300) != 0)
        return 0;
    if (memasm_memset(b, 0x1a5, 200) != b)
        return 0;
    for (int i = 0; i < 200; i++)
        if (b[i] != 0xa5)
            return 0;
    return 1;
}

/* ---- threads started before the library's constructor ------------------- */

#define NTHREADS 4

static pthread_t workers[NTHREADS];
static atomic_int stop_workers;
static atomic_int workers_failed;
static atomic_ulong worker_calls[NTHREADS];
static char worker_error[256];
static const char *kernel_before_ctor;

static void worker_fail(const char *what, size_t n, size_t off)
{
    int expected = 0;
    if (atomic_compare_exchange_strong(&workers_failed, &expected, 1))
        snprintf(worker_error, sizeof worker_error, "%s, n=%zu, first bad byte %zu", what, n, off);
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(id + 1);
    size_t cap = (size_t)2 << 20;
    unsigned char *src = malloc(cap + 64), *dst = malloc(cap + 64);
    if (!src || !dst) {
        worker_fail("malloc", cap, 0);
        return NULL;
    }
    for (size_t i = 0; i < cap + 64; i++)
        src[i] = (unsigned char)(i * 131 + (size_t)id);
    while (!atomic_load(&stop_workers)) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        size_t n = (x >> 8) % 4096;
        if ((x & 15) == 0)
            n = (x >> 8) % (256 * 1024);
        if ((x & 255) == 1)
            n = (x >> 8) % cap;
        size_t da = (x >> 40) & 63, sa = (x >> 46) & 63;
        switch ((x >> 52) % 3) {
        case 0: {
            if (memasm_memcpy(dst + da, src + sa, n) != dst + da)
                worker_fail("memcpy return value", n, 0);
            else if (memcmp(dst + da, src + sa, n) != 0)
                worker_fail("memcpy", n, 0);
            break;
        }
        case 1: {
            if (n > 2048)
                n = 2048;
            memcpy(dst, src + sa, n + 64);
            if (memasm_memmove(dst + da, dst, n) != dst + da)
                worker_fail("memmove return value", n, 0);
            else if (memcmp(dst + da, src + sa, n) != 0)
                worker_fail("memmove (overlapping)", n, 0);
            break;
        }
        default: {
            unsigned char c = (unsigned char)(x >> 30);
            if (memasm_memset(dst + da, (int)(0x5a00 | c), n) != dst + da)
                worker_fail("memset return value", n, 0);
            for (size_t i = 0; i < n; i++)
                if (dst[da + i] != c) {
                    worker_fail("memset", n, i);
                    break;
                }
            break;
        }
        }
        atomic_fetch_add(&worker_calls[id], 1);
    }
    free(src);
    free(dst);
    return NULL;
}

/* Priority 101 runs before the default-priority constructors, the
 * library's included: the workers' first calls go to the statically
 * initialised baseline kernels. */
__attribute__((constructor(101))) static void start_workers(void)
{
    kernel_before_ctor = memasm_kernel_current(MEMASM_OP_MEMCPY);
    for (int i = 0; i < NTHREADS; i++)
        if (pthread_create(&workers[i], NULL, worker, (void *)(intptr_t)i) != 0)
            workers[i] = 0;
    /* Let every worker make a call before the library initialises. */
    for (int i = 0; i < NTHREADS; i++)
        while (workers[i] && atomic_load(&worker_calls[i]) == 0 && !atomic_load(&workers_failed))
            sched_yield();
}

static void stop_all_workers(void)
{
    atomic_store(&stop_workers, 1);
    for (int i = 0; i < NTHREADS; i++)
        if (workers[i]) {
            pthread_join(workers[i], NULL);
            workers[i] = 0;
        }
}

/* ---- Check tests ---------------------------------------------------------- */

START_TEST(caps)
{
    int cpu = memasm_isa_cpu();
    for (int l = -1; l < memasm_isa_count(); l++) {
        const char *name = l < 0 ? NULL : memasm_isa_name(l);
        ck_assert_msg(memasm_isa_set_cap(name) == 0, "set_cap(%s) failed", name ? name : "NULL");
        int want = l < 0 ? cpu : min_i(l, cpu);
        ck_assert_msg(memasm_isa_cap() == want, "cap %s: memasm_isa_cap() = %d, expected %d",
                      name ? name : "none", memasm_isa_cap(), want);
        const char *err = check_choice(want);
        ck_assert_msg(err == NULL, "cap %s: %s", name ? name : "none", err);
        ck_assert_msg(entry_points_work(), "cap %s: the entry points gave a wrong result",
                      name ? name : "none");
        printf("cap %-8s%s: memcpy=%s memmove=%s memset=%s\n", name ? name : "none",
               l > cpu ? " (above the CPU's level, not raised)" : "",
               memasm_kernel_current(MEMASM_OP_MEMCPY), memasm_kernel_current(MEMASM_OP_MEMMOVE),
               memasm_kernel_current(MEMASM_OP_MEMSET));
    }
    memasm_isa_set_cap(NULL);
}
END_TEST

/* The CPU's strings are printed by memasm-info (also as JSON), written
 * into the tuner's files and compared with a file's fingerprint: each must
 * end inside its array, with no blank at either end (CPUID pads the brand
 * string with spaces on some CPUs, this project's Zen 5 VM among them). */
static void check_cpu_string(const char *what, const char *s, size_t cap, int may_be_empty)
{
    size_t n = strnlen(s, cap);
    ck_assert_msg(n < cap, "cpu %s is not terminated inside its %zu bytes", what, cap);
    ck_assert_msg(may_be_empty || n > 0, "cpu %s is empty", what);
    if (n > 0)
        ck_assert_msg(s[0] != ' ' && s[n - 1] != ' ', "cpu %s '%s' has a blank at an end", what,
                      s);
}

START_TEST(cpu_strings)
{
    const struct memasm_cpu *c = memasm_cpu_get();
    check_cpu_string("vendor", c->vendor, sizeof c->vendor, 0);
    check_cpu_string("brand", c->brand, sizeof c->brand, 1);
    printf("cpu: vendor '%s', brand '%s'\n", c->vendor, c->brand);
}
END_TEST

START_TEST(bad_cap)
{
    memasm_isa_set_cap(memasm_isa_name(0));
    int before = memasm_isa_cap();
    static const char *const bad[] = {"", "SSE2 ", "no-such-level", "avx1024", "rvv,", "x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        errno = 0;
        ck_assert_msg(memasm_isa_set_cap(bad[i]) == -1 && errno == EINVAL,
                      "memasm_isa_set_cap(\"%s\") did not fail with EINVAL", bad[i]);
        ck_assert_msg(memasm_isa_cap() == before, "a refused cap changed the cap");
    }
    memasm_isa_set_cap(NULL);
}
END_TEST

START_TEST(force)
{
    int unusable = 0;
    for (size_t i = 0; i < memasm_kernel_count(); i++) {
        memasm_kernel_desc d;
        ck_assert(memasm_kernel_info(i, &d) == 0);
        const char *before = memasm_kernel_current(d.op);
        errno = 0;
        int r = memasm_kernel_force(d.name);
        if (d.usable) {
            ck_assert_msg(r == 0, "forcing usable %s failed (errno %d)", d.name, errno);
            ck_assert_msg(strcmp(memasm_kernel_current(d.op), d.name) == 0,
                          "forced %s but %s serves %s", d.name, memasm_kernel_current(d.op),
                          memasm_op_name(d.op));
            /* A cap does not undo a forced kernel. */
            memasm_isa_set_cap(memasm_isa_name(0));
            ck_assert_msg(strcmp(memasm_kernel_current(d.op), d.name) == 0,
                          "the cap undid forced %s", d.name);
            memasm_isa_set_cap(NULL);
            ck_assert(entry_points_work());
            ck_assert(memasm_kernel_auto(d.op) == 0);
        } else {
            unusable++;
            ck_assert_msg(r == -1 && errno == ENOTSUP,
                          "forcing %s, which this CPU cannot run, returned %d errno %d (want ENOTSUP)",
                          d.name, r, errno);
            ck_assert_msg(strcmp(memasm_kernel_current(d.op), before) == 0,
                          "a refused force changed the kernel serving %s", memasm_op_name(d.op));
            printf("force %s: refused with ENOTSUP, as it must be\n", d.name);
        }
    }
    if (!unusable)
        printf("force: every kernel is usable on this CPU, the ENOTSUP path is not exercised here\n");
    errno = 0;
    ck_assert(memasm_kernel_force("no_such_kernel") == -1 && errno == ENOENT);
    ck_assert(memasm_kernel_auto((memasm_op)MEMASM_OP_COUNT) == -1);
    const char *err = check_choice(memasm_isa_cpu());
    ck_assert_msg(err == NULL, "after auto: %s", err);
}
END_TEST

#if defined(__x86_64__)
static size_t thr(const char *key)
{
    size_t v = 0;
    ck_assert_msg(memasm_threshold_get(key, &v) == 0, "memasm_threshold_get(%s) failed", key);
    return v;
}
#endif

/* The defaults of memcpy.erms_min and memset.erms_min follow the level of
 * the kernel that reads them (2 KiB behind the SSE2 kernels on a CPU with
 * ERMS, c/thresholds.c); a value that was set stays whatever kernel comes. */
START_TEST(defaults_follow_level)
{
#if defined(__x86_64__)
    if (!(memasm_cpu_get()->features & MEMASM_F_X86_ERMS) || memasm_isa_cpu() == 0) {
        printf("defaults_follow_level: skipped, the CPU has no ERMS or no level above sse2\n");
        return;
    }
    memasm_threshold_reset();
    memasm_isa_set_cap(NULL);
    size_t cpy = thr("memcpy.erms_min"), set = thr("memset.erms_min");
    size_t cmax = thr("memcpy.erms_max"), dist = thr("memcpy.erms_min_dist");
    ck_assert_msg(cpy != 2048 && set != 2048 && dist != 2048,
                  "top-level defaults %zu/%zu/%zu are the SSE2 ones", cpy, set, dist);
    ck_assert(memasm_isa_set_cap("sse2") == 0);
    ck_assert_msg(thr("memcpy.erms_min") == 2048 && thr("memset.erms_min") == 2048 &&
                      thr("memcpy.erms_min_dist") == 2048,
                  "behind the SSE2 kernels: memcpy.erms_min %zu, memset.erms_min %zu, "
                  "memcpy.erms_min_dist %zu (want 2K)",
                  thr("memcpy.erms_min"), thr("memset.erms_min"), thr("memcpy.erms_min_dist"));
    ck_assert_msg(thr("memcpy.erms_max") == cmax, "erms_max moved with the level");
    ck_assert(memasm_isa_set_cap(NULL) == 0);
    ck_assert(thr("memcpy.erms_min") == cpy && thr("memset.erms_min") == set &&
              thr("memcpy.erms_min_dist") == dist);
    /* on Intel the copy's start and distance are lower behind the AVX2
     * kernel than behind the AVX-512 one, the fill's start the same */
    if (strcmp(memasm_cpu_get()->vendor, "GenuineIntel") == 0 && memasm_isa_cpu() == 2) {
        ck_assert(memasm_isa_set_cap("avx2") == 0);
        ck_assert_msg(thr("memcpy.erms_min") < cpy && thr("memcpy.erms_min_dist") < dist &&
                          thr("memset.erms_min") == set,
                      "behind AVX2 on Intel: memcpy.erms_min %zu (AVX-512 %zu), memcpy.erms_min_dist %zu "
                      "(%zu), memset.erms_min %zu (%zu)",
                      thr("memcpy.erms_min"), cpy, thr("memcpy.erms_min_dist"), dist, thr("memset.erms_min"), set);
        ck_assert(memasm_isa_set_cap(NULL) == 0);
        ck_assert(thr("memcpy.erms_min") == cpy && thr("memcpy.erms_min_dist") == dist);
    } else {
        printf("defaults_follow_level: the AVX2 copy defaults on Intel not checked (%s, top level %s)\n",
               memasm_cpu_get()->vendor, memasm_isa_name(memasm_isa_cpu()));
    }
    /* one operation forced down: only its defaults follow */
    ck_assert(memasm_kernel_force("memset_sse2") == 0);
    ck_assert(thr("memset.erms_min") == 2048 && thr("memcpy.erms_min") == cpy);
    ck_assert(memasm_kernel_auto(MEMASM_OP_MEMSET) == 0);
    ck_assert(thr("memset.erms_min") == set);
    /* a value set stays; the key not set follows */
    ck_assert(memasm_threshold_set("memcpy.erms_min", 5000, NULL) == 0);
    ck_assert(memasm_isa_set_cap("sse2") == 0);
    ck_assert_msg(thr("memcpy.erms_min") == 5000, "a set value moved to %zu with the level",
                  thr("memcpy.erms_min"));
    ck_assert(thr("memset.erms_min") == 2048);
    ck_assert(memasm_isa_set_cap(NULL) == 0);
    ck_assert(thr("memcpy.erms_min") == 5000 && thr("memset.erms_min") == set);
    /* a window end set below the default start: the start follows it, and
     * comes back down behind the SSE2 kernels */
    memasm_threshold_reset();
    ck_assert(memasm_threshold_set("memset.erms_max", 4096, NULL) == 0);
    ck_assert_msg(thr("memset.erms_min") == 4096, "start %zu above the end 4096 set",
                  thr("memset.erms_min"));
    ck_assert(memasm_isa_set_cap("sse2") == 0);
    ck_assert(thr("memset.erms_min") == 2048 && thr("memset.erms_max") == 4096);
    ck_assert(memasm_isa_set_cap(NULL) == 0);
    ck_assert(thr("memset.erms_min") == 4096 && thr("memset.erms_max") == 4096);
    /* a reset forgets what was set: defaults of the level in force */
    ck_assert(memasm_isa_set_cap("sse2") == 0);
    memasm_threshold_reset();
    ck_assert(thr("memset.erms_max") != 4096 && thr("memset.erms_min") == 2048);
    ck_assert(memasm_isa_set_cap(NULL) == 0);
    ck_assert(thr("memset.erms_min") == set && thr("memcpy.erms_min") == cpy);
    ck_assert(entry_points_work());
#else
    printf("defaults_follow_level: no level-dependent default on this architecture\n");
#endif
}
END_TEST

START_TEST(threads)
{
    ck_assert_msg(workers[0] != 0, "could not start the worker threads");
    printf("before the library's constructor, memcpy was served by %s\n",
           kernel_before_ctor ? kernel_before_ctor : "(none)");
    t_rng r;
    t_rng_init(&r, 0x7e4d);
    size_t nk = memasm_kernel_count(), nt = memasm_threshold_count();
    for (int it = 0; it < 300 && !atomic_load(&workers_failed); it++) {
        if (nt) {
            const char *key = memasm_threshold_key((size_t)t_below(&r, nt));
            static const size_t vals[] = {0, 1, 63, 64, 4096, 65536, (size_t)1 << 20, SIZE_MAX};
            size_t v = t_below(&r, 2) ? vals[t_below(&r, sizeof vals / sizeof vals[0])]
                                       : (size_t)t_below(&r, (size_t)4 << 20);
            ck_assert(memasm_threshold_set(key, v, NULL) == 0);
        }
        switch (t_below(&r, 4)) {
        case 0:
            memasm_isa_set_cap(NULL);
            break;
        case 1:
            memasm_isa_set_cap(memasm_isa_name((int)t_below(&r, (uint64_t)memasm_isa_count())));
            break;
        case 2: {
            memasm_kernel_desc d;
            memasm_kernel_info((size_t)t_below(&r, nk), &d);
            if (d.usable)
                memasm_kernel_force(d.name);
            break;
        }
        default:
            memasm_kernel_auto((memasm_op)t_below(&r, MEMASM_OP_COUNT));
            break;
        }
        if (it % 8 == 0)
            memasm_threshold_reset();
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
    stop_all_workers();
    unsigned long total = 0;
    for (int i = 0; i < NTHREADS; i++) {
        ck_assert_msg(atomic_load(&worker_calls[i]) > 0, "worker %d made no call", i);
        total += atomic_load(&worker_calls[i]);
    }
    ck_assert_msg(!atomic_load(&workers_failed), "a worker thread got a wrong result: %s", worker_error);
    printf("threads: %d workers made %lu checked calls from before the constructor on, "
           "while thresholds, cap and forced kernels changed\n", NTHREADS, total);
    memasm_threshold_reset();
    memasm_isa_set_cap(NULL);
    for (int op = 0; op < MEMASM_OP_COUNT; op++)
        memasm_kernel_auto((memasm_op)op);
}
END_TEST

/* ---- modes for dispatch-env.sh ------------------------------------------- */

static int expect_cap(const char *arg)
{
    stop_all_workers();
    int cpu = memasm_isa_cpu();
    int want = cpu, asked = -1;
    if (strcmp(arg, "-") != 0) {
        asked = memasm_isa_level(arg);
        if (asked < 0) {
            printf("FAIL: --expect-cap %s is not a level of this build\n", arg);
            return 1;
        }
        want = min_i(asked, cpu);
    }
    int bad = 0;
    if (memasm_isa_cap() != want) {
        printf("FAIL: MEMASM_ISA=%s: cap in force is %s, expected %s\n", arg,
               memasm_isa_name(memasm_isa_cap()), memasm_isa_name(want));
        bad = 1;
    }
    const char *err = check_choice(want);
    if (err) {
        printf("FAIL: MEMASM_ISA=%s: %s\n", arg, err);
        bad = 1;
    }
    if (!entry_points_work()) {
        printf("FAIL: MEMASM_ISA=%s: wrong result from the entry points\n", arg);
        bad = 1;
    }
    printf("%s: MEMASM_ISA=%s -> cap %s (CPU %s)%s: memcpy=%s memmove=%s memset=%s\n",
           bad ? "FAIL" : "ok", arg, memasm_isa_name(memasm_isa_cap()), memasm_isa_name(cpu),
           asked > cpu ? " [above the CPU's level: not raised]" : "",
           memasm_kernel_current(MEMASM_OP_MEMCPY), memasm_kernel_current(MEMASM_OP_MEMMOVE),
           memasm_kernel_current(MEMASM_OP_MEMSET));
    return bad;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--levels") == 0) {
        stop_all_workers();
        for (int i = 0; i < memasm_isa_count(); i++)
            printf("%s\n", memasm_isa_name(i));
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "--expect-cap") == 0)
        return expect_cap(argv[2]);
    t_seed();
    t_print_kernels();
    Suite *s = suite_create("dispatch");
    TCase *tc = tcase_create("dispatch");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, threads); /* first: the workers have run since start-up */
    tcase_add_test(tc, caps);
    tcase_add_test(tc, bad_cap);
    tcase_add_test(tc, cpu_strings);
    tcase_add_test(tc, force);
    tcase_add_test(tc, defaults_follow_level);
    suite_add_tcase(s, tc);
    /* The worker threads live in this process: a forked test would not
     * have them. */
    return t_run_suite_nofork(s);
}
