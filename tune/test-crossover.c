/*
 * test-crossover.c -- the tuner's decisions on synthetic curves (no timing):
 * a clean crossover, noise around it, no crossover, several crossings, a
 * flat curve, windows, the tie rules that keep defaults, the margin a new
 * value must show on each pass, and when a later check takes it back.
 *
 * A curve here is r[i] = time(B) / time(A) at grid point i; the noise is
 * drawn from a fixed-seed generator whose seed each test prints.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "crossover.h"

#define N 24
#define EPS 0.02

/* splitmix64: a generator of our own, so the curves are the same on every
 * C library. */
static uint64_t rng_state;
static double noise(double amp)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return amp * (2.0 * (double)(z >> 11) / 9007199254740992.0 - 1.0);
}

static void seed(uint64_t s)
{
    rng_state = s;
    printf("test-crossover: noise seed %#llx\n", (unsigned long long)s);
}

/* B 30 % faster from index at up, 30 % slower below. */
static void step_curve(double *r, size_t at, double amp)
{
    for (size_t i = 0; i < N; i++)
        r[i] = (i >= at ? 0.7 : 1.3) * (1 + noise(amp));
}

START_TEST(point_loss)
{
    ck_assert_double_eq_tol(xo_point_loss(0.5, 0, EPS), 1.0, 1e-12); /* A is 2x slower */
    ck_assert_double_eq_tol(xo_point_loss(0.5, 1, EPS), 0.0, 1e-12);
    ck_assert_double_eq_tol(xo_point_loss(1.25, 1, EPS), 0.25, 1e-12);
    ck_assert_double_eq_tol(xo_point_loss(1.25, 0, EPS), 0.0, 1e-12);
    /* inside the noise band: no loss either way */
    ck_assert_double_eq(xo_point_loss(1.015, 1, EPS), 0.0);
    ck_assert_double_eq(xo_point_loss(1 / 1.015, 0, EPS), 0.0);
    /* not measured */
    ck_assert_double_eq(xo_point_loss(0.0, 1, EPS), 0.0);
    ck_assert_double_eq(xo_point_loss(NAN, 0, EPS), 0.0);
}
END_TEST

START_TEST(clean_crossover)
{
    double r[N], loss;
    for (size_t at = 0; at <= N; at++) {
        step_curve(r, at, 0);
        /* whatever the default, a 30 % step is found exactly */
        size_t got = xo_single(r, N, EPS, N, &loss);
        ck_assert_uint_eq(got, at);
        ck_assert_double_eq_tol(loss, 0.0, 1e-12);
        got = xo_single(r, N, EPS, 0, &loss);
        ck_assert_uint_eq(got, at);
    }
}
END_TEST

START_TEST(noisy_crossover)
{
    double r[N], loss;
    seed(0x63726f7373ULL + (uint64_t)_i);
    for (int rep = 0; rep < 200; rep++) {
        step_curve(r, 10, 0.10); /* +-10 % noise on a 30 % step */
        size_t got = xo_single(r, N, EPS, N, &loss);
        ck_assert_uint_eq(got, 10);
    }
    /* one wild point on the wrong side does not move the threshold: the
     * least total loss outweighs it */
    step_curve(r, 10, 0);
    r[4] = 0.5;
    ck_assert_uint_eq(xo_single(r, N, EPS, N, &loss), 10);
    ck_assert_double_gt(loss, 0.9);
}
END_TEST

START_TEST(no_crossover)
{
    double r[N], loss;
    for (size_t i = 0; i < N; i++)
        r[i] = 1.2 + 0.01 * (double)i; /* B always slower */
    ck_assert_uint_eq(xo_single(r, N, EPS, 5, &loss), N);
    ck_assert_double_eq_tol(loss, 0.0, 1e-12);
    for (size_t i = 0; i < N; i++)
        r[i] = 0.6; /* B always faster */
    ck_assert_uint_eq(xo_single(r, N, EPS, N, &loss), 0);
}
END_TEST

START_TEST(flat_keeps_default)
{
    double r[N], loss;
    seed(0x666c6174ULL);
    for (size_t i = 0; i < N; i++)
        r[i] = 1 + noise(0.015); /* within the noise band everywhere */
    for (size_t def = 0; def <= N; def += 3)
        ck_assert_uint_eq(xo_single(r, N, EPS, def, &loss), def);
    size_t lo, hi;
    ck_assert_double_eq_tol(xo_window(r, N, EPS, 4, 9, &lo, &hi), 0.0, 1e-12);
    ck_assert_uint_eq(lo, 4);
    ck_assert_uint_eq(hi, 9);
    /* an empty default window stays empty */
    xo_window(r, N, EPS, N, N, &lo, &hi);
    ck_assert_uint_eq(lo, N);
    ck_assert_uint_eq(hi, N);
}
END_TEST

START_TEST(flat_region_above)
{
    /* B wins clearly from 8, then the two are level: any threshold from 8
     * down to where B starts winning ties, and the default at 8 stays; a
     * default of "never" moves down to 8. */
    double r[N], loss;
    for (size_t i = 0; i < N; i++)
        r[i] = i < 8 ? 1.4 : i < 14 ? 0.6 : 1.0;
    ck_assert_uint_eq(xo_single(r, N, EPS, 8, &loss), 8);
    ck_assert_uint_eq(xo_single(r, N, EPS, N, &loss), 8);
    /* the default just above the level region (14) still loses 6 points of
     * 0.6: it moves too */
    ck_assert_uint_eq(xo_single(r, N, EPS, 14, &loss), 8);
}
END_TEST

START_TEST(several_crossings)
{
    /* A B A B: B wins on [4, 8) and from 16 up.  A single threshold cannot
     * follow both: B from 4 loses 8 points of 0.2 on [8, 16) (1.6), B from
     * 16 loses 4 points of 1/0.7 - 1 on [4, 8) (1.71), so B from 4. */
    double r[N], loss;
    for (size_t i = 0; i < N; i++)
        r[i] = (i >= 4 && i < 8) ? 0.7 : (i >= 16) ? 0.7 : (i >= 8 ? 1.2 : 1.3);
    double from4 = xo_loss(r, N, EPS, 4, N), from16 = xo_loss(r, N, EPS, 16, N);
    ck_assert_double_eq_tol(from4, 8 * 0.2, 1e-9);
    ck_assert_double_eq_tol(from16, 4 * (1 / 0.7 - 1), 1e-9);
    ck_assert_uint_eq(xo_single(r, N, EPS, N, &loss), 4);
    ck_assert_double_eq_tol(loss, from4, 1e-9);
    /* a window finds the first B region exactly */
    for (size_t i = 16; i < N; i++)
        r[i] = 1.3;
    size_t lo, hi;
    ck_assert_double_eq_tol(xo_window(r, N, EPS, N, N, &lo, &hi), 0.0, 1e-12);
    ck_assert_uint_eq(lo, 4);
    ck_assert_uint_eq(hi, 8);
}
END_TEST

START_TEST(window_open_ended)
{
    /* rep movsb from 6 to the end: the window runs to "never" (hi == N) */
    double r[N];
    size_t lo, hi;
    for (size_t i = 0; i < N; i++)
        r[i] = i >= 6 ? 0.8 : 1.5;
    xo_window(r, N, EPS, 2, 3, &lo, &hi);
    ck_assert_uint_eq(lo, 6);
    ck_assert_uint_eq(hi, N);
    /* B nowhere: empty window, reported as [N, N) */
    for (size_t i = 0; i < N; i++)
        r[i] = 1.5;
    xo_window(r, N, EPS, 2, 9, &lo, &hi);
    ck_assert_uint_eq(lo, N);
    ck_assert_uint_eq(hi, N);
}
END_TEST

START_TEST(window_noise)
{
    double r[N];
    size_t lo, hi;
    seed(0x77696e646f77ULL);
    for (int rep = 0; rep < 200; rep++) {
        for (size_t i = 0; i < N; i++)
            r[i] = (i >= 5 && i < 17 ? 0.75 : 1.3) * (1 + noise(0.08));
        xo_window(r, N, EPS, N, N, &lo, &hi);
        ck_assert_uint_eq(lo, 5);
        ck_assert_uint_eq(hi, 17);
    }
}
END_TEST

START_TEST(clear_gain)
{
    double r[N], sp[N], saving, band;
    /* B 30 % faster from 8 up, default "never": the 16 points from 8 count */
    step_curve(r, 8, 0);
    for (size_t i = 0; i < N; i++)
        sp[i] = 0.01;
    ck_assert_int_eq(xo_clear_gain(r, sp, N, EPS, N, N, 8, N, &saving, &band), 1);
    ck_assert_double_eq_tol(saving, 16 * (1 / 0.7 - 1), 1e-9);
    ck_assert_double_eq_tol(band, 16 * 0.01, 1e-9);
    /* only the points where the two choices differ are read: the rest may
     * be unmeasured, or anything */
    for (size_t i = 0; i < 8; i++)
        r[i] = i % 2 ? 0.0 : 50.0;
    ck_assert_int_eq(xo_clear_gain(r, sp, N, EPS, N, N, 8, N, &saving, &band), 1);
    ck_assert_double_eq_tol(saving, 16 * (1 / 0.7 - 1), 1e-9);
    /* the choice is worse than the default: a negative saving */
    ck_assert_int_eq(xo_clear_gain(r, sp, N, EPS, 8, N, N, N, &saving, &band), 0);
    ck_assert_double_eq_tol(saving, -16 * (1 / 0.7 - 1), 1e-9);
    /* a window against a threshold: [4, 12) vs [8, N) differ on [4, 8)
     * (B 1.3x slower there) and [12, N) (B faster, given up) */
    step_curve(r, 8, 0);
    ck_assert_int_eq(xo_clear_gain(r, sp, N, EPS, 8, N, 4, 12, &saving, &band), 0);
    ck_assert_double_eq_tol(saving, -4 * 0.3 - 12 * (1 / 0.7 - 1), 1e-9);
    ck_assert_double_eq_tol(band, 16 * 0.01, 1e-9);
    /* a point inside its spread is a tie: no saving, and its spread is
     * part of what the rest must beat */
    for (size_t i = 0; i < N; i++) {
        r[i] = 0.9;
        sp[i] = i < 20 ? 0.15 : 0.01;
    }
    ck_assert_int_eq(xo_clear_gain(r, sp, N, EPS, N, N, 16, N, &saving, &band), 0);
    ck_assert_double_eq_tol(saving, 4 * (1 / 0.9 - 1), 1e-9);
    ck_assert_double_eq_tol(band, 4 * 0.15 + 4 * 0.01, 1e-9);
    /* no spreads given: the band is eps */
    ck_assert_int_eq(xo_clear_gain(r, NULL, N, EPS, N, N, 16, N, &saving, &band), 1);
    ck_assert_double_eq_tol(band, EPS, 1e-12);
    /* the same choice as the default saves nothing */
    ck_assert_int_eq(xo_clear_gain(r, sp, N, EPS, 5, N, 5, N, &saving, &band), 0);
    ck_assert_double_eq(saving, 0.0);
}
END_TEST

START_TEST(second_pass)
{
    /* Curves of noise alone (B and A the same strategy, +-6 %): the finder
     * picks the value that looks best on the pass it saw, and that pass
     * says it is clear of the noise more often than a fresh pass over the
     * same points agrees.  With a real step both passes agree. */
    double r1[N], r2[N], sp[N], saving, band, loss;
    int first = 0, both = 0, real_first = 0, real_both = 0;
    seed(0x7365636f6e64ULL);
    for (size_t i = 0; i < N; i++)
        sp[i] = 0.01;
    for (int rep = 0; rep < 400; rep++) {
        for (size_t i = 0; i < N; i++) {
            r1[i] = 1 + noise(0.06);
            r2[i] = 1 + noise(0.06);
        }
        size_t at = xo_single(r1, N, EPS, N, &loss);
        if (xo_clear_gain(r1, sp, N, EPS, N, N, at, N, &saving, &band)) {
            first++;
            both += xo_clear_gain(r2, sp, N, EPS, N, N, at, N, &saving, &band);
        }
        for (size_t i = 0; i < N; i++) {
            r1[i] = (i >= 12 ? 0.85 : 1.0) * (1 + noise(0.06));
            r2[i] = (i >= 12 ? 0.85 : 1.0) * (1 + noise(0.06));
        }
        at = xo_single(r1, N, EPS, N, &loss);
        if (xo_clear_gain(r1, sp, N, EPS, N, N, at, N, &saving, &band)) {
            real_first++;
            real_both += xo_clear_gain(r2, sp, N, EPS, N, N, at, N, &saving, &band);
        }
    }
    printf("test-crossover: noise alone: %d of 400 first passes clear, %d confirmed; a 15 %% step: %d, %d\n", first,
           both, real_first, real_both);
    ck_assert_int_gt(first, 100);
    ck_assert_int_lt(both * 4, first);
    ck_assert_int_eq(real_first, 400);
    ck_assert_int_gt(real_both * 10, real_first * 9);
}
END_TEST

START_TEST(contradicted)
{
    double med, nz;
    /* slower by 6 % at most sizes, noise 3 %: contradicted */
    double r1[] = {1.06, 1.08, 0.99, 1.05, 1.07}, n1[] = {1.03, 1.02, 1.04, 1.03, 1.01};
    ck_assert_int_eq(xo_contradicted(r1, n1, 5, EPS, &med, &nz), 1);
    ck_assert_double_eq_tol(med, 1.06, 1e-12);
    ck_assert_double_eq_tol(nz, 1.03, 1e-12);
    /* as slow, but two identical files landed 8 % apart there */
    double n2[] = {1.08, 1.09, 1.07, 1.10, 1.02};
    ck_assert_int_eq(xo_contradicted(r1, n2, 5, EPS, &med, &nz), 0);
    ck_assert_double_eq_tol(nz, 1.08, 1e-12);
    /* within 2 % whatever the noise */
    double r3[] = {1.015, 1.01, 1.02, 1.3}, n3[] = {1.0, 1.0, 1.0, 1.0};
    ck_assert_int_eq(xo_contradicted(r3, n3, 4, EPS, &med, &nz), 0);
    ck_assert_double_eq_tol(med, 1.0175, 1e-12);
    /* one bad size among faster ones does not take a choice back */
    double r4[] = {0.9, 0.92, 1.4}, n4[] = {1.01, 1.01, 1.01};
    ck_assert_int_eq(xo_contradicted(r4, n4, 3, EPS, &med, &nz), 0);
    /* one size alone, however slow, places a crossover; it refutes nothing */
    double r5[] = {1.22}, n5[] = {1.02};
    ck_assert_int_eq(xo_contradicted(r5, n5, 1, EPS, &med, &nz), 0);
    ck_assert_double_eq_tol(med, 1.22, 1e-12);
    /* two sizes are enough (the arrays above are sorted now: fresh ones) */
    double r6[] = {1.06, 1.08}, n6[] = {1.03, 1.02};
    ck_assert_int_eq(xo_contradicted(r6, n6, 2, EPS, &med, &nz), 1);
    /* no sizes where the two differ: no evidence */
    ck_assert_int_eq(xo_contradicted(r4, n4, 0, EPS, &med, &nz), 0);
    ck_assert_double_eq(med, 1.0);
}
END_TEST

START_TEST(index_of_value)
{
    double x[] = {1024, 2048, 4096, 8192};
    ck_assert_uint_eq(xo_index(x, 4, 0), 0);
    ck_assert_uint_eq(xo_index(x, 4, 2048), 1);
    ck_assert_uint_eq(xo_index(x, 4, 2049), 2);
    ck_assert_uint_eq(xo_index(x, 4, 1e30), 4);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("crossover");
    TCase *tc = tcase_create("finder");
    tcase_add_test(tc, point_loss);
    tcase_add_test(tc, clean_crossover);
    tcase_add_loop_test(tc, noisy_crossover, 0, 4);
    tcase_add_test(tc, no_crossover);
    tcase_add_test(tc, flat_keeps_default);
    tcase_add_test(tc, flat_region_above);
    tcase_add_test(tc, several_crossings);
    tcase_add_test(tc, window_open_ended);
    tcase_add_test(tc, window_noise);
    tcase_add_test(tc, clear_gain);
    tcase_add_test(tc, second_pass);
    tcase_add_test(tc, contradicted);
    tcase_add_test(tc, index_of_value);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
