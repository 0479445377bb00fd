/*
 * test_inline_small.c -- memasm.h with MEMASM_INLINE_SMALL gives the same
 * bytes and return values as a byte loop for every constant size from 0 to
 * MEMASM_INLINE_SMALL_MAX + 1 (the last one goes to the library): memcpy
 * between disjoint buffers and onto itself, memmove overlapping by 1 and 3
 * bytes both ways, memset with a value above 255.  Also the same calls with
 * a size the compiler cannot see.  Built at -O2, linked with libmemasm;
 * exit status 0 pass, 1 fail.
 */
#define MEMASM_INLINE_SMALL
#include <memasm.h>

#include <stdio.h>
#include <string.h>

#ifdef MEMASM_INLINE_SMALL_MAX
#define LIMIT MEMASM_INLINE_SMALL_MAX
#else
#define LIMIT 16 /* no expansion here: the header did not define it */
#endif

#define BUF 96
#define AT 32 /* offset of the region in each buffer: room for the shifts */

static unsigned char got[BUF], want[BUF], src[BUF];
static int failures;

static void fill(void)
{
    for (int i = 0; i < BUF; i++) {
        got[i] = want[i] = (unsigned char)(i * 7 + 1);
        src[i] = (unsigned char)(200 - i);
    }
}

/* What the call must have done, by bytes: copy n bytes from s to d through
 * a temporary (memmove semantics, which are memcpy's where memcpy is
 * allowed), or fill. */
static void ref_move(unsigned char *d, const unsigned char *s, size_t n)
{
    unsigned char t[BUF];
    for (size_t i = 0; i < n; i++)
        t[i] = s[i];
    for (size_t i = 0; i < n; i++)
        d[i] = t[i];
}

static void ref_fill(unsigned char *d, int c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        d[i] = (unsigned char)c;
}

static void verdict(const char *what, size_t n, int ret_ok)
{
    if (!ret_ok || memcmp(got, want, BUF) != 0) {
        printf("FAIL: %s, n = %zu: %s\n", what, n, ret_ok ? "bytes differ" : "wrong return value");
        failures++;
    }
}

/* The checks for one size; N is a constant where the macro is expanded. */
#define CHECK_SIZE(N)                                                          \
    do {                                                                       \
        fill();                                                                \
        ref_move(want + AT, src + AT, N);                                      \
        verdict("memcpy", N, memasm_memcpy(got + AT, src + AT, N) == got + AT); \
        fill();                                                                \
        verdict("memcpy self", N, memasm_memcpy(got + AT, got + AT, N) == got + AT); \
        fill();                                                                \
        ref_move(want + AT + 1, want + AT, N);                                 \
        verdict("memmove +1", N, memasm_memmove(got + AT + 1, got + AT, N) == got + AT + 1); \
        fill();                                                                \
        ref_move(want + AT - 3, want + AT, N);                                 \
        verdict("memmove -3", N, memasm_memmove(got + AT - 3, got + AT, N) == got + AT - 3); \
        fill();                                                                \
        ref_fill(want + AT, 0x1ab, N);                                         \
        verdict("memset", N, memasm_memset(got + AT, 0x1ab, N) == got + AT);   \
        checked++;                                                             \
    } while (0)

/* A size the compiler cannot fold: the library's path, same semantics. */
static size_t opaque(size_t n)
{
    volatile size_t v = n;
    return v;
}

int main(void)
{
    int checked = 0;
    CHECK_SIZE(0);
    CHECK_SIZE(1);
    CHECK_SIZE(2);
    CHECK_SIZE(3);
    CHECK_SIZE(4);
    CHECK_SIZE(5);
    CHECK_SIZE(6);
    CHECK_SIZE(7);
    CHECK_SIZE(8);
    CHECK_SIZE(9);
    CHECK_SIZE(12);
    CHECK_SIZE(15);
    CHECK_SIZE(16);
    CHECK_SIZE(LIMIT);
    CHECK_SIZE(LIMIT + 1);
    CHECK_SIZE(40);
    for (size_t n = 0; n <= 40; n++)
        CHECK_SIZE(opaque(n));
#ifdef MEMASM_INLINE_SMALL_MAX
    printf("MEMASM_INLINE_SMALL_MAX %d\n", MEMASM_INLINE_SMALL_MAX);
#else
    printf("no expansion on this compiler or architecture: every call is the library's\n");
#endif
    if (failures) {
        printf("FAIL: %d checks failed (over %d sizes)\n", failures, checked);
        return 1;
    }
    printf("PASS: %d sizes, memcpy, self-copy, memmove both ways, memset\n", checked);
    return 0;
}
