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
    [MEMASM_THR_MEMCPY_ALIAS_NT_MIN] = NEVER,
};

const uint64_t *volatile memasm_thr = thr_static;

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
     "memcpy/memmove: the backward loop stores non-temporally when size and dst - src are both this or more"},
    {"memcpy.alias_nt_min", MEMASM_THR_MEMCPY_ALIAS_NT_MIN, 512, NEVER,
     "memcpy/memmove: non-temporal stores from this size instead of rep movsb when dst - src is 1-255 bytes above "
     "a multiple of 4 KiB and not a multiple of 64 (no overlap)"},
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
         * Measured on AMD Zen 5 (48 KiB L1d, 1 MiB L2, L3 reported as
         * 508 MiB for the whole package), asm/x86_64/README.md has the
         * figures.  Unknown sizes fall back to 48 KiB / 1 MiB / 32 MiB.
         *
         * memcpy: the 4xVEC loop runs 1.5-1.8x glibc while source and
         * destination fit in L1d together (2n <= L1d) and drops to half of
         * rep movsb's rate right after; rep movsb stays ahead of glibc
         * (which leaves it above L2 on AMD) up to 64 MiB hot.  So the
         * window opens at 9/16 L1d (27 KiB here, just past 2n = L1d).
         * FSRM did not make rep movsb win below that (0.93-1.0x glibc at
         * 2-24 KiB against 1.5-1.7x for the loop), so it does not lower
         * erms_min.  Beyond that, on AMD (Zen, and Hygon's Zen-based
         * parts) rep movsb has no upper end: from 64 to 512 MiB, hot and
         * cold (every line flushed first) and with both cores copying at
         * once, it ran 1.21-1.36x glibc against 1.12-1.24x for
         * non-temporal stores (memasm-bench, medians of 3 runs), level with
         * musl's rep movsq.  Elsewhere non-temporal stores start where a
         * copy would evict most of one core's share of L3: one eighth of
         * L3 (big parts report the L3 of up to 8 core complexes), at least
         * 16 x L2, and rep movsb stops there.
         *
         * memset: the 4xVEC loop wins (1.45-1.75x) up to half of L2 and
         * falls behind rep stosb at the L2 size; rep stosb from 3/4 L2
         * (what glibc does from 2 KiB, so parity).  From 32 MiB every
         * strategy runs at the memory's speed: rep stosb 0.99-1.02x glibc
         * hot and cold, non-temporal stores 0.97-1.0x, so on AMD rep stosb
         * has no upper end either; elsewhere non-temporal stores from
         * 64 x L2 (where an earlier, noisier harness saw them ahead).
         */
        uint64_t l1 = c->l1d ? c->l1d : 48 * KIB;
        uint64_t l2 = c->l2 ? c->l2 : 1 * MIB;
        uint64_t l3 = c->l3 ? c->l3 : 32 * MIB;
        uint64_t cpy_nt = l3 / 8 > 16 * l2 ? l3 / 8 : 16 * l2;
        out[MEMASM_THR_MEMCPY_NT_MIN] = cpy_nt;
        out[MEMASM_THR_MEMSET_NT_MIN] = 64 * l2;
        /*
         * A forward rep movsb onto a lower, overlapping dst runs at half
         * speed or worse when dst is close below src: with src - dst from
         * 64 bytes to 20 KiB, a move of 1-16 MiB ran 0.31-0.95x glibc
         * (whose rep movsb stops at L2 on AMD) where the 4xVEC loop ran
         * 0.93-1.09x, and below 1 MiB the loop ran 1.0-1.85x against
         * rep movsb's 0.94-1.05x; from 28 KiB apart rep movsb was ahead
         * (1.0-1.39x), at 24 KiB the two were level.  (Throwaway harness,
         * medians of 7.)  So rep movsb needs src - dst >= L1d / 2, on top
         * of the [0, 64) modulo 4 GiB case of glibc bug 30994, which the
         * kernel always avoids.
         */
        out[MEMASM_THR_MEMCPY_ERMS_MIN_DIST] = l1 / 2;
        /*
         * The AVX-512 kernel's backward loop (memmove onto a higher,
         * overlapping dst, and the 4K-aliasing case; the AVX2 and SSE2
         * loops do without, asm/x86_64/memmove.inc) gets no help from the
         * hardware prefetchers here: from 64 to 384 KiB, in L2, it ran at glibc's speed (whose
         * loop is the same, 0.99-1.03x) until it prefetched the source
         * 1 KiB below its loads, then 1.09-1.23x (memasm-bench, medians of
         * 5 runs).  From 640 KiB (source and destination together past L2)
         * the same prefetches cost 5-20 % up to 16 MiB in a harness, and
         * the bench saw no gain at 512 KiB; below 64 KiB it lost (48 KiB
         * 0.84-0.99x of the plain loop, and 5 % for the copies of 6-16 KiB
         * in L1d that the 4K-aliasing case sends backward).  So from 4/3 of
         * L1d to half of L2.
         */
        out[MEMASM_THR_MEMCPY_BWD_PREFETCH_MIN] = l1 / 3 * 4;
        out[MEMASM_THR_MEMCPY_BWD_PREFETCH_MAX] = l2 / 2;
        /*
         * Non-temporal stores in the backward loop pay when the lines it
         * stores were read (as source, dst - src bytes earlier) long enough
         * ago to have left the caches, and the move is too big to stay in
         * L3: at 64 MiB, 1.35-1.40x glibc with dst - src from 1 to 8 MiB,
         * parity at 512 KiB, 0.63-0.87x below; at 16 MiB only from 8 MiB
         * apart (1.09x, 0.86-0.90x at 2-4 MiB); with the two 64 bytes or
         * 4 KiB apart 0.38-0.82x at any size.  So both the size and the
         * distance from 8 x L2.  (rep movsb, the forward copy's strategy
         * there, cannot run backward at speed.)
         */
        out[MEMASM_THR_MEMCPY_BWD_NT_MIN] = 8 * l2;
        /*
         * Disjoint copies whose pointers alias modulo 4 KiB while mutually
         * misaligned (dst - src in [1, 256) mod 4096, not a multiple of
         * 64): any cached copy, rep movsb or the vector loop, ran them at
         * 22 GB/s where mutually aligned pointers reach 33, and below glibc
         * from 128 MiB (0.84-0.98x; glibc stores non-temporally there).
         * The backward loop with non-temporal stores does not mind the
         * aliasing (memasm-bench --align alias4k, 32-64 MiB: 1.06-1.51x
         * glibc against 1.02-1.12x), but it leaves the destination out of
         * the caches: a copy from a cached source followed by one read of
         * the destination took up to 1.3x as long with it at 12-24 MiB;
         * from 32 MiB the pair ran 0.96-1.12x as fast as with rep movsb
         * (throwaway harness, 3 runs).  So from 32 x L2 (which is one
         * Zen 5 CCD's L3).
         */
        out[MEMASM_THR_MEMCPY_ALIAS_NT_MIN] = 32 * l2;
        if (c->features & MEMASM_F_X86_ERMS) {
            out[MEMASM_THR_MEMCPY_ERMS_MIN] = l1 / 16 * 9;
            out[MEMASM_THR_MEMCPY_ERMS_MAX] = cpy_nt;
            out[MEMASM_THR_MEMSET_ERMS_MIN] = l2 / 4 * 3;
            out[MEMASM_THR_MEMSET_ERMS_MAX] = 64 * l2;
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
     * loop": with the two starts tested one after the other, 2-3 KiB and
     * 24-32 KiB moves ran 4-5 % slower (memasm-bench, medians of 5). */
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
