/*
 * entry-select.c -- x86_64, libmemasm.so only (asm/x86_64/local.mk links
 * this object into the shared library and not into the archive).
 *
 * Layer 2 (kernels, with c/kernels-x86_64.c and asm/x86_64/): uses nothing
 * but entry.asm's entries.  See c/README.md.
 *
 * The exported memasm_memcpy, memasm_memmove and memasm_memset as GNU
 * indirect functions, each bound once, by the dynamic linker, to one of
 * entry.asm's three sets:
 *   <op>_shared  reads the installed kernel's words on every call, so one
 *                entry serves every ISA level and every cap;
 *   <op>_base    byte 0's paths only, with its commonest classes falling
 *                through (asm/x86_64/entry.asm, the base entries);
 *   <op>_avx2    bytes 0 and 1 only: the shared entry's paths to 512
 *                bytes, and above them the big word with no zmm class and
 *                no test of the byte on the way.
 * A CPU that cannot run AVX2 only ever installs SSE2 kernels, so it takes
 * the base entry; one with AVX2 and without AVX-512 installs SSE2 or AVX2
 * kernels (a cap or a forced kernel may switch between them at any time),
 * so it takes the AVX2 entry; every other CPU the shared one.  Every entry
 * is correct behind every kernel (the base and AVX2 ones hand what they do
 * not do themselves to the big word), so a disagreement between this test
 * and the dispatcher's costs speed, never correctness.
 *
 * Not in the static archive: a statically linked call to an indirect
 * function goes through an IPLT jump every time, where a call into the
 * shared library pays its PLT jump with or without it.  entry.asm defines
 * the public names weak, and this object's definitions replace them in the
 * shared library's link.
 */
#include "config.h"

#include <stddef.h>

#include "entry-select.h"
#include "memasm-internal.h"

/* The resolvers run before anything is set up (c/entry-select.h). */
#define RESOLVER static MEMASM_EARLY

RESOLVER memasm_copy_fn resolve_memcpy(void)
{
    struct memasm_entries e;
    memasm_entries_pick(&e);
    return e.cpy;
}

RESOLVER memasm_copy_fn resolve_memmove(void)
{
    struct memasm_entries e;
    memasm_entries_pick(&e);
    return e.mov;
}

RESOLVER memasm_set_fn resolve_memset(void)
{
    struct memasm_entries e;
    memasm_entries_pick(&e);
    return e.set;
}

void *memasm_memcpy(void *dst, const void *src, size_t n) __attribute__((ifunc("resolve_memcpy")));
void *memasm_memmove(void *dst, const void *src, size_t n)
    __attribute__((ifunc("resolve_memmove")));
void *memasm_memset(void *dst, int c, size_t n) __attribute__((ifunc("resolve_memset")));
