/*
 * abi.h -- the ABI checker's interface (implemented in assembly per
 * architecture: tests/abi/x86_64.asm, tests/abi/aarch64.S, tests/abi/riscv64.S).
 *
 * memasm_abi_call() calls fn(a0, a1, a2) through a trampoline that
 *   - loads every callee-saved register with a value from seeds[] first
 *     (x86_64: rbx rbp r12 r13 r14 r15;
 *      aarch64: x19..x28 then d8..d15;
 *      riscv64: s0..s11 then fs0..fs11), in that order;
 *   - puts a canary on the stack just above the kernel's frame;
 *   - passes a0..a2 as full 64-bit registers, so the caller can put junk in
 *     the upper 32 bits of memset's int argument;
 *   - on riscv64 with MEMASM_ABI_POISON_VTYPE, leaves vtype invalid (vill)
 *     before the call, so a kernel that forgets vsetvli traps;
 * and after the call checks, in this order, each register against its seed,
 * the canary, and (x86_64) the direction flag and, with
 * MEMASM_ABI_CHECK_UPPER, that the upper YMM/ZMM state is clean
 * (xgetbv with ECX=1: XINUSE bits 2 (AVX), 5..7 (AVX-512) clear).
 *
 * It stores the kernel's return value in *ret and returns 0 when everything
 * held, else the code of the first violation (see below).  The trampoline
 * itself restores the caller's callee-saved registers, so a broken kernel
 * is reported, not propagated.
 */
#ifndef MEMASM_TEST_ABI_H
#define MEMASM_TEST_ABI_H

#include <stddef.h>
#include <stdint.h>

enum {
    MEMASM_ABI_POISON_VTYPE = 1u << 0, /* riscv64: vtype.vill before call */
    MEMASM_ABI_CHECK_UPPER = 1u << 1,  /* x86_64: XINUSE upper state check */
};

/* Return codes: 0 ok; 1 + i for callee-saved register number i (in the
 * order listed above) not preserved; or one of these. */
enum {
    MEMASM_ABI_ERR_CANARY = 0x100,    /* stack canary overwritten          */
    MEMASM_ABI_ERR_DF = 0x200,        /* x86_64: direction flag left set   */
    MEMASM_ABI_ERR_UPPER = 0x400,     /* x86_64: upper YMM/ZMM state dirty */
};

/* Number of seeds the trampoline reads (callee-saved registers checked). */
#if defined(__x86_64__)
#define MEMASM_ABI_NSEEDS 6
#elif defined(__aarch64__)
#define MEMASM_ABI_NSEEDS 18
#elif defined(__riscv)
#define MEMASM_ABI_NSEEDS 24
#endif

int memasm_abi_call(void (*fn)(void), uint64_t a0, uint64_t a1, uint64_t a2,
                    const uint64_t *seeds, unsigned flags, uint64_t *ret);

/* A kernel that copies correctly but clobbers one callee-saved register
 * (tests/abi/broken-<arch>.*), built only for the test that shows the checker
 * catches it. */
void *memasm_test_broken_memcpy(void *dst, const void *src, size_t n);

#endif
