/*
 * test_small.c -- make check-slow: exhaustive small sizes for every usable
 * kernel and the entry points, each call checked by tests/kcase.c (byte
 * loop over a snapshot, the bytes around the destination, the return
 * value) in arenas between PROT_NONE pages.
 *
 * For each target (one Check loop iteration each):
 *  - memcpy, memmove: every size 0..512 x destination alignment 0..63 x
 *    source alignment 0..63, twice: both regions at the start of their
 *    arenas (just after a guard page), and both ending within 63 bytes of
 *    the guard page above; the source arena read-only;
 *  - memmove: every overlap distance 1..512 both ways (dst = src + dist,
 *    dst = src - dist) for every size, alignment and guard end varied with
 *    size and distance; memcpy: dst = src + dist with dist >= n only;
 *  - memcpy, memmove: dst == src at every size and alignment;
 *  - memset: every size and alignment, at both guard ends, c with bits
 *    above the low byte and (x86_64, aarch64) junk above bit 31;
 *  - after each size, the whole destination arena against its pattern.
 *
 * Entry points: with the automatic choice and, on x86_64 (whose entry
 * points copy small sizes themselves with the registers the kernel behind
 * them allows), with each usable kernel forced; elsewhere an entry point is
 * one indirect call, so the forced ones are skipped (said so in the output).
 * On x86_64 the base entries (memasm_<op>_base, libmemasm.so's names on a
 * CPU without AVX2) and, where the CPU has AVX2, the AVX2 entries
 * (memasm_<op>_avx2, its names on a CPU with AVX2 and without AVX-512) the
 * same way, automatic and behind each kernel.
 *
 * Under emulation (TEST_EMULATOR set: a cross build under qemu-user) the
 * run is reduced to stay within a few minutes per emulated CPU, and says
 * so: every size up to 128, above that the sizes 8k + 7 (135, 143, ...,
 * 511: a tail of 7 bytes after every 8-byte multiple) and 256, 257 and 512,
 * each with every alignment pair and every overlap distance; about a third
 * of the calls (a full run of the 2048-bit SVE CPU measured 6.6 minutes,
 * 54 s of CPU, on a loaded machine).  MEMASM_SMALL=full or =reduced
 * chooses explicitly.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "kguard.h"

#define MAXN 512
#define MAXDIST 512
#define REDUCED_ALL 128

static int reduced;
static unsigned long total;
static int ran; /* targets run (not skipped) */

/* The sizes a run covers (see the header comment). */
static int size_in_run(size_t n)
{
    if (!reduced || n <= REDUCED_ALL)
        return 1;
    return n % 8 == 7 || n == 256 || n == 257 || n == 512;
}

static int run_case(kc_case *c)
{
    char msg[1024];
    total++;
    if (kc_guarded_run(c, 0, msg, sizeof msg) != 0)
        ck_abort_msg("%s", msg);
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

START_TEST(small_target)
{
    const kc_target *t = kc_target_get((size_t)_i);
#if !defined(__x86_64__)
    if (t->entry && t->force) {
        printf("%s: SKIPPED (the entry point is one indirect call on this architecture; "
               "tested with the automatic choice and each kernel directly)\n", t->name);
        return;
    }
#endif
    kc_recover();
    ran++;
    double t0 = now();
    unsigned long copies = 0, overlaps = 0, selfs = 0, sets = 0, sizes = 0;
    kc_case c;
    memset(&c, 0, sizeof c);
    c.target = (size_t)_i;
    char msg[1024];
    for (size_t n = 0; n <= MAXN; n++) {
        if (!size_in_run(n))
            continue;
        sizes++;
        c.n = n;
        for (unsigned da = 0; da < 64; da++) {
            for (int high = 0; high < 2; high++) {
                c.dhigh = c.shigh = high;
                c.doff = kc_align_off(n, da, high);
                if (t->op == MEMASM_OP_MEMSET) {
                    c.layout = KC_DISJOINT;
                    c.c = (int)(0x5a5a5a00u ^ (unsigned)(n * 131 + da * 7 + (unsigned)high));
                    for (c.junk = 0; c.junk < 2; c.junk++, sets++)
                        run_case(&c);
                    continue;
                }
                c.layout = KC_DISJOINT;
                for (unsigned sa = 0; sa < 64; sa++, copies++) {
                    c.soff = kc_align_off(n, sa, high);
                    run_case(&c);
                }
                c.layout = KC_SELF;
                run_case(&c);
                selfs++;
            }
        }
        if (t->op != MEMASM_OP_MEMSET) {
            for (size_t dist = 1; dist <= MAXDIST; dist++) {
                /* memcpy regions must not overlap: only dist >= n there. */
                if (t->op == MEMASM_OP_MEMCPY && dist < n)
                    continue;
                c.dist = dist;
                c.dhigh = (int)((n + dist) & 1);
                c.doff = kc_align_off(n + dist, (unsigned)((n * 5 + dist * 3) & 63), c.dhigh);
                for (int way = 0; way < 2; way++, overlaps++) {
                    c.layout = way ? KC_BACKWARD : KC_FORWARD;
                    run_case(&c);
                }
            }
        }
        if (kc_verify_arena(msg, sizeof msg) != 0)
            ck_abort_msg("%s: %s, after the calls of size %zu", t->name, msg, n);
    }
    printf("%s: %lu sizes, %lu disjoint copies, %lu at dst = src ± dist, %lu self-copies, %lu fills: passed in %.1f s\n",
           t->name, sizes, copies, overlaps, selfs, sets, now() - t0);
    fflush(stdout);
}
END_TEST

int main(void)
{
    const char *mode = getenv("MEMASM_SMALL");
    const char *emu = getenv("TEST_EMULATOR");
    if (mode && strcmp(mode, "full") == 0)
        reduced = 0;
    else if (mode && strcmp(mode, "reduced") == 0)
        reduced = 1;
    else
        reduced = emu && *emu;
    t_fault_install();
    if (kc_init() != 0)
        return 99;
    t_print_kernels();
    if (reduced)
        printf("REDUCED run (%s): every size 0..%d, above that sizes 8k+7, 256, 257 and 512, each with "
               "every alignment pair and every overlap distance 1..%d; MEMASM_SMALL=full runs all\n",
               mode ? "MEMASM_SMALL=reduced" : "under emulation", REDUCED_ALL, MAXDIST);
    else
        printf("full run: every size 0..%d, every alignment pair, every overlap distance 1..%d\n", MAXN,
               MAXDIST);
    fflush(stdout);
    double t0 = now();
    Suite *s = suite_create("small");
    TCase *tc = tcase_create("small");
    tcase_set_timeout(tc, 3600);
    tcase_add_loop_test(tc, small_target, 0, (int)kc_target_count());
    suite_add_tcase(s, tc);
    int st = t_run_suite_nofork(s);
    printf("small sizes: %lu cases on %d of %zu targets in %.1f s (%.1f s CPU)\n", total, ran, kc_target_count(),
           now() - t0, (double)clock() / CLOCKS_PER_SEC);
    return st;
}
