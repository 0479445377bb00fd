/*
 * conform.c -- conformance of every kernel in the master list against a
 * byte-loop reference.
 *
 * Built twice: tests/test_conform runs the set with the default thresholds
 * (plus one 64 MiB copy per kernel); tests/test_profiles (T_PROFILES) runs
 * it again under each threshold profile of harness.c, so every strategy a
 * kernel has (rep movsb, non-temporal stores, dc zva, the scalar and vector
 * paths of the RVV kernels) runs at every size.
 *
 * Each kernel is called directly (memasm_kernel_info().fn), not through the
 * dispatcher, so kernels that are not chosen on this CPU are tested too.  A
 * kernel the CPU cannot run is reported as SKIPPED by name.
 *
 * What one kernel goes through (T_FULL_ALIGN = 256):
 *  - every length 0..1024, then 2^k - 1, 2^k, 2^k + 1 up to 8 MiB + 1;
 *  - every destination and source alignment 0..63 for lengths up to 256,
 *    sampled pairs above;
 *  - the destination and the source placed directly against PROT_NONE pages,
 *    at the start and at the end (a read or write one byte outside faults);
 *    the source is mapped read-only, so a write into it faults as well;
 *  - 64 canary bytes on each side of the destination, and after each phase
 *    a check of the whole destination area for stray writes;
 *  - the return value;
 *  - n = 0 with both pointers on PROT_NONE memory;
 *  - memset: c with bits above the low byte set (0x1ff stores 0xff, junk in
 *    bits 8..31 of the int);
 *  - memmove: every overlap distance 1..n in both directions for n <= 256,
 *    sampled distances above;
 *  - memcpy and memmove: self-copy (dst == src).
 *
 * MEMASM_TEST_REDUCED (make check-valgrind) keeps every kernel but runs the
 * lengths, alignment pairs and overlap distances of memcheck.h only, a
 * 16 MiB call instead of 64 MiB, and under the profiles doubling lengths up
 * to 1 MiB + 1.  Under memcheck every call is made again on
 * exact-size heap blocks (memcheck.h), and a kernel during which memcheck
 * counted an error fails.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "memcheck.h"

#define CANARY 64                          /* bytes checked on each side      */
#define ROOM 128                           /* offset of the "middle" position */
#define SMALL_MAX 1024                     /* every length up to here          */
#define FULL_ALIGN_MAX 256                 /* every alignment pair up to here  */
#define BIG_MAX ((size_t)8 << 20)          /* doubling lengths up to 8 MiB ±1  */
#define HUGE_N (((size_t)64 << 20) + 3)    /* the one 64 MiB call per kernel   */
#define HUGE_REDUCED (((size_t)16 << 20) + 3) /* reduced: above every default threshold */
#define BIG_REDUCED_PROFILE ((size_t)1 << 20) /* reduced profiles: doubling lengths to 1 MiB ±1 */
#define OVERLAP_ALL_MAX 256                /* every overlap distance up to here */

/* Arenas: src (read-only, random), dst (starts as a copy of pat), pat (the
 * random image dst must have outside the bytes a call may write), mov (for
 * memmove overlaps, also restored from pat2).  ref: scratch for expected
 * images. */
static t_arena src_a, dst_a, pat_a;
static unsigned char *ref_buf;
static size_t arena_size;

/* Per-kernel counters, printed at the end of each kernel. */
typedef struct counts {
    unsigned long copy, edge, overlap, self, zero, big;
} counts;

typedef struct ctx {
    memasm_kernel_desc k;
    const char *profile;
    t_rng rng;
    counts cnt;
    t_call call;
    size_t big_max; /* doubling lengths up to big_max + 1 */
} ctx;

static void arenas_init(void)
{
    if (arena_size)
        return;
    t_fault_install();
    /* The overlap tests need n + d <= 2n bytes plus canaries. */
    arena_size = 2 * (BIG_MAX + 2) + 2 * ROOM + 2 * 64;
    t_rng r;
    t_rng_init(&r, 0xa5e17a);
    t_arena_new(&src_a, arena_size);
    t_arena_new(&dst_a, arena_size);
    t_arena_new(&pat_a, arena_size);
    arena_size = src_a.size; /* rounded to pages */
    t_fill(&r, src_a.base, arena_size);
    t_fill(&r, pat_a.base, arena_size);
    memcpy(dst_a.base, pat_a.base, arena_size);
    t_arena_readonly(&src_a, 1);
    t_arena_readonly(&pat_a, 1);
    ref_buf = malloc(arena_size);
    ck_assert(ref_buf != NULL);
}

/* ---- checking one window -------------------------------------------------- */

/* The window [dst - before, dst + n + after) of the destination arena. */
static void window(const unsigned char *dst, size_t n, size_t *before, size_t *after)
{
    size_t off = (size_t)(dst - dst_a.base);
    *before = off < CANARY ? off : CANARY;
    size_t rest = arena_size - off - n;
    *after = rest < CANARY ? rest : CANARY;
}

static void restore(unsigned char *lo, size_t len)
{
    size_t off = (size_t)(lo - dst_a.base);
    memcpy(lo, pat_a.base + off, len);
}

/* Fail unless dst[lo, lo+len) equals exp[0, len); names the first bad byte
 * relative to the destination pointer d of the call. */
static void expect_bytes(ctx *c, const unsigned char *lo, const unsigned char *exp, size_t len,
                         const unsigned char *d, size_t n)
{
    size_t i = t_diff(lo, exp, len);
    if (i == len)
        return;
    long rel = (long)((lo + i) - d);
    const char *where = rel < 0 ? "before the destination (canary)"
                        : (size_t)rel >= n ? "after the destination (canary)" : "inside the destination";
    ck_abort_msg("%s: byte dst%+ld %s is 0x%02x, expected 0x%02x",
                 t_call_str(&c->call), rel, where, lo[i], exp[i]);
}

static void expect_ret(ctx *c, void *ret, void *dst)
{
    if (ret != dst)
        ck_abort_msg("%s: returned %p, expected dst %p", t_call_str(&c->call), ret, dst);
}

/* ---- memcpy/memmove, separate buffers ----------------------------------- */

static void one_copy(ctx *c, unsigned char *d, const unsigned char *s, size_t n, const char *what)
{
    t_copy_fn fn = (t_copy_fn)c->k.fn;
    void *ret;
    c->call.what = what;
    c->call.n = n;
    c->call.dalign = (unsigned)((uintptr_t)d & 63);
    c->call.salign = (unsigned)((uintptr_t)s & 63);
    ret = t_copy(&c->call, fn, d, s, n);
    expect_ret(c, ret, d);
    size_t before, after;
    window(d, n, &before, &after);
    size_t off = (size_t)(d - dst_a.base);
    /* memcpy semantics on separate buffers: dst must equal src byte for byte
     * (what a byte loop produces), and everything around it must be the
     * untouched pattern. */
    expect_bytes(c, d - before, pat_a.base + off - before, before, d, n);
    expect_bytes(c, d, s, n, d, n);
    expect_bytes(c, d + n, pat_a.base + off + n, after, d, n);
    restore(d - before, before + n + after);
    t_mc_copy(&c->call, fn, s, n, c->call.dalign, c->call.salign);
}

/* ---- memset ------------------------------------------------------------- */

static int pick_c(ctx *c)
{
    switch (t_below(&c->rng, 4)) {
    case 0:
        return 0x1ff;                                  /* stores 0xff          */
    case 1:
        return (int)(t_rand(&c->rng) & 0xffffff00u);   /* byte 0, junk above   */
    case 2:
        return (int)(uint32_t)t_rand(&c->rng);         /* anything, negative too */
    default:
        return (int)t_below(&c->rng, 256);
    }
}

static void one_set(ctx *c, unsigned char *d, size_t n, const char *what)
{
    t_set_fn fn = (t_set_fn)c->k.fn;
    int val = pick_c(c);
    void *ret;
    c->call.what = what;
    c->call.n = n;
    c->call.dalign = (unsigned)((uintptr_t)d & 63);
    c->call.salign = 0;
    ret = t_set(&c->call, fn, d, val, n);
    expect_ret(c, ret, d);
    size_t before, after;
    window(d, n, &before, &after);
    size_t off = (size_t)(d - dst_a.base);
    expect_bytes(c, d - before, pat_a.base + off - before, before, d, n);
    unsigned char b = (unsigned char)val;
    for (size_t i = 0; i < n; i++)
        if (d[i] != b)
            ck_abort_msg("%s: c=0x%x: byte dst+%zu is 0x%02x, expected 0x%02x",
                         t_call_str(&c->call), (unsigned)val, i, d[i], b);
    expect_bytes(c, d + n, pat_a.base + off + n, after, d, n);
    restore(d - before, before + n + after);
    t_mc_set(&c->call, fn, val, n, c->call.dalign);
}

/* ---- placements ---------------------------------------------------------- */

/* One call with dst/src at the given alignments in the middle of the arenas
 * (the source at its arena's start when salign is 0, i.e. right after the
 * guard page). */
static void at_align(ctx *c, size_t n, unsigned da, unsigned sa, const char *what)
{
    unsigned char *d = dst_a.base + ROOM + da;
    if (c->k.op == MEMASM_OP_MEMSET)
        one_set(c, d, n, what);
    else
        one_copy(c, d, src_a.base + sa, n, what);
}

/* Disjoint copies whose dst - src is delta modulo 4 KiB: the x86_64 kernels
 * choose their loops by that distance (4K aliasing), by other windows up to
 * a page than above it.  The lengths above a page end the kernels'
 * rotating loop (three register sets of 64 bytes with xmm and of 128 with
 * ymm, two of 256 with zmm) at each of its steps. */
static const size_t page_deltas[] = {0, 1, 16, 63, 64, 65, 127, 128, 129, 200, 255, 256, 257, 4032, 4095};
static const size_t page_lens[] = {513, 700, 1024, 2047, 4096, 4097, 4200, 4321, 4480, 4600, 6000, 8269};
static void at_page_deltas(ctx *c)
{
    for (size_t i = 0; i < sizeof page_lens / sizeof page_lens[0]; i++)
        for (size_t j = 0; j < sizeof page_deltas / sizeof page_deltas[0]; j++) {
            unsigned sa = (unsigned)t_below(&c->rng, 64);
            const unsigned char *s = src_a.base + 4096 + sa;
            unsigned char *d = dst_a.base + 4096 + sa + page_deltas[j];
            one_copy(c, d, s, page_lens[i], "dst - src at a distance from a multiple of 4 KiB");
            c->cnt.copy++;
        }
}

/* Guard placements, each buffer flush against the guard page before its
 * first byte or after its last; which: bit 0 both below, bit 1 both above,
 * bit 2 dst below and src above, bit 3 dst above and src below (memset:
 * bits 0 and 1). */
#define G_ALL 15u
static void at_guards(ctx *c, size_t n, unsigned which)
{
    unsigned char *dh = dst_a.base, *dt = dst_a.base + arena_size - n;
    const unsigned char *sh = src_a.base, *st = src_a.base + arena_size - n;
    if (c->k.op == MEMASM_OP_MEMSET) {
        if (which & 1) {
            one_set(c, dh, n, "dst at the guard page below");
            c->cnt.edge++;
        }
        if (which & 2) {
            one_set(c, dt, n, "dst at the guard page above");
            c->cnt.edge++;
        }
        return;
    }
    static const char *const what[4] = {
        "dst and src at the guard page below", "dst and src at the guard page above",
        "dst at the guard below, src at the guard above",
        "dst at the guard above, src at the guard below"};
    for (unsigned b = 0; b < 4; b++)
        if (which & (1u << b)) {
            one_copy(c, b & 1 ? dt : dh, b == 1 || b == 2 ? st : sh, n, what[b]);
            c->cnt.edge++;
        }
}

/* ---- self-copy and overlap ------------------------------------------------ */

static void one_self(ctx *c, unsigned char *p, size_t n)
{
    t_copy_fn fn = (t_copy_fn)c->k.fn;
    void *ret;
    c->call.what = "self-copy (dst == src)";
    c->call.n = n;
    c->call.dalign = c->call.salign = (unsigned)((uintptr_t)p & 63);
    ret = t_copy(&c->call, fn, p, p, n);
    expect_ret(c, ret, p);
    size_t before, after;
    window(p, n, &before, &after);
    size_t off = (size_t)(p - dst_a.base);
    expect_bytes(c, p - before, pat_a.base + off - before, before + n + after, p, n);
    t_mc_move(&c->call, fn, pat_a.base + off, n, 0, 0, c->call.dalign);
    c->cnt.self++;
}

/* memmove of n bytes between lo and lo + dist: forward (dst above src) or
 * backward (dst below src).  Expected image from the byte-loop reference. */
static void one_overlap(ctx *c, unsigned char *lo, size_t n, size_t dist, int forward)
{
    t_copy_fn fn = (t_copy_fn)c->k.fn;
    unsigned char *d = forward ? lo + dist : lo;
    unsigned char *s = forward ? lo : lo + dist;
    size_t before, after;
    window(lo, n + dist, &before, &after);
    size_t span = before + n + dist + after;
    size_t off = (size_t)(lo - dst_a.base) - before;
    memcpy(ref_buf, pat_a.base + off, span);
    t_ref_move(ref_buf + (d - dst_a.base - off), ref_buf + (s - dst_a.base - off), n);
    void *ret;
    c->call.what = forward ? "overlap, dst = src + dist (forward)" : "overlap, dst = src - dist (backward)";
    c->call.n = n;
    c->call.dalign = (unsigned)((uintptr_t)d & 63);
    c->call.salign = (unsigned)((uintptr_t)s & 63);
    ret = t_copy(&c->call, fn, d, s, n);
    expect_ret(c, ret, d);
    size_t i = t_diff(dst_a.base + off, ref_buf, span);
    if (i != span)
        ck_abort_msg("%s, dist %zu: byte dst%+ld is 0x%02x, expected 0x%02x", t_call_str(&c->call),
                     dist, (long)((dst_a.base + off + i) - d), dst_a.base[off + i], ref_buf[i]);
    memcpy(dst_a.base + off, pat_a.base + off, span);
    t_mc_move(&c->call, fn, pat_a.base + (lo - dst_a.base), n, dist, forward,
              (unsigned)((uintptr_t)lo & 63));
    c->cnt.overlap++;
}

/* Place an overlap of n + dist bytes: 0 at the lower guard, 1 at the upper
 * guard, 2 in the middle at a random alignment. */
static void overlap_at(ctx *c, size_t n, size_t dist, int forward, int where)
{
    unsigned char *lo = where == 0 ? dst_a.base
                        : where == 1 ? dst_a.base + arena_size - n - dist
                                     : dst_a.base + ROOM + t_below(&c->rng, 64);
    one_overlap(c, lo, n, dist, forward);
}

/* Stray writes anywhere in the destination arena. */
static void whole_arena(ctx *c, const char *phase)
{
    size_t i = t_diff(dst_a.base, pat_a.base, arena_size);
    if (i != arena_size)
        ck_abort_msg("kernel %s, thresholds %s, seed %lu: after %s, byte at arena offset %zu of %zu "
                     "was changed (a write outside every destination)",
                     c->k.name, c->profile, (unsigned long)t_seed(), phase, i, arena_size);
}

/* Stray writes near the places the calls of length n used (both ends of
 * the arena, 4 KiB beyond the largest window), checked after each length
 * before later calls could restore them away. */
static void near_windows(ctx *c, size_t n)
{
    size_t zone = 2 * n + ROOM + 64 + 4096;
    if (zone > arena_size / 2)
        zone = arena_size / 2;
    size_t i = t_diff(dst_a.base, pat_a.base, zone);
    if (i == zone) {
        i = t_diff(dst_a.base + arena_size - zone, pat_a.base + arena_size - zone, zone);
        if (i == zone)
            return;
        i += arena_size - zone;
    }
    ck_abort_msg("kernel %s, thresholds %s, seed %lu: after the calls with n=%zu, byte at arena "
                 "offset %zu was changed (a write outside the destination and its canaries)",
                 c->k.name, c->profile, (unsigned long)t_seed(), n, i);
}

/* ---- one kernel ---------------------------------------------------------- */

static void run_kernel(ctx *c)
{
    int copy = c->k.op != MEMASM_OP_MEMSET;
    int move = c->k.op == MEMASM_OP_MEMMOVE;
    int reduced = t_reduced();
    c->call.kernel = c->k.name;
    c->call.profile = c->profile;
    /* Without fork (CK_FORK=no, under qemu) a kernel that failed before may
     * have left the arena changed: start from the pattern. */
    memcpy(dst_a.base, pat_a.base, arena_size);

    /* n = 0 on memory that cannot be touched at all. */
    {
        unsigned char *none = t_noaccess_page();
        void *ret;
        c->call.what = "n = 0 on PROT_NONE memory";
        c->call.n = 0;
        c->call.dalign = c->call.salign = 0;
        for (int i = 0; i < 3; i++) {
            unsigned char *d = none + (size_t)i * 1001;
            if (copy)
                ret = t_copy(&c->call, (t_copy_fn)c->k.fn, d, none + t_page() - 1 - i, 0);
            else
                ret = t_set(&c->call, (t_set_fn)c->k.fn, d, 0x1ff, 0);
            expect_ret(c, ret, d);
            c->cnt.zero++;
        }
    }

    /* Every length up to SMALL_MAX. */
    for (size_t n = 0; n <= SMALL_MAX; n++) {
        if (reduced && !t_keep_len(n))
            continue;
        if (n <= FULL_ALIGN_MAX && reduced) {
            for (unsigned i = 0; i < T_NALIGN_CLASSES; i++)
                for (unsigned j = 0; j < (copy ? T_NALIGN_CLASSES : 1u); j++)
                    at_align(c, n, t_align_class[i], t_align_class[j], "alignment class");
            c->cnt.copy += copy ? T_NALIGN_CLASSES * T_NALIGN_CLASSES : T_NALIGN_CLASSES;
        } else if (n <= FULL_ALIGN_MAX) {
            for (unsigned da = 0; da < 64; da++)
                for (unsigned sa = 0; sa < (copy ? 64u : 1u); sa++)
                    at_align(c, n, da, sa, "every alignment");
            c->cnt.copy += copy ? 64 * 64 : 64;
        } else {
            at_align(c, n, 0, 0, "aligned");
            at_align(c, n, 63, 1, "misaligned");
            for (int i = 0; i < 4; i++)
                at_align(c, n, (unsigned)t_below(&c->rng, 64), (unsigned)t_below(&c->rng, 64),
                         "sampled alignment");
            c->cnt.copy += 6;
        }
        at_guards(c, n, G_ALL);
        if (copy) {
            one_self(c, dst_a.base + ROOM + (n & 63), n);
            if (n % 61 == 0) {
                one_self(c, dst_a.base, n);
                one_self(c, dst_a.base + arena_size - n, n);
            }
        }
        if (move) {
            if (n <= OVERLAP_ALL_MAX) {
                for (size_t dist = 1; dist <= n; dist++)
                    for (int fwd = 0; fwd < 2 && (!reduced || t_keep_dist(n, dist)); fwd++)
                        overlap_at(c, n, dist, fwd, (int)((dist + (size_t)fwd + n) % 3));
            } else {
                for (int i = 0; i < 6; i++) {
                    size_t dist = i < 2 ? (size_t)1 + t_below(&c->rng, 64)
                                  : i < 4 ? (size_t)1 + t_below(&c->rng, n)
                                          : n - t_below(&c->rng, 64);
                    overlap_at(c, n, dist, i & 1, (int)t_below(&c->rng, 3));
                }
            }
        }
        near_windows(c, n);
    }
    whole_arena(c, "the lengths up to 1024");
    if (copy) {
        at_page_deltas(c);
        whole_arena(c, "the distances from a multiple of 4 KiB");
    }

    /* Doubling lengths with +-1, few placements each (they cost the most
     * bytes): over each triple every guard placement once, one aligned and
     * two sampled alignments, one self-copy, three overlaps. */
    unsigned turn = 0;
    for (size_t p = 2048; p <= c->big_max; p *= 2) {
        for (size_t n = p - 1; n <= p + 1; n++, turn++) {
            static const unsigned guards[3] = {2u | 4u, 1u | 8u, 1u | 2u};
            at_guards(c, n, guards[n - p + 1]);
            if (n == p)
                at_align(c, n, 0, 0, "aligned");
            else
                at_align(c, n, (unsigned)t_below(&c->rng, 64), (unsigned)t_below(&c->rng, 64),
                         "sampled alignment");
            c->cnt.big++;
            if (copy && n == p)
                one_self(c, dst_a.base + ROOM + t_below(&c->rng, 64), n);
            if (move) {
                size_t dists[3] = {1 + t_below(&c->rng, 64), 1 + t_below(&c->rng, n),
                                   n - t_below(&c->rng, 64)};
                overlap_at(c, n, dists[turn % 3], (int)(turn & 1), (int)t_below(&c->rng, 3));
            }
            near_windows(c, n);
        }
    }
    whole_arena(c, "the doubling lengths");
}

static void print_counts(const ctx *c)
{
    const counts *k = &c->cnt;
    unsigned long total = k->copy + k->edge + k->overlap + k->self + k->zero + k->big;
    printf("%-20s [%s]: %lu checks (alignments %lu, guard placements %lu, overlaps %lu, "
           "self-copies %lu, n=0 %lu, doubling lengths %lu)\n",
           c->k.name, c->profile, total, k->copy, k->edge, k->overlap, k->self, k->zero, k->big);
    fflush(stdout);
}

/* Set up ctx for kernel i; returns 0 (and prints SKIPPED) when the CPU
 * cannot run it. */
static int kernel_ctx(ctx *c, size_t i, const char *profile)
{
    memset(c, 0, sizeof *c);
    ck_assert_msg(memasm_kernel_info(i, &c->k) == 0, "memasm_kernel_info(%zu) failed", i);
    if (!c->k.usable) {
        printf("%-20s SKIPPED: %s\n", c->k.name, t_skip_reason(&c->k));
        fflush(stdout);
        return 0;
    }
    c->profile = profile;
    c->big_max = BIG_MAX;
    t_rng_init(&c->rng, i + 1);
    return 1;
}

#ifndef T_PROFILES

START_TEST(conform_kernel)
{
    ctx c;
    arenas_init();
    memasm_threshold_reset();
    if (!kernel_ctx(&c, (size_t)_i, "defaults"))
        return;
    unsigned long errs = t_mc_errors();
    run_kernel(&c);
    print_counts(&c);
    ck_assert_msg(t_mc_errors() == errs, "kernel %s: memcheck counted %lu error(s) (above)",
                  c.k.name, t_mc_errors() - errs);
}
END_TEST

/* One call over 64 MiB (reduced: 16 MiB) per kernel with the default
 * thresholds: copy and fill, and for memmove both overlap directions. */
START_TEST(huge_kernel)
{
    ctx c;
    if (!kernel_ctx(&c, (size_t)_i, "defaults"))
        return;
    t_fault_install();
    memasm_threshold_reset();
    size_t huge = t_reduced() ? HUGE_REDUCED : HUGE_N;
    c.call.kernel = c.k.name;
    c.call.profile = "defaults";
    size_t dist = ((size_t)1 << 20) + 5;
    t_arena s, d;
    t_arena_new(&s, huge);
    t_arena_new(&d, huge + dist);
    t_fill(&c.rng, s.base, s.size);
    memset(d.base, 0x5a, d.size);
    t_arena_readonly(&s, 1);
    unsigned char *dst = d.base + d.size - huge; /* flush against the guard */
    const unsigned char *src = s.base + 1;
    void *ret;
    c.call.n = huge - 1;
    c.call.dalign = (unsigned)((uintptr_t)dst & 63);
    c.call.salign = 1;
    if (c.k.op == MEMASM_OP_MEMSET) {
        c.call.what = "one large fill";
        ret = t_set(&c.call, (t_set_fn)c.k.fn, dst, 0x3a7, huge);
        c.call.n = huge;
        expect_ret(&c, ret, dst);
        for (size_t i = 0; i < huge; i++)
            if (dst[i] != 0xa7)
                ck_abort_msg("%s: byte dst+%zu is 0x%02x", t_call_str(&c.call), i, dst[i]);
    } else {
        c.call.what = "one large copy";
        ret = t_copy(&c.call, (t_copy_fn)c.k.fn, dst, src, huge - 1);
        expect_ret(&c, ret, dst);
        size_t i = t_diff(dst, src, huge - 1);
        if (i != huge - 1)
            ck_abort_msg("%s: byte dst+%zu is 0x%02x, expected 0x%02x", t_call_str(&c.call), i,
                         dst[i], src[i]);
        if (dst[huge - 1] != 0x5a)
            ck_abort_msg("%s: byte dst+%zu (after the end) was written", t_call_str(&c.call),
                         huge - 1);
    }
    if (dst[-1] != 0x5a)
        ck_abort_msg("%s: byte dst-1 was written", t_call_str(&c.call));
    if (c.k.op == MEMASM_OP_MEMMOVE) {
        /* d now holds 0x5a.. then the copy; move it both ways by dist and
         * compare with the byte-loop reference. */
        unsigned char *exp = malloc(d.size);
        ck_assert(exp != NULL);
        for (int fwd = 0; fwd < 2; fwd++) {
            unsigned char *a = fwd ? d.base : d.base + dist;
            unsigned char *b = fwd ? d.base + dist : d.base;
            size_t n = huge - 2;
            memcpy(exp, d.base, d.size);
            t_ref_move(exp + (a - d.base), exp + (b - d.base), n);
            c.call.what = fwd ? "large overlap backward, dist 1 MiB + 5"
                              : "large overlap forward, dist 1 MiB + 5";
            c.call.n = n;
            c.call.dalign = (unsigned)((uintptr_t)a & 63);
            c.call.salign = (unsigned)((uintptr_t)b & 63);
            ret = t_copy(&c.call, (t_copy_fn)c.k.fn, a, b, n);
            expect_ret(&c, ret, a);
            size_t i = t_diff(d.base, exp, d.size);
            if (i != d.size)
                ck_abort_msg("%s: byte at offset %zu of the area is 0x%02x, expected 0x%02x",
                             t_call_str(&c.call), i, d.base[i], exp[i]);
        }
        free(exp);
    }
    printf("%-20s [defaults]: %zu MiB call(s) correct\n", c.k.name, huge >> 20);
    fflush(stdout);
    t_arena_free(&s);
    t_arena_free(&d);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("conform");
    int n = (int)memasm_kernel_count();
    TCase *tc = tcase_create("kernels");
    tcase_set_timeout(tc, 1200);
    tcase_add_loop_test(tc, conform_kernel, 0, n);
    suite_add_tcase(s, tc);
    TCase *big = tcase_create("64MiB");
    tcase_set_timeout(big, 1200);
    tcase_add_loop_test(big, huge_kernel, 0, n);
    suite_add_tcase(s, big);
    return s;
}

#else /* T_PROFILES */

static t_profile profiles[T_MAX_PROFILES];
static int nprofiles;

/* _i = profile * kernels + kernel; profile 0 (defaults) is test_conform's. */
START_TEST(profile_kernel)
{
    size_t nk = memasm_kernel_count();
    int pi = 1 + (int)((size_t)_i / nk);
    size_t ki = (size_t)_i % nk;
    const t_profile *p = &profiles[pi];
    ctx c;
    arenas_init();
    if (!kernel_ctx(&c, ki, p->name))
        return;
    if (!p->ops[c.k.op])
        return; /* this profile does not steer this operation */
    /* Reduced: every *_min key of a profile is at its minimum (512 bytes or
     * less), so the strategies it opens all start far below 1 MiB. */
    if (t_reduced())
        c.big_max = BIG_REDUCED_PROFILE;
    t_profile_apply(p);
    unsigned long errs = t_mc_errors();
    run_kernel(&c);
    print_counts(&c);
    ck_assert_msg(t_mc_errors() == errs, "kernel %s, thresholds %s: memcheck counted %lu error(s) (above)",
                  c.k.name, p->name, t_mc_errors() - errs);
    memasm_threshold_reset();
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("profiles");
    nprofiles = t_profiles(profiles, T_MAX_PROFILES);
    printf("%d threshold profiles besides the defaults:\n", nprofiles - 1);
    for (int i = 1; i < nprofiles; i++)
        printf("  %s\n", profiles[i].name);
    TCase *tc = tcase_create("profiles");
    tcase_set_timeout(tc, 1200);
    tcase_add_loop_test(tc, profile_kernel, 0, (int)((size_t)(nprofiles - 1) * memasm_kernel_count()));
    suite_add_tcase(s, tc);
    return s;
}

#endif

int main(void)
{
    t_print_time(NULL);
    t_seed();
    t_print_kernels();
    t_mc_banner("conform");
    int status = t_run_suite(make_suite());
    t_print_time("run time (this process; forked tests not included in CPU)");
    return status;
}
