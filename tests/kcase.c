/*
 * kcase.c -- one kernel call checked against a byte loop; see kcase.h.
 *
 * The destination arena holds a random pattern whose copy (pristine) never
 * changes.  A case's expected image is pristine over a window around the
 * destination (and the source when it lies in the same arena), with the n
 * destination bytes then written by a byte loop reading the source out of
 * pristine (or the read-only source arena): reading the snapshot gives
 * memmove's result for any overlap without choosing a direction.  After
 * the check the window is restored from pristine, so every case starts on
 * the same arena.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kcase.h"
#include "memasm-internal.h"
#include "xoshiro.h"

/* One mapping: a PROT_NONE page, size usable bytes, a PROT_NONE page. */
typedef struct kc_arena {
    unsigned char *base;
    size_t size;
} kc_arena;

static kc_arena dst_a, src_a;
static unsigned char *pristine, *expect;
static size_t page;

static kc_target targets[3 * 64];
static size_t ntargets;
static size_t by_op[MEMASM_OP_COUNT][64], nby_op[MEMASM_OP_COUNT];

/* What the control API was last set to: the target whose kernel is forced
 * (or that ran) and whether thresholds were overridden. */
static size_t cur_target = (size_t)-1;
static int cur_thr;

static int map_arena(kc_arena *a, size_t size)
{
    size = (size + page - 1) / page * page;
    unsigned char *m = mmap(NULL, size + 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || mprotect(m + page, size, PROT_READ | PROT_WRITE) != 0) {
        perror("kcase: mmap/mprotect");
        return -1;
    }
    a->base = m + page;
    a->size = size;
    return 0;
}

static void fill_random(unsigned char *p, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = memasm_splitmix64(&seed);
        memcpy(p + i, &v, n - i < 8 ? n - i : 8);
    }
}

static void add_target(memasm_op op, int entry, const char *force, void (*fn)(void), const char *label)
{
    kc_target *t = &targets[ntargets];
    t->op = op;
    t->entry = entry;
    t->force = force;
    t->fn = fn;
    snprintf(t->name, sizeof t->name, "%s", label);
    by_op[op][nby_op[op]++] = ntargets++;
}

int kc_init(void)
{
    static int done;
    if (done)
        return 0;
    page = (size_t)sysconf(_SC_PAGESIZE);
    /* The largest span is n + dist + offset: memmove's dist <= KC_MAX_N +
     * 4 KiB, memcpy's <= n + 8 KiB, the offset < 4 KiB. */
    if (map_arena(&dst_a, 2 * KC_MAX_N + 4 * 4096) != 0 || map_arena(&src_a, KC_MAX_N + 2 * 4096) != 0)
        return -1;
    pristine = malloc(dst_a.size);
    expect = malloc(dst_a.size);
    if (!pristine || !expect)
        return -1;
    fill_random(pristine, dst_a.size, 0x6b63617365u);
    memcpy(dst_a.base, pristine, dst_a.size);
    fill_random(src_a.base, src_a.size, 0x737263u);
    if (mprotect(src_a.base, src_a.size, PROT_READ) != 0) {
        perror("kcase: mprotect");
        return -1;
    }

    static void (*const entries[MEMASM_OP_COUNT])(void) = {
        (void (*)(void))memasm_memcpy, (void (*)(void))memasm_memmove, (void (*)(void))memasm_memset};
#if defined(__x86_64__)
    /* the base entries, which libmemasm.so binds the names to on a CPU
     * without AVX2 (c/entry-select.c), correct behind every kernel */
    static void (*const base[MEMASM_OP_COUNT])(void) = {(void (*)(void))memasm_memcpy_base,
                                                        (void (*)(void))memasm_memmove_base,
                                                        (void (*)(void))memasm_memset_base};
    /* the AVX2 entries, its names on a CPU with AVX2 and without AVX-512,
     * correct behind every kernel too but run only where AVX2 is */
    static void (*const avx2[MEMASM_OP_COUNT])(void) = {(void (*)(void))memasm_memcpy_avx2,
                                                        (void (*)(void))memasm_memmove_avx2,
                                                        (void (*)(void))memasm_memset_avx2};
    int have_avx2 = memasm_isa_cpu() >= 1;
    if (!have_avx2)
        printf("kcase: skipped: the AVX2 entries (memasm_<op>_avx2; this CPU has no AVX2)\n");
#endif
    for (int op = 0; op < MEMASM_OP_COUNT; op++) {
        char label[80];
        snprintf(label, sizeof label, "memasm_%s (automatic choice)", memasm_op_name((memasm_op)op));
        add_target((memasm_op)op, 1, NULL, entries[op], label);
#if defined(__x86_64__)
        snprintf(label, sizeof label, "memasm_%s_base (automatic choice)",
                 memasm_op_name((memasm_op)op));
        add_target((memasm_op)op, 1, NULL, base[op], label);
        if (have_avx2) {
            snprintf(label, sizeof label, "memasm_%s_avx2 (automatic choice)",
                     memasm_op_name((memasm_op)op));
            add_target((memasm_op)op, 1, NULL, avx2[op], label);
        }
#endif
        for (size_t i = 0; i < memasm_kernel_count(); i++) {
            memasm_kernel_desc d;
            if (memasm_kernel_info(i, &d) != 0 || d.op != (memasm_op)op || !d.usable)
                continue;
            add_target(d.op, 0, NULL, d.fn, d.name);
            snprintf(label, sizeof label, "memasm_%s with %s forced", memasm_op_name(d.op), d.name);
            add_target(d.op, 1, d.name, entries[op], label);
#if defined(__x86_64__)
            snprintf(label, sizeof label, "memasm_%s_base with %s forced", memasm_op_name(d.op),
                     d.name);
            add_target(d.op, 1, d.name, base[op], label);
            if (have_avx2) {
                snprintf(label, sizeof label, "memasm_%s_avx2 with %s forced",
                         memasm_op_name(d.op), d.name);
                add_target(d.op, 1, d.name, avx2[op], label);
            }
#endif
        }
    }
    done = 1;
    return 0;
}

size_t kc_target_count(void)
{
    return ntargets;
}

const kc_target *kc_target_get(size_t i)
{
    return i < ntargets ? &targets[i] : NULL;
}

size_t kc_targets_of(memasm_op op)
{
    return nby_op[op];
}

size_t kc_target_of(memasm_op op, size_t i)
{
    return by_op[op][i];
}

/* ---- decoding --------------------------------------------------------------- */

static unsigned get8(const uint8_t *d, size_t size, size_t i)
{
    return i < size ? d[i] : 0;
}

static unsigned get16(const uint8_t *d, size_t size, size_t i)
{
    return get8(d, size, i) | get8(d, size, i + 1) << 8;
}

/* A signed result clamped into [0, hi]. */
static size_t clampz(long long v, size_t hi)
{
    return v < 0 ? 0 : (size_t)v > hi ? hi : (size_t)v;
}

static size_t decode_size(unsigned v)
{
    unsigned cls = v >> 13;
    long long n;
    switch (cls) {
    case 0: n = v & 511; break;
    case 1: n = v & 8191; break;
    case 2: n = (1ll << (((v >> 3) & 31) % 17)) + (int)(v & 7) - 4; break;
    case 3: n = 64ll * ((v >> 4) & 511) + (int)(v & 15) - 8; break;
    case 4: n = 4096ll * ((v >> 5) & 15) + (int)(v & 31) - 16; break;
    default: n = 8ll * (v & 8191) + cls - 5; break;
    }
    return clampz(n, KC_MAX_N);
}

static size_t decode_dist(unsigned w, size_t n)
{
    long long d;
    switch (w >> 14) {
    case 0: d = w & 1023; break;
    case 1: d = (long long)n - 16 + (w & 31); break;
    case 2: d = 4096ll * ((w >> 8) & 15) + (int)(w & 255) - 128; break;
    default: d = 4ll * (w & 16383); break;
    }
    return clampz(d, KC_MAX_N + 4096);
}

static size_t decode_thr(unsigned u, size_t n)
{
    switch (u >> 14) {
    case 0: return u & 16383;
    case 1: return clampz((long long)n + (u & 255) - 128, SIZE_MAX / 2);
    case 2: return MEMASM_NEVER;
    default: return (size_t)(u & 16383) * 64;
    }
}

void kc_decode(const uint8_t *data, size_t size, kc_case *c)
{
    memset(c, 0, sizeof *c);
    memasm_op op = (memasm_op)(get8(data, size, 0) % 3);
    c->target = by_op[op][get8(data, size, 1) % nby_op[op]];
    c->n = decode_size(get16(data, size, 2));
    unsigned dp = get16(data, size, 4), sp = get16(data, size, 6);
    c->dhigh = dp >> 15;
    c->doff = dp & KC_MAX_OFF;
    c->shigh = sp >> 15;
    c->soff = sp & KC_MAX_OFF;
    c->layout = op == MEMASM_OP_MEMSET ? KC_DISJOINT : (kc_layout)(get8(data, size, 8) % 4);
    if (c->layout == KC_FORWARD || c->layout == KC_BACKWARD) {
        c->dist = decode_dist(get16(data, size, 9), c->n);
        if (op == MEMASM_OP_MEMCPY) /* never an overlap (undefined) */
            c->dist = c->n + (c->dist < 8192 ? c->dist : 8192);
        if (c->dist == 0)
            c->layout = KC_SELF;
    }
    c->c = (int)(get16(data, size, 11) | (uint32_t)get16(data, size, 13) << 16);
    c->junk = get8(data, size, 15) & 1;
    size_t keys = memasm_threshold_count();
    for (size_t i = KC_HEADER; i + 3 <= size && c->nthr < KC_MAX_THR && keys; i += 3) {
        c->thr_key[c->nthr] = memasm_threshold_key(data[i] % keys);
        c->thr_val[c->nthr++] = decode_thr(get16(data, size, i + 1), c->n);
    }
}

void kc_retarget(kc_case *c, size_t target)
{
    c->target = target;
}

/* ---- placement ---------------------------------------------------------------- */

unsigned kc_align_off(size_t len, unsigned a, int high)
{
    return high ? (unsigned)((0 - len - a) & 63) : a & 63;
}

static unsigned char *place(const kc_arena *a, size_t len, unsigned off, int high)
{
    return high ? a->base + a->size - len - off : a->base + off;
}

/* The call's pointers; *lo..*hi is what the call may read or write in the
 * destination arena (the destination, and the source when it lies there). */
static void pointers(const kc_case *c, unsigned char **d, const unsigned char **s, size_t *lo, size_t *hi)
{
    size_t span = c->n + (c->layout == KC_FORWARD || c->layout == KC_BACKWARD ? c->dist : 0);
    unsigned char *base = place(&dst_a, span, c->doff, c->dhigh);
    *d = c->layout == KC_FORWARD ? base + c->dist : base;
    *s = c->layout == KC_DISJOINT ? place(&src_a, c->n, c->soff, c->shigh)
         : c->layout == KC_BACKWARD ? base + c->dist : base;
    *lo = (size_t)(base - dst_a.base);
    *hi = *lo + span;
}

/* ---- description ------------------------------------------------------------- */

const char *kc_describe(const kc_case *c, char *buf, size_t len)
{
    static const char *const lay[] = {"disjoint", "forward (dst = src + dist)",
                                      "backward (dst = src - dist)", "self (dst == src)"};
    unsigned char *d;
    const unsigned char *s;
    size_t lo, hi;
    pointers(c, &d, &s, &lo, &hi);
    const kc_target *t = &targets[c->target];
    size_t k = (size_t)snprintf(buf, len, "%s, n=%zu, dst at %s%s%u (align %u)", t->name, c->n,
                                c->dhigh ? "end" : "start", c->dhigh ? "-n-" : "+", c->doff,
                                (unsigned)((uintptr_t)d & 63));
    if (t->op == MEMASM_OP_MEMSET)
        k += (size_t)snprintf(buf + (k < len ? k : len), k < len ? len - k : 0, ", c=0x%x%s", (unsigned)c->c,
                              c->junk ? " with junk above bit 31" : "");
    else if (c->layout == KC_DISJOINT)
        k += (size_t)snprintf(buf + (k < len ? k : len), k < len ? len - k : 0,
                              ", src at %s%s%u (align %u), disjoint", c->shigh ? "end" : "start",
                              c->shigh ? "-n-" : "+", c->soff, (unsigned)((uintptr_t)s & 63));
    else
        k += (size_t)snprintf(buf + (k < len ? k : len), k < len ? len - k : 0,
                              ", src align %u, %s, dist %zu", (unsigned)((uintptr_t)s & 63),
                              lay[c->layout], c->dist);
    for (int i = 0; i < c->nthr; i++) {
        if (c->thr_val[i] == MEMASM_NEVER)
            k += (size_t)snprintf(buf + (k < len ? k : len), k < len ? len - k : 0, "%s %s=never",
                                  i ? "" : ", thresholds", c->thr_key[i]);
        else
            k += (size_t)snprintf(buf + (k < len ? k : len), k < len ? len - k : 0, "%s %s=%zu",
                                  i ? "" : ", thresholds", c->thr_key[i], c->thr_val[i]);
    }
    return buf;
}

/* ---- running ------------------------------------------------------------------- */

/* Set the control API for the case: thresholds and, for an entry point,
 * the forced kernel.  Skipped when nothing changes (the exhaustive test
 * runs millions of cases on one target). */
static void configure(const kc_case *c)
{
    if (c->target == cur_target && !c->nthr && !cur_thr)
        return;
    memasm_threshold_reset();
    for (int op = 0; op < MEMASM_OP_COUNT; op++)
        memasm_kernel_auto((memasm_op)op);
    for (int i = 0; i < c->nthr; i++)
        memasm_threshold_set(c->thr_key[i], c->thr_val[i], NULL);
    const kc_target *t = &targets[c->target];
    if (t->force && memasm_kernel_force(t->force) != 0) {
        fprintf(stderr, "kcase: cannot force %s\n", t->force);
        abort(); /* the list holds usable kernels only */
    }
    cur_target = c->target;
    cur_thr = c->nthr > 0;
}

void kc_recover(void)
{
    memcpy(dst_a.base, pristine, dst_a.size);
    cur_target = (size_t)-1;
    cur_thr = 1;
}

typedef void *(*copy_fn)(void *, const void *, size_t);
typedef void *(*set_fn)(void *, int, size_t);
typedef void *(*set_long_fn)(void *, long, size_t);

/* The fuzzer's coverage hooks on every byte of a loop would cost more than
 * the rest of a run; the loops' branches say nothing about the kernels. */
#if defined(__clang__)
#define KC_HOT __attribute__((noinline, no_sanitize("coverage")))
#else
#define KC_HOT __attribute__((noinline))
#endif

/* The reference: a byte loop (volatile loads, so the compiler cannot turn
 * it into a call to the C library) over the source's snapshot. */
KC_HOT static void ref_copy(unsigned char *out, const volatile unsigned char *from, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = from[i];
}

KC_HOT static void ref_fill(volatile unsigned char *out, unsigned char b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = b;
}

int kc_run(const kc_case *c, int full, char *msg, size_t len)
{
    const kc_target *t = &targets[c->target];
    unsigned char *d;
    const unsigned char *s;
    size_t lo, hi;
    configure(c);
    pointers(c, &d, &s, &lo, &hi);
    size_t wlo = lo > KC_CANARY ? lo - KC_CANARY : 0;
    size_t whi = hi + KC_CANARY < dst_a.size ? hi + KC_CANARY : dst_a.size;
    size_t doff = (size_t)(d - dst_a.base);

    memcpy(expect + wlo, pristine + wlo, whi - wlo);
    if (t->op == MEMASM_OP_MEMSET)
        ref_fill(expect + doff, (unsigned char)c->c, c->n);
    else
        ref_copy(expect + doff, c->layout == KC_DISJOINT ? s : pristine + (s - dst_a.base), c->n);

    void *ret;
    if (t->op != MEMASM_OP_MEMSET) {
        ret = ((copy_fn)t->fn)(d, s, c->n);
    } else if (c->junk) {
#if defined(__x86_64__) || defined(__aarch64__)
        /* c arrives in a 64-bit register whose upper half an int leaves
         * undefined: put junk there (riscv64 sign-extends, so not there). */
        long arg = (long)(0x5eadbeefUL << 32 | (unsigned)c->c);
        ret = ((set_long_fn)t->fn)(d, arg, c->n);
#else
        ret = ((set_fn)t->fn)(d, c->c, c->n);
#endif
    } else {
        ret = ((set_fn)t->fn)(d, c->c, c->n);
    }

    int bad = 0;
    char what[512];
    if (ret != d) {
        snprintf(msg, len, "returned %p, not dst %p: %s", ret, (void *)d, kc_describe(c, what, sizeof what));
        bad = 1;
    } else if (memcmp(dst_a.base + wlo, expect + wlo, whi - wlo) != 0) {
        size_t i = wlo;
        while (dst_a.base[i] == expect[i])
            i++;
        long rel = (long)i - (long)doff;
        snprintf(msg, len, "byte dst%+ld (%s) is 0x%02x, expected 0x%02x: %s", rel,
                 rel < 0 ? "before the destination" : (size_t)rel >= c->n ? "after the destination" : "inside",
                 dst_a.base[i], expect[i], kc_describe(c, what, sizeof what));
        bad = 1;
    }
    memcpy(dst_a.base + wlo, pristine + wlo, whi - wlo);
    if (!bad && full && kc_verify_arena(msg, len) != 0) {
        size_t k = strlen(msg);
        snprintf(msg + k, len - k, ", after %s", kc_describe(c, what, sizeof what));
        bad = 1;
    }
    return bad;
}

int kc_verify_arena(char *msg, size_t len)
{
    if (memcmp(dst_a.base, pristine, dst_a.size) == 0)
        return 0;
    size_t i = 0;
    while (dst_a.base[i] == pristine[i])
        i++;
    snprintf(msg, len, "stray write: destination arena byte %zu of %zu is 0x%02x, pattern 0x%02x", i,
             dst_a.size, dst_a.base[i], pristine[i]);
    memcpy(dst_a.base, pristine, dst_a.size);
    return 1;
}

/* ---- coverage hints ------------------------------------------------------------- */

static unsigned log2z(size_t v)
{
    unsigned k = 0;
    while (v >>= 1)
        k++;
    return k;
}

int kc_features(const kc_case *c, unsigned *out)
{
    unsigned char *d;
    const unsigned char *s;
    size_t lo, hi;
    pointers(c, &d, &s, &lo, &hi);
    unsigned t = (unsigned)c->target & 31;
    unsigned sb = c->n <= 16 ? (unsigned)c->n : 13 + log2z(c->n);
    unsigned da = (unsigned)((uintptr_t)d & 63), sa = (unsigned)((uintptr_t)s & 63);
    unsigned db = c->dist < 16 ? (unsigned)c->dist : 11 + log2z(c->dist) / 4;
    size_t alias = (size_t)((uintptr_t)d - (uintptr_t)s) & 4095; /* other mappings: no pointer difference */
    unsigned ac = alias == 0 ? 0 : alias < 64 ? 1 : alias < 256 ? (alias % 64 ? 2 : 3)
                  : alias > 4096 - 256 ? 4 : 5;
    int k = 0;
    out[k++] = t * 32 + (sb & 31);                                   /* 0..1023     */
    out[k++] = 1024 + t * 128 + (da >> 2) * 8 + (sa >> 3);           /* ..5119      */
    out[k++] = 5120 + t * 64 + (unsigned)c->layout * 16 + (db & 15); /* ..7167      */
    out[k++] = 7168 + t * 8 + ac;                                    /* ..7423      */
    for (int i = 0; i < c->nthr; i++) {
        unsigned key = 0;
        while (key < 15 && memasm_threshold_key(key) && strcmp(memasm_threshold_key(key), c->thr_key[i]))
            key++;
        unsigned rel = c->n < c->thr_val[i] ? 0 : c->n == c->thr_val[i] ? 1 : 2;
        out[k++] = 7424 + (t * 16 + key) * 3 + rel;                  /* ..8959      */
    }
    return k;
}
