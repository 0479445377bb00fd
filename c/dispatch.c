/*
 * dispatch.c -- choose a kernel per operation and route the public entry
 * points to it.
 *
 * The master list of kernels lives in c/kernels-<arch>.c; this file only
 * iterates it.  Each operation has one atomic function pointer, statically
 * initialised to the architecture's baseline kernel, so memasm_memcpy() and
 * friends work before any constructor has run, take no locks and never
 * allocate: the call path is one relaxed load and an indirect tail call
 * (on x86_64 after the entry points' own small-size paths, see below).
 *
 * Choice: for each operation, the kernel with the highest ISA level that the
 * CPU can run (and that has the features the kernel "prefers", see
 * memasm-internal.h) and that does not exceed the cap (MEMASM_ISA or
 * memasm_isa_set_cap); among equal levels the first in the list.  A forced
 * kernel (memasm_kernel_force) overrides the choice but must be usable.
 *
 * In a secure-execution process (AT_SECURE: setuid, setgid, capabilities)
 * no MEMASM_* variable is read.
 */
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/auxv.h>

#include "memasm-internal.h"

static int isa_cap = -1;                 /* -1: no cap */
static long forced[MEMASM_OP_COUNT] = {-1, -1, -1};
static atomic_int init_state;            /* 0 none, 1 running, 2 done */
static _Thread_local int init_here;      /* this thread is inside memasm_init */

/* ---- entry points ------------------------------------------------------- */

/* On x86_64 the entry points are in asm/x86_64/entry.asm: they copy or set
 * up to 256 bytes (512 with AVX-512) themselves and jump through the same
 * pointers for the rest, or straight to the AVX-512 kernel when it is the
 * one installed (an indirect jump cost 10-20% at 1-256 bytes there). */
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
#endif

/* ---- selection ---------------------------------------------------------- */

static int usable(const struct memasm_kernel *k)
{
    const struct memasm_cpu *c = memasm_cpu_get();
    return (c->features & k->requires) == k->requires && k->level <= c->isa_max;
}

static int eligible(const struct memasm_kernel *k)
{
    return usable(k) && (memasm_cpu_get()->features & k->prefers) == k->prefers;
}

static void install(memasm_op op, const struct memasm_kernel *k)
{
#if defined(__x86_64__)
    memasm_entry_follow(op, k);
#endif
    switch (op) {
    case MEMASM_OP_MEMCPY:
        atomic_store_explicit(&memasm_cur_memcpy, (memasm_copy_fn)k->fn, memory_order_release);
        break;
    case MEMASM_OP_MEMMOVE:
        atomic_store_explicit(&memasm_cur_memmove, (memasm_copy_fn)k->fn, memory_order_release);
        break;
    case MEMASM_OP_MEMSET:
        atomic_store_explicit(&memasm_cur_memset, (memasm_set_fn)k->fn, memory_order_release);
        break;
    default:
        break;
    }
}

static const struct memasm_kernel *choose(memasm_op op)
{
    if (forced[op] >= 0)
        return &memasm_kernels[forced[op]];
    int cap = memasm_cpu_get()->isa_max;
    if (isa_cap >= 0 && isa_cap < cap)
        cap = isa_cap;
    const struct memasm_kernel *best = NULL;
    for (size_t i = 0; i < memasm_kernels_count; i++) {
        const struct memasm_kernel *k = &memasm_kernels[i];
        if (k->op != op || !eligible(k) || k->level > cap)
            continue;
        if (!best || k->level > best->level)
            best = k;
    }
    return best;
}

static void reselect(void)
{
    for (int op = 0; op < MEMASM_OP_COUNT; op++) {
        const struct memasm_kernel *k = choose((memasm_op)op);
        if (k)
            install((memasm_op)op, k);
    }
}

int memasm_secure_mode(void)
{
    return getauxval(AT_SECURE) != 0;
}

void memasm_init(void)
{
    int expected = 0;
    if (init_here)
        return; /* a control call made while initialising (e.g. from the
                   configuration code): the caller is the initialiser */
    if (!atomic_compare_exchange_strong(&init_state, &expected, 1)) {
        while (atomic_load_explicit(&init_state, memory_order_acquire) != 2)
            ;
        return;
    }
    init_here = 1;
    memasm_cpu_get();
    uint64_t v[MEMASM_THR_COUNT];
    memasm_threshold_defaults(v);
    memasm_threshold_sanitize(v);
    memasm_threshold_publish(v);
    if (!memasm_secure_mode())
        memasm_env_apply();
    reselect();
    init_here = 0;
    atomic_store_explicit(&init_state, 2, memory_order_release);
}

__attribute__((constructor)) static void memasm_ctor(void)
{
    memasm_init();
}

/* ---- introspection and control ----------------------------------------- */

const char *memasm_op_name(memasm_op op)
{
    static const char *const names[] = {"memcpy", "memmove", "memset"};
    return (unsigned)op < MEMASM_OP_COUNT ? names[op] : NULL;
}

size_t memasm_kernel_count(void)
{
    return memasm_kernels_count;
}

int memasm_kernel_info(size_t i, memasm_kernel_desc *out)
{
    if (i >= memasm_kernels_count || !out) {
        errno = EINVAL;
        return -1;
    }
    const struct memasm_kernel *k = &memasm_kernels[i];
    out->name = k->name;
    out->op = k->op;
    out->level = k->level;
    out->isa = memasm_isa_names[k->level];
    out->usable = usable(k);
    out->eligible = eligible(k);
    out->fn = k->fn;
    return 0;
}

long memasm_kernel_find(const char *name)
{
    for (size_t i = 0; name && i < memasm_kernels_count; i++)
        if (strcmp(memasm_kernels[i].name, name) == 0)
            return (long)i;
    errno = ENOENT;
    return -1;
}

const char *memasm_kernel_current(memasm_op op)
{
    void (*fn)(void);
    switch (op) {
    case MEMASM_OP_MEMCPY:
        fn = (void (*)(void))atomic_load(&memasm_cur_memcpy);
        break;
    case MEMASM_OP_MEMMOVE:
        fn = (void (*)(void))atomic_load(&memasm_cur_memmove);
        break;
    case MEMASM_OP_MEMSET:
        fn = (void (*)(void))atomic_load(&memasm_cur_memset);
        break;
    default:
        return NULL;
    }
    if (forced[op] >= 0 && memasm_kernels[forced[op]].fn == fn)
        return memasm_kernels[forced[op]].name;
    for (size_t i = 0; i < memasm_kernels_count; i++)
        if (memasm_kernels[i].op == op && memasm_kernels[i].fn == fn)
            return memasm_kernels[i].name;
    return NULL;
}

int memasm_kernel_force(const char *name)
{
    memasm_init();
    long i = memasm_kernel_find(name);
    if (i < 0)
        return -1;
    const struct memasm_kernel *k = &memasm_kernels[i];
    if (!usable(k)) {
        errno = ENOTSUP;
        return -1;
    }
    forced[k->op] = i;
    install(k->op, k);
    return 0;
}

int memasm_kernel_auto(memasm_op op)
{
    memasm_init();
    if ((unsigned)op >= MEMASM_OP_COUNT) {
        errno = EINVAL;
        return -1;
    }
    forced[op] = -1;
    const struct memasm_kernel *k = choose(op);
    if (k)
        install(op, k);
    return 0;
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

int memasm_isa_cpu(void)
{
    return memasm_cpu_get()->isa_max;
}

int memasm_isa_cap(void)
{
    int cpu = memasm_cpu_get()->isa_max;
    return isa_cap >= 0 && isa_cap < cpu ? isa_cap : cpu;
}

int memasm_isa_set_cap_level(int level)
{
    isa_cap = level;
    reselect();
    return 0;
}

int memasm_isa_set_cap(const char *name)
{
    memasm_init();
    int level = -1;
    if (name) {
        level = memasm_isa_level(name);
        if (level < 0) {
            errno = EINVAL;
            return -1;
        }
    }
    return memasm_isa_set_cap_level(level);
}

const char *memasm_version(void)
{
    return PACKAGE_VERSION;
}
