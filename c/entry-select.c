/*
 * entry-select.c -- x86_64, libmemasm.so only (asm/x86_64/local.mk links
 * this object into the shared library and not into the archive).
 *
 * Layer 2 (kernels, with c/kernels-x86_64.c and asm/x86_64/): uses nothing
 * but entry.asm's entries.  See c/README.md.
 *
 * The exported memasm_memcpy, memasm_memmove and memasm_memset as GNU
 * indirect functions, each bound once, by the dynamic linker, to one of
 * entry.asm's two entries:
 *   <op>_shared  reads the installed kernel's words on every call, so one
 *                entry serves every ISA level and every cap;
 *   <op>_base    byte 0's paths only, with its commonest classes falling
 *                through (asm/x86_64/entry.asm, the base entries).
 * A CPU that cannot run AVX2 only ever installs SSE2 kernels, so it takes
 * the base entry; every other CPU the shared one, since a cap or a forced
 * kernel may change its level at any time.  Both entries are correct behind
 * every kernel (the base one hands all sizes above 256 bytes to the big
 * word), so a disagreement between this test and the dispatcher's costs
 * speed, never correctness.
 *
 * Not in the static archive: a statically linked call to an indirect
 * function goes through an IPLT jump every time, where a call into the
 * shared library pays its PLT jump with or without it.  entry.asm defines
 * the public names weak, and this object's definitions replace them in the
 * shared library's link.
 *
 * The resolvers run while the dynamic linker relocates the library, before
 * any constructor and possibly before the C library is ready: CPUID and
 * XGETBV only, no call, no sanitizer instrumentation.
 */
#include "config.h"

#include <cpuid.h>
#include <stddef.h>

#include "memasm-internal.h"

void *memasm_memcpy_shared(void *, const void *, size_t) MEMASM_HIDDEN;
void *memasm_memmove_shared(void *, const void *, size_t) MEMASM_HIDDEN;
void *memasm_memset_shared(void *, int, size_t) MEMASM_HIDDEN;
void *memasm_memcpy_base(void *, const void *, size_t) MEMASM_HIDDEN;
void *memasm_memmove_base(void *, const void *, size_t) MEMASM_HIDDEN;
void *memasm_memset_base(void *, int, size_t) MEMASM_HIDDEN;

#if defined(__has_attribute)
#if __has_attribute(no_sanitize)
#define RESOLVER_NO_SANITIZE __attribute__((no_sanitize("address", "thread", "undefined")))
#endif
#if __has_attribute(no_stack_protector)
#define RESOLVER_NO_SSP __attribute__((no_stack_protector))
#endif
#endif
#ifndef RESOLVER_NO_SANITIZE
#define RESOLVER_NO_SANITIZE
#endif
#ifndef RESOLVER_NO_SSP
#define RESOLVER_NO_SSP
#endif
#define RESOLVER static RESOLVER_NO_SANITIZE RESOLVER_NO_SSP

/* AVX2 usable: the CPU has it (CPUID 7.0 EBX bit 5) and the OS saves the
 * ymm state (OSXSAVE, and XCR0's SSE and AVX bits), as cpu_features tests
 * it for the dispatcher. */
RESOLVER int avx2_usable(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    if (!(c & bit_OSXSAVE) || !(c & bit_AVX))
        return 0;
    unsigned lo, hi;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    if ((lo & 6) != 6)
        return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return 0;
    return (b & bit_AVX2) != 0;
}

typedef void *(*copy_fn)(void *, const void *, size_t);
typedef void *(*set_fn)(void *, int, size_t);

RESOLVER copy_fn resolve_memcpy(void)
{
    return avx2_usable() ? memasm_memcpy_shared : memasm_memcpy_base;
}

RESOLVER copy_fn resolve_memmove(void)
{
    return avx2_usable() ? memasm_memmove_shared : memasm_memmove_base;
}

RESOLVER set_fn resolve_memset(void)
{
    return avx2_usable() ? memasm_memset_shared : memasm_memset_base;
}

void *memasm_memcpy(void *dst, const void *src, size_t n) __attribute__((ifunc("resolve_memcpy")));
void *memasm_memmove(void *dst, const void *src, size_t n)
    __attribute__((ifunc("resolve_memmove")));
void *memasm_memset(void *dst, int c, size_t n) __attribute__((ifunc("resolve_memset")));
