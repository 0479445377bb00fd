/*
 * tables.h -- the frequency tables built into memasm-bench.
 *
 * bench/tsv2c.sh turns the .tsv files of bench/data/ into bench/tables.c at build time:
 * each table is kept as its original text and parsed at run time with
 * bench_dist_parse() (harness.h).
 */
#ifndef MEMASM_BENCH_TABLES_H
#define MEMASM_BENCH_TABLES_H

struct memasm_bench_table {
    const char *name; /* "memcpy_sizes", "memset_sizes", "memcpy_align" */
    const char *text; /* the .tsv file's contents                       */
};

/* Ended by an entry with name == NULL. */
extern const struct memasm_bench_table memasm_bench_tables[];

#endif /* MEMASM_BENCH_TABLES_H */
