/*
 * test_abi.c -- every usable kernel called through the ABI checker
 * (tests/abi/abi.h) under every threshold profile of harness.c.
 *
 * Each call gets fresh random seeds for the callee-saved registers; memset's
 * int argument carries junk in the upper 32 bits of its register; on x86_64
 * the upper YMM/ZMM state is checked where the CPU can report it, on riscv64
 * vtype is left invalid before each call where V exists.  Besides the
 * checker's verdict every call's result is checked too (return value, the
 * bytes), so a kernel that misreads a junk-laden argument fails here.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi_common.h"
#include "harness.h"

#define AREA ((size_t)3 << 20)

static const size_t sizes[] = {
    0,    1,    2,    3,    4,    5,    6,    7,    8,    9,    11,   15,   16,   17,    24,
    31,   32,   33,   47,   48,   63,   64,   65,   96,   127,  128,  129,  192,  255,   256,
    257,  511,  512,  513,  1000, 1023, 1024, 1025, 2047, 2048, 4095, 4096, 4097, 8193, 16384,
    65539, 262145, (1u << 20) + 3,
};

static t_profile profiles[T_MAX_PROFILES];
static int nprofiles;
static t_arena area;
static unsigned char *exp_buf;
static unsigned abi_fl;

static void call_checked(const memasm_kernel_desc *k, const char *profile, t_rng *r,
                         uint64_t a0, uint64_t a1, uint64_t a2, const char *what,
                         unsigned char *lo, size_t span, unsigned long *count)
{
    uint64_t seeds[MEMASM_ABI_NSEEDS];
    for (int i = 0; i < MEMASM_ABI_NSEEDS; i++)
        seeds[i] = t_rand(r);
    uint64_t ret = 0;
    volatile int code = -1;
    t_call c = {k->name, what, (size_t)a2, (unsigned)(a0 & 63),
                k->op == MEMASM_OP_MEMSET ? 0 : (unsigned)(a1 & 63), profile};
    T_GUARDED(&c, code = memasm_abi_call(k->fn, a0, a1, a2, seeds, abi_fl, &ret));
    if (code != 0)
        ck_abort_msg("ABI checker: %s (code 0x%x): %s", abi_code_str(code), (unsigned)code,
                     t_call_str(&c));
    if (ret != a0)
        ck_abort_msg("%s: returned 0x%lx, expected dst 0x%lx", t_call_str(&c),
                     (unsigned long)ret, (unsigned long)a0);
    size_t i = t_diff(lo, exp_buf, span);
    if (i != span)
        ck_abort_msg("%s: byte dst%+ld is 0x%02x, expected 0x%02x", t_call_str(&c),
                     (long)((lo + i) - (unsigned char *)(uintptr_t)a0), lo[i], exp_buf[i]);
    (*count)++;
}

/* Every size of sizes[] (and, with all_small, every size 0..256), four
 * calls each with random alignments (memmove: two of them overlapping, one
 * each way), through the checker; returns the number of calls. */
static unsigned long check_all(const memasm_kernel_desc *k, const char *profile, uint64_t seed,
                               int all_small)
{
    t_fault_install();
    if (!area.base) {
        t_arena_new(&area, AREA);
        exp_buf = malloc(AREA);
        ck_assert(exp_buf != NULL);
    }
    t_rng r;
    t_rng_init(&r, seed);
    unsigned long count = 0;
    unsigned char *base = area.base;
    size_t nsizes = sizeof sizes / sizeof sizes[0];
    size_t nsmall = all_small ? 257 : 0;
    for (size_t si = 0; si < nsmall + nsizes; si++) {
        size_t n = si < nsmall ? si : sizes[si - nsmall];
        for (int rep = 0; rep < 4; rep++) {
            size_t da = (size_t)t_below(&r, 64), sa = (size_t)t_below(&r, 64);
            /* span: [lo, lo + span) holds everything this call may touch
             * plus 64 bytes either side. */
            unsigned char *lo = base + 64;
            size_t span = 64 + 2 * n + 256 + 64;
            t_fill(&r, lo - 64, span);
            unsigned char *d, *s;
            const char *what;
            if (k->op == MEMASM_OP_MEMSET) {
                d = lo + 64 + da;
                memcpy(exp_buf, lo - 64, span);
                uint32_t c = (uint32_t)t_rand(&r);
                uint64_t junk = t_rand(&r) << 32;
                t_ref_set(exp_buf + (d - (lo - 64)), (int)c, n);
                call_checked(k, profile, &r, (uintptr_t)d, junk | c, n,
                             "memset with junk in bits 32..63 of c", lo - 64, span, &count);
                continue;
            }
            if (k->op == MEMASM_OP_MEMMOVE && rep >= 2 && n > 0) {
                size_t dist = 1 + (size_t)t_below(&r, n);
                d = rep == 2 ? lo + 64 + dist : lo + 64;
                s = rep == 2 ? lo + 64 : lo + 64 + dist;
                what = rep == 2 ? "overlap forward" : "overlap backward";
            } else {
                d = lo + 64 + da;
                s = lo + 64 + n + 64 + sa;
                what = "copy";
            }
            memcpy(exp_buf, lo - 64, span);
            t_ref_move(exp_buf + (d - (lo - 64)), exp_buf + (s - (lo - 64)), n);
            call_checked(k, profile, &r, (uintptr_t)d, (uintptr_t)s, n, what, lo - 64, span,
                         &count);
        }
    }
    return count;
}

START_TEST(abi_kernel)
{
    size_t nk = memasm_kernel_count();
    int pi = (int)((size_t)_i / nk);
    size_t ki = (size_t)_i % nk;
    memasm_kernel_desc k;
    ck_assert(memasm_kernel_info(ki, &k) == 0);
    if (!k.usable) {
        if (pi == 0)
            printf("%-20s SKIPPED: %s\n", k.name, t_skip_reason(&k));
        return;
    }
    const t_profile *p = &profiles[pi];
    if (!p->ops[k.op])
        return;
    t_profile_apply(p);
    unsigned long count = check_all(&k, p->name, 0xab1000 + (uint64_t)_i, 0);
    printf("%-20s [%s]: %lu calls through the ABI checker, all clean\n", k.name, p->name, count);
    fflush(stdout);
    memasm_threshold_reset();
}
END_TEST

/* The public entry points, which do the small sizes themselves with the
 * registers the kernel behind them allows (asm/x86_64/entry.asm), under
 * every ISA cap the CPU can run: every size 0..256 and the list above. */
START_TEST(abi_entry)
{
    int level = _i;
    if (level > memasm_isa_cpu()) {
        printf("entry points, cap %s: SKIPPED: the CPU's ISA level is %s\n",
               memasm_isa_name(level), memasm_isa_name(memasm_isa_cpu()));
        return;
    }
    ck_assert(memasm_isa_set_cap(memasm_isa_name(level)) == 0);
    static const struct {
        const char *name;
        memasm_op op;
        void (*fn)(void);
    } entries[] = {
        {"memasm_memcpy", MEMASM_OP_MEMCPY, (void (*)(void))memasm_memcpy},
        {"memasm_memmove", MEMASM_OP_MEMMOVE, (void (*)(void))memasm_memmove},
        {"memasm_memset", MEMASM_OP_MEMSET, (void (*)(void))memasm_memset},
    };
    for (size_t e = 0; e < sizeof entries / sizeof entries[0]; e++) {
        memasm_kernel_desc k = {0};
        k.name = entries[e].name;
        k.op = entries[e].op;
        k.fn = entries[e].fn;
        char profile[64];
        snprintf(profile, sizeof profile, "cap %s, kernel %s", memasm_isa_name(level),
                 memasm_kernel_current(k.op));
        unsigned long count = check_all(&k, profile, 0xe17000 + (uint64_t)(level * 8) + e, 1);
        printf("%-20s [%s]: %lu calls through the ABI checker, all clean\n", k.name, profile,
               count);
        fflush(stdout);
    }
    memasm_isa_set_cap(NULL);
}
END_TEST

int main(void)
{
    t_print_time(NULL);
    t_seed();
    t_print_kernels();
    abi_fl = abi_flags();
    abi_print_flags(abi_fl);
    nprofiles = t_profiles(profiles, T_MAX_PROFILES);
    Suite *s = suite_create("abi");
    TCase *tc = tcase_create("kernels");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, abi_kernel, 0, (int)((size_t)nprofiles * memasm_kernel_count()));
    tcase_add_loop_test(tc, abi_entry, 0, memasm_isa_count());
    suite_add_tcase(s, tc);
    int status = t_run_suite(s);
    t_print_time("run time (this process; forked tests not included in CPU)");
    return status;
}
