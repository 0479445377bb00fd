/*
 * init.c -- start-up: memasm_init() and the constructor that calls it, and
 * the public control functions, which initialise the library before they
 * change anything.
 *
 * Layer 6 (start-up), the top: uses every layer below and nothing calls it
 * but the library's users (c/thresholds.c only points at memasm_init, so
 * that a static link takes this file).  See c/README.md.
 *
 * memasm_init: detect the CPU, publish the default thresholds, read the
 * environment (c/env.c; never in a secure-execution process), then choose
 * the kernels.  Until it has run the entry points work on the baseline
 * kernels and the static thresholds, so nothing on a copy's path ever waits
 * for it or calls it.
 */
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "memasm-internal.h"

static atomic_int init_state;            /* 0 none, 1 running, 2 done */
static _Thread_local int init_here;      /* this thread is inside memasm_init */

void memasm_init(void)
{
    int expected = 0;
    if (init_here)
        return; /* a control call on the thread that is initialising (no
                   library code memasm_init reaches comes back here: a
                   signal handler's): do not wait for ourselves */
    if (!atomic_compare_exchange_strong(&init_state, &expected, 1)) {
        while (atomic_load_explicit(&init_state, memory_order_acquire) != 2)
            ;
        return;
    }
    init_here = 1;
    memasm_cpu_get();
    memasm_threshold_apply_defaults();
    if (!memasm_secure_mode())
        memasm_env_apply();
    memasm_dispatch_select();
    init_here = 0;
    atomic_store_explicit(&init_state, 2, memory_order_release);
}

__attribute__((constructor)) static void memasm_ctor(void)
{
    memasm_init();
}

/* ---- public control functions ------------------------------------------ */

int memasm_kernel_force(const char *name)
{
    memasm_init();
    long i = memasm_kernel_find(name);
    if (i < 0)
        return -1;
    return memasm_dispatch_force(i);
}

int memasm_kernel_auto(memasm_op op)
{
    memasm_init();
    return memasm_dispatch_auto(op);
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

int memasm_threshold_get(const char *key, size_t *value)
{
    memasm_init();
    const struct memasm_threshold_def *d = key ? memasm_threshold_lookup(key, strlen(key)) : NULL;
    if (!d || !value) {
        errno = d ? EINVAL : ENOENT;
        return -1;
    }
    uint64_t x = memasm_thr[d->index];
    *value = x > SIZE_MAX ? SIZE_MAX : (size_t)x;
    return 0;
}

int memasm_threshold_set(const char *key, size_t value, size_t *applied)
{
    memasm_init();
    const struct memasm_threshold_def *d = key ? memasm_threshold_lookup(key, strlen(key)) : NULL;
    if (!d) {
        errno = ENOENT;
        return -1;
    }
    memasm_threshold_apply(d, value, applied);
    return 0;
}

void memasm_threshold_reset(void)
{
    memasm_init();
    memasm_threshold_apply_defaults();
}
