/*
 * harness.c -- shared test machinery: seed and random numbers, guarded
 * arenas, the fault catcher, byte-loop references, threshold profiles,
 * the suite runner.
 * See harness.h.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "xoshiro.h"

/* ---- random numbers ----------------------------------------------------- */

uint64_t t_seed(void)
{
    static int done;
    static uint64_t seed;
    if (done)
        return seed;
    const char *e = getenv("MEMASM_TEST_SEED");
    if (e && *e) {
        char *end;
        errno = 0;
        seed = strtoull(e, &end, 0);
        if (errno || *end) {
            fprintf(stderr, "MEMASM_TEST_SEED='%s' is not a number\n", e);
            exit(99); /* hard error for the automake test driver */
        }
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^
                     ((uint64_t)getpid() << 32);
        seed = memasm_splitmix64(&x) % 1000000000000ull; /* short enough to retype */
    }
    done = 1;
    printf("seed: %llu (repeat with MEMASM_TEST_SEED=%llu)\n", (unsigned long long)seed,
           (unsigned long long)seed);
    fflush(stdout);
    return seed;
}

void t_rng_init(t_rng *r, uint64_t stream)
{
    uint64_t x = t_seed() ^ (stream * 0xd1342543de82ef95ull);
    for (int i = 0; i < 4; i++)
        r->s[i] = memasm_splitmix64(&x);
}

uint64_t t_rand(t_rng *r)
{
    return memasm_xoshiro_next(r->s);
}

uint64_t t_below(t_rng *r, uint64_t n)
{
    return t_rand(r) % n;
}

void t_fill(t_rng *r, unsigned char *p, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v = t_rand(r);
        memcpy(p + i, &v, 8);
    }
    if (i < n) {
        uint64_t v = t_rand(r);
        memcpy(p + i, &v, n - i);
    }
}

/* ---- guarded memory ------------------------------------------------------ */

size_t t_page(void)
{
    static size_t page;
    if (!page)
        page = (size_t)sysconf(_SC_PAGESIZE);
    return page;
}

void t_arena_new(t_arena *a, size_t size)
{
    size_t pg = t_page();
    size = (size + pg - 1) / pg * pg;
    if (!size)
        size = pg;
    a->map_size = size + 2 * pg;
    void *m = mmap(NULL, a->map_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_msg(m != MAP_FAILED, "mmap of %zu bytes failed: %s", a->map_size, strerror(errno));
    a->map = m;
    a->base = a->map + pg;
    a->size = size;
    ck_assert_msg(mprotect(a->base, size, PROT_READ | PROT_WRITE) == 0, "mprotect: %s",
                  strerror(errno));
}

void t_arena_free(t_arena *a)
{
    if (a->map)
        munmap(a->map, a->map_size);
    memset(a, 0, sizeof *a);
}

void t_arena_readonly(t_arena *a, int ro)
{
    ck_assert_msg(mprotect(a->base, a->size, ro ? PROT_READ : PROT_READ | PROT_WRITE) == 0,
                  "mprotect: %s", strerror(errno));
}

unsigned char *t_noaccess_page(void)
{
    static unsigned char *p;
    if (!p) {
        void *m = mmap(NULL, t_page(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        ck_assert_msg(m != MAP_FAILED, "mmap: %s", strerror(errno));
        p = m;
    }
    return p;
}

/* ---- fault catcher ------------------------------------------------------- */

/* The pointers of the guarded call in progress, for the fault message. */
static const void *volatile cur_dst, *volatile cur_src;

sigjmp_buf t_fault_jmp;
volatile sig_atomic_t t_fault_armed;
volatile int t_fault_sig;
void *volatile t_fault_addr;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (!t_fault_armed) {
        /* A fault in the harness itself: die the normal way. */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    t_fault_armed = 0;
    t_fault_sig = sig;
    t_fault_addr = si->si_addr;
    siglongjmp(t_fault_jmp, 1);
}

void t_fault_install(void)
{
    static int done;
    if (done)
        return;
    static unsigned char altstack[64 * 1024];
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0};
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    /* SA_NODEFER: we leave the handler with siglongjmp without restoring a
     * signal mask, so the signal must not stay blocked. */
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGILL, &sa, NULL);
    done = 1;
}

const char *t_call_str(const t_call *c)
{
    static char buf[320];
    snprintf(buf, sizeof buf, "kernel %s, %s, n=%zu, dst align %u, src align %u, thresholds %s, seed %llu",
             c->kernel, c->what, c->n, c->dalign, c->salign, c->profile ? c->profile : "defaults",
             (unsigned long long)t_seed());
    return buf;
}

void t_fault_fail(const t_call *c)
{
    const char *name = t_fault_sig == SIGSEGV ? "SIGSEGV" : t_fault_sig == SIGBUS ? "SIGBUS"
                       : t_fault_sig == SIGILL ? "SIGILL" : "signal";
    char where[128] = "";
    const unsigned char *a = t_fault_addr;
    if (cur_dst && a) {
        int k = snprintf(where, sizeof where, " = dst%+ld", (long)(a - (const unsigned char *)cur_dst));
        if (cur_src && k > 0)
            snprintf(where + k, sizeof where - (size_t)k, " = src%+ld",
                     (long)(a - (const unsigned char *)cur_src));
    }
    cur_dst = cur_src = NULL;
    printf("FAULT: %s at %p%s: %s\n", name, t_fault_addr, where, t_call_str(c));
    fflush(stdout);
    ck_abort_msg("%s at %p%s: %s", name, t_fault_addr, where, t_call_str(c));
    abort(); /* not reached */
}

void *t_copy(const t_call *c, t_copy_fn fn, void *d, const void *s, size_t n)
{
    cur_dst = d;
    cur_src = s;
    void *volatile ret = NULL;
    T_GUARDED(c, ret = fn(d, s, n));
    return ret;
}

void *t_set(const t_call *c, t_set_fn fn, void *d, int v, size_t n)
{
    cur_dst = d;
    cur_src = NULL;
    void *volatile ret = NULL;
    T_GUARDED(c, ret = fn(d, v, n));
    return ret;
}

/* ---- references ---------------------------------------------------------- */

/* Keep these byte loops: the compiler must not turn them into calls to the
 * C library's memmove/memset. */
#define BYTE_LOOP __attribute__((noinline, optimize("no-tree-loop-distribute-patterns")))

BYTE_LOOP void t_ref_move(unsigned char *dst, const unsigned char *src, size_t n)
{
    if (dst < src)
        for (size_t i = 0; i < n; i++)
            dst[i] = src[i];
    else
        for (size_t i = n; i-- > 0;)
            dst[i] = src[i];
}

BYTE_LOOP void t_ref_set(unsigned char *dst, int c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = (unsigned char)c;
}

size_t t_diff(const unsigned char *a, const unsigned char *b, size_t n)
{
    if (memcmp(a, b, n) == 0)
        return n;
    size_t i = 0;
    while (a[i] == b[i])
        i++;
    return i;
}

/* ---- kernels and thresholds --------------------------------------------- */

void t_print_time(const char *what)
{
    static struct timespec t0;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (!t0.tv_sec && !t0.tv_nsec) {
        t0 = t;
        return;
    }
    double wall = (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9;
    printf("%s: %.1f s wall, %.1f s CPU\n", what, wall, (double)clock() / CLOCKS_PER_SEC);
    fflush(stdout);
}

const char *t_skip_reason(const memasm_kernel_desc *d)
{
    static char buf[160];
    if (d->level > memasm_isa_cpu())
        snprintf(buf, sizeof buf, "needs ISA level %s, this CPU has %s", d->isa,
                 memasm_isa_name(memasm_isa_cpu()));
    else
        snprintf(buf, sizeof buf, "this CPU lacks a feature it requires (level %s)", d->isa);
    return buf;
}

void t_print_kernels(void)
{
    printf("libmemasm %s, %zu kernels, CPU level %s, cap %s\n", memasm_version(),
           memasm_kernel_count(), memasm_isa_name(memasm_isa_cpu()),
           memasm_isa_name(memasm_isa_cap()));
    for (size_t i = 0; i < memasm_kernel_count(); i++) {
        memasm_kernel_desc d;
        if (memasm_kernel_info(i, &d) != 0)
            continue;
        printf("  %-20s %-8s %-8s %s\n", d.name, memasm_op_name(d.op), d.isa,
               d.usable ? "usable" : t_skip_reason(&d));
    }
    for (int op = 0; op < MEMASM_OP_COUNT; op++)
        printf("  %s is served by %s\n", memasm_op_name((memasm_op)op),
               memasm_kernel_current((memasm_op)op));
    fflush(stdout);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

int t_key_steers(const char *key, memasm_op op)
{
    const char *dot = strchr(key, '.');
    size_t len = dot ? (size_t)(dot - key) : strlen(key);
    if (len == 6 && strncmp(key, "memcpy", 6) == 0)
        return op == MEMASM_OP_MEMCPY || op == MEMASM_OP_MEMMOVE;
    if (len == 7 && strncmp(key, "memmove", 7) == 0)
        return op == MEMASM_OP_MEMMOVE;
    if (len == 6 && strncmp(key, "memset", 6) == 0)
        return op == MEMASM_OP_MEMSET;
    return 1; /* unknown family: assume it steers everything */
}

/* Legal bounds of a key, found through the clamping of memasm_threshold_set
 * (the current value is put back afterwards). */
static void key_range(const char *key, size_t *lo, size_t *hi)
{
    size_t old;
    /* Runs before the tests too: no Check assertions here. */
    if (memasm_threshold_get(key, &old) != 0 || memasm_threshold_set(key, 0, lo) != 0 ||
        memasm_threshold_set(key, SIZE_MAX, hi) != 0 || memasm_threshold_set(key, old, NULL) != 0) {
        fprintf(stderr, "threshold key %s listed but not accepted by get/set\n", key);
        exit(1);
    }
}

static void add_key(t_profile *p, const char *key, size_t value)
{
    if (p->nkeys < T_MAX_KEYS) {
        p->key[p->nkeys] = key;
        p->value[p->nkeys++] = value;
    }
}

/* Everything off: *_min keys at their maximum, *_max keys at their maximum
 * (a window whose start is at the maximum is empty whatever its end). */
static void all_off(t_profile *p)
{
    for (size_t i = 0; i < memasm_threshold_count(); i++) {
        const char *k = memasm_threshold_key(i);
        size_t lo, hi;
        key_range(k, &lo, &hi);
        if (ends_with(k, "_min") || ends_with(k, "_max"))
            add_key(p, k, hi);
    }
}

/* Profile p: everything off, then each of keys[0..nkeys) at its legal
 * minimum (applied last: wins over the all-off value), named after them; it
 * runs the operations any of the keys steers. */
static void keys_at_minimum(t_profile *p, const char *const *keys, int nkeys)
{
    memset(p, 0, sizeof *p);
    all_off(p);
    size_t len = 0;
    for (int i = 0; i < nkeys; i++) {
        size_t lo, hi;
        key_range(keys[i], &lo, &hi);
        add_key(p, keys[i], lo);
        len += (size_t)snprintf(p->name + len, sizeof p->name - len, "%s=%zu ", keys[i], lo);
        if (len >= sizeof p->name)
            len = sizeof p->name - 1;
        for (int op = 0; op < MEMASM_OP_COUNT; op++)
            p->ops[op] |= t_key_steers(keys[i], (memasm_op)op);
    }
    snprintf(p->name + len, sizeof p->name - len, "(rest off)");
}

int t_profiles(t_profile *out, int max)
{
    int n = 0;
    memasm_threshold_reset();
    if (n < max) {
        t_profile *p = &out[n++];
        memset(p, 0, sizeof *p);
        snprintf(p->name, sizeof p->name, "defaults");
        for (int op = 0; op < MEMASM_OP_COUNT; op++)
            p->ops[op] = 1;
    }
    if (n < max) {
        t_profile *p = &out[n++];
        memset(p, 0, sizeof *p);
        snprintf(p->name, sizeof p->name, "all-off");
        all_off(p);
        for (int op = 0; op < MEMASM_OP_COUNT; op++)
            p->ops[op] = 1;
    }
    for (size_t i = 0; i < memasm_threshold_count() && n < max; i++) {
        const char *k = memasm_threshold_key(i);
        if (ends_with(k, "_min"))
            keys_at_minimum(&out[n++], &k, 1);
    }
    /* Paths that only two strategies together open, for the keys this
     * architecture has: x86_64's rep movsb window hands a 4K-aliasing copy
     * of mutually misaligned pointers to the backward non-temporal loop,
     * or to rep movsb itself; its forward non-temporal loop takes an
     * overlapping move (dst below src) only when memcpy.bwd_nt_min lets it. */
    static const char *const pairs[][2] = {{"memcpy.erms_min", "memcpy.alias_nt_min"},
                                           {"memcpy.erms_min", "memcpy.alias_erms_min"},
                                           {"memcpy.nt_min", "memcpy.bwd_nt_min"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0] && n < max; i++) {
        size_t v;
        if (memasm_threshold_get(pairs[i][0], &v) == 0 && memasm_threshold_get(pairs[i][1], &v) == 0)
            keys_at_minimum(&out[n++], pairs[i], 2);
    }
    return n;
}

void t_profile_apply(const t_profile *p)
{
    memasm_threshold_reset();
    for (int i = 0; i < p->nkeys; i++) {
        size_t applied;
        ck_assert_msg(memasm_threshold_set(p->key[i], p->value[i], &applied) == 0,
                      "threshold_set(%s) failed", p->key[i]);
    }
    /* Say what is in force, so a failure report carries it. */
    printf("thresholds %s:", p->name);
    for (size_t i = 0; i < memasm_threshold_count(); i++) {
        size_t v = 0;
        memasm_threshold_get(memasm_threshold_key(i), &v);
        if (v == SIZE_MAX)
            printf(" %s=max", memasm_threshold_key(i));
        else
            printf(" %s=%zu", memasm_threshold_key(i), v);
    }
    printf("\n");
    fflush(stdout);
}

/* ---- running ------------------------------------------------------------- */

static int run_suite(Suite *s, int nofork)
{
    SRunner *sr = srunner_create(s);
    if (nofork)
        srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

int t_run_suite(Suite *s)
{
    return run_suite(s, 0);
}

int t_run_suite_nofork(Suite *s)
{
    return run_suite(s, 1);
}
