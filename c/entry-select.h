/*
 * entry-select.h -- x86_64: the rule by which libmemasm.so binds its public
 * names (c/entry-select.c's resolvers), shared with memasm_entries_bound
 * (c/kernels-x86_64.c), through which the programs linked with the archive
 * (memasm-bench, memasm-tune) call the same entries as the shared library's
 * callers.
 *
 * It runs inside the resolvers, while the dynamic linker relocates the
 * library (perhaps before the library's own relocations are done) and before
 * any constructor: CPUID and XGETBV only, no call, no data reached through
 * the GOT (the resolvers return hidden functions' addresses, PC-relative),
 * no sanitizer instrumentation, no stack protector.
 */
#ifndef MEMASM_ENTRY_SELECT_H
#define MEMASM_ENTRY_SELECT_H

#include <cpuid.h>

#include "memasm-internal.h"

#if defined(__has_attribute)
#if __has_attribute(no_sanitize)
#define MEMASM_EARLY_NO_SANITIZE __attribute__((no_sanitize("address", "thread", "undefined")))
#endif
#if __has_attribute(no_stack_protector)
#define MEMASM_EARLY_NO_SSP __attribute__((no_stack_protector))
#endif
#endif
#ifndef MEMASM_EARLY_NO_SANITIZE
#define MEMASM_EARLY_NO_SANITIZE
#endif
#ifndef MEMASM_EARLY_NO_SSP
#define MEMASM_EARLY_NO_SSP
#endif
/* A function that may run before the process is set up. */
#define MEMASM_EARLY MEMASM_EARLY_NO_SANITIZE MEMASM_EARLY_NO_SSP

/* Which set of entry points serves this CPU: 0 the base entries, for a
 * CPU that cannot run AVX2 and so only ever installs SSE2 kernels; 1 the
 * AVX2 entries, for one that can run AVX2 and not AVX-512 (bytes 0 and 1
 * only); 2 the shared entries.  The tests are cpu_features' for the
 * dispatcher: CPUID 7.0 EBX's AVX2 bit with OSXSAVE and XCR0's SSE and AVX
 * state; AVX-512 F, BW and VL with XCR0's opmask and zmm state too. */
static inline MEMASM_EARLY int memasm_entry_set_wanted(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX))
        return 0;
    unsigned lo, hi;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    if ((lo & 6) != 6 || !__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & bit_AVX2))
        return 0;
    const unsigned avx512 = bit_AVX512F | bit_AVX512BW | bit_AVX512VL;
    return (b & avx512) == avx512 && (lo & 0xe6) == 0xe6 ? 2 : 1;
}

/* The set of entry points that rule picks.  Field by field: a constant
 * struct of their addresses would be data the library's own relocations
 * fill in, which may not have happened yet. */
static inline MEMASM_EARLY void memasm_entries_pick(struct memasm_entries *out)
{
    int set = memasm_entry_set_wanted();
    out->name = set == 0 ? "base" : set == 1 ? "avx2" : "shared";
    out->cpy = set == 0 ? memasm_memcpy_base : set == 1 ? memasm_memcpy_avx2 : memasm_memcpy_shared;
    out->mov = set == 0   ? memasm_memmove_base
               : set == 1 ? memasm_memmove_avx2
                          : memasm_memmove_shared;
    out->set = set == 0 ? memasm_memset_base : set == 1 ? memasm_memset_avx2 : memasm_memset_shared;
}

#endif
