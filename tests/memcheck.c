/*
 * memcheck.c -- reduced mode and the exact-size heap calls made under
 * valgrind (memcheck); see memcheck.h.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memcheck.h"

#ifdef HAVE_VALGRIND_MEMCHECK_H
#include <valgrind/memcheck.h>
#endif

/* No-access bytes on each side of an exact block: more than any kernel's
 * widest access (4 x 64 bytes), so an overread cannot reach other
 * addressable memory without an error. */
#define PAD 256

int t_reduced(void)
{
    static int v = -1;
    if (v < 0) {
        const char *e = getenv("MEMASM_TEST_REDUCED");
        v = e && *e && strcmp(e, "0") != 0;
    }
    return v;
}

int t_memcheck(void)
{
#ifdef HAVE_VALGRIND_MEMCHECK_H
    return RUNNING_ON_VALGRIND != 0;
#else
    return 0;
#endif
}

static int pow2(size_t x)
{
    return x && !(x & (x - 1));
}

int t_keep_len(size_t n)
{
    if (n <= 72)
        return 1;
    for (size_t m = n - 1; m <= n + 1; m++)
        if (pow2(m) || (m % 3 == 0 && pow2(m / 3)))
            return 1;
    return 0;
}

const unsigned t_align_class[T_NALIGN_CLASSES] = {0, 1, 3, 7, 8, 15, 16, 17, 31, 32, 33, 48, 63};

int t_keep_dist(size_t n, size_t dist)
{
    static const size_t d[] = {1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65};
    if (dist + 1 >= n)
        return 1;
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        if (d[i] == dist)
            return 1;
    return 0;
}

unsigned long t_mc_errors(void)
{
#ifdef HAVE_VALGRIND_MEMCHECK_H
    return (unsigned long)VALGRIND_COUNT_ERRORS;
#else
    return 0;
#endif
}

void t_mc_banner(const char *suite)
{
    if (t_reduced())
        printf("%s: reduced mode (MEMASM_TEST_REDUCED): every length 0..72, then 2^k and "
               "3*2^(k-1), each +-1; alignment classes 0 1 3 7 8 15 16 17 31 32 33 48 63; "
               "every kernel\n", suite);
    if (t_memcheck())
        printf("%s: under memcheck: every call is made once more on exact-size heap blocks "
               "(no-access bytes on both sides, destination undefined before the call)\n", suite);
#ifndef HAVE_VALGRIND_MEMCHECK_H
    printf("%s: built without valgrind/memcheck.h: a run under valgrind cannot be recognised, "
           "the exact-size heap calls are NOT made\n", suite);
#endif
    fflush(stdout);
}

#ifdef HAVE_VALGRIND_MEMCHECK_H

/* A heap block whose only addressable bytes are [p, p + n), p = 64-byte
 * aligned + a; the rest of the allocation is marked no-access.  Returns p,
 * the allocation in *base. */
static unsigned char *exact_new(size_t n, unsigned a, void **base)
{
    size_t total = PAD + 64 + n + PAD;
    ck_assert_msg(posix_memalign(base, 64, total) == 0, "posix_memalign(%zu) failed", total);
    unsigned char *p = (unsigned char *)*base + PAD + (a & 63);
    VALGRIND_MAKE_MEM_NOACCESS(*base, (size_t)(p - (unsigned char *)*base));
    VALGRIND_MAKE_MEM_NOACCESS(p + n, total - (size_t)(p - (unsigned char *)*base) - n);
    VALGRIND_MAKE_MEM_UNDEFINED(p, n);
    return p;
}

/* Fail unless [p, p + n) is defined and equals exp. */
static void expect_defined(const t_call *c, const unsigned char *p, const unsigned char *exp,
                           size_t n, const char *what)
{
    size_t bad = (size_t)VALGRIND_CHECK_MEM_IS_DEFINED(p, n);
    if (bad)
        ck_abort_msg("%s (exact heap block): %s byte +%zu left undefined", t_call_str(c), what,
                     (size_t)((const unsigned char *)bad - p));
    size_t i = t_diff(p, exp, n);
    if (i != n)
        ck_abort_msg("%s (exact heap block): %s byte +%zu is 0x%02x, expected 0x%02x",
                     t_call_str(c), what, i, p[i], exp[i]);
}

void t_mc_copy(const t_call *c, t_copy_fn fn, const unsigned char *image, size_t n, unsigned da,
               unsigned sa)
{
    if (!t_memcheck())
        return;
    void *sb, *db;
    unsigned char *s = exact_new(n, sa, &sb), *d = exact_new(n, da, &db);
    memcpy(s, image, n);
    void *ret = t_copy(c, fn, d, s, n);
    if (ret != d)
        ck_abort_msg("%s (exact heap block): returned %p, not dst %p", t_call_str(c), ret, (void *)d);
    expect_defined(c, d, image, n, "destination");
    expect_defined(c, s, image, n, "source (written to?)");
    free(sb);
    free(db);
}

void t_mc_set(const t_call *c, t_set_fn fn, int v, size_t n, unsigned da)
{
    if (!t_memcheck())
        return;
    void *db;
    unsigned char *d = exact_new(n, da, &db);
    unsigned char *exp = malloc(n + 1);
    ck_assert(exp != NULL);
    t_ref_set(exp, v, n);
    void *ret = t_set(c, fn, d, v, n);
    if (ret != d)
        ck_abort_msg("%s (exact heap block): returned %p, not dst %p", t_call_str(c), ret, (void *)d);
    expect_defined(c, d, exp, n, "destination");
    free(exp);
    free(db);
}

void t_mc_move(const t_call *c, t_copy_fn fn, const unsigned char *image, size_t n, size_t dist,
               int up, unsigned a)
{
    if (!t_memcheck())
        return;
    void *b;
    size_t span = n + dist;
    unsigned char *p = exact_new(span, a, &b);
    unsigned char *exp = malloc(span + 1);
    ck_assert(exp != NULL);
    memcpy(p, image, span);
    memcpy(exp, image, span);
    unsigned char *d = up ? p + dist : p, *s = up ? p : p + dist;
    t_ref_move(exp + (d - p), exp + (s - p), n);
    void *ret = t_copy(c, fn, d, s, n);
    if (ret != d)
        ck_abort_msg("%s (exact heap block): returned %p, not dst %p", t_call_str(c), ret, (void *)d);
    expect_defined(c, p, exp, span, up ? "memmove up: block" : "memmove down: block");
    free(exp);
    free(b);
}

#else /* !HAVE_VALGRIND_MEMCHECK_H: t_memcheck() is 0, nothing to do */

void t_mc_copy(const t_call *c, t_copy_fn fn, const unsigned char *image, size_t n, unsigned da,
               unsigned sa)
{
    (void)c, (void)fn, (void)image, (void)n, (void)da, (void)sa;
}

void t_mc_set(const t_call *c, t_set_fn fn, int v, size_t n, unsigned da)
{
    (void)c, (void)fn, (void)v, (void)n, (void)da;
}

void t_mc_move(const t_call *c, t_copy_fn fn, const unsigned char *image, size_t n, size_t dist,
               int up, unsigned a)
{
    (void)c, (void)fn, (void)image, (void)n, (void)dist, (void)up, (void)a;
}

#endif
