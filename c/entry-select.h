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

/* 1 when the base entries serve this CPU: it cannot run AVX2 (CPUID 7.0
 * EBX bit 5 with OSXSAVE and XCR0's SSE and AVX state, as cpu_features
 * tests it for the dispatcher), so it only ever installs SSE2 kernels. */
static inline MEMASM_EARLY int memasm_entry_base_wanted(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX))
        return 1;
    unsigned lo, hi;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    if ((lo & 6) != 6 || !__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return 1;
    return !(b & bit_AVX2);
}

/* The set of entry points that rule picks. */
static inline MEMASM_EARLY void memasm_entries_pick(struct memasm_entries *out)
{
    int base = memasm_entry_base_wanted();
    out->name = base ? "base" : "shared";
    out->cpy = base ? memasm_memcpy_base : memasm_memcpy_shared;
    out->mov = base ? memasm_memmove_base : memasm_memmove_shared;
    out->set = base ? memasm_memset_base : memasm_memset_shared;
}

#endif
