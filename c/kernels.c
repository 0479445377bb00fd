/*
 * kernels.c -- the copy path and the master kernel list's lookups, the same
 * on every architecture.
 *
 * Layer 2 (kernels, with c/kernels-<arch>.c and asm/<arch>/): uses layers 0
 * and 1 only.  See c/README.md for the layers.
 *
 * The public entry points are here (on x86_64 they are asm/x86_64/entry.asm,
 * which also copies and fills up to 512 bytes itself and jumps
 * straight to the AVX-512 kernel when that is installed: an indirect jump
 * cost 10-20% at 1-256 bytes there).  Each is one relaxed load of the
 * operation's pointer (statically initialised to the baseline kernel in
 * c/kernels-<arch>.c) and an indirect tail call: no lock, no allocation,
 * and, being in this layer, no call into initialisation, so a copy made
 * while the library initialises (or before it does) cannot recurse.
 */
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "memasm-internal.h"

#if !defined(__x86_64__)
void *memasm_memcpy(void *dst, const void *src, size_t n)
{
    return atomic_load_explicit(&memasm_cur_memcpy, memory_order_relaxed)(dst, src, n);
}

void *memasm_memmove(void *dst, const void *src, size_t n)
{
    return atomic_load_explicit(&memasm_cur_memmove, memory_order_relaxed)(dst, src, n);
}

void *memasm_memset(void *dst, int c, size_t n)
{
    return atomic_load_explicit(&memasm_cur_memset, memory_order_relaxed)(dst, c, n);
}

void memasm_entries_bound(struct memasm_entries *out)
{
    out->name = "public";
    out->cpy = memasm_memcpy;
    out->mov = memasm_memmove;
    out->set = memasm_memset;
}
#endif

const char *memasm_op_name(memasm_op op)
{
    static const char *const names[] = {"memcpy", "memmove", "memset"};
    return (unsigned)op < MEMASM_OP_COUNT ? names[op] : NULL;
}

size_t memasm_kernel_count(void)
{
    return memasm_kernels_count;
}

long memasm_kernel_find(const char *name)
{
    for (size_t i = 0; name && i < memasm_kernels_count; i++)
        if (strcmp(memasm_kernels[i].name, name) == 0)
            return (long)i;
    errno = ENOENT;
    return -1;
}

int memasm_isa_count(void)
{
    return memasm_isa_names_count;
}

const char *memasm_isa_name(int level)
{
    return level >= 0 && level < memasm_isa_names_count ? memasm_isa_names[level] : NULL;
}

int memasm_isa_level_n(const char *name, size_t len)
{
    for (int i = 0; name && i < memasm_isa_names_count; i++)
        if (strlen(memasm_isa_names[i]) == len && memcmp(memasm_isa_names[i], name, len) == 0)
            return i;
    return -1;
}

int memasm_isa_level(const char *name)
{
    return name ? memasm_isa_level_n(name, strlen(name)) : -1;
}
