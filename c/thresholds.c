/*
 * thresholds.c -- the size thresholds the kernels read at run time: their
 * keys, legal ranges and defaults.
 *
 * Layer 1 (thresholds): uses layer 0 (the CPU's caches and features).  See
 * c/README.md.
 *
 * One table per architecture names each key, its legal range and what it
 * steers; the configuration parser, memasm-info, the tuner and the control
 * API all go through it.  The pointer the kernels read (memasm_thr) is
 * defined here with its static default; c/dispatch.c publishes new sets.
 */
#include "config.h"

#include <string.h>

#include "memasm-internal.h"

#define KIB ((uint64_t)1 << 10)
#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)
#define NEVER UINT64_MAX

/*
 * Before the constructor runs (or if it never does), kernels see these:
 * no rep movsb, no non-temporal stores, vector paths from 64 bytes.  Safe
 * and reasonable everywhere.
 */
static const uint64_t thr_static[MEMASM_THR_COUNT] = {
    [MEMASM_THR_MEMCPY_ERMS_MIN] = NEVER, [MEMASM_THR_MEMCPY_ERMS_MAX] = NEVER,
    [MEMASM_THR_MEMCPY_NT_MIN] = NEVER,   [MEMASM_THR_MEMSET_ERMS_MIN] = NEVER,
    [MEMASM_THR_MEMSET_ERMS_MAX] = NEVER, [MEMASM_THR_MEMSET_NT_MIN] = NEVER,
    [MEMASM_THR_MEMSET_ZVA_MIN] = NEVER,  [MEMASM_THR_MEMCPY_RVV_MIN] = 64,
    [MEMASM_THR_MEMSET_RVV_MIN] = 64,     [MEMASM_THR_MEMCPY_BWD_PREFETCH_MAX] = NEVER,
    [MEMASM_THR_MEMCPY_BWD_NT_MIN] = NEVER, [MEMASM_THR_MEMCPY_BWD_PREFETCH_MIN] = NEVER,
    [MEMASM_THR_MEMCPY_BWD_GATE] = NEVER, [MEMASM_THR_MEMCPY_ERMS_MIN_DIST] = 64,
    [MEMASM_THR_MEMCPY_ALIAS_NT_MIN] = NEVER, [MEMASM_THR_MEMCPY_ALIAS_ERMS_MIN] = NEVER,
};

_Atomic(const uint64_t *) memasm_thr = thr_static;

/*
 * Link anchor, never called from here: a static link takes from libmemasm.a
 * only the objects a program refers to, and every program that copies
 * refers to this one (the kernels read memasm_thr).  This pointer brings in
 * c/init.c, whose constructor runs memasm_init(), as in the shared library.
 * tests/layers.sh allows this one reference upward, as data that no code
 * uses.
 */
__attribute__((used)) static void (*const start_up_anchor)(void) = memasm_init;

#if defined(__x86_64__)
/*
 * Legal ranges (asm/x86_64/memmove.inc, memset.inc): the kernels look at
 * the thresholds only above 8 vectors (> 128 bytes for SSE2), so any
 * erms_min/erms_max is safe: the rep movsb/stosb path stores 64 bytes with
 * vectors, aligns dst and hands the rest (>= 65 bytes) to rep.  The
 * non-temporal paths store the first 64 and the last 256 bytes with
 * ordinary stores and need at least one 256-byte block in between: nt_min
 * is at least 512, so forcing it low in the tests runs the path on every
 * size from 512 up.
 */
const struct memasm_threshold_def memasm_threshold_defs[] = {
    {"memcpy.erms_min", MEMASM_THR_MEMCPY_ERMS_MIN, 0, NEVER,
     "memcpy/memmove: rep movsb from this size (window start)"},
    {"memcpy.erms_max", MEMASM_THR_MEMCPY_ERMS_MAX, 0, NEVER,
     "memcpy/memmove: rep movsb below this size (window end)"},
    {"memcpy.nt_min", MEMASM_THR_MEMCPY_NT_MIN, 512, NEVER,
     "memcpy/memmove: non-temporal stores from this size (no overlap)"},
    {"memset.erms_min", MEMASM_THR_MEMSET_ERMS_MIN, 0, NEVER,
     "memset: rep stosb from this size (window start)"},
    {"memset.erms_max", MEMASM_THR_MEMSET_ERMS_MAX, 0, NEVER,
     "memset: rep stosb below this size (window end)"},
    {"memset.nt_min", MEMASM_THR_MEMSET_NT_MIN, 512, NEVER,
     "memset: non-temporal stores from this size"},
    {"memcpy.bwd_prefetch_min", MEMASM_THR_MEMCPY_BWD_PREFETCH_MIN, 0, NEVER,
     "memcpy/memmove: the backward loop prefetches the source from this size (window start)"},
    {"memcpy.bwd_prefetch_max", MEMASM_THR_MEMCPY_BWD_PREFETCH_MAX, 0, NEVER,
     "memcpy/memmove: the backward loop prefetches the source below this size (window end)"},
    {"memcpy.erms_min_dist", MEMASM_THR_MEMCPY_ERMS_MIN_DIST, 0, NEVER,
     "memcpy/memmove: rep movsb only with the destination at least this far below the source (or above it)"},
    {"memcpy.bwd_nt_min", MEMASM_THR_MEMCPY_BWD_NT_MIN, 0, NEVER,
     "memcpy/memmove: an overlapping move stores non-temporally when its size and the distance between dst and src "
     "are both this or more (backward; forward from memcpy.nt_min)"},
    {"memcpy.alias_nt_min", MEMASM_THR_MEMCPY_ALIAS_NT_MIN, 512, NEVER,
     "memcpy/memmove: non-temporal stores from this size instead of rep movsb when dst - src is 1-255 bytes above "
     "a multiple of 4 KiB and not a multiple of 64 (no overlap)"},
    {"memcpy.alias_erms_min", MEMASM_THR_MEMCPY_ALIAS_ERMS_MIN, 0, NEVER,
     "memcpy/memmove: rep movsb from this size (inside its window) also when dst - src is 1-255 bytes above a "
     "multiple of 4 KiB and not a multiple of 64"},
};
#elif defined(__aarch64__)
/*
 * aarch64 (asm/aarch64/README.md).  Every value 0..NEVER is safe: the
 * kernels consult these only above their 96/128-byte register paths, take
 * the stnp loop only when the regions do not overlap, and take the dc zva
 * path only when DCZID_EL0 permits it and n >= 2 * block + 64 (checked in
 * the kernel).  So the ranges are the full ones; the thresholds steer speed
 * only.  NEVER (2^64 - 1) switches a strategy off.
 */
const struct memasm_threshold_def memasm_threshold_defs[] = {
    {"memcpy.nt_min", MEMASM_THR_MEMCPY_NT_MIN, 0, NEVER,
     "memcpy/memmove: non-temporal pair stores (stnp) from this size, no overlap"},
    {"memset.nt_min", MEMASM_THR_MEMSET_NT_MIN, 0, NEVER,
     "memset: non-temporal pair stores (stnp) from this size"},
    {"memset.zva_min", MEMASM_THR_MEMSET_ZVA_MIN, 0, NEVER,
     "memset of zero: dc zva whole blocks from this size (before memset.nt_min)"},
};
#elif defined(__riscv)
/*
 * riscv64: the RVV kernels compare n against these once per call and
 * tail-call the scalar kernel below them.  Every value is safe: 0 sends
 * every size (n = 0 included: a pass with vl = 0 touches nothing) to the
 * vector loop, NEVER none.  Default 64 (thr_static), where the brpc seed
 * measured vector set-up to start paying on an SG2044 (VLEN 128); the tuner
 * owns the value.  See asm/riscv64/README.md.
 */
const struct memasm_threshold_def memasm_threshold_defs[] = {
    {"memcpy.rvv_min", MEMASM_THR_MEMCPY_RVV_MIN, 0, NEVER,
     "memcpy/memmove (rvv kernels): vector loop from this size, scalar below"},
    {"memset.rvv_min", MEMASM_THR_MEMSET_RVV_MIN, 0, NEVER,
     "memset (rvv kernel): vector loop from this size, scalar below"},
};
#endif

const size_t memasm_threshold_defs_count =
    sizeof memasm_threshold_defs / sizeof memasm_threshold_defs[0];

/* Every architecture keeps these ordered (a window whose keys it does not
 * list stays at its static, empty default). */
const int memasm_threshold_windows[][2] = {
    {MEMASM_THR_MEMCPY_ERMS_MIN, MEMASM_THR_MEMCPY_ERMS_MAX},
    {MEMASM_THR_MEMSET_ERMS_MIN, MEMASM_THR_MEMSET_ERMS_MAX},
    {MEMASM_THR_MEMCPY_BWD_PREFETCH_MIN, MEMASM_THR_MEMCPY_BWD_PREFETCH_MAX},
};
const size_t memasm_threshold_windows_count =
    sizeof memasm_threshold_windows / sizeof memasm_threshold_windows[0];

/* The ISA levels of the kernels serving memcpy (whose thresholds memmove
 * shares) and memset: 0, the baseline kernels', until c/dispatch.c installs
 * others. */
static int level_copy, level_set;

int memasm_threshold_levels(int copy, int set)
{
    int changed = copy != level_copy || set != level_set;
    level_copy = copy;
    level_set = set;
    return changed;
}

void memasm_threshold_defaults(uint64_t out[MEMASM_THR_COUNT])
{
    const struct memasm_cpu *c = memasm_cpu_get();
    memcpy(out, thr_static, sizeof thr_static);
    /* Non-temporal stores pay off only once the destination would evict
     * most of the last-level cache; below that they throw away data the
     * caller is about to read (TiFlash measured the cost of doing it from
     * 32 KiB).  Default: three quarters of the largest cache, 4 MiB when the
     * size is unknown. */
    size_t llc = c->l3 ? c->l3 : c->l2;
    uint64_t nt = llc ? (uint64_t)llc / 4 * 3 : 4 * MIB;
    out[MEMASM_THR_MEMCPY_NT_MIN] = nt;
    out[MEMASM_THR_MEMSET_NT_MIN] = nt;
#if defined(__x86_64__)
    {
        /*
         * Crossovers measured on AMD Zen 5 (48 KiB L1d, 1 MiB L2, L3
         * reported as 508 MiB for the whole package); the runs behind each
         * figure are in doc/history-c.md.  Unknown sizes fall back to
         * 48 KiB / 1 MiB / 32 MiB.
         *
         * memcpy: the 4xVEC loop wins while source and destination fit in
         * L1d together (2n <= L1d) and drops to half of rep movsb's rate
         * right after, so the rep movsb window opens at 9/16 L1d; FSRM does
         * not lower it (rep movsb 0.93-1.0x glibc at 2-24 KiB, the loop
         * 1.5-1.7x).  Non-temporal stores start where a copy would evict
         * most of one core's share of L3: L3/8 (big parts report the L3 of
         * up to 8 core complexes), at least 16 x L2; rep movsb stops there.
         * On AMD (Zen, and Hygon's Zen-based parts) rep movsb has no upper
         * end and non-temporal stores are off: 64-512 MiB, rep movsb
         * 1.21-1.36x glibc, non-temporal 1.12-1.24x.
         *
         * memset: the 4xVEC loop up to 3/4 L2, rep stosb from there (what
         * glibc does from 2 KiB: parity); non-temporal stores from 64 x L2,
         * except on AMD, where from 32 MiB every strategy runs at the
         * memory's speed and rep stosb has no upper end either.
         */
        uint64_t l1 = c->l1d ? c->l1d : 48 * KIB;
        uint64_t l2 = c->l2 ? c->l2 : 1 * MIB;
        uint64_t l3 = c->l3 ? c->l3 : 32 * MIB;
        uint64_t cpy_nt = l3 / 8 > 16 * l2 ? l3 / 8 : 16 * l2;
        out[MEMASM_THR_MEMCPY_NT_MIN] = cpy_nt;
        out[MEMASM_THR_MEMSET_NT_MIN] = 64 * l2;
        /*
         * A forward rep movsb onto a lower, overlapping dst close below src
         * runs at half speed or worse (src - dst 64 B-20 KiB, 1-16 MiB:
         * 0.31-0.95x glibc, the 4xVEC loop 0.93-1.09x); from 28 KiB apart
         * it is ahead.  So rep movsb needs src - dst >= L1d / 2, on top of
         * the [0, 64) modulo 4 GiB case of glibc bug 30994, which the
         * kernel always avoids.
         */
        out[MEMASM_THR_MEMCPY_ERMS_MIN_DIST] = l1 / 2;
        /*
         * The AVX-512 kernel's backward loop (memmove onto a higher,
         * overlapping dst, and the 4K-aliasing case; the AVX2 and SSE2
         * loops do without, asm/x86_64/memmove.inc) gets no help from the
         * hardware prefetchers in L2: prefetching the source 1 KiB below
         * its loads took 64-384 KiB from glibc's speed to 1.09-1.23x.  The
         * same prefetches cost below 64 KiB and once source and destination
         * together pass L2, so the window is 4/3 L1d to L2/2.
         */
        out[MEMASM_THR_MEMCPY_BWD_PREFETCH_MIN] = l1 / 3 * 4;
        out[MEMASM_THR_MEMCPY_BWD_PREFETCH_MAX] = l2 / 2;
        /*
         * Non-temporal stores in the backward loop pay when the lines it
         * stores were read (as source, dst - src bytes earlier) long enough
         * ago to have left the caches, and the move is too big to stay in
         * L3 (64 MiB with dst - src 1-8 MiB: 1.35-1.40x glibc; 64 B or
         * 4 KiB apart: 0.38-0.82x at any size).  So both the size and the
         * distance from 8 x L2.  (rep movsb, the forward copy's strategy
         * there, cannot run backward at speed.)
         */
        out[MEMASM_THR_MEMCPY_BWD_NT_MIN] = 8 * l2;
        /*
         * Disjoint copies whose pointers alias modulo 4 KiB while mutually
         * misaligned (dst - src in [1, 256) mod 4096, not a multiple of
         * 64) run at 22 GB/s on Zen 5, where mutually aligned pointers
         * reach 33, with any cached copy (they never take rep movsb, which
         * ran them at 1-3.5 GB/s on Zen 4: asm/x86_64/memmove.inc).  The
         * backward loop with non-temporal stores does not mind the
         * aliasing, but leaves the destination out of the caches, which a
         * caller that reads it next pays for below 32 MiB.  So from
         * 32 x L2 (which is one Zen 5 CCD's L3).
         */
        out[MEMASM_THR_MEMCPY_ALIAS_NT_MIN] = 32 * l2;
        /*
         * Whether rep movsb copes with that aliasing depends on the core:
         * on Zen 4 it ran such copies 10-20x slower than the vector loop,
         * on Zen 5 1.1-1.8x faster from 64 KiB (and from 16 KiB than the
         * SSE2 loop).  The default is the choice that is never far off,
         * the loop (static NEVER); memasm-tune measures it.
         */
        if (c->features & MEMASM_F_X86_ERMS) {
            out[MEMASM_THR_MEMCPY_ERMS_MIN] = l1 / 16 * 9;
            out[MEMASM_THR_MEMCPY_ERMS_MAX] = cpy_nt;
            out[MEMASM_THR_MEMSET_ERMS_MIN] = l2 / 4 * 3;
            out[MEMASM_THR_MEMSET_ERMS_MAX] = 64 * l2;
            /*
             * Intel's rep movsb and rep stosb write whole lines without
             * reading them first, where the loops' stores fetch every line
             * they miss: both win from L1d / 3 there, cold at once and hot
             * once source and destination crowd L1d (Zen's keep the
             * crossovers above).  Nor does Intel's rep movsb slow down onto
             * a lower, overlapping dst as Zen's does: L1d / 6 apart lets a
             * move by half its size take it from the window's start; at 64
             * bytes apart the zmm loop stays ahead.  Behind the AVX2 copy
             * kernel rep movsb starts at L1d / 6, onto a lower dst from 64
             * bytes below src (the kernel's own limit): the ymm loop moves
             * half of what the zmm loop moves per instruction and trails
             * rep movsb there, hot at 8-12 KiB and cold at any distance.
             * The fill keeps L1d / 3: its ymm loop stays ahead hot, most
             * when the program reads the bytes next.  Figures:
             * doc/history-x86_64.md.
             */
            if (strcmp(c->vendor, "GenuineIntel") == 0) {
                out[MEMASM_THR_MEMCPY_ERMS_MIN] = level_copy == 1 ? l1 / 6 : l1 / 3;
                out[MEMASM_THR_MEMSET_ERMS_MIN] = l1 / 3;
                out[MEMASM_THR_MEMCPY_ERMS_MIN_DIST] = level_copy == 1 ? 64 : l1 / 6;
            }
            /*
             * The SSE2 kernels' loops move 16 bytes per load or store, half
             * of what the crossovers above were measured with, while rep
             * movsb/stosb run at their own speed: behind the SSE2 kernels
             * both windows open at 2 KiB, glibc's start for its SSE2
             * variant (Zen 5, against that variant: memcpy 4-16 KiB
             * 0.55-0.77x glibc with the loop, 0.96-1.02x with rep movsb;
             * memset 4-512 KiB 0.46-0.90x, 0.98-1.02x).
             */
            if (level_copy == 0) {
                out[MEMASM_THR_MEMCPY_ERMS_MIN] = 2 * KIB;
                /* Also onto a lower, overlapping dst from 2 KiB below src:
                 * the 16-byte loop lost to rep movsb there (memmove by
                 * half the size, 6-32 KiB: 0.62-0.83x glibc hot, 0.58-0.81x
                 * cold, 1.0x with rep movsb).  Closer than that, small
                 * moves keep the loop (3 KiB, 1.5 KiB apart: 0.93x, rep
                 * movsb 0.75x hot). */
                out[MEMASM_THR_MEMCPY_ERMS_MIN_DIST] = 2 * KIB;
            }
            if (level_set == 0)
                out[MEMASM_THR_MEMSET_ERMS_MIN] = 2 * KIB;
            if (strcmp(c->vendor, "AuthenticAMD") == 0 || strcmp(c->vendor, "HygonGenuine") == 0) {
                out[MEMASM_THR_MEMCPY_ERMS_MAX] = NEVER;
                out[MEMASM_THR_MEMCPY_NT_MIN] = NEVER;
                out[MEMASM_THR_MEMSET_ERMS_MAX] = NEVER;
                out[MEMASM_THR_MEMSET_NT_MIN] = NEVER;
            }
        }
    }
#elif defined(__aarch64__)
    /* dc zva: from 4 blocks (at least 256 bytes), so the aligned head and
     * the tail, done with ordinary stores, stay a small part of the fill.
     * Off when dc zva is prohibited, and when the block is under 64 bytes:
     * one dc zva per 4..32 bytes is no faster than stp, and such blocks
     * exist only in the architecture manual.  nt_min: the common formula
     * above. */
    if ((c->features & MEMASM_F_A64_DCZVA) && c->zva_size >= 64)
        out[MEMASM_THR_MEMSET_ZVA_MIN] = 256 > 4 * c->zva_size ? 256 : 4 * c->zva_size;
#endif
}

const struct memasm_threshold_def *memasm_threshold_lookup(const char *key, size_t len)
{
    for (size_t i = 0; i < memasm_threshold_defs_count; i++) {
        const char *k = memasm_threshold_defs[i].key;
        if (strlen(k) == len && memcmp(k, key, len) == 0)
            return &memasm_threshold_defs[i];
    }
    return NULL;
}

void memasm_threshold_compose(uint64_t v[MEMASM_THR_COUNT], const uint64_t given[MEMASM_THR_COUNT],
                              uint32_t mask)
{
    memasm_threshold_defaults(v);
    memasm_threshold_sanitize(v);
    for (int i = 0; i < MEMASM_THR_COUNT; i++)
        if (mask >> i & 1)
            v[i] = given[i];
    /* A window bound not given follows the one that is (memasm_threshold_set
     * does the same): a window end below the default start empties the
     * window rather than being refused. */
    for (size_t w = 0; w < memasm_threshold_windows_count; w++) {
        int lo = memasm_threshold_windows[w][0], hi = memasm_threshold_windows[w][1];
        if ((mask >> hi & 1) && !(mask >> lo & 1) && v[lo] > v[hi])
            v[lo] = v[hi];
    }
    memasm_threshold_sanitize(v);
}

void memasm_threshold_sanitize(uint64_t v[MEMASM_THR_COUNT])
{
    for (size_t i = 0; i < memasm_threshold_defs_count; i++) {
        const struct memasm_threshold_def *d = &memasm_threshold_defs[i];
        if (v[d->index] < d->min)
            v[d->index] = d->min;
        if (v[d->index] > d->max)
            v[d->index] = d->max;
    }
    for (size_t w = 0; w < memasm_threshold_windows_count; w++) {
        int lo = memasm_threshold_windows[w][0], hi = memasm_threshold_windows[w][1];
        if (v[hi] < v[lo])
            v[hi] = v[lo];
    }
    /* The backward loop's one test for "any strategy besides the plain
     * loop" (testing the two starts one after the other cost 4-5 % at
     * 2-3 KiB and 24-32 KiB). */
    v[MEMASM_THR_MEMCPY_BWD_GATE] = v[MEMASM_THR_MEMCPY_BWD_NT_MIN] < v[MEMASM_THR_MEMCPY_BWD_PREFETCH_MIN]
                                         ? v[MEMASM_THR_MEMCPY_BWD_NT_MIN]
                                         : v[MEMASM_THR_MEMCPY_BWD_PREFETCH_MIN];
}

/* ---- public API --------------------------------------------------------- */

size_t memasm_threshold_count(void)
{
    return memasm_threshold_defs_count;
}

const char *memasm_threshold_key(size_t i)
{
    return i < memasm_threshold_defs_count ? memasm_threshold_defs[i].key : NULL;
}
