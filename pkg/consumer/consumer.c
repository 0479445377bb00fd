/*
 * consumer.c -- a program built against an installed libmemasm by
 * pkg/check-install.sh (pkg-config, pkg-config --static, CMake): it copies,
 * moves and fills through the library, checks every byte against a byte
 * loop, and prints the library's version, the header's and the memcpy
 * kernel in use.  Exit status 0 when everything matched and the versions
 * agree, 1 otherwise.
 */
#include <memasm.h>

#include <stdio.h>
#include <string.h>

#define N 100000

static unsigned char a[N], b[N], ref[N];

int main(void)
{
    size_t i;
    int bad = 0;
    unsigned long long word = 0x0123456789abcdefULL, copy = 0;

    for (i = 0; i < N; i++)
        a[i] = (unsigned char)(i * 31 + 7);
    if (memasm_memcpy(b, a, N) != b || memcmp(a, b, N) != 0)
        bad |= 1;
    /* memmove one byte up, overlapping: ref is what it must give */
    for (i = 0; i < N; i++)
        ref[i] = i ? a[i - 1] : a[0];
    if (memasm_memmove(a + 1, a, N - 1) != a + 1 || memcmp(a, ref, N) != 0)
        bad |= 2;
    if (memasm_memset(b + 3, 0x15a, N - 6) != b + 3)
        bad |= 4;
    for (i = 3; i < N - 3; i++)
        if (b[i] != 0x5a)
            bad |= 4;
    /* a constant 8-byte copy, which MEMASM_INLINE_SMALL lets the compiler do */
    memasm_memcpy(&copy, &word, sizeof copy);
    if (copy != word)
        bad |= 8;
    printf("libmemasm %s, header %s, memcpy kernel %s, checks %s\n", memasm_version(),
           MEMASM_VERSION, memasm_kernel_current(MEMASM_OP_MEMCPY), bad ? "FAILED" : "ok");
    if (bad)
        printf("failed checks (bits): %d\n", bad);
    return bad || strcmp(memasm_version(), MEMASM_VERSION) != 0;
}
