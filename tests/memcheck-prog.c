/*
 * memcheck-prog.c -- a program linked with libmemasm.so the way a user's
 * program is (public header, -lmemasm, malloc'd buffers), for
 * make check-valgrind (tests/valgrind.sh), which runs it under memcheck.
 *
 *   memcheck-prog            memasm_memcpy, memasm_memmove (disjoint and
 *                            overlapping both ways) and memasm_memset on
 *                            blocks malloc'd at exactly the call's size,
 *                            every size 0..1100 and 2^k-1, 2^k, 2^k+1 up to
 *                            4 MiB, under every ISA cap the CPU allows;
 *                            every result byte checked.  Exit 0 when all
 *                            are right, 1 otherwise.
 *   memcheck-prog --overread copies one byte more than the malloc'd source
 *                            holds (n = 101 through the entry's own path,
 *                            n = 5000 through a kernel): memcheck must
 *                            report invalid reads (the negative control
 *                            that shows an overread inside a page is seen).
 *   memcheck-prog --uninit   copies never-written bytes and branches on the
 *                            copy: memcheck must report the use of
 *                            uninitialised values (definedness goes through
 *                            the kernels' vector registers).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memasm.h>

static unsigned long calls;
static int bad;

static void fail(const char *what, size_t n, size_t at)
{
    if (!bad)
        printf("FAIL: %s, n=%zu: byte %zu wrong (ISA cap %s)\n", what, n, at,
               memasm_isa_name(memasm_isa_cap()));
    bad = 1;
}

/* Byte-by-byte comparison, written out so that it cannot become a call
 * into the C library's memcmp. */
static size_t first_diff(const unsigned char *a, const unsigned char *b, size_t n)
{
    size_t i = 0;
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

static void one_size(size_t n, unsigned seed)
{
    size_t dist = n / 3 + 1;
    unsigned char *src = malloc(n), *dst = malloc(n), *mv = malloc(n + dist);
    if ((n && (!src || !dst)) || !mv) {
        printf("FAIL: malloc of %zu bytes\n", n);
        exit(1);
    }
    memset(src, 0, n); /* (GCC cannot see that the loop writes every byte) */
    for (size_t i = 0; i < n; i++)
        src[i] = (unsigned char)(i * 167 + seed);
    /* dst is left as malloc returned it: memcheck sees every byte the call
     * does not write as undefined when it is compared below. */
    size_t i = 0;
    if (memasm_memcpy(dst, src, n) != dst || (i = first_diff(dst, src, n)) != n)
        fail("memcpy", n, i);
    if (memasm_memset(dst, 0x100 | (int)(seed & 0xff), n) != dst)
        fail("memset return value", n, 0);
    for (i = 0; i < n && dst[i] == (unsigned char)seed; i++)
        ;
    if (i != n)
        fail("memset", n, i);
    if (memasm_memmove(dst, src, n) != dst || (i = first_diff(dst, src, n)) != n)
        fail("memmove (disjoint)", n, i);
    /* Overlapping, inside one block of exactly n + dist bytes: up by dist,
     * then back down. */
    memcpy(mv, src, n);
    memset(mv + n, 0xee, dist);
    if (memasm_memmove(mv + dist, mv, n) != mv + dist || (i = first_diff(mv + dist, src, n)) != n)
        fail("memmove up (overlapping)", n, i);
    if (memasm_memmove(mv, mv + dist, n) != mv || (i = first_diff(mv, src, n)) != n)
        fail("memmove down (overlapping)", n, i);
    calls += 5;
    free(src);
    free(dst);
    free(mv);
}

static int overread(void)
{
    static const size_t sizes[] = {101, 5000};
    for (size_t k = 0; k < 2; k++) {
        size_t n = sizes[k];
        unsigned char *src = malloc(n), *dst = malloc(n + 1);
        if (!src || !dst)
            return 1;
        memset(src, 0x5a, n);
        memasm_memcpy(dst, src, n + 1); /* deliberately one byte too many */
        printf("overread: copied %zu bytes from a %zu-byte block\n", n + 1, n);
        free(src);
        free(dst);
    }
    return 0;
}

static int uninit(void)
{
    unsigned char *src = malloc(300), *dst = malloc(300);
    if (!src || !dst)
        return 1;
    src[0] = 1; /* the rest never written */
    memasm_memcpy(dst, src, 300);
    int odd = 0;
    for (size_t i = 1; i < 300; i++)
        if (dst[i] & 1) /* a branch on copied, undefined bytes */
            odd++;
    printf("uninit: %d odd bytes in never-written memory\n", odd);
    free(src);
    free(dst);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--overread") == 0)
        return overread();
    if (argc > 1 && strcmp(argv[1], "--uninit") == 0)
        return uninit();
    if (argc > 1) {
        fprintf(stderr, "usage: memcheck-prog [--overread | --uninit]\n");
        return 2;
    }
    int cpu = memasm_isa_cpu();
    printf("CPU ISA level %s\n", memasm_isa_name(cpu));
    for (int level = 0; level <= cpu && !bad; level++) {
        memasm_isa_set_cap(memasm_isa_name(level));
        printf("cap %s: memcpy %s, memmove %s, memset %s\n", memasm_isa_name(level),
               memasm_kernel_current(MEMASM_OP_MEMCPY), memasm_kernel_current(MEMASM_OP_MEMMOVE),
               memasm_kernel_current(MEMASM_OP_MEMSET));
        for (size_t n = 0; n <= 1100 && !bad; n++)
            one_size(n, (unsigned)(n + (size_t)level));
        for (size_t p = 2048; p <= ((size_t)4 << 20) && !bad; p *= 2)
            for (size_t n = p - 1; n <= p + 1; n++)
                one_size(n, (unsigned)p);
    }
    printf("%lu calls on exact-size malloc'd blocks: %s\n", calls, bad ? "FAILED" : "all right");
    return bad;
}
