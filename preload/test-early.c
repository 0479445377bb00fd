/*
 * test-early.c -- a shared library that uses the copy functions before
 * libmemasm-preload.so's constructor has run (preload/preload-early.sh
 * checks, with LD_DEBUG=init, that its constructor runs first):
 *
 *   - it replaces malloc, calloc, realloc, free and the aligned
 *     allocators with a bump allocator whose first call initialises it with
 *     memset and memcpy, and whose calloc and realloc use them (the C
 *     library calls malloc during start-up, before any constructor);
 *   - its constructor checks memcpy, memmove and memset at sizes 0..600 and
 *     1 MiB, then starts 8 threads that copy and check until
 *     test_early_report() stops them, so they run while libmemasm
 *     initialises and installs its kernels.
 *
 * Compiled with -fno-builtin: every memcpy/memmove/memset here is a real
 * call, resolved to libmemasm-preload.so under LD_PRELOAD.
 */
#define _GNU_SOURCE /* dladdr, RTLD_DEFAULT */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "test-early.h"

#define EXPORT __attribute__((visibility("default")))

static atomic_int failures;
static atomic_int ctor_ran;

/* write(2), not stdio: this may run inside the allocator's initialisation,
 * and stdio allocates. */
static void fail(const char *what, size_t n)
{
    if (atomic_fetch_add(&failures, 1) < 20) {
        char line[128];
        int len = snprintf(line, sizeof line, "FAIL: %s (n=%zu)\n", what, n);
        if (len > 0 && write(STDOUT_FILENO, line, (size_t)len) < 0)
            return; /* nowhere to say it; the count still fails the test */
    }
}

/* ---- the allocator ------------------------------------------------------ */

#define ARENA (256u << 20)
#define HDR 16 /* size_t size before each block, keeps 16-byte alignment */

static struct {
    char tag[16];
    size_t stats[8];
} arena_info;
static unsigned char *arena;
static atomic_size_t arena_used;
static atomic_int arena_state; /* 0 none, 1 initialising, 2 ready */
static atomic_long malloc_calls, malloc_calls_before_ctor;

static void arena_init(void)
{
    int expected = 0;
    if (atomic_compare_exchange_strong(&arena_state, &expected, 1)) {
        void *p = mmap(NULL, ARENA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        arena = p == MAP_FAILED ? NULL : p;
        memset(&arena_info, 0xff, sizeof arena_info);
        memset(arena_info.stats, 0, sizeof arena_info.stats);
        memcpy(arena_info.tag, "test-early arena", 16);
        if (arena_info.stats[7] != 0 || arena_info.tag[15] != 'a')
            fail("memset/memcpy in the allocator's initialisation", sizeof arena_info);
        atomic_store(&arena_state, 2);
    }
    while (atomic_load(&arena_state) != 2)
        ;
}

static void *alloc(size_t n, size_t align)
{
    atomic_fetch_add(&malloc_calls, 1);
    if (!atomic_load(&ctor_ran))
        atomic_fetch_add(&malloc_calls_before_ctor, 1);
    arena_init();
    if (align < HDR)
        align = HDR;
    if (!arena || n > ARENA) {
        errno = ENOMEM;
        return NULL;
    }
    size_t need = (n + HDR + align - 1 + 15) & ~(size_t)15;
    size_t at = atomic_fetch_add(&arena_used, need);
    if (at + need > ARENA) {
        errno = ENOMEM;
        return NULL;
    }
    uintptr_t p = ((uintptr_t)arena + at + HDR + align - 1) & ~(uintptr_t)(align - 1);
    ((size_t *)p)[-1] = n;
    return (void *)p;
}

EXPORT void *malloc(size_t n)
{
    return alloc(n, HDR);
}

EXPORT void free(void *p)
{
    (void)p; /* a bump allocator: nothing is reused */
}

EXPORT void *calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    size_t total = count * size;
    unsigned char *p = alloc(total, HDR);
    if (p && total) {
        p[0] = 1;
        memset(p, 0, total);
        if (p[0] || p[total - 1])
            fail("memset in calloc", total);
    }
    return p;
}

EXPORT void *realloc(void *old, size_t n)
{
    unsigned char *p = alloc(n, HDR);
    if (p && old) {
        size_t had = ((size_t *)old)[-1], keep = had < n ? had : n;
        memcpy(p, old, keep);
        if (keep && (p[0] != ((unsigned char *)old)[0] || p[keep - 1] != ((unsigned char *)old)[keep - 1]))
            fail("memcpy in realloc", keep);
    }
    return p;
}

EXPORT void *memalign(size_t align, size_t n)
{
    return alloc(n, align);
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
    return alloc(n, align);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
    void *p = alloc(n, align);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

/* ---- checked copies ----------------------------------------------------- */

static void pattern(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed + i * 29 + (i >> 9));
}

/* memcpy, an overlapping memmove each way and memset of n bytes at
 * buf + off; buf holds 2 * n + 256 bytes. */
static void check_copies(unsigned char *buf, unsigned char *src, size_t n, size_t off, unsigned seed)
{
    unsigned char *d = buf + off;
    pattern(src, n + 64, seed);
    if (memcpy(d, src, n) != d)
        fail("memcpy return value", n);
    for (size_t i = 0; i < n; i++)
        if (d[i] != src[i]) {
            fail("memcpy", n);
            break;
        }
    size_t shift = n / 3 + 1;
    pattern(d, n + shift, seed);
    if (memmove(d + shift, d, n) != d + shift)
        fail("memmove return value", n);
    for (size_t i = 0; i < n; i++)
        if (d[shift + i] != (unsigned char)(seed + i * 29 + (i >> 9))) {
            fail("memmove to a higher address", n);
            break;
        }
    pattern(d, n + shift, seed);
    memmove(d, d + shift, n);
    for (size_t i = 0; i < n; i++)
        if (d[i] != (unsigned char)(seed + (i + shift) * 29 + ((i + shift) >> 9))) {
            fail("memmove to a lower address", n);
            break;
        }
    d[n] = 0x5a;
    if (memset(d, (int)seed, n) != d)
        fail("memset return value", n);
    for (size_t i = 0; i < n; i++)
        if (d[i] != (unsigned char)seed) {
            fail("memset", n);
            break;
        }
    if (d[n] != 0x5a)
        fail("memset past the end", n);
}

static void *map(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* ---- start-up threads ----------------------------------------------------- */

#define THREADS 8
static pthread_t threads[THREADS];
static long iterations[THREADS];
static atomic_int stop;
static int started;

static void *copier(void *arg)
{
    long id = (long)(intptr_t)arg;
    size_t cap = 300000;
    unsigned char *buf = map(2 * cap + 256), *src = map(cap + 64);
    if (!buf || !src) {
        fail("mmap in a start-up thread", cap);
        return NULL;
    }
    uint64_t x = 0x9e3779b97f4a7c15u * (uint64_t)(id + 1);
    do {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        size_t n = x % 64 == 0 ? cap - (x >> 32) % 1000 : (x >> 20) % 8192;
        check_copies(buf, src, n, (x >> 8) % 64, (unsigned)x);
        iterations[id]++;
    } while (!atomic_load_explicit(&stop, memory_order_relaxed));
    return NULL;
}

static int served_by_preload(void)
{
    Dl_info info;
    void *p = dlsym(RTLD_DEFAULT, "memcpy");
    return p && dladdr(p, &info) && info.dli_fname && strstr(info.dli_fname, "libmemasm-preload");
}

static int ctor_preload;

__attribute__((constructor)) static void early_start(void)
{
    ctor_preload = served_by_preload();
    unsigned char *buf = map(2 * (1u << 20) + 256), *src = map((1u << 20) + 64);
    if (buf && src) {
        for (size_t n = 0; n <= 600; n++)
            check_copies(buf, src, n, n % 64, (unsigned)n);
        check_copies(buf, src, 1u << 20, 7, 3);
    } else {
        fail("mmap in the constructor", 1u << 20);
    }
    atomic_store(&ctor_ran, 1);
    for (long i = 0; i < THREADS; i++)
        if (pthread_create(&threads[i], NULL, copier, (void *)(intptr_t)i) == 0)
            started++;
}

int test_early_report(void)
{
    atomic_store(&stop, 1);
    long total = 0;
    int bad = 0;
    for (int i = 0; i < started; i++) {
        pthread_join(threads[i], NULL);
        total += iterations[i];
        if (iterations[i] == 0) {
            printf("FAIL: start-up thread %d never copied\n", i);
            bad++;
        }
    }
    if (started != THREADS) {
        printf("FAIL: %d of %d start-up threads started\n", started, THREADS);
        bad++;
    }
    if (!ctor_preload) {
        printf("FAIL: in the early constructor memcpy did not resolve to libmemasm-preload.so\n");
        bad++;
    }
    printf("early constructor: memcpy/memmove/memset 0..600 and 1 MiB checked%s\n",
           ctor_preload ? " (served by libmemasm-preload.so)" : "");
    printf("allocator: %ld calls, %ld before the early constructor (the first one initialised "
           "it with memset/memcpy)\n",
           atomic_load(&malloc_calls), atomic_load(&malloc_calls_before_ctor));
    printf("start-up threads: %d, %ld checked copy rounds in all\n", started, total);
    return bad + atomic_load(&failures);
}
