/*
 * plot.c -- memasm-bench --plot: bandwidth against size, one panel per
 * sweep, through gnuplot; without gnuplot the rows go to a CSV instead.
 */
#include "config.h"

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

/* ---- plot --------------------------------------------------------------- */

static const char *gnuplot_path(void)
{
    const char *g = getenv("GNUPLOT");
    if (g && *g)
        return g;
#ifdef MEMASM_BENCH_GNUPLOT
    if (MEMASM_BENCH_GNUPLOT[0])
        return MEMASM_BENCH_GNUPLOT;
#endif
    return NULL;
}

/* Write a CSV with every row measured so far to path (the fallback when
 * there is no gnuplot). */
static int write_csv_file(const char *path)
{
    FILE *save = csv_file;
    csv_file = fopen(path, "w");
    if (!csv_file) {
        csv_file = save;
        return -1;
    }
    csv_header();
    for (size_t i = 0; i < nrows; i++)
        csv_row(&wls[rows[i].wl], &rows[i]);
    fclose(csv_file);
    csv_file = save;
    return 0;
}

void plot(const char *png)
{
    const char *g = gnuplot_path();
    if (g && access(g, X_OK) != 0)
        g = NULL;
    if (!g) {
        char alt[PATH_MAX];
        size_t len = strlen(png);
        if (len > 4 && strcmp(png + len - 4, ".png") == 0)
            len -= 4;
        snprintf(alt, sizeof alt, "%.*s.csv", (int)len, png);
        if (write_csv_file(alt) == 0)
            printf("\nplot: gnuplot is not installed (apt-get install gnuplot-nox, or set GNUPLOT); "
                   "wrote the data to %s instead\n", alt);
        else
            printf("\nplot: gnuplot is not installed, and %s cannot be written: %s\n", alt, strerror(errno));
        return;
    }
    /* Which sweep workloads have rows? */
    int present[64], np = 0;
    for (int w = 0; w < nwls && np < 64; w++) {
        if (wls[w].mix)
            continue;
        for (size_t i = 0; i < nrows; i++)
            if (rows[i].wl == w) {
                present[np++] = w;
                break;
            }
    }
    if (np == 0) {
        printf("\nplot: no size sweep was run, nothing to draw\n");
        return;
    }
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "'%s'", g);
    FILE *p = popen(cmd, "w");
    if (!p) {
        printf("\nplot: cannot run %s: %s\n", g, strerror(errno));
        return;
    }
    int cols = np > 1 ? 2 : 1, prow = (np + cols - 1) / cols;
    fprintf(p, "set terminal pngcairo size %d,%d font ',9'\n", 700 * cols, 420 * prow);
    fprintf(p, "set output '%s'\n", png);
    fprintf(p, "set datafile missing 'NaN'\n");
    for (int k = 0; k < np; k++) {
        fprintf(p, "$d%d << EOD\n", k);
        for (size_t i = 0; i < nrows; i++) {
            if (rows[i].wl != present[k])
                continue;
            fprintf(p, "%zu", rows[i].size);
            for (int c = 0; c < ncands; c++)
                if (rows[i].c[c].status == 0)
                    fprintf(p, " %.5g", rows[i].c[c].gbps);
                else
                    fprintf(p, " NaN");
            fprintf(p, "\n");
        }
        fprintf(p, "EOD\n");
    }
    fprintf(p, "set multiplot layout %d,%d title 'memasm-bench: bandwidth against size (%d thread%s)'\n", prow, cols,
            eng.threads, eng.threads > 1 ? "s" : "");
    fprintf(p, "set logscale x 2\nset grid\nset key top left\nset ylabel 'GB/s'\nset yrange [0:*]\n");
    fprintf(p, "set xtics ('1' 1, '16' 16, '256' 256, '4K' 4096, '64K' 65536, '1M' 1048576, "
               "'16M' 16777216, '256M' 268435456)\n");
    for (int k = 0; k < np; k++) {
        fprintf(p, "set title '%s'\nplot", wls[present[k]].name);
        int first = 1;
        for (int c = 0; c < ncands; c++) {
            if (!cands[c].available)
                continue;
            fprintf(p, "%s $d%d using 1:%d with linespoints pt 7 ps 0.4 title '%s'", first ? "" : ",", k, c + 2,
                    cands[c].name);
            first = 0;
        }
        fprintf(p, "\n");
    }
    fprintf(p, "unset multiplot\n");
    int rc = pclose(p);
    if (rc != 0)
        printf("\nplot: gnuplot failed (status %d); use --csv and plot by hand\n", rc);
    else
        printf("\nplot: wrote %s\n", png);
}
