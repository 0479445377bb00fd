/*
 * test-harness.c -- unit tests (Check) for memasm-bench's harness logic:
 * size grid, random numbers, frequency tables and sampling from them,
 * order statistics and paired ratios, size parsing/printing, CSV writer.
 * Nothing here times anything.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tables.h"

/* ---- size grid ---------------------------------------------------------- */

START_TEST(grid_small)
{
    size_t out[32];
    size_t want[] = {1, 2, 3, 4, 6, 8, 12, 16};
    size_t n = bench_size_grid(1, 16, 0, out, 32);
    ck_assert_uint_eq(n, 8);
    for (size_t i = 0; i < n; i++)
        ck_assert_uint_eq(out[i], want[i]);
}
END_TEST

START_TEST(grid_bounds_and_count)
{
    size_t out[64];
    /* Bounds are inclusive and need not be grid points. */
    size_t n = bench_size_grid(5, 20, 0, out, 64);
    size_t want[] = {6, 8, 12, 16};
    ck_assert_uint_eq(n, 4);
    for (size_t i = 0; i < n; i++)
        ck_assert_uint_eq(out[i], want[i]);
    /* cap = 0 only counts; a short array gets the first cap points. */
    ck_assert_uint_eq(bench_size_grid(1, (size_t)256 << 20, 0, NULL, 0), 29 + 27); /* 2^0..2^28, 3*2^0..3*2^26 */
    ck_assert_uint_eq(bench_size_grid(1, (size_t)256 << 20, 0, out, 3), 56);
    ck_assert_uint_eq(out[2], 3);
    /* The top of the sweep is 256 MiB exactly. */
    n = bench_size_grid(1, (size_t)256 << 20, 0, out, 64);
    ck_assert_uint_eq(out[n - 1], (size_t)256 << 20);
    ck_assert_uint_eq(out[n - 2], (size_t)192 << 20);
    /* Strictly increasing. */
    for (size_t i = 1; i < n; i++)
        ck_assert_uint_lt(out[i - 1], out[i]);
    /* Lower bound 0 behaves as 1. */
    ck_assert_uint_eq(bench_size_grid(0, 2, 0, out, 64), 2);
    ck_assert_uint_eq(bench_size_grid(7, 7, 0, out, 64), 0);
}
END_TEST

START_TEST(grid_pow2)
{
    size_t out[64];
    size_t n = bench_size_grid(1, 4096, 1, out, 64);
    ck_assert_uint_eq(n, 13);
    for (size_t i = 0; i < n; i++)
        ck_assert_uint_eq(out[i], (size_t)1 << i);
}
END_TEST

/* ---- random numbers ----------------------------------------------------- */

START_TEST(rng_deterministic_and_bounded)
{
    struct bench_rng a, b;
    bench_rng_seed(&a, 42);
    bench_rng_seed(&b, 42);
    for (int i = 0; i < 1000; i++)
        ck_assert_uint_eq(bench_rng_next(&a), bench_rng_next(&b));
    bench_rng_seed(&b, 43);
    ck_assert_uint_ne(bench_rng_next(&a), bench_rng_next(&b));
    /* below(n) stays in range and hits every value of a small range about
     * equally often (deterministic seed: this cannot flake). */
    unsigned hist[10] = {0};
    for (int i = 0; i < 100000; i++) {
        uint64_t v = bench_rng_below(&a, 10);
        ck_assert_uint_lt(v, 10);
        hist[v]++;
    }
    for (int i = 0; i < 10; i++) {
        ck_assert_uint_gt(hist[i], 9500);
        ck_assert_uint_lt(hist[i], 10500);
    }
    ck_assert_uint_eq(bench_rng_below(&a, 1), 0);
}
END_TEST

/* ---- frequency tables --------------------------------------------------- */

START_TEST(dist_parse_plain)
{
    struct bench_dist d;
    char err[128];
    const char *text = "# a comment\n8\t3\n\n16\t1\r\n32\t0\n64\t4";
    ck_assert_int_eq(bench_dist_parse(text, NULL, &d, err, sizeof err), 0);
    ck_assert_uint_eq(d.n, 4);
    ck_assert_uint_eq(d.total, 8);
    ck_assert_uint_eq(d.value[1], 16);
    ck_assert_uint_eq(d.cum[3], 8);
    ck_assert(fabs(bench_dist_mean(&d) - (8 * 3 + 16 + 64 * 4) / 8.0) < 1e-12);
    ck_assert(fabs(bench_dist_fraction_le(&d, 16) - 0.5) < 1e-12);
    bench_dist_free(&d);
}
END_TEST

START_TEST(dist_parse_keyed)
{
    struct bench_dist d;
    char err[128];
    const char *text = "# which\talign\tcount\nsrc\t8\t10\ndst\t16\t5\nsrc\t64\t30\n";
    ck_assert_int_eq(bench_dist_parse(text, "src", &d, err, sizeof err), 0);
    ck_assert_uint_eq(d.n, 2);
    ck_assert_uint_eq(d.total, 40);
    ck_assert_uint_eq(d.value[1], 64);
    bench_dist_free(&d);
    ck_assert_int_eq(bench_dist_parse(text, "dst", &d, err, sizeof err), 0);
    ck_assert_uint_eq(d.n, 1);
    bench_dist_free(&d);
    ck_assert_int_eq(bench_dist_parse(text, "none", &d, err, sizeof err), -1);
}
END_TEST

START_TEST(dist_parse_errors)
{
    struct bench_dist d;
    char err[128];
    ck_assert_int_eq(bench_dist_parse("8\t3\nx\t1\n", NULL, &d, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "line 2"));
    ck_assert_int_eq(bench_dist_parse("8\t3\t4\n", NULL, &d, err, sizeof err), -1);
    ck_assert_int_eq(bench_dist_parse("8\n", NULL, &d, err, sizeof err), -1);
    ck_assert_int_eq(bench_dist_parse("8 3\n", NULL, &d, err, sizeof err), -1);
    ck_assert_int_eq(bench_dist_parse("-8\t3\n", NULL, &d, err, sizeof err), -1);
    ck_assert_int_eq(bench_dist_parse("# only a comment\n", NULL, &d, err, sizeof err), -1);
    ck_assert_int_eq(bench_dist_parse("8\t0\n", NULL, &d, err, sizeof err), -1);
    ck_assert_int_eq(bench_dist_parse("8\t99999999999999999999\n", NULL, &d, err, sizeof err), -1);
    ck_assert_int_eq(bench_dist_parse("src\t8\n", "src", &d, err, sizeof err), -1);
    ck_assert_ptr_null(d.value);
}
END_TEST

/* ---- mix files ---------------------------------------------------------- */

START_TEST(mix_parse_profile)
{
    struct bench_mix m;
    char err[200];
    const char *text = "# libmemasm-profile\nmemcpy.size\t8\t3\nmemcpy.size\t2048\t1\nmemcpy.src\t8\t4\n"
                       "memcpy.dst\t64\t3\nmemcpy.dst\t1\t1\nmemset.size\t40\t7\r\nmemset.dst\t16\t7\n"
                       "memmove.size\t5\t0\n";
    ck_assert_msg(bench_mix_parse(text, &m, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(m.profile, 1);
    ck_assert_uint_eq(m.size[BENCH_MIX_MEMCPY].n, 2);
    ck_assert_uint_eq(m.size[BENCH_MIX_MEMCPY].total, 4);
    ck_assert_uint_eq(m.size[BENCH_MIX_MEMCPY].value[1], 2048);
    ck_assert_uint_eq(m.src[BENCH_MIX_MEMCPY].total, 4);
    ck_assert_uint_eq(m.dst[BENCH_MIX_MEMCPY].n, 2);
    ck_assert_uint_eq(m.dst[BENCH_MIX_MEMCPY].value[1], 1);
    ck_assert_uint_eq(m.size[BENCH_MIX_MEMSET].total, 7);
    ck_assert_uint_eq(m.dst[BENCH_MIX_MEMSET].value[0], 16);
    ck_assert_uint_eq(m.src[BENCH_MIX_MEMSET].n, 0);
    /* memmove's only row has no calls: no memmove mix */
    ck_assert_uint_eq(m.size[BENCH_MIX_MEMMOVE].n, 0);
    bench_mix_free(&m);
    ck_assert_ptr_null(m.size[BENCH_MIX_MEMCPY].value);
}
END_TEST

START_TEST(mix_parse_size_table)
{
    struct bench_mix m;
    char err[200];
    ck_assert_msg(bench_mix_parse("# sizes\n8\t3\n16\t1\n", &m, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(m.profile, 0);
    ck_assert_uint_eq(m.size[0].n, 2);
    ck_assert_uint_eq(m.size[0].total, 4);
    ck_assert_uint_eq(m.src[0].n + m.dst[0].n + m.size[1].n + m.size[2].n, 0);
    bench_mix_free(&m);
}
END_TEST

START_TEST(mix_parse_errors)
{
    static const struct {
        const char *text, *err;
    } bad[] = {
        {"memcpy.size\t8\t3\nmemcpy.size\n", "line 2: expected key<TAB>value<TAB>count, or value<TAB>count"},
        {"memcpy.size\t8\t3\nmemcpy.src\t8\t3\t1\n", "line 2: too many fields"},
        {"\n# x\nmemcpy.size\t8\t3\n16\t1\n", "line 4: value<TAB>count in a profile"},
        {"16\t1\nmemcpy.size\t8\t3\n", "line 2: key<TAB>value<TAB>count in a size table"},
        {"memcpy.bytes\t8\t3\n", "line 1: unknown key 'memcpy.bytes'"},
        {"memset.src\t8\t3\n", "line 1: unknown key 'memset.src'"},
        {"memcpy\t8\t3\n", "line 1: unknown key 'memcpy'"},
        {"memcpy.size\t8\t3\nmemcpy.dst\t3\t3\n", "line 2: an alignment is a power of two from 1 to 64"},
        {"memcpy.size\t8\t3\nmemcpy.dst\t128\t3\n", "line 2: an alignment is a power of two from 1 to 64"},
        {"memcpy.size\t8\t3\nmemcpy.dst\t0\t3\n", "line 2: an alignment is a power of two from 1 to 64"},
        {"memcpy.size\t-8\t3\n", "line 1: value and count must be unsigned integers"},
        {"memcpy.size\t8\t18446744073709551615\nmemcpy.size\t9\t1\n", "line 2: counts overflow"},
        {"memcpy.size\t8\t3\nmemcpy.dst\t8\t3\n", "memcpy.size has calls but memcpy.src has none"},
        {"memset.size\t8\t3\n", "memset.size has calls but memset.dst has none"},
        {"memmove.dst\t8\t3\n", "memmove.dst has calls but memmove.size has none"},
        {"memcpy.size\t8\t0\n", "no calls"},
        {"# only a comment\n\n", "no calls"},
        {"", "no calls"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct bench_mix m;
        char err[200] = "";
        ck_assert_msg(bench_mix_parse(bad[i].text, &m, err, sizeof err) == -1, "accepted case %zu", i);
        ck_assert_msg(strncmp(err, bad[i].err, strlen(bad[i].err)) == 0, "case %zu: '%s', expected '%s'", i, err,
                      bad[i].err);
        ck_assert_ptr_null(m.size[0].value);
    }
}
END_TEST

START_TEST(dist_sampling_follows_weights)
{
    struct bench_dist d;
    char err[128];
    ck_assert_int_eq(bench_dist_parse("1\t1\n2\t0\n3\t2\n4\t7\n", NULL, &d, err, sizeof err), 0);
    struct bench_rng r;
    bench_rng_seed(&r, 7);
    unsigned hist[5] = {0};
    const unsigned N = 200000;
    for (unsigned i = 0; i < N; i++) {
        uint64_t v = bench_dist_sample(&d, &r);
        ck_assert(v >= 1 && v <= 4);
        hist[v]++;
    }
    ck_assert_uint_eq(hist[2], 0); /* zero weight: never drawn */
    ck_assert(fabs(hist[1] / (double)N - 0.1) < 0.005);
    ck_assert(fabs(hist[3] / (double)N - 0.2) < 0.005);
    ck_assert(fabs(hist[4] / (double)N - 0.7) < 0.005);
    bench_dist_free(&d);
}
END_TEST

static const char *builtin(const char *name)
{
    for (const struct memasm_bench_table *t = memasm_bench_tables; t->name; t++)
        if (strcmp(t->name, name) == 0)
            return t->text;
    return NULL;
}

START_TEST(builtin_tables)
{
    struct bench_dist d;
    char err[128];
    /* memcpy sizes: 32 bytes is the most frequent; most calls are small. */
    ck_assert_ptr_nonnull(builtin("memcpy_sizes"));
    ck_assert_int_eq(bench_dist_parse(builtin("memcpy_sizes"), NULL, &d, err, sizeof err), 0);
    ck_assert_uint_gt(d.n, 100);
    size_t best = 0;
    for (size_t i = 1; i < d.n; i++)
        if (d.cum[i] - d.cum[i - 1] > d.cum[best] - (best ? d.cum[best - 1] : 0))
            best = i;
    ck_assert_uint_eq(d.value[best], 32);
    ck_assert(bench_dist_fraction_le(&d, 1023) > 0.9);
    for (size_t i = 0; i < d.n; i++)
        ck_assert_uint_le(d.value[i], 4096); /* the bench's MIX_MAX_SIZE */
    bench_dist_free(&d);
    ck_assert_int_eq(bench_dist_parse(builtin("memset_sizes"), NULL, &d, err, sizeof err), 0);
    for (size_t i = 0; i < d.n; i++)
        ck_assert_uint_le(d.value[i], 4096);
    bench_dist_free(&d);
    /* Alignments: powers of two up to 64, for src and dst. */
    const char *keys[] = {"src", "dst"};
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(bench_dist_parse(builtin("memcpy_align"), keys[k], &d, err, sizeof err), 0);
        ck_assert_uint_eq(d.n, 7);
        for (size_t i = 0; i < d.n; i++) {
            ck_assert_uint_le(d.value[i], 64);
            ck_assert_uint_eq(d.value[i] & (d.value[i] - 1), 0);
        }
        bench_dist_free(&d);
    }
    ck_assert_ptr_null(builtin("nonexistent"));
}
END_TEST

START_TEST(offsets_have_requested_alignment)
{
    struct bench_rng r;
    bench_rng_seed(&r, 1);
    for (unsigned a = 1; a <= 64; a <<= 1) {
        unsigned seen = 0;
        for (int i = 0; i < 2000; i++) {
            unsigned off = bench_offset_with_align(a, &r);
            ck_assert_uint_lt(off, 64);
            ck_assert_uint_eq(bench_align_of(off), a);
            seen |= 1u << (off / (a < 64 ? a : 1) % 32);
        }
        /* Every odd multiple of a below 64 turns up. */
        if (a < 64)
            for (unsigned k = 1; a * k < 64; k += 2)
                ck_assert(seen & 1u << (k % 32));
    }
    ck_assert_uint_eq(bench_offset_with_align(128, &r), 0);
    ck_assert_uint_eq(bench_align_of(0), 64);
    ck_assert_uint_eq(bench_align_of(24), 8);
    ck_assert_uint_eq(bench_align_of(64 + 4), 4);
}
END_TEST

/* ---- statistics --------------------------------------------------------- */

START_TEST(median_and_quantiles)
{
    double odd[] = {5, 1, 4, 2, 3};
    ck_assert(bench_median(odd, 5) == 3);
    ck_assert(odd[0] == 1 && odd[4] == 5); /* sorted in place */
    double even[] = {4, 1, 3, 2};
    ck_assert(bench_median(even, 4) == 2.5);
    double one[] = {7};
    ck_assert(bench_median(one, 1) == 7);
    double v[] = {10, 20, 30, 40, 50};
    ck_assert(bench_quantile(v, 5, 0) == 10);
    ck_assert(bench_quantile(v, 5, 1) == 50);
    ck_assert(fabs(bench_quantile(v, 5, 0.25) - 20) < 1e-12);
    ck_assert(fabs(bench_quantile(v, 5, 0.1) - 14) < 1e-12);
    /* A single outlier does not move the median. */
    double w[] = {1.0, 1.01, 0.99, 1.0, 1000.0};
    ck_assert(bench_median(w, 5) == 1.0);
    double g[] = {1, 4, 16};
    ck_assert(fabs(bench_geomean(g, 3) - 4) < 1e-12);
}
END_TEST

START_TEST(paired_ratios)
{
    /* Both times drift upwards together: the paired ratio stays exactly 2
     * although the unpaired medians would mix different rounds. */
    double ref[] = {100, 200, 300, 400, 500};
    double cand[] = {50, 100, 150, 200, 250};
    double out[5];
    ck_assert(fabs(bench_paired_ratio(ref, cand, 5, out) - 2.0) < 1e-12);
    /* Order of the rounds does not matter; one outlier round does not count. */
    double a[] = {10, 10, 10, 10, 10};
    double b[] = {10, 20, 10, 5, 10};
    ck_assert(fabs(bench_paired_ratio(a, b, 5, out) - 1.0) < 1e-12);
    /* A zero time is an infinite ratio, not a crash. */
    double z[] = {0};
    double one[] = {1};
    ck_assert(isinf(bench_paired_ratio(one, z, 1, out)));
}
END_TEST

/* ---- sizes in text ------------------------------------------------------ */

START_TEST(parse_sizes)
{
    size_t v;
    ck_assert_int_eq(bench_parse_size("4096", &v), 0);
    ck_assert_uint_eq(v, 4096);
    ck_assert_int_eq(bench_parse_size("4K", &v), 0);
    ck_assert_uint_eq(v, 4096);
    ck_assert_int_eq(bench_parse_size("1.5M", &v), 0);
    ck_assert_uint_eq(v, 1536 * 1024);
    ck_assert_int_eq(bench_parse_size("256MiB", &v), 0);
    ck_assert_uint_eq(v, (size_t)256 << 20);
    ck_assert_int_eq(bench_parse_size("1g", &v), 0);
    ck_assert_uint_eq(v, (size_t)1 << 30);
    ck_assert_int_eq(bench_parse_size("0", &v), 0);
    ck_assert_uint_eq(v, 0);
    ck_assert_int_eq(bench_parse_size("", &v), -1);
    ck_assert_int_eq(bench_parse_size("K", &v), -1);
    ck_assert_int_eq(bench_parse_size("12x", &v), -1);
    ck_assert_int_eq(bench_parse_size("1.", &v), -1);
    ck_assert_int_eq(bench_parse_size("1.3", &v), -1); /* not whole bytes */
    ck_assert_int_eq(bench_parse_size("-1", &v), -1);
    ck_assert_int_eq(bench_parse_size("99999999999999999999", &v), -1);
    ck_assert_int_eq(bench_parse_size("18446744073709551615", &v), 0); /* the largest */
    ck_assert_uint_eq(v, SIZE_MAX);
    ck_assert_int_eq(bench_parse_size("18446744073709551616", &v), -1);
    ck_assert_int_eq(bench_parse_size("17179869184G", &v), -1);
}
END_TEST

START_TEST(format_sizes)
{
    char b[32];
    ck_assert_str_eq(bench_format_size(1, b, sizeof b), "1");
    ck_assert_str_eq(bench_format_size(1000, b, sizeof b), "1000");
    ck_assert_str_eq(bench_format_size(1024, b, sizeof b), "1K");
    ck_assert_str_eq(bench_format_size(1536, b, sizeof b), "1.5K");
    ck_assert_str_eq(bench_format_size(3 << 19, b, sizeof b), "1.5M");
    ck_assert_str_eq(bench_format_size((size_t)256 << 20, b, sizeof b), "256M");
    ck_assert_str_eq(bench_format_size((size_t)3 << 30, b, sizeof b), "3G");
    ck_assert_str_eq(bench_format_size(4095, b, sizeof b), "4095");
    /* Every grid point formats and parses back to itself. */
    size_t grid[64];
    size_t n = bench_size_grid(1, (size_t)256 << 20, 0, grid, 64);
    for (size_t i = 0; i < n; i++) {
        size_t v;
        ck_assert_int_eq(bench_parse_size(bench_format_size(grid[i], b, sizeof b), &v), 0);
        ck_assert_uint_eq(v, grid[i]);
    }
}
END_TEST

/* ---- CSV ---------------------------------------------------------------- */

static char *csv_of(const char *const *fields, size_t n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    bench_csv_record(f, fields, n);
    fclose(f);
    return buf;
}

START_TEST(csv_writer)
{
    const char *plain[] = {"memcpy aligned hot", "4096", "12.5"};
    char *s = csv_of(plain, 3);
    ck_assert_str_eq(s, "memcpy aligned hot,4096,12.5\n");
    free(s);
    const char *tricky[] = {"a,b", "say \"hi\"", "line\nbreak", " pad", "", NULL, "x"};
    s = csv_of(tricky, 7);
    ck_assert_str_eq(s, "\"a,b\",\"say \"\"hi\"\"\",\"line\nbreak\",\" pad\",,,x\n");
    free(s);
    const char *one[] = {"only"};
    s = csv_of(one, 1);
    ck_assert_str_eq(s, "only\n");
    free(s);
}
END_TEST

static Suite *harness_suite(void)
{
    Suite *s = suite_create("memasm-bench harness");
    TCase *tc = tcase_create("grid");
    tcase_add_test(tc, grid_small);
    tcase_add_test(tc, grid_bounds_and_count);
    tcase_add_test(tc, grid_pow2);
    suite_add_tcase(s, tc);
    tc = tcase_create("sampling");
    tcase_add_test(tc, rng_deterministic_and_bounded);
    tcase_add_test(tc, dist_parse_plain);
    tcase_add_test(tc, dist_parse_keyed);
    tcase_add_test(tc, dist_parse_errors);
    tcase_add_test(tc, dist_sampling_follows_weights);
    tcase_add_test(tc, mix_parse_profile);
    tcase_add_test(tc, mix_parse_size_table);
    tcase_add_test(tc, mix_parse_errors);
    tcase_add_test(tc, builtin_tables);
    tcase_add_test(tc, offsets_have_requested_alignment);
    suite_add_tcase(s, tc);
    tc = tcase_create("statistics");
    tcase_add_test(tc, median_and_quantiles);
    tcase_add_test(tc, paired_ratios);
    suite_add_tcase(s, tc);
    tc = tcase_create("text");
    tcase_add_test(tc, parse_sizes);
    tcase_add_test(tc, format_sizes);
    tcase_add_test(tc, csv_writer);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(harness_suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
