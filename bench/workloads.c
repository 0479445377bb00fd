/*
 * workloads.c -- which workloads and sizes a memasm-bench run measures:
 * the quick set, --full, and the filters of the command line.
 */
#include "config.h"

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

struct workload *wls;
int nwls;

size_t llc_size(void)
{
    long v = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    v = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (v <= 0)
        v = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return v > 0 ? (size_t)v : 0;
}

/* Cold sweeps.  With a cache flush before every sample (x86_64, aarch64)
 * every size can be measured cold: the sweep goes up to the size whose
 * source and destination slots still fit the pool (half of it each).  The
 * quick run takes the sizes up to 1 MiB and the powers of two from 64 MiB
 * (the range where a copy streams from memory and non-temporal stores and
 * rep movsb are chosen); --full and --sizes take every size.  Without a
 * flush (riscv64) cold means a pool walk, which only makes a call cold if
 * it is small against the pool and the last-level cache is smaller still,
 * so the sweep stops at the LLC (8 MiB if unknown) and at a sixteenth of
 * the pool, and at 1 MiB in the quick run. */
#define QUICK_COLD_LOW ((size_t)1 << 20)
#define QUICK_COLD_HIGH ((size_t)64 << 20)

size_t cold_max_size(void)
{
#if HAVE_FLUSH
    return opt.cold_pool / 2 - 4096;
#else
    size_t m = opt.llc ? opt.llc : (size_t)8 << 20;
    if (!opt.full && m > QUICK_COLD_LOW)
        m = QUICK_COLD_LOW;
    if (m > opt.cold_pool / 16)
        m = opt.cold_pool / 16;
    return m;
#endif
}

/* Whether a cold sweep measures size n. */
int cold_size_wanted(size_t n)
{
    if (n > cold_max_size())
        return 0;
    if (opt.full || opt.sizes_given || !HAVE_FLUSH)
        return 1;
    return n <= QUICK_COLD_LOW || (n >= QUICK_COLD_HIGH && !(n & (n - 1)));
}

static void add_workload(enum op_kind op, enum align_kind al, int cold, int mix, int edge)
{
    wls = realloc(wls, (size_t)(nwls + 1) * sizeof *wls);
    if (!wls)
        exit(1);
    struct workload *w = &wls[nwls++];
    w->op = op;
    w->align = al;
    w->cold = cold;
    w->edge = edge;
    w->mix = mix;
    w->readback = opt.readback;
    if (mix && opt.mix) {
        const char *base = strrchr(opt.mix, '/');
        snprintf(w->name, sizeof w->name, "%s mix (%.32s), %s", op_names[op], base ? base + 1 : opt.mix,
                 temp_name(w));
    } else if (mix) {
        snprintf(w->name, sizeof w->name, "%s mix (SPEC CPU2017 sizes and alignments), %s", op_names[op],
                 temp_name(w));
    }
    else
        snprintf(w->name, sizeof w->name, "%s %s %s", op_names[op], align_names[al], temp_name(w));
}

/* Quick run without --sizes: the aligned hot sweeps go to the top size, the
 * others stop at QUICK_SIDE_MAX; above QUICK_FINE_MAX powers of two only. */
#define QUICK_SIDE_MAX ((size_t)4 << 20)

size_t sweep_max_size(const struct workload *wl)
{
    if (wl->edge)
        return opt.size_hi < EDGE_MAX_SIZE ? opt.size_hi : EDGE_MAX_SIZE;
    if (opt.full || opt.sizes_given || wl->align == AL_ALIGNED)
        return opt.size_hi;
    return opt.size_hi < QUICK_SIDE_MAX ? opt.size_hi : QUICK_SIDE_MAX;
}

/* The default (quick) set, or everything with --full; filtered by options. */
void plan_workloads(void)
{
    unsigned ops = opt.ops ? opt.ops : (1u << OP_KINDS) - 1;
    for (int op = 0; op < OP_KINDS; op++) {
        if (!(ops & 1u << op) || !opt.sweeps)
            continue;
        for (int al = 0; al < AL_TABLE; al++) {
            if (al == AL_ALIAS4K && (op == OP_MEMSET || op == OP_MOVE_FWD || op == OP_MOVE_BWD))
                continue; /* aliasing is about a source and a separate destination */
            if (al == AL_NEAR && (op == OP_MEMSET || op == OP_MEMCPY))
                continue; /* the distance of an overlapping move */
            for (int cold = 0; cold < 2; cold++) {
                int chosen;
                if (opt.aligns || opt.temps)
                    chosen = (!opt.aligns || (opt.aligns & 1u << al)) && (!opt.temps || (opt.temps & 1u << cold));
                else if (opt.full)
                    chosen = 1;
                else /* quick: aligned hot for all, plus the cases that tell most */
                    chosen = (al == AL_ALIGNED && !cold) || (op == OP_MEMCPY && al == AL_RANDOM && !cold) ||
                             (op == OP_MEMCPY && al == AL_ALIAS4K && !cold) || (al == AL_NEAR && !cold) ||
                             (al == AL_ALIGNED && cold && (op == OP_MEMCPY || op == OP_MEMSET));
                if (chosen)
                    add_workload((enum op_kind)op, (enum align_kind)al, cold, 0, 0);
            }
            /* Edge runs: memcpy and memset, at the small sizes where an
             * implementation may reach past the bytes it was given. */
            if (HAVE_EDGE && (op == OP_MEMCPY || op == OP_MEMSET)) {
                int chosen;
                if (opt.aligns || opt.temps)
                    chosen = (!opt.aligns || (opt.aligns & 1u << al)) && (!opt.temps || (opt.temps & 4u));
                else
                    chosen = opt.full || al == AL_RANDOM;
                if (chosen)
                    add_workload((enum op_kind)op, (enum align_kind)al, 0, 0, 1);
            }
        }
    }
    if (!opt.mixes)
        return;
    for (int op = 0; op < OP_KINDS; op++) {
        if (op == OP_MOVE_BWD || !(ops & 1u << op))
            continue;
        if (opt.mix && !eng_mix_sizes((enum op_kind)op))
            continue; /* the file has no such calls */
        if (op == OP_MOVE_FWD && !opt.full && !opt.ops && !opt.mix)
            continue;
        for (int cold = 0; cold < 2; cold++)
            if (!opt.temps || (opt.temps & 1u << cold))
                add_workload((enum op_kind)op, AL_TABLE, cold, 1, 0);
    }
}
