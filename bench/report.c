/*
 * report.c -- what memasm-bench prints: the header (machine, method,
 * candidates), each workload's table as it runs, the CSV, the self-check's
 * distribution and verdict, and --list.
 */
#include "config.h"

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "memasm.h"
#include "bench.h"

struct row *rows;
size_t nrows;
static size_t rows_cap;
FILE *csv_file;

/* ---- output ------------------------------------------------------------- */

static int col_width(int ci)
{
    int w = (int)strlen(cands[ci].name);
    return w < 9 ? 9 : w;
}

void print_table_header(const struct workload *wl)
{
    const char *unit = wl->mix ? "ns per call (lower is better)" : "GB/s (higher is better)";
    printf("\n== %s: %s; ratio = time(%s)/time(candidate), > 1 is faster than %s\n", wl->name, unit,
           cands[ref_index].name, cands[ref_index].name);
    printf("%9s", wl->mix ? "mean size" : "size");
    for (int i = 0; i < ncands; i++)
        printf(" %*s", col_width(i), cands[i].name);
    printf(" |");
    for (int i = 0; i < ncands; i++)
        if (i != ref_index)
            printf(" %*s", col_width(i), cands[i].name);
    printf("\n");
}

void print_row(const struct workload *wl, const struct row *row)
{
    char sb[32];
    if (wl->mix)
        printf("%9.1f", row->mean_size);
    else
        printf("%9s", bench_format_size(row->size, sb, sizeof sb));
    for (int i = 0; i < ncands; i++) {
        const struct cres *c = &row->c[i];
        if (c->status == 1)
            printf(" %*s", col_width(i), "n/a");
        else if (c->status == 2)
            printf(" %*s", col_width(i), "-");
        else if (wl->mix)
            printf(" %*.2f", col_width(i), c->ns);
        else
            printf(" %*.*f", col_width(i), c->gbps < 10 ? 3 : 2, c->gbps);
    }
    printf(" |");
    for (int i = 0; i < ncands; i++) {
        if (i == ref_index)
            continue;
        const struct cres *c = &row->c[i];
        if (c->status != 0 || isnan(c->ratio))
            printf(" %*s", col_width(i), c->status == 1 ? "n/a" : "-");
        else /* '?' flags a wide spread: quartiles more than 10% apart */
            printf(" %*.3f%c", col_width(i) - 1, c->ratio, c->r_hi - c->r_lo > 0.10 * c->ratio ? '?' : ' ');
    }
    printf("\n");
    fflush(stdout);
}

void csv_header(void)
{
    static const char *const h[] = {"workload", "op", "align", "temp", "threads", "size", "mean_size",
                                    "candidate", "status", "ns_per_call", "gbps", "ratio_vs_ref",
                                    "ratio_q1", "ratio_q3", "reference", "rounds", "iters"};
    bench_csv_record(csv_file, h, sizeof h / sizeof h[0]);
}

void csv_row(const struct workload *wl, const struct row *row)
{
    for (int i = 0; i < ncands; i++) {
        const struct cres *c = &row->c[i];
        char num[9][32];
        const char *p[17];
        for (int k = 0; k < 9; k++)
            num[k][0] = 0;
        snprintf(num[0], 32, "%d", eng.threads);
        snprintf(num[1], 32, "%zu", row->size);
        snprintf(num[2], 32, "%.2f", row->mean_size);
        if (c->status == 0) {
            snprintf(num[3], 32, "%.4f", c->ns);
            snprintf(num[4], 32, "%.4f", c->gbps);
            if (!isnan(c->ratio)) {
                snprintf(num[5], 32, "%.4f", c->ratio);
                snprintf(num[6], 32, "%.4f", c->r_lo);
                snprintf(num[7], 32, "%.4f", c->r_hi);
            }
        }
        snprintf(num[8], 32, "%zu", row->iters);
        p[0] = wl->name;
        p[1] = op_names[wl->op];
        p[2] = align_names[wl->align];
        p[3] = temp_name(wl);
        p[4] = num[0];
        p[5] = num[1];
        p[6] = num[2];
        p[7] = cands[i].name;
        p[8] = c->status == 0 ? "ok" : c->status == 1 ? "not available" : "not applicable";
        p[9] = num[3];
        p[10] = num[4];
        p[11] = num[5];
        p[12] = num[6];
        p[13] = num[7];
        p[14] = cands[ref_index].name;
        char rounds[16];
        snprintf(rounds, sizeof rounds, "%d", eng.rounds);
        p[15] = rounds;
        p[16] = num[8];
        bench_csv_record(csv_file, p, 17);
    }
    fflush(csv_file);
}

struct row *row_new(void)
{
    if (nrows == rows_cap) {
        rows_cap = rows_cap ? rows_cap * 2 : 256;
        rows = realloc(rows, rows_cap * sizeof *rows);
        if (!rows)
            exit(1);
    }
    struct row *r = &rows[nrows++];
    memset(r, 0, sizeof *r);
    return r;
}

/* ---- machine description ------------------------------------------------ */

static void cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        const char *keys[] = {"model name", "uarch", "isa", NULL};
        for (int k = 0; keys[k]; k++) {
            size_t kl = strlen(keys[k]);
            if (strncmp(line, keys[k], kl) == 0) {
                char *colon = strchr(line, ':');
                if (!colon)
                    continue;
                colon++;
                while (*colon == ' ' || *colon == '\t')
                    colon++;
                colon[strcspn(colon, "\n")] = 0;
                snprintf(buf, len, "%s", colon);
                fclose(f);
                return;
            }
        }
    }
    fclose(f);
}


void print_header(void)
{
    char model[256];
    struct utsname u;
    cpu_model(model, sizeof model);
    uname(&u);
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
    printf("memasm-bench (libmemasm %s), %s\n", memasm_version(), date);
    printf("machine: %s; %ld CPUs online; kernel %s %s\n", model, sysconf(_SC_NPROCESSORS_ONLN), u.sysname,
           u.release);
    printf("compiler: %s\n", __VERSION__);
    printf("libmemasm: ISA cpu=%s cap=%s; thresholds:", memasm_isa_name(memasm_isa_cpu()),
           memasm_isa_name(memasm_isa_cap()));
    for (size_t i = 0; i < memasm_threshold_count(); i++) {
        size_t v;
        const char *k = memasm_threshold_key(i);
        if (memasm_threshold_get(k, &v) == 0) {
            if (v == SIZE_MAX)
                printf(" %s=never", k);
            else
                printf(" %s=%zu", k, v);
        }
    }
    printf("\n");
    char b1[32], b2[32], b3[32];
    printf("method: %d rounds per point, candidates interleaved (order rotates each round), "
           "samples >= %.0f us (cold x5), median; clock CLOCK_MONOTONIC; seed %#llx; threads %d; pin %s\n",
           eng.rounds, eng.min_time_us, (unsigned long long)eng.seed, eng.threads,
           eng.pin < 0 ? "no" : eng.threads > 1 ? "thread i on CPU pin+i" : "yes");
    if (opt.readback)
        printf("readback: every call is followed by one read of each cache line of its destination, timed\n");
    printf("cold runs: pool of %s per thread (visited in random order), sizes %s%s; LLC %s%s\n",
           bench_format_size(opt.cold_pool, b1, sizeof b1),
           HAVE_FLUSH && !opt.full && !opt.sizes_given ? "up to 1M and 64M.." : "up to ",
           bench_format_size(cold_max_size(), b2, sizeof b2),
           opt.llc ? bench_format_size(opt.llc, b3, sizeof b3) : "unknown",
           opt.llc ? " (as sysconf reports it, or --llc)" : "");
    if (opt.mix) {
        printf("mix: %s:", opt.mix);
        for (int op = 0; op < OP_KINDS; op++) {
            const struct bench_dist *d = eng_mix_sizes((enum op_kind)op);
            if (op != OP_MOVE_BWD && d)
                printf(" %s %llu calls, mean %.1f B, %.0f%% <= 256 B;", op == OP_MOVE_FWD ? "memmove" : op_names[op],
                       (unsigned long long)d->total, bench_dist_mean(d), 100 * bench_dist_fraction_le(d, 256));
        }
        printf(eng_mix_sizes(OP_MOVE_FWD) ? " (a memmove mix moves its regions by half their size, as memmove-fwd)\n"
                                          : "\n");
    }
    printf("candidates:\n");
    for (int i = 0; i < ncands; i++)
        printf("  %-12s %s%s\n", cands[i].name, cands[i].desc, i == ref_index ? "  [reference]" : "");
}

/* ---- self-check --------------------------------------------------------- */

int self_check_report(void)
{
    /* Per-point median ratios time(A)/time(B), A = reference, B = the other. */
    int b = ref_index == 0 ? 1 : 0;
    double *v = malloc((nrows + 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < nrows; i++)
        if (rows[i].c[b].status == 0 && !isnan(rows[i].c[b].ratio))
            v[n++] = rows[i].c[b].ratio;
    if (n == 0) {
        printf("\nself-check: nothing measured\n");
        free(v);
        return 1;
    }
    double gm = bench_geomean(v, n);
    double p10 = bench_quantile(v, n, 0.10), p25 = bench_quantile(v, n, 0.25);
    double med = bench_median(v, n);
    double p75 = bench_quantile(v, n, 0.75), p90 = bench_quantile(v, n, 0.90);
    printf("\n== self-check: %s against itself, %zu points; per-point ratio time(A)/time(B)\n", cands[b].name, n);
    printf("   median %.4f  geomean %.4f  q1 %.4f  q3 %.4f  p10 %.4f  p90 %.4f  min %.4f  max %.4f\n", med, gm, p25,
           p75, p10, p90, v[0], v[n - 1]);
    static const double edges[] = {0.90, 0.95, 0.98, 0.99, 0.995, 1.005, 1.01, 1.02, 1.05, 1.10};
    const int ne = (int)(sizeof edges / sizeof edges[0]);
    size_t cnt[16] = {0};
    for (size_t i = 0; i < n; i++) {
        int k = 0;
        while (k < ne && v[i] >= edges[k])
            k++;
        cnt[k]++;
    }
    for (int k = 0; k <= ne; k++) {
        char lab[32];
        if (k == 0)
            snprintf(lab, sizeof lab, "< %.3f", edges[0]);
        else if (k == ne)
            snprintf(lab, sizeof lab, ">= %.3f", edges[ne - 1]);
        else
            snprintf(lab, sizeof lab, "%.3f-%.3f", edges[k - 1], edges[k]);
        printf("   %13s %4zu ", lab, cnt[k]);
        size_t bar = (cnt[k] * 50 + n - 1) / n;
        for (size_t j = 0; j < bar; j++)
            putchar('#');
        putchar('\n');
    }
    printf("   per workload (points, median, p10, p90):\n");
    for (int w = 0; w < nwls; w++) {
        size_t k = 0;
        for (size_t i = 0; i < nrows; i++)
            if (rows[i].wl == w && rows[i].c[b].status == 0 && !isnan(rows[i].c[b].ratio))
                v[k++] = rows[i].c[b].ratio;
        if (k)
            printf("     %-66s %3zu  %.4f  %.4f  %.4f\n", wls[w].name, k, bench_median(v, k),
                   bench_quantile(v, k, 0.1), bench_quantile(v, k, 0.9));
    }
    int ok = fabs(med - 1.0) <= 0.02 && fabs(gm - 1.0) <= 0.02;
    printf("   verdict: %s (median and geometric mean must lie within 1.00 +- 0.02)\n", ok ? "PASS" : "FAIL");
    free(v);
    return ok ? 0 : 1;
}

void list_and_exit(void)
{
    printf("candidates:\n");
    for (int i = 0; i < ncands; i++)
        printf("  %-12s %s\n", cands[i].name, cands[i].desc);
    printf("libmemasm kernels (--kernel NAME):\n");
    for (size_t i = 0; i < memasm_kernel_count(); i++) {
        memasm_kernel_desc d;
        if (memasm_kernel_info(i, &d) == 0)
            printf("  %-20s %-8s %-8s %s\n", d.name, memasm_op_name(d.op), d.isa,
                   d.usable ? "usable" : "not usable on this CPU");
    }
    exit(0);
}
