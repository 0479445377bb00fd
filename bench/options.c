/*
 * options.c -- memasm-bench's command line: --help, the options into opt
 * and eng, and the candidates they name.
 */
#include "config.h"

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memasm.h"
#include "bench.h"

struct bench_opts opt = {
    .ops = 0, .aligns = 0, .temps = 0, .sweeps = 1, .mixes = 1, .size_lo = 1, .size_hi = (size_t)256 << 20,
};

static void usage(FILE *f)
{
    fprintf(f,
"Usage: memasm-bench [OPTION]...\n"
"Measure libmemasm's memcpy/memmove/memset against the system C library,\n"
"LLVM libc and musl (when the build found them) in one process.\n"
"\n"
"What to run (default: the quick set, see bench/README.md):\n"
"  --full               the long run: every op x alignment x hot/cold, x1.5 size\n"
"                       steps, more rounds\n"
"  --op LIST            memcpy,memmove-fwd,memmove-bwd,memset (or memmove = both)\n"
"  --align LIST         aligned,random,alias4k,near (size sweeps; near:\n"
"                       memmove 64 bytes apart)\n"
"  --temp LIST          hot,cold,edge (edge: hot, and the cache line just past\n"
"                       each buffer flushed before every call; memcpy and\n"
"                       memset up to 1 KiB, x86_64 and aarch64)\n"
"  --sizes LO:HI        sweep sizes, e.g. 1:64K or 1M:256M (K/M/G binary)\n"
"  --pow2               powers of two only (default also the x1.5 points)\n"
"  --no-sweep           only the size mixes;   --no-mix   only the sweeps\n"
"  --mix FILE           the mixes make the calls of FILE: a profile written by\n"
"                       libmemasm-profile.so (MEMASM_PROFILE=FILE), or a size\n"
"                       table (value<TAB>count lines); one mix per operation\n"
"                       with calls, and no sweeps unless --sizes is given\n"
"  --readback           every call followed by one read of its destination (the\n"
"                       cost of using the data, memasm-tune's default objective)\n"
"Candidates (default: memasm, the system libc, llvm-libc, musl):\n"
"  --candidates LIST    any of memasm,glibc,llvm-libc,musl\n"
"  --kernel NAME        add one libmemasm kernel by name (repeatable; --list)\n"
"  --lib NAME=PATH      add the entry points of another libmemasm build (a\n"
"                       libmemasm.so, e.g. before a change; or a drop-in\n"
"                       libmemasm-preload.so: its memcpy, memmove, memset)\n"
"                       as column NAME\n"
"  --ref NAME           reference for the ratios (default: the system libc)\n"
"  --self-check[=NAME]  run NAME (default memasm) as both A and B and report\n"
"                       the ratio distribution; exit 1 unless centred on 1.00+-2%%\n"
"libmemasm settings:\n"
"  --isa LEVEL          cap libmemasm's ISA level (sse2, avx2, ...)\n"
"  --threshold KEY=VAL  set a libmemasm threshold (repeatable; VAL a size or never)\n"
"Method:\n"
"  --rounds N           samples per candidate and point (quick 11, full 21)\n"
"  --min-time US        shortest sample in microseconds (quick 100, full 300)\n"
"  --threads N          N threads copy their own buffers at once; GB/s is the\n"
"                       aggregate\n"
"  --pin CPU            pin thread i to CPU+i (with --threads the default is 0)\n"
"  --seed N             seed of the offsets and mixes (printed)\n"
"  --cold-pool SIZE     per-thread buffer pool for cold runs (default 1G)\n"
"  --llc SIZE           last-level cache size for the cold-size limit\n"
"Output:\n"
"  --csv FILE           one row per point and candidate\n"
"  --plot FILE.png      bandwidth against size, log-x, one panel per sweep\n"
"                       (gnuplot; without it the data goes to FILE.csv)\n"
"  --list               list candidates and libmemasm's kernels, then exit\n"
"  --help               this text\n"
"\n"
"Ratios are time(reference)/time(candidate), the median of per-round pairs:\n"
"> 1 means faster than the reference.  'n/a' marks a candidate that is not\n"
"available in this build, '-' one that does not implement the operation.\n");
}

static unsigned parse_list(const char *arg, const char *const *names, int count, const char *what)
{
    unsigned bits = 0;
    char *copy = strdup(arg), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int i = 0; i < count; i++)
            if (strcmp(tok, names[i]) == 0) {
                bits |= 1u << i;
                found = 1;
            }
        if (!found && names == op_names && strcmp(tok, "memmove") == 0) {
            bits |= 1u << OP_MOVE_FWD | 1u << OP_MOVE_BWD;
            found = 1;
        }
        if (!found) {
            fprintf(stderr, "memasm-bench: unknown %s '%s'\n", what, tok);
            exit(2);
        }
    }
    free(copy);
    return bits;
}

int bench_options(int argc, char **argv)
{
    enum {
        O_FULL = 256, O_OP, O_ALIGN, O_TEMP, O_SIZES, O_POW2, O_NOSWEEP, O_NOMIX, O_CANDS, O_KERNEL, O_LIB, O_REF,
        O_SELF, O_ISA, O_THR, O_ROUNDS, O_MINTIME, O_THREADS, O_PIN, O_SEED, O_POOL, O_LLC, O_CSV, O_PLOT, O_READBACK,
        O_MIX, O_LIST, O_HELP
    };
    static const struct option lo[] = {
        {"full", no_argument, 0, O_FULL},          {"op", required_argument, 0, O_OP},
        {"align", required_argument, 0, O_ALIGN},  {"temp", required_argument, 0, O_TEMP},
        {"sizes", required_argument, 0, O_SIZES},  {"pow2", no_argument, 0, O_POW2},
        {"no-sweep", no_argument, 0, O_NOSWEEP},   {"no-mix", no_argument, 0, O_NOMIX},
        {"candidates", required_argument, 0, O_CANDS}, {"kernel", required_argument, 0, O_KERNEL},
        {"lib", required_argument, 0, O_LIB},
        {"ref", required_argument, 0, O_REF},      {"self-check", optional_argument, 0, O_SELF},
        {"isa", required_argument, 0, O_ISA},      {"threshold", required_argument, 0, O_THR},
        {"rounds", required_argument, 0, O_ROUNDS}, {"min-time", required_argument, 0, O_MINTIME},
        {"threads", required_argument, 0, O_THREADS}, {"pin", required_argument, 0, O_PIN},
        {"seed", required_argument, 0, O_SEED},    {"cold-pool", required_argument, 0, O_POOL},
        {"llc", required_argument, 0, O_LLC},      {"csv", required_argument, 0, O_CSV},
        {"plot", required_argument, 0, O_PLOT},    {"list", no_argument, 0, O_LIST},
        {"readback", no_argument, 0, O_READBACK}, {"mix", required_argument, 0, O_MIX},
        {"help", no_argument, 0, O_HELP},          {0, 0, 0, 0},
    };
    const char *cand_list = NULL;
    const char *kernels[MAX_CANDS], *libs[MAX_CANDS];
    int nkernels = 0, nlibs = 0, list = 0, pool_given = 0;
    opt.cold_pool = (size_t)1 << 30;
    eng.rounds = 0; /* 0: the quick or full run's default, once known */
    eng.min_time_us = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case O_FULL: opt.full = 1; break;
        case O_OP: opt.ops = parse_list(optarg, op_names, OP_KINDS, "operation"); break;
        case O_ALIGN: opt.aligns = parse_list(optarg, align_names, AL_TABLE, "alignment"); break;
        case O_TEMP: opt.temps = parse_list(optarg, temp_names, (int)(sizeof temp_names / sizeof temp_names[0]), "temperature"); break;
        case O_SIZES: {
            char *colon = strchr(optarg, ':');
            char lo_s[64];
            snprintf(lo_s, sizeof lo_s, "%.*s", colon ? (int)(colon - optarg) : (int)strlen(optarg), optarg);
            if (bench_parse_size(lo_s, &opt.size_lo) || bench_parse_size(colon ? colon + 1 : optarg, &opt.size_hi) ||
                opt.size_lo > opt.size_hi || opt.size_hi > ((size_t)1 << 34)) {
                fprintf(stderr, "memasm-bench: --sizes wants LO:HI with LO <= HI <= 16G, e.g. 1:64K\n");
                return 2;
            }
            opt.sizes_given = 1;
            break;
        }
        case O_POW2: opt.pow2 = 1; break;
        case O_NOSWEEP: opt.sweeps = 0; break;
        case O_NOMIX: opt.mixes = 0; break;
        case O_CANDS: cand_list = optarg; break;
        case O_KERNEL:
            if (nkernels < MAX_CANDS)
                kernels[nkernels++] = optarg;
            break;
        case O_LIB:
            if (nlibs < MAX_CANDS)
                libs[nlibs++] = optarg;
            break;
        case O_REF: opt.ref = optarg; break;
        case O_SELF: opt.self_check = optarg ? optarg : "memasm"; break;
        case O_ISA:
            if (memasm_isa_set_cap(optarg) != 0) {
                fprintf(stderr, "memasm-bench: unknown ISA level '%s'\n", optarg);
                return 2;
            }
            break;
        case O_THR: {
            char *eq = strchr(optarg, '=');
            size_t v, applied;
            if (eq && strcmp(eq + 1, "never") == 0)
                v = SIZE_MAX; /* as in a configuration file */
            else if (!eq || bench_parse_size(eq + 1, &v) != 0) {
                fprintf(stderr, "memasm-bench: --threshold wants KEY=VALUE, VALUE a size (4096, 27K, 1.5M) or "
                                "'never'\n");
                return 2;
            }
            *eq = 0;
            if (memasm_threshold_set(optarg, v, &applied) != 0) {
                fprintf(stderr, "memasm-bench: unknown threshold '%s'\n", optarg);
                return 2;
            }
            if (applied != v)
                fprintf(stderr, "memasm-bench: %s=%zu was clamped to %zu\n", optarg, v, applied);
            break;
        }
        case O_ROUNDS: eng.rounds = atoi(optarg); break;
        case O_MINTIME: eng.min_time_us = atof(optarg); break;
        case O_THREADS: eng.threads = atoi(optarg); break;
        case O_PIN: eng.pin = atoi(optarg); break;
        case O_SEED: eng.seed = strtoull(optarg, NULL, 0); break;
        case O_POOL:
            pool_given = 1;
            if (bench_parse_size(optarg, &opt.cold_pool) != 0 || opt.cold_pool < ((size_t)16 << 20)) {
                fprintf(stderr, "memasm-bench: bad --cold-pool size (at least 16M)\n");
                return 2;
            }
            break;
        case O_LLC:
            if (bench_parse_size(optarg, &opt.llc) != 0) {
                fprintf(stderr, "memasm-bench: bad --llc size\n");
                return 2;
            }
            break;
        case O_CSV: opt.csv = optarg; break;
        case O_PLOT: opt.plot = optarg; break;
        case O_READBACK: opt.readback = 1; break;
        case O_MIX: opt.mix = optarg; break;
        case O_LIST: list = 1; break;
        case 'h':
        case O_HELP: usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "memasm-bench: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (eng.threads < 1 || eng.threads > 256) {
        fprintf(stderr, "memasm-bench: --threads must be 1..256\n");
        return 2;
    }
    if (opt.mix && !opt.sizes_given)
        opt.sweeps = 0; /* a profile's mixes are what the run is for */
    if (eng.rounds == 0)
        eng.rounds = opt.full ? 21 : 11;
    if (eng.rounds < 1 || eng.rounds > 1000) {
        fprintf(stderr, "memasm-bench: --rounds must be 1..1000\n");
        return 2;
    }
    if (eng.min_time_us <= 0)
        eng.min_time_us = opt.full ? 300 : 100;
    if (!opt.llc)
        opt.llc = llc_size();
    if (eng.threads > 1 && eng.pin < 0)
        eng.pin = 0; /* threads left to the scheduler may share a CPU */
    if (!pool_given && eng.threads > 1) { /* 1G in all, at least 256M each */
        opt.cold_pool = ((size_t)1 << 30) / (size_t)eng.threads;
        if (opt.cold_pool < ((size_t)256 << 20))
            opt.cold_pool = (size_t)256 << 20;
        opt.cold_pool &= ~(size_t)4095;
    }

    /* Candidates. */
    if (opt.self_check) {
        if (cand_add_builtin(opt.self_check) != 0 && cand_add_kernel(opt.self_check) != 0)
            return 2;
        if (!cands[0].available) {
            fprintf(stderr, "memasm-bench: %s: %s\n", cands[0].name, cands[0].desc);
            return 2;
        }
        char base[32];
        snprintf(base, sizeof base, "%.30s", cands[0].name);
        cands[1] = cands[0];
        snprintf(cands[0].name, sizeof cands[0].name, "%s#A", base);
        snprintf(cands[1].name, sizeof cands[1].name, "%s#B", base);
        ncands = 2;
        ref_index = 0;
    } else {
        const char *deflist = "memasm,libc,llvm-libc,musl";
        char *copy = strdup(cand_list ? cand_list : deflist), *save = NULL;
        for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
            if (cand_add_builtin(tok) != 0) {
                fprintf(stderr, "memasm-bench: unknown candidate '%s' (memasm, %s, llvm-libc, musl)\n", tok,
                        sys_libc_name());
                return 2;
            }
        free(copy);
        for (int k = 0; k < nkernels; k++)
            if (cand_add_kernel(kernels[k]) != 0)
                return 2;
        for (int k = 0; k < nlibs; k++)
            if (cand_add_lib(libs[k]) != 0)
                return 2;
        ref_index = -1;
        const char *ref = opt.ref ? opt.ref : sys_libc_name();
        for (int i = 0; i < ncands; i++)
            if (strcmp(cands[i].name, ref) == 0)
                ref_index = i;
        if (ref_index < 0 && !opt.ref && ncands > 0)
            ref_index = 0;
        if (ref_index < 0) {
            fprintf(stderr, "memasm-bench: reference '%s' is not among the candidates\n", ref);
            return 2;
        }
    }
    if (ncands == 0) {
        fprintf(stderr, "memasm-bench: no candidates\n");
        return 2;
    }
    if (list)
        list_and_exit();
    return -1;
}
