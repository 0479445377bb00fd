/*
 * entry-select.c -- tests/entry-select.sh's program, linked with
 * libmemasm.so (not the archive): prints where the dynamic linker bound
 * memasm_memcpy, memasm_memmove and memasm_memset, as offsets into the
 * library (c/entry-select.c picks an entry per CPU), then checks each
 * against a byte loop at every length 0..700 (both sides of every path of
 * the base and shared entries, and the jump above 256 bytes), memmove with
 * overlap in both directions.  Exit status 0 when every call was right.
 */
#define _GNU_SOURCE /* dladdr, RTLD_DEFAULT */
#include "config.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "memasm.h"

#define MAXN 700

static unsigned char src[MAXN + 64], dst[MAXN + 192], want[MAXN + 192];

static int report(const char *name, void *fn)
{
    Dl_info info;
    if (!fn || !dladdr(fn, &info) || !info.dli_fbase) {
        printf("FAIL: %s: not found in a loaded object\n", name);
        return 1;
    }
    printf("%s 0x%lx %s\n", name, (unsigned long)((uintptr_t)fn - (uintptr_t)info.dli_fbase),
           info.dli_fname ? info.dli_fname : "?");
    return 0;
}

static int check(const char *what, size_t n, const void *ret, const void *d)
{
    if (ret != d) {
        printf("FAIL: %s, n = %zu: returned %p, not dst %p\n", what, n, ret, d);
        return 1;
    }
    if (memcmp(dst, want, sizeof dst) != 0) {
        size_t i = 0;
        while (dst[i] == want[i])
            i++;
        printf("FAIL: %s, n = %zu: byte %zu is 0x%02x, expected 0x%02x\n", what, n, i, dst[i],
               want[i]);
        return 1;
    }
    return 0;
}

int main(void)
{
    void *(*cpy)(void *, const void *, size_t) = memasm_memcpy;
    int bad = report("memasm_memcpy", dlsym(RTLD_DEFAULT, "memasm_memcpy")) |
              report("memasm_memmove", dlsym(RTLD_DEFAULT, "memasm_memmove")) |
              report("memasm_memset", dlsym(RTLD_DEFAULT, "memasm_memset"));
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (unsigned char)(i * 131 + 7);
    unsigned long calls = 0;
    for (size_t n = 0; n <= MAXN && !bad; n++) {
        size_t a = 64 + n % 61, s = n % 29;
        for (size_t i = 0; i < sizeof dst; i++)
            dst[i] = want[i] = (unsigned char)(i ^ n);
        for (size_t i = 0; i < n; i++)
            want[a + i] = src[s + i];
        bad |= check("memcpy", n, cpy(dst + a, src + s, n), dst + a);
        for (size_t i = 0; i < n; i++)
            want[a + 1 + i] = src[s + i];
        bad |= check("memmove", n, memasm_memmove(dst + a + 1, src + s, n), dst + a + 1);
        /* overlapping, dst above src by 3, then below it by 5 */
        memmove(want + a + 3, want + a, n);
        bad |= check("memmove up", n, memasm_memmove(dst + a + 3, dst + a, n), dst + a + 3);
        memmove(want + a - 5, want + a, n);
        bad |= check("memmove down", n, memasm_memmove(dst + a - 5, dst + a, n), dst + a - 5);
        memset(want + a, (unsigned char)(n | 1), n);
        bad |= check("memset", n, memasm_memset(dst + a, 0x300 | (int)(n | 1), n), dst + a);
        calls += 5;
    }
    if (!bad)
        printf("ok: %lu calls through libmemasm.so's entry points, every byte right\n", calls);
    return bad;
}
