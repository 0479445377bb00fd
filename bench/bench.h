/*
 * bench.h -- the pieces of memasm-bench and what they share (internal).
 *
 *   memasm-bench.c  main: set-up and the run, workload by workload
 *   options.c       the command line, the candidates it names
 *   candidates.c    the candidates: libmemasm, the system libc, the peers,
 *                   single kernels, other libmemasm builds
 *   workloads.c     which workloads and sizes a run measures
 *   report.c        the header, the tables as they run, the CSV, the
 *                   self-check's verdict, --list
 *   plot.c          --plot through gnuplot
 *
 * The measuring itself is bench/engine.c (shared with memasm-tune).
 */
#ifndef MEMASM_BENCH_BENCH_H
#define MEMASM_BENCH_BENCH_H

#include <stddef.h>
#include <stdio.h>

#include "engine.h"

/* ---- options (options.c) ------------------------------------------------ */

struct bench_opts {
    int full;
    unsigned ops;       /* bit per enum op_kind                  */
    unsigned aligns;    /* bit per enum align_kind (sweeps)      */
    unsigned temps;     /* 1 hot, 2 cold, 4 edge                 */
    int sweeps, mixes;  /* which kinds of workload               */
    size_t size_lo, size_hi;
    int pow2;
    int sizes_given;
    int readback;       /* each call followed by a read of its destination */
    const char *csv;
    const char *plot;
    const char *ref;
    const char *self_check;
    size_t cold_pool;
    size_t llc;
    const char *mix;    /* --mix FILE: the mixes' calls              */
};
extern struct bench_opts opt;

/* Parse the command line into opt, eng and the candidates; returns -1 to
 * go on, or the exit status (after the message, or after --help/--list). */
int bench_options(int argc, char **argv);

/* ---- candidates (candidates.c) ------------------------------------------ */

extern struct cand cands[MAX_CANDS];
extern int ncands;
extern int ref_index; /* the reference of the ratios */

const char *sys_libc_name(void);
/* Add the built-in candidate called name; returns 0, -1 if unknown. */
int cand_add_builtin(const char *name);
/* Add another libmemasm build, NAME=PATH; 0, or -1 after a message. */
int cand_add_lib(const char *arg);
/* Add kernel NAME from libmemasm's master list; 0, or -1 after a message. */
int cand_add_kernel(const char *name);

/* ---- workloads (workloads.c) -------------------------------------------- */

extern struct workload *wls;
extern int nwls;

/* Above this the quick run takes powers of two only. */
#define QUICK_FINE_MAX ((size_t)1 << 20)

size_t llc_size(void);
size_t cold_max_size(void);
/* Whether a cold sweep measures size n. */
int cold_size_wanted(size_t n);
/* Largest size a sweep of this workload measures. */
size_t sweep_max_size(const struct workload *wl);
/* The workloads the options select, into wls[0..nwls). */
void plan_workloads(void);

/* ---- report (report.c) -------------------------------------------------- */

extern struct row *rows;
extern size_t nrows;
extern FILE *csv_file;

struct row *row_new(void);
void print_header(void);
void print_table_header(const struct workload *wl);
void print_row(const struct workload *wl, const struct row *row);
void csv_header(void);
void csv_row(const struct workload *wl, const struct row *row);
/* The self-check's distribution and verdict; the exit status. */
int self_check_report(void);
void list_and_exit(void);

/* ---- plot (plot.c) ------------------------------------------------------ */

void plot(const char *png);

#endif /* MEMASM_BENCH_BENCH_H */
