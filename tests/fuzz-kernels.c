/*
 * fuzz-kernels.c -- libFuzzer target: differential fuzzing of every usable
 * kernel and the public entry points against a byte loop (tests/kcase.c),
 * built and run by `make fuzz`.  The input format is in tests/kcase.h.
 *
 * A wrong byte, a wrong return value or a write outside the destination
 * prints the case and aborts, a read or write into a guard page faults:
 * libFuzzer saves either input as kernels-crash-<sha1>.  Copy it into
 * fuzz-kernels/ of the source tree; make check replays that directory
 * (tests/test_corpus.c) on every build, cross builds included.
 *
 * The kernels are assembly that the compiler does not instrument, so their
 * branches give libFuzzer no coverage.  kc_features() names the paths a
 * case should take inside a kernel (size class, alignments, overlap,
 * distance modulo 4 KiB, size against each overridden threshold) and this
 * file counts them in libFuzzer's extra-counters section, which it treats
 * as coverage: an input reaching a new combination is kept.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "kcase.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

__attribute__((section("__libfuzzer_extra_counters"))) static uint8_t path_counters[KC_FEATURES];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (kc_init() != 0)
        abort();
    fprintf(stderr, "fuzz-kernels: %zu targets:", kc_target_count());
    for (size_t i = 0; i < kc_target_count(); i++)
        fprintf(stderr, "%s %s", i ? "," : "", kc_target_get(i)->name);
    fprintf(stderr, "\n");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kc_case c;
    kc_decode(data, size, &c);
    unsigned feat[KC_NFEAT];
    int nf = kc_features(&c, feat);
    for (int i = 0; i < nf; i++)
        path_counters[feat[i] % KC_FEATURES]++;
    char msg[1024];
    if (kc_run(&c, 1, msg, sizeof msg) != 0) {
        fprintf(stderr, "fuzz-kernels: WRONG RESULT: %s\n", msg);
        abort();
    }
    return 0;
}
