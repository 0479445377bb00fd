/*
 * test-preload.c -- libmemasm-preload.so from the outside, as a program run
 * with LD_PRELOAD sees it (preload/preload-*.sh run it).
 *
 *   test-preload symbols       every exported name resolves (dlsym) into
 *                              libmemasm-preload.so (or the module
 *                              TEST_PRELOAD_MODULE names); fails without it
 *   test-preload functions     each function against a byte-loop reference:
 *                              sizes 0..1024 and large ones, every dst and
 *                              src alignment 0..63, overlaps both ways for
 *                              memmove/bcopy, bytes around the destination
 *                              untouched, return values
 *   test-preload chk           each _chk function aborts (SIGABRT, glibc's
 *                              message) in a child when dstlen < n
 *   test-preload count N       N calls of each of memcpy, memmove, memset
 *   test-preload exit-threads  exit() while 4 threads copy
 *   test-preload exit-signal   exit() from a signal handler while 4 threads
 *                              copy
 *   test-preload exit-closed   an atexit handler closes stderr (as gnulib's
 *                              close_stdout does)
 *   test-preload-early early   (linked with preload/test-early.c) what that
 *                              library's constructor, malloc and start-up
 *                              threads saw
 *
 * The functions are called through pointers from dlsym, so the compiler
 * cannot expand them inline; this file is compiled with
 * -fno-tree-loop-distribute-patterns so its byte loops stay byte loops.
 * Exit status 0 pass, 1 fail.
 */
#define _GNU_SOURCE /* dladdr, RTLD_DEFAULT */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef TEST_EARLY
#include "test-early.h"
#endif

typedef void *(*cpy_fn)(void *, const void *, size_t);
typedef void *(*cpy_chk_fn)(void *, const void *, size_t, size_t);
typedef void (*bcopy_fn)(const void *, void *, size_t);
typedef void *(*set_fn)(void *, int, size_t);
typedef void *(*set_chk_fn)(void *, int, size_t, size_t);
typedef void (*zero_fn)(void *, size_t);
typedef void (*zero_chk_fn)(void *, size_t, size_t);

enum sig { CPY, CPY_CHK, BCOPY, SET, SET_CHK, ZERO, ZERO_CHK };
enum op { OP_COPY, OP_MOVE, OP_SET };
enum ret { RET_DST, RET_END, RET_VOID };

static struct fn {
    const char *name;
    enum sig sig;
    enum op op;
    enum ret ret;
    void (*p)(void);
} fns[] = {
    {"memcpy", CPY, OP_COPY, RET_DST, NULL},
    {"mempcpy", CPY, OP_COPY, RET_END, NULL},
    {"__memcpy_chk", CPY_CHK, OP_COPY, RET_DST, NULL},
    {"__mempcpy_chk", CPY_CHK, OP_COPY, RET_END, NULL},
    {"memmove", CPY, OP_MOVE, RET_DST, NULL},
    {"__memmove_chk", CPY_CHK, OP_MOVE, RET_DST, NULL},
    {"bcopy", BCOPY, OP_MOVE, RET_VOID, NULL},
    {"memset", SET, OP_SET, RET_DST, NULL},
    {"__memset_chk", SET_CHK, OP_SET, RET_DST, NULL},
    {"bzero", ZERO, OP_SET, RET_VOID, NULL},
    {"explicit_bzero", ZERO, OP_SET, RET_VOID, NULL},
    {"__explicit_bzero_chk", ZERO_CHK, OP_SET, RET_VOID, NULL},
};
#define NFNS (sizeof fns / sizeof fns[0])

static int failures;

#define FAIL(...)                                                                  \
    do {                                                                           \
        if (failures++ < 20) {                                                     \
            printf("FAIL: " __VA_ARGS__);                                          \
            putchar('\n');                                                         \
        }                                                                          \
    } while (0)

/* Call f; dstlen is used by the _chk signatures; c by memset's. */
static void *call(const struct fn *f, void *dst, const void *src, int c, size_t n,
                  size_t dstlen)
{
    switch (f->sig) {
    case CPY:
        return ((cpy_fn)f->p)(dst, src, n);
    case CPY_CHK:
        return ((cpy_chk_fn)f->p)(dst, src, n, dstlen);
    case BCOPY:
        ((bcopy_fn)f->p)(src, dst, n);
        return NULL;
    case SET:
        return ((set_fn)f->p)(dst, c, n);
    case SET_CHK:
        return ((set_chk_fn)f->p)(dst, c, n, dstlen);
    case ZERO:
        ((zero_fn)f->p)(dst, n);
        return NULL;
    case ZERO_CHK:
        ((zero_chk_fn)f->p)(dst, n, dstlen);
        return NULL;
    }
    return NULL;
}

static const char *where(const void *addr)
{
    Dl_info info;
    if (!dladdr(addr, &info) || !info.dli_fname)
        return "?";
    const char *slash = strrchr(info.dli_fname, '/');
    return slash ? slash + 1 : info.dli_fname;
}

/* The module the names must resolve into: libmemasm-preload, or the one
 * TEST_PRELOAD_MODULE names (libmemasm-profile, which exports the same). */
static int in_module(void *addr)
{
    const char *m = getenv("TEST_PRELOAD_MODULE");
    m = m ? m : "libmemasm-preload";
    return strncmp(where(addr), m, strlen(m)) == 0;
}

/* Resolve every name; with check, each must come from the preload library. */
static void resolve(int check)
{
    for (size_t i = 0; i < NFNS; i++) {
        void *p = dlsym(RTLD_DEFAULT, fns[i].name);
        fns[i].p = (void (*)(void))p;
        if (!p) {
            FAIL("%s: not found", fns[i].name);
            continue;
        }
        if (check && !in_module(p))
            FAIL("%s resolves to %s, not the preload module", fns[i].name, where(p));
    }
    if (!fns[0].p)
        exit(1);
}

static void *map(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    return p;
}

static void fill(unsigned char *p, size_t n, unsigned salt)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 131 + salt * 7 + (i >> 8) + 1);
}

/* The reference: what f must leave in buf (len bytes) for a call at dst,
 * src (both inside buf, or src elsewhere), n bytes, value c. */
static void reference(const struct fn *f, unsigned char *buf, unsigned char *dst,
                      const unsigned char *src, int c, size_t n, unsigned char *tmp)
{
    (void)buf;
    if (f->op == OP_SET) {
        unsigned char v = f->sig == SET || f->sig == SET_CHK ? (unsigned char)c : 0;
        for (size_t i = 0; i < n; i++)
            dst[i] = v;
        return;
    }
    for (size_t i = 0; i < n; i++)
        tmp[i] = src[i];
    for (size_t i = 0; i < n; i++)
        dst[i] = tmp[i];
}

static size_t first_diff(const unsigned char *a, const unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return i;
    return n;
}

static size_t dstlen_for(size_t n, size_t k)
{
    switch (k % 3) {
    case 0:
        return n; /* exactly enough */
    case 1:
        return n + 1;
    default:
        return (size_t)-1; /* the size the compiler passes when unknown */
    }
}

/*
 * One call of f on the region got (len bytes, the copy's destination and,
 * for overlaps, its source) against the same call's reference on want.
 * dst_off/src_off are offsets in the region; src_off < 0: src is other.
 */
static void check_call(const struct fn *f, unsigned char *got, unsigned char *want, size_t len,
                       size_t dst_off, long src_off, const unsigned char *other, size_t n,
                       int c, size_t k, unsigned char *tmp)
{
    const unsigned char *src_got = src_off < 0 ? other : got + src_off;
    const unsigned char *src_want = src_off < 0 ? other : want + src_off;
    fill(got, len, (unsigned)k);
    fill(want, len, (unsigned)k);
    reference(f, want, want + dst_off, src_want, c, n, tmp);
    void *r = call(f, got + dst_off, src_got, c, n, dstlen_for(n, k));
    void *expect = f->ret == RET_DST ? got + dst_off : f->ret == RET_END ? got + dst_off + n : NULL;
    if (r != expect)
        FAIL("%s n=%zu dst+%zu: returned %p, expected %p", f->name, n, dst_off, r, expect);
    size_t d = first_diff(got, want, len);
    if (d < len)
        FAIL("%s n=%zu dst+%zu src%+ld c=%d: byte %ld from dst is %u, expected %u", f->name, n,
             dst_off, src_off, c, (long)d - (long)dst_off, got[d], want[d]);
}

#define GUARD 64 /* bytes checked on each side of the destination */

static void test_functions(void)
{
    size_t small = 1024, large[] = {4097, 65536 + 17, (1u << 20) + 3, (9u << 20) + 5};
    size_t cap = (9u << 20) + 5 + 3 * GUARD;
    unsigned char *got = map(2 * cap + GUARD), *want = map(2 * cap + GUARD);
    unsigned char *src = map(cap), *tmp = map(2 * cap);
    fill(src, cap, 99);
    long k = 0;
    for (size_t i = 0; i < NFNS; i++) {
        const struct fn *f = &fns[i];
        int before = failures;
        int cs[] = {0, 0xa5, 0x1ff, -2, 'x'};
        /* Every size to 1024, every dst alignment, src alignments cycling
         * through 0..63 too. */
        for (size_t n = 0; n <= small; n++)
            for (size_t da = 0; da < 64; da++, k++) {
                size_t sa = (da * 37 + n) % 64;
                check_call(f, got, want, n + da + 2 * GUARD, GUARD + da, -1, src + sa, n,
                           cs[k % 5], (size_t)k, tmp);
            }
        for (size_t j = 0; j < sizeof large / sizeof large[0]; j++)
            for (size_t da = 0; da < 64; da += 21, k++)
                check_call(f, got, want, large[j] + da + 2 * GUARD, GUARD + da, -1,
                           src + 63 - da, large[j], cs[k % 5], (size_t)k, tmp);
        if (f->op == OP_MOVE) {
            /* Overlaps: dst above src (backward copy) and below. */
            size_t dists[] = {1, 2, 3, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 127, 128, 256, 0};
            for (size_t n = 1; n <= small; n++)
                for (size_t di = 0; di < sizeof dists / sizeof dists[0]; di++) {
                    size_t d = dists[di] ? dists[di] : n / 2 + 1;
                    if (d > n)
                        continue;
                    size_t base = GUARD + n % 64;
                    size_t len = base + n + d + GUARD;
                    check_call(f, got, want, len, base + d, (long)base, NULL, n, 0, (size_t)k++, tmp);
                    check_call(f, got, want, len, base, (long)(base + d), NULL, n, 0, (size_t)k++, tmp);
                }
            for (size_t j = 2; j < sizeof large / sizeof large[0]; j++) {
                size_t n = large[j], ds[] = {1, 64, 4096, n / 2};
                for (size_t di = 0; di < 4; di++) {
                    size_t d = ds[di], len = GUARD + n + d + GUARD;
                    check_call(f, got, want, len, GUARD + d, GUARD, NULL, n, 0, (size_t)k++, tmp);
                    check_call(f, got, want, len, GUARD, GUARD + (long)d, NULL, n, 0, (size_t)k++, tmp);
                }
            }
        }
        printf("%-22s %s\n", f->name, failures == before ? "ok" : "FAILED");
    }
    /* One call beyond every non-temporal threshold of the defaults. */
    size_t big = (64u << 20) + 11;
    unsigned char *a = map(big + 64), *b = map(big + 64);
    fill(a, big + 64, 5);
    if (((cpy_fn)fns[0].p)(b + 1, a + 3, big) != b + 1 || first_diff(b + 1, a + 3, big) != big)
        FAIL("memcpy of 64 MiB wrong");
    if (((set_fn)fns[7].p)(a + 5, 0x3c, big) != a + 5)
        FAIL("memset of 64 MiB returned wrong pointer");
    for (size_t i = 0; i < big; i += 4093)
        if (a[5 + i] != 0x3c) {
            FAIL("memset of 64 MiB wrong at %zu", i);
            break;
        }
}

/* Each _chk function with dstlen < n must abort like glibc's __chk_fail. */
static void test_chk(void)
{
    static const char msg[] = "*** buffer overflow detected ***: terminated";
    size_t cases[][2] = {{64, 63}, {1, 0}, {(1u << 20) + 1, 1u << 20}};
    static unsigned char a[(1u << 20) + 1], b[(1u << 20) + 1];
    for (size_t i = 0; i < NFNS; i++) {
        const struct fn *f = &fns[i];
        if (f->sig != CPY_CHK && f->sig != SET_CHK && f->sig != ZERO_CHK)
            continue;
        for (size_t j = 0; j < sizeof cases / sizeof cases[0]; j++) {
            int fd[2];
            if (pipe(fd) != 0) {
                perror("pipe");
                exit(1);
            }
            fflush(stdout);
            pid_t pid = fork();
            if (pid == 0) {
                struct rlimit no_core = {0, 0};
                setrlimit(RLIMIT_CORE, &no_core);
                dup2(fd[1], STDERR_FILENO);
                close(fd[0]);
                call(f, a, b, 0, cases[j][0], cases[j][1]);
                _exit(0);
            }
            close(fd[1]);
            char out[512];
            size_t got = 0;
            ssize_t r;
            while (got < sizeof out - 1 && (r = read(fd[0], out + got, sizeof out - 1 - got)) > 0)
                got += (size_t)r;
            out[got] = '\0';
            close(fd[0]);
            int st;
            waitpid(pid, &st, 0);
            if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGABRT)
                FAIL("%s(n=%zu, dstlen=%zu) did not abort (status %#x)", f->name, cases[j][0],
                     cases[j][1], st);
            else if (!strstr(out, msg))
                FAIL("%s aborted without glibc's message; stderr: %s", f->name, out);
        }
        printf("%-22s aborts when dstlen < n\n", f->name);
    }
}

static void test_count(long n)
{
    unsigned char a[64] = {0}, b[64] = {0};
    for (long i = 0; i < n; i++) {
        ((cpy_fn)fns[0].p)(a, b, (size_t)i % 64);
        ((cpy_fn)fns[4].p)(a + 1, a, (size_t)i % 63);
        ((set_fn)fns[7].p)(b, (int)i, (size_t)i % 64);
    }
}

/* Copy forever (until the process ends). */
static void *copier(void *arg)
{
    size_t n = 1 + (size_t)(uintptr_t)arg * 1000;
    unsigned char *a = map(2 * n), *b = map(2 * n);
    for (unsigned i = 0;; i++) {
        ((cpy_fn)fns[0].p)(b, a, n + i % n);
        ((set_fn)fns[7].p)(a, (int)i, n);
        ((cpy_fn)fns[4].p)(a + 1, a, n - 1);
    }
    return NULL;
}

static void start_copiers(void)
{
    for (uintptr_t i = 0; i < 4; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, copier, (void *)i) != 0) {
            perror("pthread_create");
            exit(1);
        }
    }
    usleep(50000);
}

static void close_stderr(void)
{
    close(STDERR_FILENO);
}

static void exit_now(int sig)
{
    (void)sig;
    exit(0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(mode, "symbols") == 0) {
        resolve(1);
        /* The address the program itself takes, through its own GOT. */
        void *(*volatile self)(void *, const void *, size_t) = memcpy;
        if (!in_module((void *)self))
            FAIL("&memcpy in the program is in %s", where((void *)self));
        if (!failures)
            printf("all %zu names resolve into the preload module\n", NFNS);
    } else if (strcmp(mode, "functions") == 0) {
        resolve(1);
        test_functions();
    } else if (strcmp(mode, "chk") == 0) {
        resolve(1);
        test_chk();
    } else if (strcmp(mode, "count") == 0 && argc > 2) {
        resolve(0);
        test_count(atol(argv[2]));
    } else if (strcmp(mode, "exit-threads") == 0) {
        resolve(0);
        start_copiers();
        exit(0);
    } else if (strcmp(mode, "exit-closed") == 0) {
        resolve(0);
        atexit(close_stderr);
        test_count(10);
    } else if (strcmp(mode, "exit-signal") == 0) {
        resolve(0);
        signal(SIGUSR1, exit_now);
        start_copiers();
        raise(SIGUSR1);
        FAIL("still running after the signal");
#ifdef TEST_EARLY
    } else if (strcmp(mode, "early") == 0) {
        resolve(1);
        failures += test_early_report();
#endif
    } else {
        fprintf(stderr, "usage: %s symbols|functions|chk|count N|exit-threads|exit-signal|exit-closed%s\n",
                argv[0],
#ifdef TEST_EARLY
                "|early"
#else
                ""
#endif
        );
        return 2;
    }
    if (failures)
        printf("%d failure(s)\n", failures);
    return failures != 0;
}
