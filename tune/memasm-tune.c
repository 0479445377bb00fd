/*
 * memasm-tune -- measure where each of libmemasm's strategies wins on this
 * machine and write the configuration file (memasm.conf(5)) that the
 * library reads at start-up.  memasm-tune(1) is the user's manual.
 *
 * How, in order (tune/README.md has the reasoning and the figures):
 *   1. The ISA level: each level the CPU has, against the highest, on the
 *      size mixes and a sweep of small and medium sizes; a lower level is
 *      kept only when it is clearly faster.  (--isa names it instead.)
 *   2. Every threshold key of the architecture, one "knob" at a time, in
 *      the order the kernels consult them (a window before the strategy
 *      that overrides it), each with the knobs before it already tuned: at
 *      each size of a grid, strategy A alone against strategy B alone
 *      (the same entry points, two threshold sets, interleaved round by
 *      round by the measuring engine memasm-bench uses), over a few
 *      workloads (alignments, hot and cold sources, 4K aliasing, overlap);
 *      then the value of least total loss (tune/crossover.c).  A default
 *      stays unless the new value wins by more than the noise band, on
 *      that pass and again on a second pass over the sizes where the two
 *      differ.
 *   3. Proof: on sizes between the grid points (never used to choose), the
 *      defaults, the tuned file and the better of A and B at each size
 *      (the oracle), and the size mixes with the defaults against the
 *      tuned file.  Printed in the summary and kept in the file.  A
 *      value the proof finds slower than its default is taken back.
 * With --repeat N, steps 1 and 2 run N times and a value is written only
 * where all N chose it.
 * By default every copy is followed by one read of its destination (the
 * cost a program pays for data it goes on to use; non-temporal stores win
 * a bare copy benchmark and lose that read); --objective stream times the
 * copy alone.
 *
 * It drives the library through its control API (memasm_isa_set_cap,
 * memasm_threshold_set), so what it measures is what will run, and writes
 * the file with the library's own writer.  Linked statically, so it tunes
 * the library it was built with.
 */
#include "config.h"

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crossover.h"
#include "engine.h"
#include "harness.h"
#include "memasm-internal.h"
#include "memasm.h"
#include "tunefile.h"

#define NEVER SIZE_MAX
#define MAX_KEYS 16
#define MAX_POINTS 64
#define MAX_VERIFY 10
#define MAX_TRIES 3
#define MAX_REPEAT 9
/* Differences within this band are noise (paired medians of a shared VM
 * agree to about 1 %); it is also the margin a new value must win by. */
#define EPS 0.02

/* ---- options ------------------------------------------------------------ */

static struct {
    const char *output;
    int quick;
    int force;
    int stream; /* --objective stream: the copy alone */
    int threads;
    const char *mix;
    int verbose;
    int no_verify;
    int isa; /* --isa: the level to tune at (not measured), or -1 */
    int repeat; /* --repeat: how many times the choices are made */
} opt = {.output = "memasm.conf", .threads = 1, .isa = -1, .repeat = 1};

static char options_text[512]; /* the command line, for the file's header */

/* ---- configurations ----------------------------------------------------- */

/* A full set of thresholds (in memasm_threshold_key order) and an ISA cap. */
struct tcfg {
    size_t v[MAX_KEYS];
    int isa;
};

static size_t nkeys;
static struct tcfg cfg_default;

static int key_index(const char *key)
{
    for (size_t i = 0; i < nkeys; i++)
        if (strcmp(memasm_threshold_key(i), key) == 0)
            return (int)i;
    return -1;
}

static size_t cfg_get(const struct tcfg *c, const char *key)
{
    int i = key_index(key);
    return i < 0 ? NEVER : c->v[i];
}

static void cfg_set(struct tcfg *c, const char *key, size_t v)
{
    int i = key_index(key);
    if (i >= 0)
        c->v[i] = v;
}

/* What is in force now. */
static void cfg_read(struct tcfg *c)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < nkeys; i++)
        memasm_threshold_get(memasm_threshold_key(i), &c->v[i]);
    c->isa = memasm_isa_cap();
}

/*
 * Put c in force.  Keys are set one by one, so a window bound can be moved
 * by its partner's ordering rule on the way; a second pass settles every
 * key at its value.  Values outside a key's legal range are clamped by the
 * library (a strategy "from 0" becomes "from the least legal size").
 */
static void cfg_apply(const struct tcfg *c)
{
    if (memasm_isa_cap() != c->isa)
        memasm_isa_set_cap(memasm_isa_name(c->isa));
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < nkeys; i++) {
            size_t now;
            const char *k = memasm_threshold_key(i);
            if (memasm_threshold_get(k, &now) == 0 && now != c->v[i])
                memasm_threshold_set(k, c->v[i], NULL);
        }
}

/* c as the library stores it (clamped), by applying and reading back. */
static void cfg_normalize(struct tcfg *c)
{
    cfg_apply(c);
    cfg_read(c);
}

static void setup_hook(const struct cand *c)
{
    cfg_apply((const struct tcfg *)c->ctx);
}

static void make_cand(struct cand *out, const char *name, const struct tcfg *c)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", name);
    out->available = 1;
    struct memasm_entries e; /* what libmemasm.so's callers run here */
    memasm_entries_bound(&e);
    out->cpy = e.cpy;
    out->mov = e.mov;
    out->set = e.set;
    out->setup = setup_hook;
    out->ctx = c;
}

/* ---- text --------------------------------------------------------------- */

/* 48K, 1.5M, never. */
static const char *sz(size_t v, char *buf, size_t len)
{
    if (v == NEVER)
        snprintf(buf, len, "never");
    else
        bench_format_size(v, buf, len);
    return buf;
}

/* printf at buf + *len, advancing *len; at cap the text is cut short, never
 * overrun. */
static void append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (*len < cap) {
        int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
        if (n > 0)
            *len += (size_t)n < cap - *len ? (size_t)n : cap - *len - 1;
    }
    va_end(ap);
}

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "memasm-tune: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* ---- progress ----------------------------------------------------------- */

/* Work is counted in points weighted by their cost, a guess that only
 * drives the time-left estimate: 1 per point plus 1 per 2 MiB of size. */
static double work_total, work_done;
static uint64_t t_begin;
static int tty;
static char step_name[80];
static int step_no, step_count;

static double point_weight(size_t n, int nwl)
{
    return nwl * (1.0 + (double)n / (2 << 20));
}

static void progress(const char *what)
{
    if (!tty)
        return;
    double f = work_total > 0 ? work_done / work_total : 0;
    if (f > 1)
        f = 1;
    double el = (double)(now_ns() - t_begin) / 1e9;
    double left = f > 0.02 ? el / f - el : -1;
    char bar[31];
    int fill = (int)(f * 30);
    for (int i = 0; i < 30; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[30] = 0;
    if (left >= 0)
        fprintf(stderr, "\r\033[K[%s] %3.0f%%  step %d/%d %s %s  ~%.0f s left", bar, 100 * f, step_no, step_count,
                step_name, what, left);
    else
        fprintf(stderr, "\r\033[K[%s] %3.0f%%  step %d/%d %s %s", bar, 100 * f, step_no, step_count, step_name, what);
}

static void step_begin(const char *name)
{
    step_no++;
    snprintf(step_name, sizeof step_name, "%s", name);
    if (tty)
        progress("");
    else
        fprintf(stderr, "memasm-tune: step %d/%d: %s (%.0f s so far)\n", step_no, step_count, name,
                (double)(now_ns() - t_begin) / 1e9);
}

/* ---- measuring ---------------------------------------------------------- */

/* Workloads of one measurement: the same size for each. */
struct wlset {
    struct workload w[4];
    int n;
};

static void wl_add(struct wlset *s, enum op_kind op, enum align_kind al, int cold)
{
    struct workload *w = &s->w[s->n++];
    memset(w, 0, sizeof *w);
    w->op = op;
    w->align = al;
    w->cold = cold;
    w->readback = !opt.stream;
    snprintf(w->name, sizeof w->name, "%s %s %s", op_names[op], align_names[al], cold ? "cold" : "hot");
}

/*
 * Time each candidate on every workload of s at size n, with cands[ref] as
 * the reference; out[k] = geometric mean over the workloads of
 * time(cands[k]) / time(cands[ref]) (paired medians), spread[k] the widest
 * half inter-quartile range of those ratios, relative.
 */
static void measure(const struct wlset *s, size_t n, const struct cand *cands, int ncands, int ref, double *out,
                    double *spread)
{
    double lsum[MAX_CANDS] = {0};
    for (int k = 0; k < ncands; k++)
        spread[k] = 0;
    for (int w = 0; w < s->n; w++) {
        struct row row;
        memset(&row, 0, sizeof row);
        eng_measure(&s->w[w], n, cands, ncands, ref, &row);
        for (int k = 0; k < ncands; k++) {
            const struct cres *c = &row.c[k];
            double r = c->status == 0 && c->ratio > 0 ? 1 / c->ratio : 1; /* ratio = t(ref)/t(k) */
            lsum[k] += log(r);
            if (c->status == 0 && c->ratio > 0) {
                double sp = (c->r_hi - c->r_lo) / 2 / c->ratio;
                if (sp > spread[k])
                    spread[k] = sp;
            }
        }
        work_done += point_weight(n, 1);
        char b[16];
        progress(sz(n, b, sizeof b));
    }
    for (int k = 0; k < ncands; k++)
        out[k] = exp(lsum[k] / s->n);
}

/* Quantile q of v[0..n) (n <= MAX_VERIFY), v left as it is. */
static double quantile_of(const double *v, size_t n, double q)
{
    double tmp[MAX_VERIFY];
    memcpy(tmp, v, n * sizeof *v);
    return bench_quantile(tmp, n, q);
}

/* ---- knobs -------------------------------------------------------------- */

enum knob_kind {
    K_SINGLE, /* B from key up                                          */
    K_WINDOW, /* B on [key, key_hi)                                     */
    K_DIST,   /* B when the move distance is key or more (fixed size)   */
    K_HALF,   /* B when size and distance are key or more; measured with
                 distance = size / 2, so B from size 2 * key            */
};

struct knob {
    const char *key, *key_hi;
    enum knob_kind kind;
    const char *a, *b;   /* the two strategies, for the remarks      */
    enum op_kind op;
    unsigned aligns;     /* bit per align kind: one hot workload each */
    int cold;            /* and one cold, aligned                     */
    int zero;            /* memset of zero                            */
    size_t lo, hi;       /* grid (sizes, or distances for K_DIST)     */
    size_t quick_hi;     /* --quick: the grid stops here              */
    const char *min_isa; /* only the kernels from this level have B (NULL:
                            every level); below, A and B run the same
                            loop and the knob is not measured */
};

#define A_(x) (1u << (x))

static const struct knob knobs[] = {
#if defined(__x86_64__)
    {"memcpy.erms_min", "memcpy.erms_max", K_WINDOW, "vector loop", "rep movsb", OP_MEMCPY,
     A_(AL_ALIGNED) | A_(AL_RANDOM), 1, 0, 2048, (size_t)128 << 20, (size_t)64 << 20, NULL},
    {"memcpy.alias_erms_min", NULL, K_SINGLE, "vector loop", "rep movsb", OP_MEMCPY, A_(AL_RANDOM) | A_(AL_ALIAS4K),
     0, 0, 2048, (size_t)128 << 20, (size_t)64 << 20, NULL},
    {"memcpy.nt_min", NULL, K_SINGLE, "cached stores", "non-temporal stores", OP_MEMCPY, A_(AL_ALIGNED), 1, 0,
     (size_t)256 << 10, (size_t)128 << 20, (size_t)64 << 20, NULL},
    {"memcpy.alias_nt_min", NULL, K_SINGLE, "cached copy", "backward non-temporal loop", OP_MEMCPY, A_(AL_ALIAS4K),
     0, 0, (size_t)1 << 20, (size_t)128 << 20, (size_t)64 << 20, NULL},
    {"memcpy.erms_min_dist", NULL, K_DIST, "vector loop", "rep movsb", OP_MOVE_FWD, A_(AL_ALIGNED), 0, 0, 64,
     (size_t)1 << 20, (size_t)1 << 20, NULL},
    {"memcpy.bwd_nt_min", NULL, K_HALF, "cached backward loop", "non-temporal backward loop", OP_MOVE_BWD,
     A_(AL_ALIGNED), 0, 0, (size_t)1 << 20, (size_t)128 << 20, (size_t)64 << 20, NULL},
    {"memcpy.bwd_prefetch_min", "memcpy.bwd_prefetch_max", K_WINDOW, "plain backward loop", "prefetching backward loop",
     OP_MOVE_BWD, A_(AL_ALIGNED), 0, 0, (size_t)16 << 10, (size_t)4 << 20, (size_t)4 << 20, "avx512"},
    {"memset.erms_min", "memset.erms_max", K_WINDOW, "vector loop", "rep stosb", OP_MEMSET, A_(AL_ALIGNED), 1, 0,
     2048, (size_t)128 << 20, (size_t)64 << 20, NULL},
    {"memset.nt_min", NULL, K_SINGLE, "cached stores", "non-temporal stores", OP_MEMSET, A_(AL_ALIGNED), 1, 0,
     (size_t)256 << 10, (size_t)128 << 20, (size_t)64 << 20, NULL},
#elif defined(__aarch64__)
    {"memcpy.nt_min", NULL, K_SINGLE, "cached stores", "non-temporal pair stores", OP_MEMCPY, A_(AL_ALIGNED), 1, 0,
     (size_t)256 << 10, (size_t)128 << 20, (size_t)64 << 20, NULL},
    {"memset.zva_min", NULL, K_SINGLE, "stores", "dc zva", OP_MEMSET, A_(AL_ALIGNED), 0, 1, 256, (size_t)16 << 20,
     (size_t)16 << 20, NULL},
    {"memset.nt_min", NULL, K_SINGLE, "cached stores", "non-temporal pair stores", OP_MEMSET, A_(AL_ALIGNED), 1, 0,
     (size_t)256 << 10, (size_t)128 << 20, (size_t)64 << 20, NULL},
#elif defined(__riscv)
    {"memcpy.rvv_min", NULL, K_SINGLE, "scalar copy", "vector copy", OP_MEMCPY, A_(AL_ALIGNED) | A_(AL_RANDOM), 0, 0,
     1, 4096, 4096, "rvv"},
    {"memset.rvv_min", NULL, K_SINGLE, "scalar fill", "vector fill", OP_MEMSET, A_(AL_ALIGNED), 0, 0, 1, 4096, 4096,
     "rvv"},
#endif
};
#define NKNOBS (sizeof knobs / sizeof knobs[0])

/* What tuning a knob found, for the file and the summary. */
struct outcome {
    int skipped;
    size_t def_lo, def_hi; /* the defaults of key (and key_hi)     */
    size_t lo, hi;         /* the values chosen                    */
    size_t grid[MAX_POINTS];
    double r[MAX_POINTS];  /* time(B) / time(A) per grid point     */
    double spread[MAX_POINTS]; /* half the IQR of that, relative    */
    size_t npoints;
    size_t fixed_n;        /* K_DIST: the size of the moves        */
    char remark[1024];
    /* verification */
    size_t nverify;
    double v_oracle[MAX_VERIFY]; /* time(tuned) / time(best of A, B) */
    double v_default[MAX_VERIFY]; /* time(tuned) / time(defaults)    */
    double v_noise[MAX_VERIFY];   /* the defaults against themselves  */
    double v_own[MAX_VERIFY];     /* time(tuned) / time(tuned with this
                                     knob's keys at their defaults)   */
    size_t v_size[MAX_VERIFY];
};

static struct outcome outcomes[NKNOBS];
static char isa_remark[600];

static void knob_workloads(const struct knob *k, struct wlset *s, size_t delta)
{
    s->n = 0;
    for (int al = 0; al < AL_KINDS; al++)
        if (k->aligns & A_(al))
            wl_add(s, k->op, (enum align_kind)al, 0);
    if (k->cold)
        wl_add(s, k->op, AL_ALIGNED, 1);
    for (int i = 0; i < s->n; i++) {
        s->w[i].zero = k->zero;
        s->w[i].delta = delta;
    }
}

/* Strategy A alone (off) and B alone (on at every size) on top of base. */
static void knob_strategies(const struct knob *k, const struct tcfg *base, struct tcfg *a, struct tcfg *b)
{
    *a = *base;
    *b = *base;
    cfg_set(a, k->key, NEVER);
    cfg_set(b, k->key, 0);
    if (k->key_hi) {
        cfg_set(a, k->key_hi, NEVER);
        cfg_set(b, k->key_hi, NEVER);
    }
    cfg_normalize(a);
    cfg_normalize(b);
}

static size_t grid_of(const struct knob *k, size_t *out)
{
    size_t hi = opt.quick ? k->quick_hi : k->hi;
    size_t n = bench_size_grid(k->lo, hi, opt.quick, NULL, 0);
    if (n > MAX_POINTS)
        n = MAX_POINTS;
    bench_size_grid(k->lo, hi, opt.quick, out, n);
    return n;
}

/* K_DIST: the size of the moves whose distance is tuned: rep movsb must be
 * in force at that size, or the key steers nothing (0: nothing to tune). */
static size_t dist_size(const struct tcfg *c)
{
    size_t lo = cfg_get(c, "memcpy.erms_min"), hi = cfg_get(c, "memcpy.erms_max");
    for (size_t n = (size_t)4 << 20; n >= ((size_t)64 << 10); n /= 2)
        if (n >= lo && n < hi)
            return n;
    return lo < hi && lo <= ((size_t)64 << 20) ? (lo < ((size_t)64 << 10) ? (size_t)64 << 10 : lo) : 0;
}

/* Where a threshold value falls on the grid (index of the first point at
 * which the strategy it enables runs). */
static size_t value_index(const struct knob *k, const struct outcome *o, size_t v)
{
    double x[MAX_POINTS];
    for (size_t i = 0; i < o->npoints; i++)
        x[i] = (double)o->grid[i];
    if (v == NEVER)
        return o->npoints;
    return xo_index(x, o->npoints, k->kind == K_HALF ? 2.0 * (double)v : (double)v);
}

static size_t index_value(const struct knob *k, const struct outcome *o, size_t i)
{
    /* A distance key cannot say "never": the kernel compares it with
     * src - dst, which for a destination above the source wraps to nearly
     * 2^64, so "never" would also stop rep movsb for those copies.  B
     * losing at every distance measured means "not below twice the largest
     * of them". */
    if (i >= o->npoints && k->kind == K_DIST)
        return o->npoints ? 2 * o->grid[o->npoints - 1] : NEVER;
    if (i >= o->npoints)
        return NEVER;
    return k->kind == K_HALF ? o->grid[i] / 2 : o->grid[i];
}

/* A knob's values as the remarks name them: the key's ("12M"), or a
 * window's two ("64K-1M"). */
static const char *key_text(const struct knob *k, size_t lo, size_t hi, char *buf, size_t len)
{
    char b1[16], b2[16];
    if (k->key_hi)
        snprintf(buf, len, "%s-%s", sz(lo, b1, sizeof b1), sz(hi, b2, sizeof b2));
    else
        snprintf(buf, len, "%s", sz(lo, b1, sizeof b1));
    return buf;
}

/* The choice B on grid indices [lo, hi), named as key_text does ("never"
 * alone when B runs nowhere). */
static const char *choice_text(const struct knob *k, const struct outcome *o, size_t lo, size_t hi, char *buf,
                               size_t len)
{
    if (k->key_hi && lo < hi && lo < o->npoints)
        return key_text(k, index_value(k, o, lo), index_value(k, o, hi), buf, len);
    char b1[16];
    snprintf(buf, len, "%s", sz(index_value(k, o, lo < hi ? lo : o->npoints), b1, sizeof b1));
    return buf;
}

/* Geometric mean of 1/r (B's speed-up over A) on [lo, hi), or of r
 * elsewhere (A's over B) when inside is 0. */
static double side_gain(const struct outcome *o, size_t lo, size_t hi, int inside)
{
    double s = 0;
    int n = 0;
    for (size_t i = 0; i < o->npoints; i++)
        if ((i >= lo && i < hi) == inside) {
            s += inside ? -log(o->r[i]) : log(o->r[i]);
            n++;
        }
    return n ? exp(s / n) : 1;
}

/* Put the knob's chosen values in cur, as the library keeps them. */
static void knob_put(struct tcfg *cur, const struct knob *k, struct outcome *o, size_t lo, size_t hi)
{
    cfg_set(cur, k->key, lo);
    if (k->key_hi)
        cfg_set(cur, k->key_hi, hi);
    cfg_normalize(cur);
    o->lo = cfg_get(cur, k->key);
    o->hi = k->key_hi ? cfg_get(cur, k->key_hi) : NEVER;
}

/* A knob left unmeasured: its remark says why, the default stays, and the
 * progress counts its grid as done. */
static void knob_skip(struct outcome *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->remark, sizeof o->remark, fmt, ap);
    va_end(ap);
    o->skipped = 1;
    work_done += point_weight(0, 1) * (double)o->npoints;
}

/*
 * time(B) / time(A) at grid point g (a size, or a distance for K_DIST with
 * moves of fixed bytes) into *r, its spread into *spread.  A point whose
 * difference is not clear of its spread is measured again, up to MAX_TRIES
 * times in all, and the median of the tries taken: their spread shrinks as
 * the square root of their number (GMP's tuneup repeats until runs agree,
 * in the same spirit).
 */
static void knob_point(const struct knob *k, size_t g, size_t fixed, const struct cand *cands, double *r,
                      double *spread)
{
    struct wlset s;
    knob_workloads(k, &s, k->kind == K_DIST ? g : 0);
    double rs[MAX_TRIES], sps[MAX_TRIES], t[2], sp[2];
    int tries = 0;
    do {
        measure(&s, k->kind == K_DIST ? fixed : g, cands, 2, 0, t, sp);
        rs[tries] = t[1];
        sps[tries] = sp[1];
        tries++;
        *r = quantile_of(rs, (size_t)tries, 0.5);
        *spread = quantile_of(sps, (size_t)tries, 0.5) / sqrt(tries);
    } while (tries < MAX_TRIES && *spread > EPS / 2 && fabs(log(*r)) <= log1p(2 * *spread));
}

static void tune_knob(size_t ki, struct tcfg *cur)
{
    const struct knob *k = &knobs[ki];
    struct outcome *o = &outcomes[ki];
    char b1[16], b2[16], b3[16], b4[16];
    o->skipped = 0; /* a repetition before may have skipped it */
    o->def_lo = cfg_get(&cfg_default, k->key);
    o->def_hi = k->key_hi ? cfg_get(&cfg_default, k->key_hi) : NEVER;
    o->lo = cfg_get(cur, k->key);
    o->hi = k->key_hi ? cfg_get(cur, k->key_hi) : NEVER;
    o->npoints = grid_of(k, o->grid);
    step_begin(k->key);

    if (k->min_isa && cur->isa < memasm_isa_level(k->min_isa)) {
        /* Timing two identical strategies would only pick a value out of
         * the noise and credit it with a gain. */
        knob_skip(o, "not measured: the kernels below %s have no %s, and the level tuned for is %s; default kept",
                  k->min_isa, k->b, memasm_isa_name(cur->isa));
        return;
    }
    size_t fixed = 0;
    if (k->kind == K_DIST) {
        fixed = dist_size(cur);
        if (!fixed) {
            knob_skip(o, "not measured: rep movsb is not in force at any size, so the distance steers nothing; "
                         "default kept");
            return;
        }
        while (o->npoints && o->grid[o->npoints - 1] > fixed / 2)
            o->npoints--;
        o->fixed_n = fixed;
    }
    struct tcfg a, b;
    knob_strategies(k, cur, &a, &b);
    struct cand cands[2];
    make_cand(&cands[0], k->a, &a);
    make_cand(&cands[1], k->b, &b);
    double spread_max = 0;
    for (size_t i = 0; i < o->npoints; i++) {
        knob_point(k, o->grid[i], fixed, cands, &o->r[i], &o->spread[i]);
        if (o->spread[i] > spread_max)
            spread_max = o->spread[i];
        if (opt.verbose)
            fprintf(stderr, "%s%s %s: %s/%s = %.3f (+-%.1f%%)\n", tty ? "\r\033[K" : "", k->key,
                    sz(o->grid[i], b1, sizeof b1), k->b, k->a, o->r[i], 100 * o->spread[i]);
    }

    /* A point whose rounds spread wider than the difference it shows is
     * no evidence either way: it is a tie for the finder. */
    double rt[MAX_POINTS];
    for (size_t i = 0; i < o->npoints; i++)
        rt[i] = fabs(log(o->r[i])) <= log1p(o->spread[i]) ? 1.0 : o->r[i];
    size_t n = o->npoints, lo, hi;
    double loss;
    size_t dlo = value_index(k, o, o->def_lo);
    size_t dhi = k->key_hi ? value_index(k, o, o->def_hi) : n;
    if (k->kind == K_WINDOW) {
        loss = xo_window(rt, n, EPS, dlo, dhi, &lo, &hi);
    } else {
        lo = xo_single(rt, n, EPS, dlo, &loss);
        hi = n;
    }
    const char *range = sz(o->grid[0], b3, sizeof b3);
    char span[64];
    snprintf(span, sizeof span, "%s-%s%s", range, sz(o->grid[n - 1], b4, sizeof b4),
             k->kind == K_DIST ? " apart" : "");
    char where[96] = "";
    if (k->kind == K_DIST)
        snprintf(where, sizeof where, ", moves of %s", sz(fixed, b1, sizeof b1));
    else if (k->kind == K_HALF)
        snprintf(where, sizeof where, ", dst - src = size / 2");

    double best_b = 0;
    size_t best_i = 0;
    for (size_t i = 0; i < n; i++)
        if (best_b == 0 || o->r[i] < best_b) {
            best_b = o->r[i];
            best_i = i;
        }
    int same = lo == dlo && hi == dhi;
    if (same) {
        /* the default falls where the measurements put the change (it may
         * lie between grid points): it stays as it is */
        snprintf(o->remark, sizeof o->remark, "the default agrees with the measurements (%s%s measured)", span, where);
        if (lo < n && lo < hi) {
            size_t len = strlen(o->remark);
            snprintf(o->remark + len, sizeof o->remark - len, ": %s %.2fx the %s where it runs, the %s %.2fx elsewhere",
                     k->b, side_gain(o, lo, hi, 1), k->a, k->a, side_gain(o, lo, hi, 0));
        }
        knob_put(cur, k, o, o->def_lo, o->def_hi);
        return;
    }
    /* The saving must beat the noise: 2 %, and the summed spread of the
     * points where the default and the new value choose differently. */
    double saving, band;
    char choice[40];
    if (!xo_clear_gain(o->r, o->spread, n, EPS, dlo, dhi, lo, hi, &saving, &band)) {
        snprintf(o->remark, sizeof o->remark,
                 "flat: the best other value (%s) saves %.1f%% summed over the grid, within the noise "
                 "(%.1f%%) of the points where it differs (%s%s measured), default kept",
                 choice_text(k, o, lo, hi, choice, sizeof choice), 100 * saving, 100 * band, span, where);
        knob_put(cur, k, o, o->def_lo, o->def_hi);
        return;
    }
    /* The value was picked as the best of many on this pass, so the noise
     * that made it look best also inflates its saving.  The points where it
     * differs from the default are measured afresh, and that pass, which
     * chose nothing, must show the saving beyond its noise too; otherwise
     * the default stays (doc/tuning-x86_64.md has the runs that showed
     * it). */
    double r2[MAX_POINTS] = {0}, sp2[MAX_POINTS] = {0}, saving2, band2;
    size_t nconf = 0;
    for (size_t i = 0; i < n; i++)
        if ((i >= dlo && i < dhi) != (i >= lo && i < hi)) {
            knob_point(k, o->grid[i], fixed, cands, &r2[i], &sp2[i]);
            nconf++;
        }
    if (!xo_clear_gain(r2, sp2, n, EPS, dlo, dhi, lo, hi, &saving2, &band2)) {
        snprintf(o->remark, sizeof o->remark,
                 "not confirmed: one pass put it at %s (%.1f%% saved summed over the grid, noise %.1f%%), a "
                 "second pass over the %zu points where that differs from the default saved %.1f%% (noise "
                 "%.1f%%) (%s%s measured), default kept",
                 choice_text(k, o, lo, hi, choice, sizeof choice), 100 * saving, 100 * band, nconf, 100 * saving2,
                 100 * band2, span, where);
        knob_put(cur, k, o, o->def_lo, o->def_hi);
        return;
    }
    if (lo >= n || lo == hi) {
        o->lo = index_value(k, o, n);
        if (k->key_hi)
            o->hi = NEVER;
        if (best_b < 1)
            snprintf(o->remark, sizeof o->remark,
                     "%s never wins clearly on this CPU: at best %.2fx the %s (%s, within the spread there or too "
                     "few points to pay), %s%s measured",
                     k->b, 1 / best_b, k->a, sz(o->grid[best_i], b1, sizeof b1), span, where);
        else
            snprintf(o->remark, sizeof o->remark, "%s never wins on this CPU: at best %.2fx the %s (%s), %s%s measured",
                     k->b, 1 / best_b, k->a, sz(o->grid[best_i], b1, sizeof b1), span, where);
    } else {
        o->lo = index_value(k, o, lo);
        if (k->key_hi)
            o->hi = index_value(k, o, hi);
        double gin = side_gain(o, lo, hi, 1), gout = side_gain(o, lo, hi, 0);
        if (k->key_hi)
            snprintf(o->remark, sizeof o->remark,
                     "window [%s, %s): %s %.2fx the %s inside it, the %s %.2fx outside, +-%.0f%% (%s%s measured)",
                     sz(o->lo, b1, sizeof b1), sz(o->hi, b2, sizeof b2), k->b, gin, k->a, k->a, gout,
                     100 * spread_max, span, where);
        else if (lo == 0)
            snprintf(o->remark, sizeof o->remark, "%s always wins (%s%s measured): %.2fx the %s, +-%.0f%%", k->b, span,
                     where, gin, k->a, 100 * spread_max);
        else
            snprintf(o->remark, sizeof o->remark,
                     "crossover at %s%s: %s %.2fx the %s above it, the %s %.2fx below, +-%.0f%% (%s%s measured)",
                     sz(index_value(k, o, lo), b1, sizeof b1), k->kind == K_DIST ? " apart" : "", k->b, gin, k->a,
                     k->a, gout, 100 * spread_max, span, where);
    }
    size_t len = strlen(o->remark);
    snprintf(o->remark + len, sizeof o->remark - len,
             "; the default %s would lose %.1f%% summed over the grid, %.1f%% on a second pass over the %zu "
             "points where they differ",
             key_text(k, o->def_lo, o->def_hi, choice, sizeof choice), 100 * saving, 100 * saving2, nconf);
    knob_put(cur, k, o, o->lo, o->hi);
}

/* ---- the ISA level ------------------------------------------------------ */

/* Small and medium sizes, where the vector width decides; the mixes. */
static const size_t isa_sizes[] = {16, 64, 256, 1024, 4096, 16384, 65536};
#define N_ISA_SIZES (sizeof isa_sizes / sizeof isa_sizes[0])

/* One level against the highest: the geometric mean of time(level) /
 * time(highest) over every point, and its best and worst point. */
struct isa_score {
    double mean;
    double best, worst, worst_spread;
    char best_at[40], worst_at[40];
};

static void isa_point(struct isa_score *sc, int nc, const double *t, const double *sp, enum op_kind op, size_t n,
                      double *lsum)
{
    char b[16];
    for (int k = 0; k < nc; k++) {
        lsum[k] += log(t[k]);
        if (sc[k].best == 0 || t[k] < sc[k].best) {
            sc[k].best = t[k];
            snprintf(sc[k].best_at, sizeof sc[k].best_at, "%s %s", op_names[op], n ? sz(n, b, sizeof b) : "mix");
        }
        if (t[k] > sc[k].worst) {
            sc[k].worst = t[k];
            sc[k].worst_spread = sp[k];
            snprintf(sc[k].worst_at, sizeof sc[k].worst_at, "%s %s", op_names[op], n ? sz(n, b, sizeof b) : "mix");
        }
    }
}

static void isa_scores(const struct cand *cands, int nc, struct isa_score *sc)
{
    double lsum[MAX_CANDS] = {0};
    int count = 0;
    static const enum op_kind ops[] = {OP_MEMCPY, OP_MEMSET};
    memset(sc, 0, (size_t)nc * sizeof *sc);
    for (int oi = 0; oi < 2; oi++) {
        double t[MAX_CANDS], sp[MAX_CANDS];
        if (eng_mix_sizes(ops[oi])) { /* a --mix file may have no calls of op */
            struct wlset s = {.n = 0};
            wl_add(&s, ops[oi], AL_TABLE, 0);
            s.w[0].mix = 1;
            measure(&s, 0, cands, nc, nc - 1, t, sp);
            isa_point(sc, nc, t, sp, ops[oi], 0, lsum);
            count++;
        }
        for (size_t i = 0; i < N_ISA_SIZES; i++) {
            struct wlset s2 = {.n = 0};
            wl_add(&s2, ops[oi], AL_ALIGNED, 0);
            wl_add(&s2, ops[oi], AL_RANDOM, 0);
            measure(&s2, isa_sizes[i], cands, nc, nc - 1, t, sp);
            isa_point(sc, nc, t, sp, ops[oi], isa_sizes[i], lsum);
            count++;
        }
    }
    for (int k = 0; k < nc; k++)
        sc[k].mean = exp(lsum[k] / count);
}

/*
 * The cap is one for every operation, so a lower level is taken only when
 * it is clearly faster overall and slower nowhere by more than the noise:
 * on this rule a level that wins memset's small sizes and loses memcpy's
 * medium ones stays out, and the file is never slower than the defaults
 * for the sake of a better average.
 */
static void tune_isa(struct tcfg *cur)
{
    int top = memasm_isa_cpu();
    step_begin("isa");
    if (opt.isa >= 0) {
        snprintf(isa_remark, sizeof isa_remark,
                 "set by --isa %s, not measured: every threshold here was tuned with it in force",
                 memasm_isa_name(opt.isa));
        cur->isa = opt.isa;
        cfg_normalize(cur);
        return;
    }
    if (top == 0) {
        snprintf(isa_remark, sizeof isa_remark, "the CPU has the baseline level only: nothing to choose");
        return;
    }
    struct tcfg lv[8];
    struct cand cands[8];
    int nc = 0;
    for (int l = 0; l <= top && nc < 8; l++) {
        lv[nc] = *cur;
        lv[nc].isa = l;
        make_cand(&cands[nc], memasm_isa_name(l), &lv[nc]);
        nc++;
    }
    struct isa_score sc[8];
    isa_scores(cands, nc, sc);
    int best = nc - 1;
    for (int k = 0; k < nc - 1; k++) {
        double band = sc[k].worst_spread > EPS ? sc[k].worst_spread : EPS;
        if (sc[k].mean < sc[best].mean / (1 + EPS) && sc[k].worst <= 1 + band)
            best = k;
    }
    size_t len = 0;
    len += (size_t)snprintf(isa_remark + len, sizeof isa_remark - len,
                            "time against %s on the mixes and 16 B-64K (memcpy, memset):", memasm_isa_name(top));
    for (int k = 0; k < nc - 1 && len < sizeof isa_remark; k++)
        len += (size_t)snprintf(isa_remark + len, sizeof isa_remark - len, " %s %.3f (%.2f at %s to %.2f at %s)%s",
                                memasm_isa_name(k), sc[k].mean, sc[k].best, sc[k].best_at, sc[k].worst,
                                sc[k].worst_at, k + 1 < nc - 1 ? "," : "");
    if (len < sizeof isa_remark) {
        if (best != nc - 1)
            snprintf(isa_remark + len, sizeof isa_remark - len, "; %s taken: faster by more than %.0f%% overall and "
                     "slower nowhere", memasm_isa_name(best), 100 * EPS);
        else
            snprintf(isa_remark + len, sizeof isa_remark - len, "; %s kept: no lower level is both faster by more than "
                     "%.0f%% overall and nowhere slower beyond the noise (the cap is one for all operations)",
                     memasm_isa_name(top), 100 * EPS);
    }
    cur->isa = best;
    cfg_normalize(cur);
}

/* ---- every choice, --repeat times ---------------------------------------- */

/*
 * The ISA level and every knob, in order; with --repeat N, N times, each
 * from the defaults, and a value is kept only where every repetition chose
 * it.  Within one run the two passes and the check see the machine as it is
 * for a minute or two, and a shared VM can change on that scale (rep stosb
 * at 4-16 MiB has two speeds on the Zen 5 VM: doc/tuning-x86_64.md): a
 * value that only one state of the machine favours is not written.
 */
static void tune_all(struct tcfg *tuned)
{
    static size_t vals[MAX_REPEAT][NKNOBS][2];
    int isas[MAX_REPEAT];
    struct tcfg first = cfg_default;
    char b1[40];
    for (int r = 0; r < opt.repeat; r++) {
        struct tcfg t = cfg_default;
        cfg_normalize(&t);
        tune_isa(&t);
        for (size_t ki = 0; ki < NKNOBS; ki++) {
            tune_knob(ki, &t);
            vals[r][ki][0] = cfg_get(&t, knobs[ki].key);
            vals[r][ki][1] = knobs[ki].key_hi ? cfg_get(&t, knobs[ki].key_hi) : NEVER;
        }
        isas[r] = t.isa;
        if (r == 0)
            first = t;
    }
    *tuned = first;
    if (opt.repeat == 1)
        return;
    /* What the repetitions chose, for the remarks: "768K, 1M, 768K". */
    int isa_agree = 1;
    for (int r = 1; r < opt.repeat; r++)
        isa_agree &= isas[r] == isas[0];
    size_t len = strlen(isa_remark);
    if (isa_agree) {
        append(isa_remark, sizeof isa_remark, &len, "; all %d repetitions chose %s", opt.repeat,
               memasm_isa_name(isas[0]));
    } else {
        for (int r = 0; r < opt.repeat; r++)
            append(isa_remark, sizeof isa_remark, &len, "%s%s", r ? ", " : "; the repetitions chose ",
                   memasm_isa_name(isas[r]));
        append(isa_remark, sizeof isa_remark, &len, ": they differ, %s kept", memasm_isa_name(cfg_default.isa));
        tuned->isa = cfg_default.isa;
    }
    for (size_t ki = 0; ki < NKNOBS; ki++) {
        const struct knob *k = &knobs[ki];
        struct outcome *o = &outcomes[ki];
        int agree = 1;
        for (int r = 1; r < opt.repeat; r++)
            agree &= vals[r][ki][0] == vals[0][ki][0] && vals[r][ki][1] == vals[0][ki][1];
        char said[sizeof o->remark];
        memcpy(said, o->remark, sizeof said); /* the last repetition's */
        size_t n = 0;
        o->remark[0] = 0;
        if (agree) {
            append(o->remark, sizeof o->remark, &n, "all %d repetitions chose this; the last said: %s", opt.repeat,
                   said);
            continue;
        }
        for (int r = 0; r < opt.repeat; r++)
            append(o->remark, sizeof o->remark, &n, "%s%s", r ? ", " : "the repetitions chose ",
                   key_text(k, vals[r][ki][0], vals[r][ki][1], b1, sizeof b1));
        append(o->remark, sizeof o->remark, &n, ": they differ, default kept; the last said: %s", said);
        cfg_set(tuned, k->key, o->def_lo);
        if (k->key_hi)
            cfg_set(tuned, k->key_hi, o->def_hi);
    }
    cfg_normalize(tuned);
}

/* ---- proof -------------------------------------------------------------- */

/* Verification sizes: half-way (geometrically) between grid points, at most
 * MAX_VERIFY of them spread over the grid; never a grid point. */
static size_t verify_sizes(const struct outcome *o, size_t *out)
{
    size_t m = o->npoints > 1 ? o->npoints - 1 : 0, nv = 0;
    size_t step = m > MAX_VERIFY ? (m + MAX_VERIFY - 1) / MAX_VERIFY : 1;
    for (size_t i = 0; i + 1 < o->npoints && nv < MAX_VERIFY; i += step) {
        double g = sqrt((double)o->grid[i] * (double)o->grid[i + 1]);
        size_t v = g >= 256 ? (size_t)g / 64 * 64 : (size_t)g;
        if (v > o->grid[i] && v < o->grid[i + 1])
            out[nv++] = v;
    }
    return nv;
}

/* How far apart two figures of one configuration landed (>= 1): the noise
 * floor the proof prints beside its figures. */
static double gap(double a, double b)
{
    return a > b ? a / b : b / a;
}

/* Whether strategy B runs at x (a size, or a distance for K_DIST) when the
 * key is lo (and key_hi is hi), as the kernels decide. */
static int b_runs(const struct knob *k, size_t lo, size_t hi, size_t x)
{
    switch (k->kind) {
    case K_WINDOW: return x >= lo && x < hi;
    case K_HALF: return x / 2 >= lo; /* distance size / 2, the smaller */
    default: return x >= lo;
    }
}

/* The proof of one knob: its sizes between grid points, with tuned in force. */
static void verify_sizes_run(size_t ki, const struct tcfg *tuned)
{
    const struct knob *k = &knobs[ki];
    struct outcome *o = &outcomes[ki];
    size_t vs[MAX_VERIFY];
    size_t nv = verify_sizes(o, vs);
    struct tcfg a, b, own = *tuned;
    knob_strategies(k, tuned, &a, &b);
    /* The defaults run twice, as two candidates: how far apart two
     * identical configurations land is the noise floor of the figures.
     * When this knob moved, the tuned file with only its keys put back
     * runs too: what the move alone is worth, for take_back. */
    cfg_set(&own, k->key, o->def_lo);
    if (k->key_hi)
        cfg_set(&own, k->key_hi, o->def_hi);
    cfg_normalize(&own);
    int moved = memcmp(own.v, tuned->v, sizeof own.v) != 0;
    struct cand cands[6];
    make_cand(&cands[0], "tuned", tuned);
    make_cand(&cands[1], "defaults", &cfg_default);
    make_cand(&cands[2], k->a, &a);
    make_cand(&cands[3], k->b, &b);
    make_cand(&cands[4], "defaults#2", &cfg_default);
    make_cand(&cands[5], "tuned, this knob at its default", &own);
    for (size_t i = 0; i < nv; i++) {
        struct wlset s;
        size_t n = k->kind == K_DIST ? o->fixed_n : vs[i];
        knob_workloads(k, &s, k->kind == K_DIST ? vs[i] : 0);
        /* t[] is relative to the tuned file (t[0] = 1); a size where the
         * tuned file looks slower than the defaults, the oracle or its own
         * knob's default by more than 2 % is measured again (up to
         * MAX_TRIES in all) and the median of each figure taken, as on the
         * grid. */
        double orc[MAX_TRIES], def[MAX_TRIES], noise[MAX_TRIES], own_r[MAX_TRIES];
        int tries = 0;
        do {
            double t[6], sp[6];
            measure(&s, n, cands, moved ? 6 : 5, 0, t, sp);
            orc[tries] = 1 / (t[2] < t[3] ? t[2] : t[3]);
            def[tries] = 1 / t[1];
            noise[tries] = gap(t[4], t[1]);
            own_r[tries] = moved ? 1 / t[5] : 1;
            tries++;
            o->v_oracle[i] = quantile_of(orc, (size_t)tries, 0.5);
            o->v_default[i] = quantile_of(def, (size_t)tries, 0.5);
            o->v_noise[i] = quantile_of(noise, (size_t)tries, 0.5);
            o->v_own[i] = quantile_of(own_r, (size_t)tries, 0.5);
        } while (tries < MAX_TRIES &&
                 (o->v_oracle[i] > 1 + EPS || o->v_default[i] > 1 + EPS || o->v_own[i] > 1 + EPS));
        o->v_size[i] = vs[i];
    }
    o->nverify = nv;
}

/*
 * The proof's sizes were never used to choose, and they are measured a
 * minute or more after the choice: where the tuned value and the default
 * differ, they are a third and later look at the same question.  A shared
 * machine's behaviour drifts over minutes (doc/tuning-x86_64.md), so a
 * value with which the file runs those sizes slower than with the default,
 * beyond the noise, is taken back (returns 1), and the remark says so.
 */
static int take_back(size_t ki, struct tcfg *tuned)
{
    const struct knob *k = &knobs[ki];
    struct outcome *o = &outcomes[ki];
    size_t tl = cfg_get(tuned, k->key), th = k->key_hi ? cfg_get(tuned, k->key_hi) : NEVER;
    if (tl == o->def_lo && th == o->def_hi)
        return 0;
    double dv[MAX_VERIFY], nz[MAX_VERIFY];
    size_t nd = 0;
    for (size_t i = 0; i < o->nverify; i++)
        if (b_runs(k, tl, th, o->v_size[i]) != b_runs(k, o->def_lo, o->def_hi, o->v_size[i])) {
            dv[nd] = o->v_own[i];
            nz[nd++] = o->v_noise[i];
        }
    double slower, nfloor;
    if (!xo_contradicted(dv, nz, nd, EPS, &slower, &nfloor))
        return 0;
    char b1[40];
    size_t len = strlen(o->remark);
    snprintf(o->remark + len, sizeof o->remark - len,
             "; taken back: on the %zu sizes between grid points where %s differs from the default, measured "
             "later, the file with it took %.3f of the time of the same file with the default (noise %.3f), "
             "default kept",
             nd, key_text(k, tl, th, b1, sizeof b1), slower, nfloor);
    knob_put(tuned, k, o, o->def_lo, o->def_hi);
    return 1;
}

static void verify_knob(size_t ki, struct tcfg *tuned)
{
    if (outcomes[ki].skipped)
        return;
    step_begin(knobs[ki].key);
    verify_sizes_run(ki, tuned);
    if (take_back(ki, tuned))
        verify_sizes_run(ki, tuned); /* the figures of the file as written */
}

/* The memcpy and memset mixes: time(tuned) / time(defaults), and the gap
 * between the defaults measured as two candidates (the noise floor of that
 * figure); NaN: no such calls */
static double mix_default[2], mix_noise[2];

/* A mix's figure, or why there is none. */
static const char *mix_figure(double v, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "(no calls)");
    else
        snprintf(buf, len, "%.3f", v);
    return buf;
}

/* As verify_knob does for a size: the defaults twice for the noise floor,
 * and a mix on which the tuned file looks slower by more than 2 % measured
 * again (up to MAX_TRIES), the medians kept.  One measurement of a mix swung
 * by 4-7 % on an unchanged library (the SPEC memset mix, Zen 5), and the
 * figure decides whether a lower ISA level stays (main). */
static void verify_mixes(const struct tcfg *tuned)
{
    step_begin("mixes");
    struct cand cands[3];
    make_cand(&cands[0], "tuned", tuned);
    make_cand(&cands[1], "defaults", &cfg_default);
    make_cand(&cands[2], "defaults#2", &cfg_default);
    static const enum op_kind ops[] = {OP_MEMCPY, OP_MEMSET};
    for (int i = 0; i < 2; i++) {
        mix_default[i] = mix_noise[i] = NAN;
        if (!eng_mix_sizes(ops[i])) /* no calls of op in the --mix file */
            continue;
        struct wlset s = {.n = 0};
        wl_add(&s, ops[i], AL_TABLE, 0);
        s.w[0].mix = 1;
        double def[MAX_TRIES], noise[MAX_TRIES];
        int tries = 0;
        do {
            double t[3], sp[3];
            measure(&s, 0, cands, 3, 0, t, sp);
            def[tries] = 1 / t[1];
            noise[tries] = gap(t[2], t[1]);
            tries++;
            mix_default[i] = quantile_of(def, (size_t)tries, 0.5);
            mix_noise[i] = quantile_of(noise, (size_t)tries, 0.5);
        } while (tries < MAX_TRIES && mix_default[i] > 1 + EPS);
    }
}

/* ---- the file ----------------------------------------------------------- */



static double max_of(const double *v, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] > m)
            m = v[i];
    return m;
}

/* The provenance lines of the file's header. */
static void header_text(char *buf, size_t cap, double seconds)
{
    size_t len = 0;
    char date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
    const struct memasm_cpu *cpu = memasm_cpu_get();
    append(buf, cap, &len, "tuned by memasm-tune (libmemasm %s) on %s, %.0f s of measuring\n", memasm_version(), date,
           seconds);
    append(buf, cap, &len, "compiler: %s\n", __VERSION__);
    append(buf, cap, &len, "options: %s\n", options_text[0] ? options_text : "(none)");
    append(buf, cap, &len, "objective: %s\n",
           opt.stream ? "stream (the copy alone)" : "readback (each call followed by one read of its destination)");
    append(buf, cap, &len, "threads: %d copying at once%s\n", eng.threads, eng.threads > 1 ? " (aggregate time)" : "");
    append(buf, cap, &len, "cpu: %s, family %d model %d stepping %d; ISA %s; caches L1d %zuK L2 %zuK L3 %zuK\n",
           cpu->brand[0] ? cpu->brand : cpu->vendor, cpu->family, cpu->model, cpu->stepping,
           memasm_isa_name(memasm_isa_cpu()), cpu->l1d >> 10, cpu->l2 >> 10, cpu->l3 >> 10);
    append(buf, cap, &len, "mix: %s\n", opt.mix ? opt.mix : "built-in SPEC CPU2017 size and alignment tables");
    append(buf, cap, &len, "method: %d rounds per point, A/B interleaved, paired medians; noise band %.0f%%",
           eng.rounds, 100 * EPS);
    if (opt.repeat > 1)
        append(buf, cap, &len, "; every choice made %d times, a value kept only where all agree", opt.repeat);
    append(buf, cap, &len, "\n");
    if (!opt.no_verify) {
        append(buf, cap, &len,
               "check (sizes between the grid points; time of the tuned file over the best strategy / over "
               "the defaults, median and worst):\n");
        for (size_t ki = 0; ki < NKNOBS; ki++) {
            const struct outcome *o = &outcomes[ki];
            if (!o->nverify)
                continue;
            append(buf, cap, &len, "  %-24s oracle %.3f / %.3f   defaults %.3f / %.3f   noise %.3f   (%zu sizes)\n",
                   knobs[ki].key, quantile_of(o->v_oracle, o->nverify, 0.5), max_of(o->v_oracle, o->nverify),
                   quantile_of(o->v_default, o->nverify, 0.5), max_of(o->v_default, o->nverify),
                   max_of(o->v_noise, o->nverify), o->nverify);
        }
        char m0[16], m1[16], n0[16], n1[16];
        append(buf, cap, &len, "  mixes: memcpy %s, memset %s of the defaults' time (noise %s, %s)\n",
               mix_figure(mix_default[0], m0, sizeof m0), mix_figure(mix_default[1], m1, sizeof m1),
               mix_figure(mix_noise[0], n0, sizeof n0), mix_figure(mix_noise[1], n1, sizeof n1));
    }
}

/* ---- summary ------------------------------------------------------------ */

static void print_summary(const struct tcfg *tuned, double seconds)
{
    char b1[16], b2[16];
    const struct memasm_cpu *cpu = memasm_cpu_get();
    printf("memasm-tune (libmemasm %s) on %s, %d thread%s, objective %s, %.0f s\n", memasm_version(),
           cpu->brand[0] ? cpu->brand : cpu->vendor, eng.threads, eng.threads > 1 ? "s" : "",
           opt.stream ? "stream" : "readback", seconds);
    printf("\n%-24s %-8s %-8s %s\n", "key", "default", "tuned", "what was measured");
    printf("%-24s %-8s %-8s %s\n", "isa", memasm_isa_name(cfg_default.isa), memasm_isa_name(tuned->isa), isa_remark);
    for (size_t i = 0; i < nkeys; i++) {
        const char *key = memasm_threshold_key(i);
        const char *rem = "";
        for (size_t ki = 0; ki < NKNOBS; ki++)
            if (strcmp(knobs[ki].key, key) == 0 || (knobs[ki].key_hi && strcmp(knobs[ki].key_hi, key) == 0))
                rem = strcmp(knobs[ki].key, key) == 0 ? outcomes[ki].remark : "(the window above)";
        printf("%-24s %-8s %-8s %s\n", key, sz(cfg_default.v[i], b1, sizeof b1), sz(tuned->v[i], b2, sizeof b2), rem);
    }
    if (opt.no_verify)
        return;
    printf("\ncheck on sizes between the grid points (time of the tuned file over: the best strategy at that size,"
           " and the defaults; 1.000 = as fast; noise: the worst gap between the defaults and themselves):\n");
    printf("%-24s %6s %8s %8s %9s %9s %9s\n", "knob", "sizes", "oracle", "worst", "defaults", "worst",
           "noise");
    for (size_t ki = 0; ki < NKNOBS; ki++) {
        const struct outcome *o = &outcomes[ki];
        if (!o->nverify) {
            printf("%-24s %6s %s\n", knobs[ki].key, "-", o->skipped ? "not measured (see above)" : "no sizes");
            continue;
        }
        printf("%-24s %6zu %8.3f %8.3f %9.3f %9.3f %9.3f\n", knobs[ki].key, o->nverify,
               quantile_of(o->v_oracle, o->nverify, 0.5), max_of(o->v_oracle, o->nverify),
               quantile_of(o->v_default, o->nverify, 0.5), max_of(o->v_default, o->nverify),
               max_of(o->v_noise, o->nverify));
        if (opt.verbose)
            for (size_t i = 0; i < o->nverify; i++)
                printf("    %-10s oracle %.3f defaults %.3f noise %.3f own default %.3f\n",
                       sz(o->v_size[i], b1, sizeof b1), o->v_oracle[i], o->v_default[i], o->v_noise[i], o->v_own[i]);
    }
    static const char *const mix_names[2] = {"memcpy mix (hot)", "memset mix (hot)"};
    for (int i = 0; i < 2; i++)
        printf("%-24s %6s %8s %8s %9s %9s %9s\n", mix_names[i], "1", "", "", mix_figure(mix_default[i], b1, sizeof b1),
               "", mix_figure(mix_noise[i], b2, sizeof b2));
}

/* ---- command line ------------------------------------------------------- */

/* Ctrl-C while measuring: nothing has been written yet (the file is
 * written at the end, with these signals held off), so say so and go. */
static void on_interrupt(int sig)
{
    static const char msg[] = "\nmemasm-tune: interrupted: nothing written\n";
    ssize_t r = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)r;
    _exit(128 + sig);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: memasm-tune [options]\n"
            "Measure where each libmemasm strategy wins on this machine and write the configuration\n"
            "file the library reads at start-up (memasm.conf(5)).\n"
            "  -o, --output FILE     where to write (default memasm.conf); written atomically\n"
            "  -q, --quick           a coarser grid and fewer rounds (a quarter to a third of the time)\n"
            "  -f, --force           replace FILE even when it is not a configuration for this CPU\n"
            "      --objective KIND  readback (default: each call followed by a read of its destination)\n"
            "                        or stream (the copy alone)\n"
            "      --threads N       tune for N threads copying at once (aggregate time; default 1)\n"
            "      --mix FILE        the calls the mixes make (the ISA choice and the final check),\n"
            "                        instead of the SPEC CPU2017 tables: a profile as\n"
            "                        libmemasm-profile.so writes it (MEMASM_PROFILE=FILE), or a size\n"
            "                        table (value<TAB>count lines, '#' comments)\n"
            "      --isa LEVEL       tune at this ISA level (a cap the file then sets) instead of\n"
            "                        choosing one: the thresholds fit the kernels that will run\n"
            "                        under it, and the checks compare with the defaults at it\n"
            "      --repeat N        make every choice N times (1-9, default 1), one after another,\n"
            "                        and write a value only where all N agree (the default where\n"
            "                        they differ): for a machine whose behaviour changes over\n"
            "                        minutes, such as a shared VM; N times as long\n"
            "      --no-verify       skip the check against the defaults and the oracle\n"
            "  -v, --verbose         every measured point on stderr\n"
            "  -h, --help            this text\n");
}

static void record_options(int argc, char **argv)
{
    size_t len = 0;
    options_text[0] = 0;
    for (int i = 1; i < argc; i++)
        append(options_text, sizeof options_text, &len, "%s%s", i > 1 ? " " : "", argv[i]);
    for (char *p = options_text; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
            *p = '?';
}

int main(int argc, char **argv)
{
    enum { O_OBJ = 256, O_THREADS, O_MIX, O_NOVERIFY, O_ISA, O_REPEAT };
    static const struct option lo[] = {
        {"output", required_argument, 0, 'o'}, {"quick", no_argument, 0, 'q'},
        {"force", no_argument, 0, 'f'},        {"objective", required_argument, 0, O_OBJ},
        {"threads", required_argument, 0, O_THREADS}, {"mix", required_argument, 0, O_MIX},
        {"no-verify", no_argument, 0, O_NOVERIFY}, {"verbose", no_argument, 0, 'v'},
        {"isa", required_argument, 0, O_ISA},  {"repeat", required_argument, 0, O_REPEAT},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0},
    };
    record_options(argc, argv);
    int c;
    while ((c = getopt_long(argc, argv, "o:qfvh", lo, NULL)) != -1) {
        switch (c) {
        case 'o': opt.output = optarg; break;
        case 'q': opt.quick = 1; break;
        case 'f': opt.force = 1; break;
        case 'v': opt.verbose = 1; break;
        case O_OBJ:
            if (strcmp(optarg, "readback") == 0)
                opt.stream = 0;
            else if (strcmp(optarg, "stream") == 0)
                opt.stream = 1;
            else {
                fprintf(stderr, "memasm-tune: --objective takes readback or stream, not '%s'\n", optarg);
                return 2;
            }
            break;
        case O_THREADS: {
            char *end;
            long t = strtol(optarg, &end, 10);
            if (*end || t < 1 || t > 256) {
                fprintf(stderr, "memasm-tune: --threads takes 1 to 256, not '%s'\n", optarg);
                return 2;
            }
            opt.threads = (int)t;
            break;
        }
        case O_MIX: opt.mix = optarg; break;
        case O_REPEAT: {
            char *end;
            long r = strtol(optarg, &end, 10);
            if (*end || end == optarg || r < 1 || r > MAX_REPEAT) {
                fprintf(stderr, "memasm-tune: --repeat takes 1 to %d, not '%.40s'\n", MAX_REPEAT, optarg);
                return 2;
            }
            opt.repeat = (int)r;
            break;
        }
        case O_NOVERIFY: opt.no_verify = 1; break;
        case O_ISA:
            opt.isa = memasm_isa_level(optarg);
            if (opt.isa < 0) {
                fprintf(stderr, "memasm-tune: --isa: no level '%.40s' on this architecture (", optarg);
                for (int l = 0; l < memasm_isa_count(); l++)
                    fprintf(stderr, "%s%s", l ? ", " : "", memasm_isa_name(l));
                fprintf(stderr, ")\n");
                return 2;
            }
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "memasm-tune: unexpected argument '%s' (try --help)\n", argv[optind]);
        return 2;
    }
    if (opt.output[0] == 0) {
        fprintf(stderr, "memasm-tune: --output needs a file name\n");
        return 2;
    }
    if (opt.isa > memasm_isa_cpu()) {
        fprintf(stderr, "memasm-tune: --isa %s: this CPU's highest level is %s\n", memasm_isa_name(opt.isa),
                memasm_isa_name(memasm_isa_cpu()));
        return 2;
    }
    char why[600];
    if (tunefile_may_replace(opt.output, opt.force, why, sizeof why) != 0)
        die("%s: %s;\n  not replaced: use --force, or --output FILE", opt.output, why);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    /* Start from the library's own defaults, whatever the environment said
     * (with --isa, the defaults at that level: what the checks compare
     * the file against). */
    for (int op = 0; op < MEMASM_OP_COUNT; op++)
        memasm_kernel_auto((memasm_op)op);
    memasm_isa_set_cap(opt.isa >= 0 ? memasm_isa_name(opt.isa) : NULL);
    memasm_threshold_reset();
    nkeys = memasm_threshold_count();
    if (nkeys > MAX_KEYS)
        die("this build has %zu threshold keys, more than the %d the tuner holds", nkeys, MAX_KEYS);
    cfg_read(&cfg_default);

    eng.threads = opt.threads;
    eng.pin = opt.threads > 1 ? 0 : -1;
    eng.rounds = opt.quick ? 7 : 11;
    eng.min_time_us = opt.quick ? 150 : 300;
    eng_load_tables();
    if (opt.mix) {
        char err[200];
        if (eng_load_mix(opt.mix, err, sizeof err) != 0)
            die("--mix %s: %s", opt.mix, err);
    }

    /* Work plan, for the progress estimate. */
    tty = isatty(STDERR_FILENO);
    step_count = opt.repeat * (1 + (int)NKNOBS) + (opt.no_verify ? 0 : (int)NKNOBS + 1);
    work_total = opt.isa >= 0 ? 0 : 2.0 * (1 + N_ISA_SIZES * 2) * opt.repeat;
    for (size_t ki = 0; ki < NKNOBS; ki++) {
        size_t g[MAX_POINTS], n = grid_of(&knobs[ki], g);
        struct wlset s;
        knob_workloads(&knobs[ki], &s, 0);
        for (size_t i = 0; i < n; i++)
            work_total += point_weight(knobs[ki].kind == K_DIST ? (size_t)4 << 20 : g[i], s.n) *
                          (opt.repeat + (opt.no_verify ? 0 : 0.5));
    }

    /* Buffers: the largest sweep of any knob, hot and cold. */
    struct workload all[3] = {{.op = OP_MEMCPY}, {.op = OP_MOVE_BWD}, {.op = OP_MEMSET}};
    size_t max_n = 0;
    for (size_t ki = 0; ki < NKNOBS; ki++) {
        size_t hi = opt.quick ? knobs[ki].quick_hi : knobs[ki].hi;
        if (knobs[ki].kind != K_DIST && hi > max_n)
            max_n = hi;
    }
    if (max_n < ((size_t)4 << 20))
        max_n = (size_t)4 << 20;
    size_t cold_len = 2 * (max_n + max_n / 2 + 4096) + ((size_t)16 << 20);
    workers_start(eng_hot_len(all, 3, max_n), cold_len);

    t_begin = now_ns();
    struct tcfg tuned = cfg_default;
    struct cand warm[1];
    make_cand(&warm[0], "defaults", &cfg_default);
    eng_spin_up(warm, 1, 200);

    tune_all(&tuned);
    if (!opt.no_verify) {
        for (size_t ki = 0; ki < NKNOBS; ki++)
            verify_knob(ki, &tuned);
        verify_mixes(&tuned);
        /* The whole file against the defaults: a lower ISA level chosen on
         * the sweeps must not cost the mixes. */
        if (tuned.isa != cfg_default.isa && (mix_default[0] > 1 + EPS || mix_default[1] > 1 + EPS)) {
            size_t len = strlen(isa_remark);
            snprintf(isa_remark + len, sizeof isa_remark - len,
                     "; but the file with it ran the mixes %.3f/%.3f of the defaults' time: default level kept",
                     mix_default[0], mix_default[1]);
            tuned.isa = cfg_default.isa;
            cfg_normalize(&tuned);
            verify_mixes(&tuned);
        }
    }
    workers_stop();
    double seconds = (double)(now_ns() - t_begin) / 1e9;
    if (tty)
        fprintf(stderr, "\r\033[K");

    /* The file: the library's writer with the tuned values in force. */
    cfg_apply(&tuned);
    static char header[4096];
    header_text(header, sizeof header, seconds);
    struct memasm_config_notes notes;
    memset(&notes, 0, sizeof notes);
    notes.header = header;
    notes.isa_remark = isa_remark;
    for (size_t ki = 0; ki < NKNOBS; ki++) {
        const struct memasm_threshold_def *d = memasm_threshold_lookup(knobs[ki].key, strlen(knobs[ki].key));
        if (d)
            notes.remark[d->index] = outcomes[ki].remark;
        if (knobs[ki].key_hi && (d = memasm_threshold_lookup(knobs[ki].key_hi, strlen(knobs[ki].key_hi))))
            notes.remark[d->index] = "tuned with the window start above";
    }
    size_t need = memasm_config_write_notes(NULL, 0, "memasm-tune", &notes);
    char *text = malloc(need + 1);
    if (!text)
        die("out of memory");
    memasm_config_write_notes(text, need + 1, "memasm-tune", &notes);
    /* What is written must be what the library accepts back. */
    char problem[480];
    uint64_t back[MEMASM_THR_COUNT];
    if (memasm_config_try(text, need, MEMASM_SRC_FILE, back, problem, sizeof problem) != 0)
        die("the file would not load back (%s); nothing written", problem);
    if (tunefile_write(opt.output, text, need, why, sizeof why) != 0)
        die("%s", why);
    free(text);

    print_summary(&tuned, seconds);
    char *abs = realpath(opt.output, NULL);
    printf("\nwrote %s\nuse it:  export MEMASM_CONFIG=%s\n", opt.output, abs ? abs : opt.output);
    free(abs);
    return 0;
}
