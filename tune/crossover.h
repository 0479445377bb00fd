/*
 * crossover.h -- where one strategy should take over from another, given
 * measured curves.  No timing here: the tuner measures, this decides, and
 * tune/test-crossover.c checks the decisions on synthetic curves.
 *
 * A curve is r[0..n): at the i-th size of an increasing grid, the time of
 * strategy B over the time of strategy A (r < 1: B is faster).  A choice
 * puts B on a range of grid indices [lo, hi) and A elsewhere (lo == hi ==
 * n: B nowhere).  Its loss at a point is how much slower the chosen
 * strategy is than the faster one there (0.05 = 5 %), and a difference
 * within the noise band eps counts as no loss either way, so noise alone
 * never moves a threshold.  The best choice has the least total loss over
 * the grid (GMP's tune/ "least badness"), not the first point where B
 * wins, so a single noisy point or several crossings are handled.
 */
#ifndef MEMASM_TUNE_CROSSOVER_H
#define MEMASM_TUNE_CROSSOVER_H

#include <stddef.h>

/* Loss of choosing A (b = 0) or B (b = 1) at a point whose ratio is r. */
double xo_point_loss(double r, int b, double eps);

/* Total loss of B on [lo, hi) and A elsewhere. */
double xo_loss(const double *r, size_t n, double eps, size_t lo, size_t hi);

/*
 * The best threshold "B from index i up" (i in 0..n; n: never).  Among
 * choices whose loss is within 1e-9 of the least, def (the default's index)
 * wins, then the highest i (the smaller change from A, which every
 * threshold key falls back to).  *loss receives the least loss.
 */
size_t xo_single(const double *r, size_t n, double eps, size_t def, double *loss);

/*
 * The best window: B on [*lo, *hi) (0 <= lo <= hi <= n; an empty window is
 * returned as lo == hi == n).  Ties go to the default window [def_lo,
 * def_hi), then to the narrowest.  Returns the least loss.
 */
double xo_window(const double *r, size_t n, double eps, size_t def_lo, size_t def_hi, size_t *lo, size_t *hi);

/*
 * Whether moving from the default [def_lo, def_hi) to the choice [lo, hi)
 * saves more than the noise on the curve r, whose points carry a relative
 * spread (NULL: none).  Only the points where the two choose differently
 * count, so r need not be measured elsewhere (0 there is fine).  A point
 * within its spread is a tie, as in the finder; the saving must beat eps
 * and the summed spread of the points that count.  *saving receives
 * loss(default) - loss(choice) (negative: the choice is worse), *band what
 * it had to beat.  The tuner asks this of the pass that chose and again of
 * a second pass that did not: the choice is the best of many on the first
 * pass's noise, so only a fresh curve says what it saves.
 */
int xo_clear_gain(const double *r, const double *spread, size_t n, double eps, size_t def_lo, size_t def_hi,
                  size_t lo, size_t hi, double *saving, double *band);

/*
 * Whether a later check contradicts a choice: at n sizes where the choice
 * and the default differ, ratio[i] is time(with the choice) / time(with the
 * default) and noise[i] (>= 1) how far two identical configurations landed
 * apart there.  Contradicted when the median ratio is above 1 + eps and
 * above the median noise.  *median receives the median ratio,
 * *noise_median the median noise (both arrays are left sorted: the
 * medians are bench_median's).  It takes two sizes or more: a single
 * size where the two differ lies next to a grid point both passes
 * measured, and a ratio there places the crossover between the two rather
 * than refutes the choice (a quick run's bwd_nt_min: B lost 1.5x at the
 * grid point and won 1.22x at the size after it).
 */
int xo_contradicted(double *ratio, double *noise, size_t n, double eps, double *median, double *noise_median);

/*
 * Index of the first grid value >= v (n when v is above them all): where a
 * threshold of value v falls on the grid.
 */
size_t xo_index(const double *x, size_t n, double v);

#endif /* MEMASM_TUNE_CROSSOVER_H */
