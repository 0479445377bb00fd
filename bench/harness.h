/*
 * harness.h -- the parts of memasm-bench that do not measure anything.
 *
 * Size grids, the pseudo-random generator, frequency tables and sampling
 * from them, order statistics and ratios, size parsing/printing and the CSV
 * writer.  Everything here is deterministic and has unit tests in
 * bench/test-harness.c; the timing code lives in bench/engine.c.
 *
 * Assumes a hosted C11 compiler with unsigned __int128 (GCC, Clang), which
 * every target of libmemasm (x86_64, aarch64, riscv64) has.
 */
#ifndef MEMASM_BENCH_HARNESS_H
#define MEMASM_BENCH_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- size grid ---------------------------------------------------------- */

/*
 * The sweep's sizes between lo and hi inclusive: every power of two and the
 * point half-way to the next one (p * 1.5), in increasing order:
 * 1 2 3 4 6 8 12 16 24 ...  With pow2_only, powers of two alone.
 * Writes at most cap sizes to out and returns how many there are in all
 * (so a caller can size the array with a first call with cap = 0).
 */
size_t bench_size_grid(size_t lo, size_t hi, int pow2_only, size_t *out, size_t cap);

/* ---- pseudo-random numbers (xoshiro256**, seeded through splitmix64) ---- */

struct bench_rng {
    uint64_t s[4];
};

void bench_rng_seed(struct bench_rng *r, uint64_t seed);
uint64_t bench_rng_next(struct bench_rng *r);
/* Uniform integer in [0, n) (n > 0), by the multiply-high method. */
uint64_t bench_rng_below(struct bench_rng *r, uint64_t n);

/* ---- frequency tables --------------------------------------------------- */

/*
 * A discrete distribution: value[i] occurs with relative weight
 * cum[i] - cum[i-1] (cum[-1] = 0); total = cum[n-1].
 */
struct bench_dist {
    size_t n;
    uint64_t *value;
    uint64_t *cum;
    uint64_t total;
};

/*
 * Parse a tab-separated table: '#' starts a comment line, blank lines are
 * skipped.  With key == NULL every line is "value<TAB>count"; otherwise
 * every line is "key<TAB>value<TAB>count" and only lines whose first field
 * equals key are kept.  Returns 0, or -1 with a message in err (line number
 * and what is wrong).  A table with no rows or a zero total is an error.
 */
int bench_dist_parse(const char *text, const char *key, struct bench_dist *d,
                     char *err, size_t errlen);
void bench_dist_free(struct bench_dist *d);
/*
 * A mix file: what memasm-bench --mix and memasm-tune --mix read.  Either a
 * profile, as libmemasm-profile.so writes it: "key<TAB>value<TAB>count"
 * rows with the keys OP.size (bytes), OP.src and OP.dst (alignment: a
 * power of two, 1..64) for OP memcpy, memmove, memset (memset has no
 * src); or a size table of "value<TAB>count" rows (bench/data's format),
 * one for every operation, in size[0].  An operation with no calls has
 * size[op].n == 0; one with calls has every table it needs.  Returns 0, or
 * -1 with a message in err ("line N: what").
 */
enum { BENCH_MIX_MEMCPY, BENCH_MIX_MEMMOVE, BENCH_MIX_MEMSET, BENCH_MIX_OPS };
extern const char *const bench_mix_ops[BENCH_MIX_OPS];
struct bench_mix {
    int profile; /* keyed rows; 0: one size table (size[0]) */
    struct bench_dist size[BENCH_MIX_OPS], src[BENCH_MIX_OPS], dst[BENCH_MIX_OPS];
};
int bench_mix_parse(const char *text, struct bench_mix *m, char *err, size_t errlen);
void bench_mix_free(struct bench_mix *m);

/* The whole of a text file, at most max bytes, NUL-terminated (malloc'd);
 * NULL with the reason in err. */
char *bench_read_file(const char *path, size_t max, char *err, size_t errlen);

/* Draw a value: P(value[i]) = weight[i] / total. */
uint64_t bench_dist_sample(const struct bench_dist *d, struct bench_rng *r);
/* Weighted mean of the values. */
double bench_dist_mean(const struct bench_dist *d);
/* Fraction of the weight on values <= limit. */
double bench_dist_fraction_le(const struct bench_dist *d, uint64_t limit);

/*
 * An offset in [0, 64) whose alignment (largest power of two dividing it,
 * 64 for offset 0) is exactly `align` (a power of two, capped at 64):
 * align * an odd number, chosen at random.
 */
unsigned bench_offset_with_align(unsigned align, struct bench_rng *r);
/* The alignment of an offset as defined above (1..64). */
unsigned bench_align_of(uint64_t offset);

/* ---- statistics --------------------------------------------------------- */

/* Quantile q in [0, 1] of v[0..n) by linear interpolation between order
 * statistics (type 7); sorts v in place.  n must be > 0. */
double bench_quantile(double *v, size_t n, double q);
/* The median (bench_quantile(v, n, 0.5)); sorts v in place. */
double bench_median(double *v, size_t n);
/* Geometric mean of positive values. */
double bench_geomean(const double *v, size_t n);

/*
 * Paired ratios: out[i] = num[i] / den[i] for i < n (the two candidates'
 * times from the same round); returns the median of them.  out may be
 * sorted afterwards.  Zero denominators give +inf, which sorts last.
 */
double bench_paired_ratio(const double *num, const double *den, size_t n, double *out);

/* ---- sizes in text ------------------------------------------------------ */

/* "4096", "4K", "1.5M", "256M", "1G" (binary units, K = 1024) -> bytes.
 * Returns 0, or -1 for anything else (trailing junk, overflow, empty). */
int bench_parse_size(const char *s, size_t *out);
/* Shortest exact form with binary units: 1536 -> "1.5K", 1000 -> "1000".
 * Writes into buf (at least 16 bytes) and returns it. */
char *bench_format_size(size_t n, char *buf, size_t len);

/* ---- CSV (RFC 4180) ----------------------------------------------------- */

/* One field: written as is, or quoted (with doubled quotes) when it holds a
 * comma, a quote, CR or LF, or starts/ends with a space. */
void bench_csv_field(FILE *f, const char *s);
/* A whole record of n fields separated by commas and ended by LF (RFC 4180
 * says CRLF; gnuplot, spreadsheets and pandas read either, and LF keeps the
 * file friendly to grep and diff).  A NULL field is written empty. */
void bench_csv_record(FILE *f, const char *const *fields, size_t n);

#endif /* MEMASM_BENCH_HARNESS_H */
