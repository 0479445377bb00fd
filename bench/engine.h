/*
 * engine.h -- the measuring engine that memasm-bench and memasm-tune share.
 *
 * A candidate is a set of memcpy/memmove/memset functions (optionally with
 * a setup hook run before each of its samples: the tuner uses it to put a
 * candidate's thresholds in force).  A workload says which calls to make:
 * operation, alignment, hot/cold/edge, a size table (mix), and whether every
 * call is followed by one read pass over its destination.  The engine owns
 * the buffers and the worker threads, builds the call tables, takes samples
 * (repeating the preempted ones), and measures a point: every candidate
 * interleaved over rounds, medians and paired ratios to a reference.
 *
 * One timer, one place: bench/README.md explains the method.  Assumes Linux
 * (sched_setaffinity, getrusage per thread) and a C11 compiler.
 */
#ifndef MEMASM_BENCH_ENGINE_H
#define MEMASM_BENCH_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "harness.h"

typedef void *(*copy_fn)(void *, const void *, size_t);
typedef void *(*set_fn)(void *, int, size_t);

/* ---- candidates --------------------------------------------------------- */

enum { MAX_CANDS = 16 };

struct cand {
    char name[40];  /* column label                                          */
    char desc[200]; /* what it is, or why it is not available                */
    int available;
    copy_fn cpy;    /* NULL: does not implement memcpy                        */
    copy_fn mov;    /* NULL: does not implement memmove                       */
    set_fn set;     /* NULL: does not implement memset                        */
    /* Run by the main thread before every sample of this candidate (while
     * the other threads wait), or NULL. */
    void (*setup)(const struct cand *);
    const void *ctx; /* the setup hook's data */
};

/* ---- workloads ---------------------------------------------------------- */

enum op_kind { OP_MEMCPY, OP_MOVE_FWD, OP_MOVE_BWD, OP_MEMSET, OP_KINDS };
extern const char *const op_names[OP_KINDS];

enum align_kind { AL_ALIGNED, AL_RANDOM, AL_ALIAS4K, AL_NEAR, AL_TABLE, AL_KINDS };
extern const char *const align_names[AL_KINDS];

/* Temperatures, in the order of --temp's bits (1 hot, 2 cold, 4 edge). */
extern const char *const temp_names[3];

struct workload {
    enum op_kind op;
    enum align_kind align;
    int cold;
    int edge;         /* hot, the line past each buffer flushed per call */
    int mix;          /* sizes from a frequency table, one point */
    int readback;     /* each call followed by a read of its destination */
    int zero;         /* memset: fill with 0 (aarch64 dc zva), not 0x5a */
    size_t delta;     /* memmove: |dst - src|, 0 for the default (n / 2) */
    char name[64];
};

const char *temp_name(const struct workload *wl);
int cand_has_op(const struct cand *c, enum op_kind op);

/* Edge runs need a cache-line flush (x86_64, aarch64); so does a cold
 * sample of any size (elsewhere cold is a walk through a pool). */
#if defined(__x86_64__) || defined(__aarch64__)
#define HAVE_EDGE 1
#define HAVE_FLUSH 1
#else
#define HAVE_EDGE 0
#define HAVE_FLUSH 0
#endif

/* Sizes of the calls the built-in mixes draw stay below this; a --mix
 * file's go up to MIX_FILE_MAX (larger ones are made at that size). */
#define MIX_MAX_SIZE 4096
#define MIX_FILE_MAX ((size_t)16 << 20)
/* Largest size an edge run measures. */
#define EDGE_MAX_SIZE ((size_t)1024)

/* ---- settings ----------------------------------------------------------- */

struct engine_opts {
    int threads;        /* threads copying at once (1..256)              */
    int pin;            /* -1: leave threads to the scheduler            */
    int rounds;         /* samples per candidate and point               */
    double min_time_us; /* shortest sample (cold samples: 5 x this)      */
    uint64_t seed;      /* sizes and offsets of the varying tables       */
};
extern struct engine_opts eng;

/* Samples taken, taken again after a preemption, and kept preempted. */
extern uint64_t n_samples, n_preempted, n_kept_preempted;

uint64_t now_ns(void);

/* ---- set-up ------------------------------------------------------------- */

/* Load the built-in size and alignment tables (exits on a broken table). */
void eng_load_tables(void);
/* Replace the mixes' tables by those of the mix file at path (harness.h,
 * bench_mix_parse: a profile, per operation, or one size table for every
 * operation with the built-in alignments); calls above MIX_FILE_MAX are
 * made at that size, with one line on stderr.  Call after eng_load_tables,
 * before eng_hot_len.  Returns 0, or -1 with a message in err. */
int eng_load_mix(const char *path, char *err, size_t errlen);
/* The sizes op's mix draws, or NULL when the mix file has no such calls. */
const struct bench_dist *eng_mix_sizes(enum op_kind op);

/* The hot arena that sweeps up to max_n bytes of these workloads need. */
size_t eng_hot_len(const struct workload *wls, int nwls, size_t max_n);

/* Map each thread's buffers and start the threads (eng.threads). */
void workers_start(size_t hot_len, size_t cold_len);
void workers_stop(void);
/* Every candidate copies and fills for ms milliseconds: clocks up, wide
 * vectors powered, code touched, before the first timed point. */
void eng_spin_up(const struct cand *cands, int ncands, unsigned ms);

/* ---- measuring a point -------------------------------------------------- */

struct cres {
    int status;     /* 0 measured, 1 not available, 2 not applicable */
    double ns;      /* median ns per call (per thread)              */
    double gbps;    /* aggregate bytes / median time                */
    double ratio;   /* median of time(ref)/time(cand) per round     */
    double r_lo, r_hi; /* quartiles of those ratios                  */
};

struct row {
    int wl;          /* the caller's index of the workload */
    size_t size;     /* 0 for a mix                  */
    double mean_size;
    size_t iters;
    struct cres c[MAX_CANDS];
};

/*
 * Measure workload wl at size n (ignored for a mix) for candidates
 * cands[0..ncands): calibrate the batch on cands[ref] (or the first
 * candidate that can run it) to last eng.min_time_us, one warm-up sample
 * each, then eng.rounds rounds with the order rotating per round.  Fills
 * row (row->wl is left to the caller); ratios are against cands[ref], NaN
 * when the reference cannot run the workload.
 */
void eng_measure(const struct workload *wl, size_t n, const struct cand *cands, int ncands, int ref,
                 struct row *row);

#endif /* MEMASM_BENCH_ENGINE_H */
