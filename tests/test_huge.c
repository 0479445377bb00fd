/*
 * test_huge.c -- lengths across the 2 GiB and 4 GiB marks (make check-slow).
 *
 * A length kept in a signed or 32-bit register somewhere in a kernel
 * (CVE-2020-6096: glibc's ARMv7 memcpy with a negative length) shows only
 * at these sizes, so every ISA level the CPU has (memasm_isa_set_cap, the
 * public entry points) runs, for n = 2^31-1, 2^31, 2^31+1, 2^32-1, 2^32,
 * 2^32+1 and 2^32+65:
 *  - memset, then memcpy, then memmove (separate buffers), each checked on
 *    every byte and on 64 guard bytes either side, and the return value;
 *    consecutive calls use destinations one byte apart, so a call that
 *    stops early leaves bytes that fail the check;
 *  - memmove of 2^32+65 bytes shifted by one byte up, then back down, in
 *    place;
 * and, where the architecture has a rep movsb/stosb window (x86_64), memcpy
 * and memset of 2^32+65 bytes inside the window.
 *
 * The source holds a hash of each 8-byte word's offset, so a shifted,
 * wrapped (offset mod 2^32) or truncated copy mismatches; checking reads
 * whole words.  Needs about 8.6 GiB of memory: skipped (exit 77) when
 * MemAvailable in /proc/meminfo is short, when the mapping fails, or under
 * qemu-user (TEST_EMULATOR set).
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "harness.h"

#define GUARD 64
#define MAXN (((size_t)1 << 32) + 65)
#define ROOM 4096 /* alignment offsets, guards, the one-byte shift */
#define REGION (MAXN + ROOM)

static const size_t sizes[] = {
    ((size_t)1 << 31) - 1, (size_t)1 << 31, ((size_t)1 << 31) + 1, ((size_t)1 << 32) - 1,
    (size_t)1 << 32,       ((size_t)1 << 32) + 1, ((size_t)1 << 32) + 65,
};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static unsigned char *src, *dst;
static t_rng rng;

/* The pattern: word i (offset 8i) of a buffer filled with salt s. */
static inline uint64_t pat(uint64_t s, uint64_t i)
{
    uint64_t x = (i + s) * 0x9e3779b97f4a7c15ull;
    x ^= x >> 31;
    x *= 0xd6e8feb86659fd93ull;
    return x ^ (x >> 32);
}

static unsigned char pat_byte(uint64_t s, uint64_t off)
{
    uint64_t w = pat(s, off >> 3);
    unsigned char b[8];
    memcpy(b, &w, 8);
    return b[off & 7];
}

/* p (8-aligned) gets words 0..n/8 (and the partial last one) of salt s. */
static void fill(unsigned char *p, size_t n, uint64_t s)
{
    size_t i = 0;
    for (; (i + 1) * 8 <= n; i++) {
        uint64_t w = pat(s, i);
        memcpy(p + 8 * i, &w, 8);
    }
    for (size_t o = 8 * i; o < n; o++)
        p[o] = pat_byte(s, o);
}

/* Offset of the first byte of p[0..n) that is not byte start + j of the
 * pattern of salt s, or n. */
static size_t check_pat(const unsigned char *p, size_t n, uint64_t s, size_t start)
{
    size_t j = 0;
    for (; j < n && ((start + j) & 7); j++)
        if (p[j] != pat_byte(s, start + j))
            return j;
    for (; j + 8 <= n; j += 8) {
        uint64_t w;
        memcpy(&w, p + j, 8);
        if (w != pat(s, (start + j) >> 3))
            break;
    }
    for (; j < n; j++)
        if (p[j] != pat_byte(s, start + j))
            return j;
    return n;
}

static size_t check_value(const unsigned char *p, size_t n, unsigned char v)
{
    uint64_t vw = 0x0101010101010101ull * v;
    size_t j = 0;
    for (; j < n && ((uintptr_t)(p + j) & 7); j++)
        if (p[j] != v)
            return j;
    for (; j + 8 <= n; j += 8) {
        uint64_t w;
        memcpy(&w, p + j, 8);
        if (w != vw)
            break;
    }
    for (; j < n; j++)
        if (p[j] != v)
            return j;
    return n;
}

static void set_guards(unsigned char *p, size_t n, unsigned char g)
{
    t_ref_set(p - GUARD, g, GUARD);
    t_ref_set(p + n, g, GUARD);
}

static void assert_guards(const unsigned char *p, size_t n, unsigned char g, const char *what)
{
    ck_assert_msg(check_value(p - GUARD, GUARD, g) == GUARD && check_value(p + n, GUARD, g) == GUARD,
                  "%s n=%zu: a guard byte next to the destination changed", what, n);
}

/* Where a copy stopped being right, for the message. */
static const char *where(size_t bad, size_t n)
{
    static char buf[96];
    if (bad >= n)
        return "ok";
    snprintf(buf, sizeof buf, "byte %zu wrong (n - %zu)", bad, n - bad);
    return buf;
}

#define SRC_SALT 0x5eed
#define MOVE_SALT 0xface

/* fn (memcpy or memmove) of n bytes from src + sa to d, checked. */
static void copy_checked(const char *label, const char *name, t_copy_fn fn, unsigned char *d,
                         size_t sa, size_t n, unsigned char g)
{
    set_guards(d, n, g);
    void *r = fn(d, src + sa, n);
    ck_assert_msg(r == d, "%s %s n=%zu returned %p, not %p", label, name, n, r, (void *)d);
    size_t bad = check_pat(d, n, SRC_SALT, sa);
    ck_assert_msg(bad == n, "%s %s n=%zu src align %zu: %s", label, name, n, sa, where(bad, n));
    assert_guards(d, n, g, name);
}

/* memset, memcpy and memmove of every size, then the >4 GiB shift. */
static void run_level(const char *label)
{
    for (size_t k = 0; k < NSIZES; k++) {
        size_t n = sizes[k];
        size_t sa = (size_t)t_below(&rng, 64), da = GUARD + (size_t)t_below(&rng, 64);
        unsigned char c = (unsigned char)(0x11 + 2 * k), g = (unsigned char)(0xa0 + k);
        unsigned char *d = dst + da;
        void *r;

        set_guards(d, n, g);
        r = memasm_memset(d, 0x4200 | c, n);
        ck_assert_msg(r == d, "%s memset n=%zu returned %p, not %p", label, n, r, (void *)d);
        size_t bad = check_value(d, n, c);
        ck_assert_msg(bad == n, "%s memset n=%zu: %s", label, n, where(bad, n));
        assert_guards(d, n, g, "memset");

        copy_checked(label, "memcpy", memasm_memcpy, d, sa, n, g);
        /* The memcpy's bytes are all one position off from here. */
        copy_checked(label, "memmove", memasm_memmove, d + 1, sa, n, g);
        printf("  %s n=%zu (dst align %zu, memmove %zu; src align %zu): memset, memcpy, memmove ok\n",
               label, n, da % 64, (da + 1) % 64, sa);
        fflush(stdout);
    }

    /* In place: shift MAXN bytes up by one, then back down. */
    size_t off = GUARD + (size_t)t_below(&rng, 64);
    unsigned char *p = dst + off;
    fill(dst, REGION, MOVE_SALT);
    void *r = memasm_memmove(p + 1, p, MAXN);
    ck_assert_msg(r == p + 1, "%s memmove up returned %p", label, r);
    size_t bad = check_pat(p + 1, MAXN, MOVE_SALT, off);
    ck_assert_msg(bad == MAXN, "%s memmove up by 1, n=%zu: %s", label, MAXN, where(bad, MAXN));
    /* Outside [p + 1, p + 1 + MAXN) nothing moved: 64 bytes each side. */
    ck_assert_msg(check_pat(p - GUARD, GUARD + 1, MOVE_SALT, off - GUARD) == GUARD + 1 &&
                      check_pat(p + MAXN + 1, GUARD, MOVE_SALT, off + MAXN + 1) == GUARD,
                  "%s memmove up changed a byte outside its destination", label);
    r = memasm_memmove(p, p + 1, MAXN);
    ck_assert_msg(r == p, "%s memmove down returned %p", label, r);
    bad = check_pat(p, MAXN, MOVE_SALT, off);
    ck_assert_msg(bad == MAXN, "%s memmove down by 1, n=%zu: %s", label, MAXN, where(bad, MAXN));
    ck_assert_msg(p[MAXN] == pat_byte(MOVE_SALT, off + MAXN - 1) &&
                      check_pat(p - GUARD, GUARD, MOVE_SALT, off - GUARD) == GUARD &&
                      check_pat(p + MAXN + 1, GUARD, MOVE_SALT, off + MAXN + 1) == GUARD,
                  "%s memmove down changed a byte outside its destination", label);
    printf("  %s memmove of %zu bytes by +1 and -1 in place ok\n", label, MAXN);
    fflush(stdout);
}

START_TEST(huge_level)
{
    int level = _i;
    if (level > memasm_isa_cpu()) {
        printf("level %s: SKIPPED, this CPU has only %s\n", memasm_isa_name(level),
               memasm_isa_name(memasm_isa_cpu()));
        return;
    }
    ck_assert(memasm_isa_set_cap(memasm_isa_name(level)) == 0);
    printf("level %s: memcpy=%s memmove=%s memset=%s\n", memasm_isa_name(level),
           memasm_kernel_current(MEMASM_OP_MEMCPY), memasm_kernel_current(MEMASM_OP_MEMMOVE),
           memasm_kernel_current(MEMASM_OP_MEMSET));
    run_level(memasm_isa_name(level));
    memasm_isa_set_cap(NULL);
    t_print_time(memasm_isa_name(level));
}
END_TEST

/* x86_64's rep movsb/stosb with a count above 32 bits: the window opened
 * over every size, non-temporal stores off. */
START_TEST(huge_erms)
{
    static const char *const keys[][2] = {
        {"memcpy.erms_min", "0"}, {"memcpy.erms_max", "max"}, {"memcpy.nt_min", "max"},
        {"memcpy.alias_nt_min", "max"}, {"memset.erms_min", "0"}, {"memset.erms_max", "max"},
        {"memset.nt_min", "max"},
    };
    size_t v;
    if (memasm_threshold_get("memcpy.erms_max", &v) != 0) {
        printf("erms: SKIPPED, this architecture has no rep movsb window\n");
        return;
    }
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        ck_assert(memasm_threshold_set(keys[i][0], keys[i][1][0] == 'm' ? SIZE_MAX : 0, NULL) == 0);
    unsigned char *d = dst + GUARD + 3;
    set_guards(d, MAXN, 0x77);
    memasm_memset(d, 0xc3, MAXN);
    size_t bad = check_value(d, MAXN, 0xc3);
    ck_assert_msg(bad == MAXN, "rep stosb memset n=%zu: %s", MAXN, where(bad, MAXN));
    assert_guards(d, MAXN, 0x77, "rep stosb memset");
    memasm_memcpy(d, src + 5, MAXN);
    bad = check_pat(d, MAXN, SRC_SALT, 5);
    ck_assert_msg(bad == MAXN, "rep movsb memcpy n=%zu: %s", MAXN, where(bad, MAXN));
    assert_guards(d, MAXN, 0x77, "rep movsb memcpy");
    memasm_threshold_reset();
    printf("erms: memset and memcpy of %zu bytes inside the rep window ok\n", MAXN);
    t_print_time("erms");
}
END_TEST

/* MemAvailable in bytes, 0 when unknown. */
static size_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[128];
    size_t kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %zu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb * 1024;
}

int main(void)
{
    const char *e = getenv("TEST_EMULATOR");
    t_seed();
    if (e && *e) {
        printf("test_huge: SKIPPED under emulation (%s): 8.6 GiB of copies would take hours\n", e);
        return 77;
    }
    if (sizeof(size_t) < 8) {
        printf("test_huge: SKIPPED, size_t has %zu bytes\n", sizeof(size_t));
        return 77;
    }
    size_t need = 2 * REGION + ((size_t)1 << 30), avail = mem_available();
    if (avail < need) {
        printf("test_huge: SKIPPED, MemAvailable is %zu MiB, it needs %zu MiB\n", avail >> 20,
               need >> 20);
        return 77;
    }
    void *a = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *b = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (a == MAP_FAILED || b == MAP_FAILED) {
        printf("test_huge: SKIPPED, mapping 2 x %zu bytes failed: %s\n", REGION, strerror(errno));
        return 77;
    }
    /* Fewer page faults where transparent huge pages are on (advice only). */
    madvise(a, REGION, MADV_HUGEPAGE);
    madvise(b, REGION, MADV_HUGEPAGE);
    src = a;
    dst = b;
    t_rng_init(&rng, 0x4916);
    t_print_time("start");
    t_print_kernels();
    fill(src, REGION, SRC_SALT);
    t_print_time("source filled");
    Suite *s = suite_create("huge");
    TCase *tc = tcase_create("huge");
    tcase_set_timeout(tc, 3600);
    tcase_add_loop_test(tc, huge_level, 0, memasm_isa_count());
    tcase_add_test(tc, huge_erms);
    suite_add_tcase(s, tc);
    int status = t_run_suite_nofork(s);
    t_print_time("huge");
    return status;
}
