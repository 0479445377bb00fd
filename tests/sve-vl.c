/*
 * sve-vl.c -- which emulated aarch64 CPU the suite runs on, checked from
 * inside: the SVE vector length that rdvl reads, or no SVE at all, and the
 * kernels the dispatcher chose for it.
 *
 * tests/run-test.sh passes the emulated CPU in QEMU_CPU ("max,sve256=on",
 * "max,sve2048=on,sve-default-vector-length=256", "cortex-a57").  With
 * "sveN=on" the vector length must be N bits (or the default length given,
 * in bytes, when that is smaller: user mode caps the default at 512 bits
 * unless told otherwise) and every operation must be served by its sve
 * kernel; without SVE, AT_HWCAP must say so, no sve kernel may be chosen,
 * and no SVE instruction is executed here (it would raise SIGILL).  Run
 * outside qemu (no QEMU_CPU) it reports what it finds and passes.
 * Exit status: 0 pass, 1 fail (automake's test driver convention).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "memasm.h"

#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22)
#endif

/* Bytes in an SVE vector; only called when HWCAP_SVE is set. */
static unsigned long sve_bytes(void)
{
    unsigned long vl;
    __asm__ volatile(".arch_extension sve\n\trdvl %0, #1" : "=r"(vl));
    return vl;
}

/* The number after key= in the QEMU_CPU list, or 0. */
static unsigned long option(const char *cpu, const char *key)
{
    const char *p = strstr(cpu, key);
    return p ? strtoul(p + strlen(key), NULL, 10) : 0;
}

int main(void)
{
    const char *cpu = getenv("QEMU_CPU");
    int has_sve = (getauxval(AT_HWCAP) & HWCAP_SVE) != 0;
    unsigned long bits = has_sve ? 8 * sve_bytes() : 0;
    int fail = 0;
    printf("QEMU_CPU=%s: SVE %s", cpu ? cpu : "(not emulated)", has_sve ? "yes" : "no");
    if (has_sve)
        printf(", rdvl: %lu bytes = %lu bits", bits / 8, bits);
    printf("; kernels: %s %s %s\n", memasm_kernel_current(MEMASM_OP_MEMCPY),
           memasm_kernel_current(MEMASM_OP_MEMMOVE), memasm_kernel_current(MEMASM_OP_MEMSET));
    if (!cpu)
        return 0;

    unsigned long want = 0;
    for (unsigned long n = 128; n <= 2048; n *= 2) {
        char key[16];
        snprintf(key, sizeof key, "sve%lu=on", n);
        if (strstr(cpu, key))
            want = n;
    }
    unsigned long dflt = option(cpu, "sve-default-vector-length=");
    if (want && (dflt ? 8 * dflt : 512) < want)
        want = dflt ? 8 * dflt : 512;
    int sve_expected = want != 0 || strncmp(cpu, "max", 3) == 0;
    if (strstr(cpu, "cortex-a57") || strstr(cpu, "sve=off"))
        sve_expected = 0;

    if (sve_expected != has_sve) {
        printf("FAIL: SVE %s expected\n", sve_expected ? "" : "not");
        fail = 1;
    }
    if (want && bits != want) {
        printf("FAIL: vector length %lu bits, expected %lu\n", bits, want);
        fail = 1;
    }
    for (int op = 0; op < MEMASM_OP_COUNT; op++) {
        const char *k = memasm_kernel_current((memasm_op)op);
        int is_sve = k && strstr(k, "_sve") != NULL;
        if (is_sve != has_sve) {
            printf("FAIL: %s served by %s on a CPU %s SVE\n", memasm_op_name((memasm_op)op), k ? k : "(none)",
                   has_sve ? "with" : "without");
            fail = 1;
        }
    }
    if (!fail)
        printf("ok\n");
    return fail;
}
