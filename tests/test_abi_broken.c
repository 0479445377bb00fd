/*
 * test_abi_broken.c -- the ABI checker must catch a broken kernel.
 *
 * memasm_test_broken_memcpy (tests/abi/broken-<arch>.*, linked into this
 * program only) copies correctly but clobbers a callee-saved register.
 * Called through memasm_abi_call with random seeds, the checker must return
 * the code of a callee-saved register (1 + its index in abi.h's order), and
 * the copy itself must still be right.  As a control, the same call with a
 * real memcpy kernel of the library must come back clean.
 */
#include "config.h"

#include <check.h>
#include <string.h>

#include "abi_common.h"
#include "harness.h"

#if defined(__x86_64__)
#define EXPECTED_CODE 1 /* rbx: tests/abi/broken-x86_64.asm inverts it */
#endif

START_TEST(broken_is_caught)
{
    t_rng r;
    t_rng_init(&r, 0xb0b0);
    unsigned flags = abi_flags();
    unsigned char src[300], dst[300];
    for (int round = 0; round < 16; round++) {
        size_t n = 1 + (size_t)t_below(&r, sizeof src);
        t_fill(&r, src, sizeof src);
        memset(dst, 0, sizeof dst);
        uint64_t seeds[MEMASM_ABI_NSEEDS];
        for (int i = 0; i < MEMASM_ABI_NSEEDS; i++)
            seeds[i] = t_rand(&r);
        uint64_t ret = 0;
        int code = memasm_abi_call((void (*)(void))memasm_test_broken_memcpy, (uintptr_t)dst,
                                   (uintptr_t)src, n, seeds, flags, &ret);
        if (round == 0)
            printf("checker on memasm_test_broken_memcpy: code 0x%x: %s\n", (unsigned)code,
                   abi_code_str(code));
        ck_assert_msg(code >= 1 && code <= MEMASM_ABI_NSEEDS,
                      "checker missed the broken kernel: code 0x%x (%s), seed %lu", (unsigned)code,
                      abi_code_str(code), (unsigned long)t_seed());
#ifdef EXPECTED_CODE
        ck_assert_msg(code == EXPECTED_CODE, "checker blamed %s, expected %s", abi_code_str(code),
                      abi_reg_names[EXPECTED_CODE - 1]);
#endif
        ck_assert_msg(ret == (uintptr_t)dst, "broken kernel's return value not passed back");
        ck_assert_msg(memcmp(dst, src, n) == 0, "broken kernel's copy (n=%zu) is wrong", n);
        for (size_t j = n; j < sizeof dst; j++)
            ck_assert_msg(dst[j] == 0, "broken kernel wrote dst+%zu (n=%zu)", j, n);
    }
}
END_TEST

START_TEST(real_kernel_is_clean)
{
    t_rng r;
    t_rng_init(&r, 0xc1ea);
    unsigned flags = abi_flags();
    unsigned char src[300], dst[300];
    for (size_t i = 0; i < memasm_kernel_count(); i++) {
        memasm_kernel_desc k;
        ck_assert(memasm_kernel_info(i, &k) == 0);
        if (k.op != MEMASM_OP_MEMCPY || !k.usable)
            continue;
        t_fill(&r, src, sizeof src);
        uint64_t seeds[MEMASM_ABI_NSEEDS];
        for (int j = 0; j < MEMASM_ABI_NSEEDS; j++)
            seeds[j] = t_rand(&r);
        uint64_t ret = 0;
        int code = memasm_abi_call(k.fn, (uintptr_t)dst, (uintptr_t)src, sizeof src, seeds, flags, &ret);
        ck_assert_msg(code == 0, "%s through the checker: %s", k.name, abi_code_str(code));
        ck_assert(ret == (uintptr_t)dst && memcmp(dst, src, sizeof src) == 0);
        printf("control: %s comes back clean\n", k.name);
        return;
    }
    ck_abort_msg("no usable memcpy kernel");
}
END_TEST

int main(void)
{
    t_seed();
    abi_print_flags(abi_flags());
    Suite *s = suite_create("abi-broken");
    TCase *tc = tcase_create("checker");
    tcase_add_test(tc, broken_is_caught);
    tcase_add_test(tc, real_kernel_is_clean);
    suite_add_tcase(s, tc);
    return t_run_suite(s);
}
