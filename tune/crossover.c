/*
 * crossover.c -- least-loss choice of a threshold or a window over a
 * measured curve (crossover.h says what the numbers mean).
 *
 * Grids are tens of points, so the window search tries every [lo, hi)
 * pair with prefix sums: O(n^2) additions, nothing to be clever about.
 */
#include "config.h"

#include <math.h>

#include "crossover.h"
#include "harness.h"

#define TIE 1e-9

double xo_point_loss(double r, int b, double eps)
{
    if (!(r > 0) || isinf(r))
        return 0; /* not measured: no evidence either way */
    if (fabs(log(r)) <= log1p(eps))
        return 0;
    if (b)
        return r > 1 ? r - 1 : 0;
    return r < 1 ? 1 / r - 1 : 0;
}

double xo_loss(const double *r, size_t n, double eps, size_t lo, size_t hi)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += xo_point_loss(r[i], i >= lo && i < hi, eps);
    return sum;
}

size_t xo_single(const double *r, size_t n, double eps, size_t def, double *loss)
{
    if (def > n)
        def = n;
    double best = xo_loss(r, n, eps, def, n);
    size_t pick = def;
    for (size_t k = n + 1; k-- > 0;) {
        double l = xo_loss(r, n, eps, k, n);
        if (l < best - TIE) {
            best = l;
            pick = k;
        }
    }
    if (loss)
        *loss = best;
    return pick;
}

double xo_window(const double *r, size_t n, double eps, size_t def_lo, size_t def_hi, size_t *lo, size_t *hi)
{
    if (def_hi > n)
        def_hi = n;
    if (def_lo >= def_hi)
        def_lo = def_hi = n;
    /* base: loss with A everywhere; gain[i]: what B at point i saves. */
    double base = 0;
    for (size_t i = 0; i < n; i++)
        base += xo_point_loss(r[i], 0, eps);
    double best = xo_loss(r, n, eps, def_lo, def_hi);
    size_t bl = def_lo, bh = def_hi;
    for (size_t a = 0; a < n; a++) {
        double l = base;
        for (size_t b = a; b < n; b++) {
            l += xo_point_loss(r[b], 1, eps) - xo_point_loss(r[b], 0, eps);
            /* [a, b + 1); strictly better, or as good and narrower */
            if (l < best - TIE || (fabs(l - best) <= TIE && !(bl == def_lo && bh == def_hi) && b + 1 - a < bh - bl)) {
                best = l;
                bl = a;
                bh = b + 1;
            }
        }
    }
    if (base < best - TIE || (fabs(base - best) <= TIE && !(bl == def_lo && bh == def_hi))) {
        best = base;
        bl = bh = n;
    }
    *lo = bl;
    *hi = bh;
    return best;
}

int xo_clear_gain(const double *r, const double *spread, size_t n, double eps, size_t def_lo, size_t def_hi,
                  size_t lo, size_t hi, double *saving, double *band)
{
    double sv = 0, db = 0;
    for (size_t i = 0; i < n; i++) {
        int d = i >= def_lo && i < def_hi, c = i >= lo && i < hi;
        if (d == c)
            continue;
        double ri = r[i];
        if (spread && ri > 0 && fabs(log(ri)) <= log1p(spread[i]))
            ri = 1;
        sv += xo_point_loss(ri, d, eps) - xo_point_loss(ri, c, eps);
        if (spread)
            db += spread[i];
    }
    *saving = sv;
    *band = db > eps ? db : eps;
    return sv > *band;
}

int xo_contradicted(double *ratio, double *noise, size_t n, double eps, double *median, double *noise_median)
{
    *median = *noise_median = 1;
    if (!n)
        return 0;
    *median = bench_median(ratio, n);
    *noise_median = bench_median(noise, n);
    return n >= 2 && *median > 1 + eps && *median > *noise_median;
}

size_t xo_index(const double *x, size_t n, double v)
{
    size_t i = 0;
    while (i < n && x[i] < v)
        i++;
    return i;
}
