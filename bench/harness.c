/*
 * harness.c -- size grid, random numbers, frequency tables, statistics and
 * CSV output for memasm-bench (see harness.h).  No timing here.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "xoshiro.h"

/* ---- size grid ---------------------------------------------------------- */

size_t bench_size_grid(size_t lo, size_t hi, int pow2_only, size_t *out, size_t cap)
{
    size_t count = 0;
    if (lo == 0)
        lo = 1;
    for (size_t p = 1; p != 0 && p <= hi; p <<= 1) {
        size_t pts[2] = {p, p + p / 2};
        int npts = (pow2_only || p < 2) ? 1 : 2;
        for (int i = 0; i < npts; i++) {
            if (pts[i] < lo || pts[i] > hi)
                continue;
            if (count < cap)
                out[count] = pts[i];
            count++;
        }
        if (p > SIZE_MAX / 2)
            break;
    }
    return count;
}

/* ---- random numbers ----------------------------------------------------- */

void bench_rng_seed(struct bench_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = memasm_splitmix64(&seed);
}

uint64_t bench_rng_next(struct bench_rng *r)
{
    return memasm_xoshiro_next(r->s);
}

uint64_t bench_rng_below(struct bench_rng *r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)bench_rng_next(r) * n) >> 64);
}

/* ---- frequency tables --------------------------------------------------- */

static int set_err(char *err, size_t errlen, unsigned line, const char *what)
{
    if (err && errlen && line)
        snprintf(err, errlen, "line %u: %s", line, what);
    else if (err && errlen) /* the file as a whole */
        snprintf(err, errlen, "%s", what);
    return -1;
}

/* Parse an unsigned decimal field [p, end); returns 0 on success. */
static int parse_u64(const char *p, const char *end, uint64_t *out)
{
    uint64_t v = 0;
    if (p == end)
        return -1;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        unsigned dgt = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - dgt) / 10)
            return -1;
        v = v * 10 + dgt;
    }
    *out = v;
    return 0;
}

/*
 * The next row of a tab-separated table at *pos: '#' comment lines and
 * blank lines are skipped, CR before LF dropped.  Splits it into at most
 * three fields f[i]..fe[i] and sets *nf; returns 1, 0 at the end, or -1
 * for a fourth field.  *lineno counts every line read.
 */
static int next_row(const char **pos, unsigned *lineno, const char *f[3], const char *fe[3], int *nf)
{
    for (const char *line = *pos; *line;) {
        const char *eol = strchr(line, '\n');
        if (!eol)
            eol = line + strlen(line);
        const char *end = eol;
        *pos = *eol ? eol + 1 : eol;
        (*lineno)++;
        if (end > line && end[-1] == '\r')
            end--;
        if (end == line || *line == '#') {
            line = *pos;
            continue;
        }
        const char *p = line;
        *nf = 0;
        while (*nf < 3) {
            const char *tab = memchr(p, '\t', (size_t)(end - p));
            f[*nf] = p;
            fe[*nf] = tab ? tab : end;
            (*nf)++;
            if (!tab)
                break;
            p = tab + 1;
        }
        return fe[*nf - 1] == end ? 1 : -1;
    }
    return 0;
}

/* Append a row; 0, or -1 with the reason. */
static int dist_add(struct bench_dist *d, uint64_t value, uint64_t count, const char **why)
{
    if (d->total > UINT64_MAX - count) {
        *why = "counts overflow";
        return -1;
    }
    /* Room doubles at 64, 128, 256, ... rows. */
    if (d->n == 0 || (d->n >= 64 && (d->n & (d->n - 1)) == 0)) {
        size_t ncap = d->n ? d->n * 2 : 64;
        uint64_t *nv = realloc(d->value, ncap * sizeof *nv);
        if (nv)
            d->value = nv;
        uint64_t *nc = nv ? realloc(d->cum, ncap * sizeof *nc) : NULL;
        if (!nc) {
            *why = "out of memory";
            return -1;
        }
        d->cum = nc;
    }
    d->total += count;
    d->value[d->n] = value;
    d->cum[d->n] = d->total;
    d->n++;
    return 0;
}

int bench_dist_parse(const char *text, const char *key, struct bench_dist *d,
                     char *err, size_t errlen)
{
    unsigned lineno = 0;
    const char *pos = text, *f[3], *fe[3], *why;
    int nf, r;
    memset(d, 0, sizeof *d);
    while ((r = next_row(&pos, &lineno, f, fe, &nf)) != 0) {
        if (r < 0) {
            bench_dist_free(d);
            return set_err(err, errlen, lineno, "too many fields");
        }
        int want = key ? 3 : 2;
        if (nf != want) {
            bench_dist_free(d);
            return set_err(err, errlen, lineno,
                           key ? "expected key<TAB>value<TAB>count" : "expected value<TAB>count");
        }
        int base = 0;
        if (key) {
            base = 1;
            if ((size_t)(fe[0] - f[0]) != strlen(key) || memcmp(f[0], key, strlen(key)) != 0)
                continue;
        }
        uint64_t value, count;
        if (parse_u64(f[base], fe[base], &value) || parse_u64(f[base + 1], fe[base + 1], &count)) {
            bench_dist_free(d);
            return set_err(err, errlen, lineno, "value and count must be unsigned integers");
        }
        if (dist_add(d, value, count, &why) != 0) {
            bench_dist_free(d);
            return set_err(err, errlen, lineno, why);
        }
    }
    if (d->n == 0 || d->total == 0) {
        bench_dist_free(d);
        return set_err(err, errlen, lineno, key ? "no rows with this key, or all counts are zero"
                                                : "no rows, or all counts are zero");
    }
    return 0;
}

/* ---- mix files ---------------------------------------------------------- */

const char *const bench_mix_ops[BENCH_MIX_OPS] = {"memcpy", "memmove", "memset"};
static const char *const mix_what[3] = {"size", "src", "dst"};

void bench_mix_free(struct bench_mix *m)
{
    for (int op = 0; op < BENCH_MIX_OPS; op++) {
        bench_dist_free(&m->size[op]);
        bench_dist_free(&m->src[op]);
        bench_dist_free(&m->dst[op]);
    }
}

/* The table a profile key names (OP.size, OP.src, OP.dst), or NULL. */
static struct bench_dist *mix_table(struct bench_mix *m, const char *k, const char *ke, int *what)
{
    for (int op = 0; op < BENCH_MIX_OPS; op++) {
        size_t ol = strlen(bench_mix_ops[op]);
        if ((size_t)(ke - k) <= ol + 1 || memcmp(k, bench_mix_ops[op], ol) != 0 || k[ol] != '.')
            continue;
        for (int w = 0; w < 3; w++)
            if ((size_t)(ke - k) == ol + 1 + strlen(mix_what[w]) && memcmp(k + ol + 1, mix_what[w], strlen(mix_what[w])) == 0) {
                *what = w;
                if (op == BENCH_MIX_MEMSET && w == 1)
                    return NULL; /* memset has no source */
                return w == 0 ? &m->size[op] : w == 1 ? &m->src[op] : &m->dst[op];
            }
    }
    return NULL;
}

static int mix_err(struct bench_mix *m, char *err, size_t errlen, unsigned line, const char *what)
{
    bench_mix_free(m);
    return set_err(err, errlen, line, what);
}

int bench_mix_parse(const char *text, struct bench_mix *m, char *err, size_t errlen)
{
    unsigned lineno = 0, first_nf = 0;
    const char *pos = text, *f[3], *fe[3], *why;
    int nf, r;
    memset(m, 0, sizeof *m);
    while ((r = next_row(&pos, &lineno, f, fe, &nf)) != 0) {
        if (r < 0)
            return mix_err(m, err, errlen, lineno, "too many fields (key<TAB>value<TAB>count, or value<TAB>count)");
        if (nf == 1)
            return mix_err(m, err, errlen, lineno, "expected key<TAB>value<TAB>count, or value<TAB>count");
        if (!first_nf)
            first_nf = (unsigned)nf;
        if ((unsigned)nf != first_nf)
            return mix_err(m, err, errlen, lineno,
                           nf == 2 ? "value<TAB>count in a profile (the rows above are key<TAB>value<TAB>count)"
                                   : "key<TAB>value<TAB>count in a size table (the rows above are value<TAB>count)");
        uint64_t value, count;
        if (parse_u64(f[nf - 2], fe[nf - 2], &value) || parse_u64(f[nf - 1], fe[nf - 1], &count))
            return mix_err(m, err, errlen, lineno, "value and count must be unsigned integers");
        struct bench_dist *d = &m->size[0];
        if (nf == 3) {
            int what = 0;
            d = mix_table(m, f[0], fe[0], &what);
            if (!d) {
                char msg[160];
                snprintf(msg, sizeof msg, "unknown key '%.*s' (memcpy.size, memcpy.src, memcpy.dst, memmove.size, "
                         "memmove.src, memmove.dst, memset.size, memset.dst)", (int)(fe[0] - f[0] > 40 ? 40 : fe[0] - f[0]), f[0]);
                return mix_err(m, err, errlen, lineno, msg);
            }
            if (what && (value == 0 || value > 64 || (value & (value - 1))))
                return mix_err(m, err, errlen, lineno, "an alignment is a power of two from 1 to 64");
        }
        if (dist_add(d, value, count, &why) != 0)
            return mix_err(m, err, errlen, lineno, why);
    }
    m->profile = first_nf == 3;
    int any = 0;
    for (int op = 0; op < BENCH_MIX_OPS; op++) {
        if (!m->profile && op > 0)
            break;
        int has_size = m->size[op].total > 0, has_src = m->src[op].total > 0, has_dst = m->dst[op].total > 0;
        int copies = op != BENCH_MIX_MEMSET;
        if (has_size && (!has_dst || (copies && !has_src)) && m->profile) {
            char msg[120];
            snprintf(msg, sizeof msg, "%s.size has calls but %s.%s has none", bench_mix_ops[op], bench_mix_ops[op],
                     has_dst ? "src" : "dst");
            return mix_err(m, err, errlen, 0, msg);
        }
        if (!has_size && (has_src || has_dst)) {
            char msg[120];
            snprintf(msg, sizeof msg, "%s.%s has calls but %s.size has none", bench_mix_ops[op],
                     has_src ? "src" : "dst", bench_mix_ops[op]);
            return mix_err(m, err, errlen, 0, msg);
        }
        if (!has_size) /* rows whose counts are all zero: no calls */
            bench_dist_free(&m->size[op]);
        any |= has_size;
    }
    if (!any)
        return mix_err(m, err, errlen, 0, "no calls (no rows, or all counts are zero)");
    return 0;
}

/* ---- files -------------------------------------------------------------- */

char *bench_read_file(const char *path, size_t max, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s", strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, len = 0, n;
    char *buf = malloc(cap + 1);
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap && cap >= max) {
            snprintf(err, errlen, "larger than %zu bytes", max);
            free(buf);
            fclose(f);
            return NULL;
        }
        if (len == cap) {
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        snprintf(err, errlen, "%s", !buf ? "out of memory" : "read error");
        free(buf);
        return NULL;
    }
    buf[len] = 0;
    if (strlen(buf) != len) {
        snprintf(err, errlen, "not a text file (a NUL byte)");
        free(buf);
        return NULL;
    }
    return buf;
}

void bench_dist_free(struct bench_dist *d)
{
    free(d->value);
    free(d->cum);
    memset(d, 0, sizeof *d);
}

uint64_t bench_dist_sample(const struct bench_dist *d, struct bench_rng *r)
{
    uint64_t x = bench_rng_below(r, d->total);
    /* First i with cum[i] > x; rows with a zero count are never chosen. */
    size_t lo = 0, hi = d->n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->cum[mid] > x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return d->value[lo];
}

double bench_dist_mean(const struct bench_dist *d)
{
    double sum = 0, prev = 0;
    for (size_t i = 0; i < d->n; i++) {
        sum += (double)d->value[i] * ((double)d->cum[i] - prev);
        prev = (double)d->cum[i];
    }
    return d->total ? sum / (double)d->total : 0;
}

double bench_dist_fraction_le(const struct bench_dist *d, uint64_t limit)
{
    uint64_t w = 0, prev = 0;
    for (size_t i = 0; i < d->n; i++) {
        if (d->value[i] <= limit)
            w += d->cum[i] - prev;
        prev = d->cum[i];
    }
    return d->total ? (double)w / (double)d->total : 0;
}

unsigned bench_offset_with_align(unsigned align, struct bench_rng *r)
{
    if (align == 0 || align >= 64)
        return 0;
    /* Round a non-power of two down to one. */
    while (align & (align - 1))
        align &= align - 1;
    unsigned odd_count = 64 / (2 * align); /* odd k with align * k < 64 */
    unsigned k = 2 * (unsigned)bench_rng_below(r, odd_count) + 1;
    return align * k;
}

unsigned bench_align_of(uint64_t offset)
{
    offset &= 63;
    if (offset == 0)
        return 64;
    return (unsigned)(offset & -offset);
}

/* ---- statistics --------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_quantile(double *v, size_t n, double q)
{
    qsort(v, n, sizeof *v, cmp_double);
    if (q <= 0)
        return v[0];
    if (q >= 1)
        return v[n - 1];
    double h = (double)(n - 1) * q;
    size_t i = (size_t)h;
    double frac = h - (double)i;
    if (i + 1 >= n)
        return v[n - 1];
    return v[i] + frac * (v[i + 1] - v[i]);
}

double bench_median(double *v, size_t n)
{
    return bench_quantile(v, n, 0.5);
}

double bench_geomean(const double *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += log(v[i]);
    return n ? exp(s / (double)n) : 0;
}

double bench_paired_ratio(const double *num, const double *den, size_t n, double *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = den[i] > 0 ? num[i] / den[i] : INFINITY;
    return bench_median(out, n);
}

/* ---- sizes in text ------------------------------------------------------ */

int bench_parse_size(const char *s, size_t *out)
{
    if (!s || !*s)
        return -1;
    /* Integer part, optional ".5"-style fraction, optional unit. */
    uint64_t whole = 0, frac_num = 0, frac_den = 1;
    const char *p = s;
    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        uint64_t dgt = (uint64_t)(*p - '0');
        if (whole > (UINT64_MAX - dgt) / 10)
            return -1;
        whole = whole * 10 + dgt;
    }
    if (*p == '.') {
        p++;
        if (*p < '0' || *p > '9')
            return -1;
        for (; *p >= '0' && *p <= '9'; p++) {
            if (frac_den > UINT64_MAX / 100)
                return -1;
            frac_num = frac_num * 10 + (uint64_t)(*p - '0');
            frac_den *= 10;
        }
    }
    unsigned shift = 0;
    switch (*p) {
    case 'k': case 'K': shift = 10; p++; break;
    case 'm': case 'M': shift = 20; p++; break;
    case 'g': case 'G': shift = 30; p++; break;
    default: break;
    }
    if (*p == 'i' && shift)
        p++;
    if ((*p == 'B' || *p == 'b') && p[1] == 0)
        p++;
    if (*p)
        return -1;
    uint64_t unit = (uint64_t)1 << shift;
    if (whole > UINT64_MAX / unit)
        return -1;
    uint64_t v = whole * unit;
    if (frac_num) {
        /* The fraction must come out as whole bytes. */
        unsigned __int128 f = (unsigned __int128)frac_num * unit;
        if (f % frac_den)
            return -1;
        uint64_t add = (uint64_t)(f / frac_den);
        if (v > UINT64_MAX - add)
            return -1;
        v += add;
    }
    if (v > SIZE_MAX)
        return -1;
    *out = (size_t)v;
    return 0;
}

char *bench_format_size(size_t n, char *buf, size_t len)
{
    static const char units[] = "KMG";
    for (int u = 2; u >= 0; u--) {
        size_t unit = (size_t)1 << (10 * (u + 1));
        if (n < unit)
            continue;
        if (n % unit == 0) {
            snprintf(buf, len, "%zu%c", n / unit, units[u]);
            return buf;
        }
        if ((n * 2) % unit == 0) { /* one half */
            snprintf(buf, len, "%zu.5%c", n / unit, units[u]);
            return buf;
        }
    }
    snprintf(buf, len, "%zu", n);
    return buf;
}

/* ---- CSV ---------------------------------------------------------------- */

void bench_csv_field(FILE *f, const char *s)
{
    if (!s)
        return;
    size_t len = strlen(s);
    int quote = strpbrk(s, ",\"\r\n") != NULL || (len && (s[0] == ' ' || s[len - 1] == ' '));
    if (!quote) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void bench_csv_record(FILE *f, const char *const *fields, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputc(',', f);
        bench_csv_field(f, fields[i]);
    }
    fputc('\n', f);
}
