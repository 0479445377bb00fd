/*
 * memasm-bench.c -- measure libmemasm's memcpy/memmove/memset side by side
 * with the system C library, LLVM libc and musl, in one process.
 *
 * Method (bench/README.md explains it at length):
 *   - Every candidate is called through a function pointer from the same
 *     timing loop (one loop for copies, one for memset), so the compiler can
 *     neither inline nor elide any of them and all pay the same call cost.
 *   - A "point" is one workload at one size.  For each point the loop runs a
 *     table of calls (destination, source, size): identical calls for a hot
 *     sweep, varying offsets for random alignment, rotating slots of a pool
 *     larger than the last-level cache for cold runs, sizes drawn from a
 *     published frequency table for the mixes.
 *   - Per point: every candidate warms up, the batch length is calibrated on
 *     the reference so one sample lasts at least --min-time, then R rounds
 *     follow; in each round every candidate runs one sample, and the order
 *     rotates from round to round (A B C, B C A, C A B, ...) so that drift
 *     and position effects hit every candidate alike.
 *   - A candidate's time is the median of its samples; its ratio to the
 *     reference is the median of the per-round ratios time(ref)/time(cand)
 *     (paired, so slow drift cancels), > 1 meaning faster than the reference.
 *   - Clock: CLOCK_MONOTONIC around each batch.  A batch lasts >= 100 us, so
 *     the clock's own cost (~20-30 ns) is below 0.05% of a sample.
 *
 * Assumes Linux (sched_setaffinity, sysconf cache sizes) and a C11 compiler.
 */
#include "config.h"

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "memasm.h"
#include "bench.h"

int main(int argc, char **argv)
{
    int rc = bench_options(argc, argv);
    if (rc >= 0)
        return rc;

    eng_load_tables();
    if (opt.mix) {
        char err[256];
        if (eng_load_mix(opt.mix, err, sizeof err) != 0) {
            fprintf(stderr, "memasm-bench: --mix %s: %s\n", opt.mix, err);
            return 2;
        }
    }

    plan_workloads();
    if (nwls == 0) {
        fprintf(stderr, "memasm-bench: the options select no workload\n");
        return 2;
    }

    /* Sizes of each sweep. */
    size_t hi = opt.size_hi;
    size_t ngrid = bench_size_grid(opt.size_lo, hi, opt.pow2, NULL, 0);
    size_t *grid = calloc(ngrid + 1, sizeof *grid);
    bench_size_grid(opt.size_lo, hi, opt.pow2, grid, ngrid);

    /* Buffers: the largest hot footprint, and the cold pool if needed. */
    size_t hot_len = eng_hot_len(wls, nwls, ngrid ? grid[ngrid - 1] : 0);
    int any_cold = 0;
    for (int w = 0; w < nwls; w++)
        any_cold |= wls[w].cold;
    if (!HAVE_EDGE && (opt.temps & 4u))
        fprintf(stderr, "memasm-bench: edge runs need a cache-line flush (x86_64, aarch64): none on this machine\n");

    if (opt.csv) {
        csv_file = fopen(opt.csv, "w");
        if (!csv_file) {
            fprintf(stderr, "memasm-bench: cannot write %s: %s\n", opt.csv, strerror(errno));
            return 1;
        }
        csv_header();
    }
    print_header();
    workers_start(hot_len, any_cold ? opt.cold_pool : 0);

    /* Spin the machine up before the first point, so that clock ramp-up,
     * wide-vector power-up and the first touches of code do not land on
     * the first point of the first table. */
    eng_spin_up(cands, ncands, 200);

    uint64_t t_start = now_ns();
    for (int w = 0; w < nwls; w++) {
        const struct workload *wl = &wls[w];
        uint64_t t_wl = now_ns();
        size_t wmax = sweep_max_size(wl);
        print_table_header(wl);
        if (wl->mix) {
            struct row *r = row_new();
            r->wl = w;
            eng_measure(wl, 0, cands, ncands, ref_index, r);
            print_row(wl, r);
            if (csv_file)
                csv_row(wl, r);
            continue;
        }
        for (size_t i = 0; i < ngrid; i++) {
            if (grid[i] > wmax)
                break;
            if (wl->cold && !cold_size_wanted(grid[i]))
                continue;
            if (!opt.full && !opt.sizes_given && grid[i] > QUICK_FINE_MAX && (grid[i] & (grid[i] - 1)))
                continue; /* quick run: powers of two only above 1 MiB */
            struct row *r = row_new();
            r->wl = w;
            eng_measure(wl, grid[i], cands, ncands, ref_index, r);
            print_row(wl, r);
            if (csv_file)
                csv_row(wl, r);
        }
        printf("   (%.1f s)\n", (double)(now_ns() - t_wl) / 1e9);
    }
    printf("\nelapsed: %.1f s; %llu samples, %llu (%.1f%%) discarded and taken again because the thread was "
           "preempted, %llu long or repeatedly preempted ones kept\n",
           (double)(now_ns() - t_start) / 1e9, (unsigned long long)n_samples, (unsigned long long)n_preempted,
           n_samples ? 100.0 * (double)n_preempted / (double)n_samples : 0.0,
           (unsigned long long)n_kept_preempted);
    workers_stop();
    if (csv_file) {
        fclose(csv_file);
        printf("csv: wrote %s\n", opt.csv);
    }
    if (opt.plot)
        plot(opt.plot);
    rc = 0;
    if (opt.self_check)
        rc = self_check_report();
    free(grid);
    return rc;
}

