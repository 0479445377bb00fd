/*
 * abi_common.h -- helpers of the two ABI checker tests: the names of the
 * checked registers per architecture, the flags this CPU allows, and the
 * text for a checker code.
 */
#ifndef MEMASM_TEST_ABI_COMMON_H
#define MEMASM_TEST_ABI_COMMON_H

#include <stdio.h>

#include "abi/abi.h"
#include "memasm.h"

#if defined(__x86_64__)
#include <cpuid.h>
static const char *const abi_reg_names[MEMASM_ABI_NSEEDS] = {"rbx", "rbp", "r12", "r13", "r14", "r15"};
#elif defined(__aarch64__)
static const char *const abi_reg_names[MEMASM_ABI_NSEEDS] = {
    "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27",
    "x28", "d8",  "d9",  "d10", "d11", "d12", "d13", "d14", "d15"};
#elif defined(__riscv)
static const char *const abi_reg_names[MEMASM_ABI_NSEEDS] = {
    "s0",  "s1",  "s2",  "s3",  "s4",  "s5",  "s6",  "s7",  "s8",  "s9",  "s10",  "s11",
    "fs0", "fs1", "fs2", "fs3", "fs4", "fs5", "fs6", "fs7", "fs8", "fs9", "fs10", "fs11"};
#endif

/* Flags for memasm_abi_call that this CPU supports. */
static inline unsigned abi_flags(void)
{
    unsigned flags = 0;
#if defined(__x86_64__)
    unsigned a, b, c, d;
    /* XGETBV with ECX=1 needs OSXSAVE (leaf 1 ECX bit 27) and is announced
     * in leaf 0xD sub-leaf 1 EAX bit 2. */
    if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 27)) && __get_cpuid_max(0, NULL) >= 0xd) {
        __cpuid_count(0xd, 1, a, b, c, d);
        if (a & (1u << 2))
            flags |= MEMASM_ABI_CHECK_UPPER;
    }
#elif defined(__riscv)
    /* vtype can only be poisoned (with vsetvl) where V exists. */
    if (memasm_isa_cpu() >= 1)
        flags |= MEMASM_ABI_POISON_VTYPE;
#endif
    return flags;
}

static inline const char *abi_code_str(int code)
{
    static char buf[64];
    if (code == 0)
        return "ok";
    if (code >= 1 && code <= MEMASM_ABI_NSEEDS) {
        snprintf(buf, sizeof buf, "callee-saved register %s not preserved", abi_reg_names[code - 1]);
        return buf;
    }
    switch (code) {
    case MEMASM_ABI_ERR_CANARY:
        return "stack canary above the return address overwritten";
    case MEMASM_ABI_ERR_DF:
        return "direction flag left set";
    case MEMASM_ABI_ERR_UPPER:
        return "upper YMM/ZMM state left dirty (XINUSE)";
    }
    snprintf(buf, sizeof buf, "unknown checker code 0x%x", (unsigned)code);
    return buf;
}

static inline void abi_print_flags(unsigned flags)
{
    printf("ABI checker: %d callee-saved registers seeded%s%s\n", MEMASM_ABI_NSEEDS,
           flags & MEMASM_ABI_CHECK_UPPER ? ", upper YMM/ZMM state checked (xgetbv ECX=1)" : "",
           flags & MEMASM_ABI_POISON_VTYPE ? ", vtype left invalid before each call" : "");
#if defined(__x86_64__)
    if (!(flags & MEMASM_ABI_CHECK_UPPER))
        printf("ABI checker: this CPU has no XGETBV ECX=1, upper state NOT checked\n");
#elif defined(__riscv)
    if (!(flags & MEMASM_ABI_POISON_VTYPE))
        printf("ABI checker: no V extension, vtype not poisoned\n");
#endif
    fflush(stdout);
}

#endif
