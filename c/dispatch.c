/*
 * dispatch.c -- what is in force: the kernel serving each operation, the
 * ISA cap, the thresholds the kernels read, and the configuration that set
 * them.
 *
 * Layer 4 (dispatch): uses layers 0-3 (diag, cpu, thresholds, kernels,
 * configuration); c/env.c and c/init.c call it.  See c/README.md.
 *
 * Choice: for each operation, the kernel with the highest ISA level that the
 * CPU can run (and that has the features the kernel "prefers", see
 * memasm-internal.h) and that does not exceed the cap (MEMASM_ISA, the
 * configuration's 'isa' or memasm_isa_set_cap); among equal levels the
 * first in the list (c/kernels-<arch>.c).  A forced kernel
 * (memasm_kernel_force) overrides the choice but must be usable.  A kernel
 * is installed by one atomic store of the operation's pointer, which the
 * entry points (c/kernels.c, asm/x86_64/entry.asm) load on every call.
 *
 * Thresholds: a new set is copied into a fresh slot and the pointer the
 * kernels read (memasm_thr) is swapped to it, so a copy running at the same
 * time sees the old set or the new one, never a mix.  A configuration is
 * applied here after c/config.c has read and checked it: all of it with one
 * publication, or none of it with one line on stderr saying why.
 */
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "memasm-internal.h"

static int isa_cap = -1;                 /* -1: no cap */
static long forced[MEMASM_OP_COUNT] = {-1, -1, -1};
static int installed_level[MEMASM_OP_COUNT]; /* the baseline kernels' 0 */
static void thresholds_follow(void);

/* ---- kernel choice ------------------------------------------------------ */

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
    installed_level[op] = k->level;
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

void memasm_dispatch_select(void)
{
    for (int op = 0; op < MEMASM_OP_COUNT; op++) {
        const struct memasm_kernel *k = choose((memasm_op)op);
        if (k)
            install((memasm_op)op, k);
    }
    thresholds_follow();
}

int memasm_dispatch_force(long i)
{
    const struct memasm_kernel *k = &memasm_kernels[i];
    if (!usable(k)) {
        errno = ENOTSUP;
        return -1;
    }
    forced[k->op] = i;
    install(k->op, k);
    thresholds_follow();
    return 0;
}

int memasm_dispatch_auto(memasm_op op)
{
    if ((unsigned)op >= MEMASM_OP_COUNT) {
        errno = EINVAL;
        return -1;
    }
    forced[op] = -1;
    const struct memasm_kernel *k = choose(op);
    if (k)
        install(op, k);
    thresholds_follow();
    return 0;
}

int memasm_isa_set_cap_level(int level)
{
    isa_cap = level;
    memasm_dispatch_select();
    return 0;
}

/* ---- introspection ------------------------------------------------------ */

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

int memasm_isa_cpu(void)
{
    return memasm_cpu_get()->isa_max;
}

int memasm_isa_cap(void)
{
    int cpu = memasm_cpu_get()->isa_max;
    return isa_cap >= 0 && isa_cap < cpu ? isa_cap : cpu;
}

const char *memasm_version(void)
{
    return PACKAGE_VERSION;
}

/* ---- thresholds --------------------------------------------------------- */

/* Published sets rotate through these slots; a reader would have to sleep
 * through SLOTS-1 further publications inside one copy to see a slot being
 * rewritten, and publications happen only through the control API. */
#define SLOTS 8
static uint64_t thr_slots[SLOTS][MEMASM_THR_COUNT];
static unsigned thr_next;

void memasm_threshold_publish(const uint64_t v[MEMASM_THR_COUNT])
{
    uint64_t *slot = thr_slots[thr_next++ % SLOTS];
    memcpy(slot, v, sizeof thr_slots[0]);
    /* A release store (not a fence and a plain store: ThreadSanitizer
     * models no fences), so a reader that loads the pointer sees the slot. */
    atomic_store_explicit(&memasm_thr, slot, memory_order_release);
}

/* Keys whose value was given (by the configuration or memasm_threshold_set),
 * one bit per index; the others hold defaults, which follow the kernels in
 * force (thresholds_follow). */
static uint32_t thr_given;

/* Keys a configuration file gave that names its own 'isa' level, as
 * memasm-tune writes it: their values (thr_tuned_v) were measured with the
 * kernels of that level (thr_tuned_level).  They are in force while the
 * kernel serving their operation (memcpy's for memcpy.*, memset's for
 * memset.*) is of that level or above; behind a lower one (MEMASM_ISA, a
 * cap, a forced kernel) nothing was measured, and they take that level's
 * defaults, as keys never given do.  Not in thr_given. */
static uint32_t thr_tuned;
static int thr_tuned_level;
static uint64_t thr_tuned_v[MEMASM_THR_COUNT];

/* thr_tuned's keys in force behind the kernels installed now. */
static uint32_t tuned_in_force(void)
{
    uint32_t m = 0;
    for (size_t j = 0; j < memasm_threshold_defs_count && thr_tuned; j++) {
        const struct memasm_threshold_def *d = &memasm_threshold_defs[j];
        memasm_op op = strncmp(d->key, "memset.", 7) == 0 ? MEMASM_OP_MEMSET : MEMASM_OP_MEMCPY;
        if ((thr_tuned >> d->index & 1) && installed_level[op] >= thr_tuned_level)
            m |= (uint32_t)1 << d->index;
    }
    return m;
}

int memasm_threshold_tuned_dropped(int index)
{
    return index >= 0 && index < MEMASM_THR_COUNT && (thr_tuned >> index & 1) &&
           !(tuned_in_force() >> index & 1);
}

void memasm_threshold_apply_defaults(void)
{
    uint64_t v[MEMASM_THR_COUNT];
    memasm_threshold_defaults(v);
    memasm_threshold_sanitize(v);
    thr_given = 0;
    thr_tuned = 0;
    memasm_threshold_publish(v);
}

/* Compose and publish the set for the kernels installed now: the keys
 * given keep their values, the tuned ones while their level is in force,
 * every other takes its default for the levels in force. */
static void thresholds_compose_now(void)
{
    uint64_t given[MEMASM_THR_COUNT], v[MEMASM_THR_COUNT];
    memcpy(given, (const void *)memasm_thr, sizeof given);
    for (int i = 0; i < MEMASM_THR_COUNT; i++)
        if (thr_tuned >> i & 1)
            given[i] = thr_tuned_v[i];
    memasm_threshold_compose(v, given, thr_given | tuned_in_force());
    memasm_threshold_publish(v);
}

/* Some defaults depend on the ISA level of the kernel that reads them
 * (c/thresholds.c), and tuned values hold for one level: after an install
 * that changed the level behind memcpy or memset, the set is composed
 * again. */
static void thresholds_follow(void)
{
    if (memasm_threshold_levels(installed_level[MEMASM_OP_MEMCPY], installed_level[MEMASM_OP_MEMSET]))
        thresholds_compose_now();
}

void memasm_threshold_apply(const struct memasm_threshold_def *d, size_t value, size_t *applied)
{
    uint64_t v[MEMASM_THR_COUNT];
    memcpy(v, (const void *)memasm_thr, sizeof v);
    v[d->index] = value;
    thr_given |= (uint32_t)1 << d->index;
    thr_tuned &= ~((uint32_t)1 << d->index);
    memasm_threshold_sanitize(v);
    /* Keep the value just set: if ordering forced a change, move the other
     * bound of the window instead (a start that follows an end this way is
     * still not given: thresholds_follow moves it with its default). */
    for (size_t w = 0; w < memasm_threshold_windows_count; w++) {
        int lo = memasm_threshold_windows[w][0], hi = memasm_threshold_windows[w][1];
        if (d->index == hi && v[hi] != value && value >= d->min && value <= d->max) {
            v[lo] = value;
            v[hi] = value;
            memasm_threshold_sanitize(v); /* the derived values follow */
        }
    }
    memasm_threshold_publish(v);
    if (applied)
        *applied = v[d->index] > SIZE_MAX ? SIZE_MAX : (size_t)v[d->index];
}

/* ---- the configuration in force ----------------------------------------- */

/* What the last memasm_config_load() read: its thresholds' sources, the ISA
 * level it asked for and its problem line stay here for memasm-info. */
static struct memasm_config_result cfg_last = {.isa = -1};

int memasm_config_source(int index)
{
    if (index < 0 || index >= MEMASM_THR_COUNT || memasm_threshold_tuned_dropped(index))
        return MEMASM_SRC_DEFAULT;
    return cfg_last.thr_src[index];
}

int memasm_config_isa(int *source)
{
    if (source)
        *source = cfg_last.isa_src;
    return cfg_last.isa;
}

const char *memasm_config_problem(void)
{
    return cfg_last.problem[0] ? cfg_last.problem : NULL;
}

const char *memasm_config_file(int *system)
{
    if (system)
        *system = cfg_last.file_system;
    return cfg_last.file;
}

/* "libmemasm: debug: " what, key[, " = " value as the file writes it]. */
static void debug_line(const char *what, const char *key, uint64_t value, int has_value)
{
    char line[200], num[24];
    size_t len = 0;
    memasm_diag_append(line, &len, sizeof line, "debug: ", 7, 0);
    memasm_diag_append(line, &len, sizeof line, what, strlen(what), 0);
    memasm_diag_append(line, &len, sizeof line, key, strlen(key), 0);
    if (has_value) {
        memasm_diag_append(line, &len, sizeof line, " = ", 3, 0);
        memasm_diag_append(line, &len, sizeof line, num,
                           memasm_config_value_text(num, sizeof num, value), 0);
    }
    line[len] = '\0';
    memasm_diag(line, NULL, 0, NULL);
}

/* memasm_config_load() and memasm_config_load_system(). */
static int load(const char *path, int system, const char *inline_str, int debug)
{
    int saved = errno;
    struct memasm_config_result *c = &cfg_last;
    int r = memasm_config_read(path, system, inline_str, c);
    if (debug && c->no_file)
        debug_line(c->no_file, c->no_file_path, 0, 0);
    if (r == 0 && c->nothing) {
        if (debug && !c->no_file)
            debug_line("no MEMASM_CONFIG or MEMASM_TUNABLES: defaults", "", 0, 0);
        goto out;
    }
    if (r < 0) {
        /* The system file's problems: on stderr only under MEMASM_DEBUG=1,
         * and always in memasm_config_problem() for memasm-info. */
        if (debug || !c->quiet)
            memasm_diag(c->problem, NULL, 0, NULL);
        goto out;
    }
    /* Everything is valid: one publication, then the ISA cap, then the set
     * again for the levels that cap leaves in force (the file's tuned keys,
     * when it names its level, hold only there). */
    thr_given = memasm_config_given(c->thr_src);
    thr_tuned = 0;
    if (c->file_isa >= 0) {
        for (int i = 0; i < MEMASM_THR_COUNT; i++)
            if (c->thr_src[i] == MEMASM_SRC_FILE)
                thr_tuned |= (uint32_t)1 << i;
        thr_given &= ~thr_tuned;
        thr_tuned_level = c->file_isa;
        memcpy(thr_tuned_v, c->thr, sizeof thr_tuned_v);
    }
    memasm_threshold_publish(c->thr);
    if (c->isa >= 0)
        memasm_isa_set_cap_level(c->isa);
    thresholds_compose_now();
    if (debug) {
        const char *const from[] = {"default ", system ? "system file " : "MEMASM_CONFIG ",
                                    "MEMASM_TUNABLES "};
        for (size_t j = 0; j < memasm_threshold_defs_count; j++) {
            const struct memasm_threshold_def *d = &memasm_threshold_defs[j];
            debug_line(from[c->thr_src[d->index] % 3], d->key, c->thr[d->index], 1);
        }
        if (c->isa >= 0) {
            char what[40];
            size_t len = 0;
            const char *f = from[c->isa_src % 3];
            memasm_diag_append(what, &len, sizeof what, f, strlen(f), 0);
            memasm_diag_append(what, &len, sizeof what, "isa = ", 6, 0);
            what[len] = '\0';
            debug_line(what, memasm_isa_names[c->isa], 0, 0);
        }
    }
out:
    errno = saved;
    return r;
}

int memasm_config_load(const char *path, const char *inline_str, int debug)
{
    return load(path, 0, inline_str, debug);
}

int memasm_config_load_system(const char *path, const char *inline_str, int debug)
{
    return load(path, 1, inline_str, debug);
}

size_t memasm_config_write(char *buf, size_t cap, const char *writer)
{
    return memasm_config_write_notes(buf, cap, writer, NULL);
}

size_t memasm_config_write_notes(char *buf, size_t cap, const char *writer,
                                 const struct memasm_config_notes *notes)
{
    return memasm_config_format(buf, cap, writer, notes, memasm_isa_cap(), memasm_thr);
}
