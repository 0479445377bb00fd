/*
 * asm.h -- what every aarch64 kernel (and the ABI checker) shares: the
 * entry/exit macros and the object-file notes.  GNU as through cpp (.S).
 *
 * ENTRY(name) opens a function:
 *   - .text, aligned to 64 bytes (one cache line, and a whole fetch block on
 *     the cores we know), so the hot small-size paths start on a fresh line;
 *   - .globl + .hidden: kernels are reached through the dispatcher's table,
 *     never by name from outside libmemasm, so they cost no PLT/GOT entry and
 *     are not exported (the link also restricts exports to memasm_*);
 *   - .type %function, and END(name) gives .size, so debuggers, perf and
 *     valgrind see proper function symbols;
 *   - .cfi_startproc / .cfi_endproc: leaf kernels never move sp or touch
 *     x29/x30, so the initial CFI state (CFA = sp, return address in x30) is
 *     right for the whole body; functions with a frame add their own .cfi_*;
 *   - `bti c` (written as its hint encoding, hint #34, so any assembler that
 *     knows ARMv8.0 accepts it; it is a NOP on cores without BTI): the kernels
 *     are only ever reached by an indirect call (blr), which on a guarded page
 *     must land on a BTI c (or a PACIASP) landing pad.
 *
 * The file also emits, once per object that includes it:
 *   - a .note.gnu.property saying the code is BTI- and PAC-compatible
 *     (GNU_PROPERTY_AARCH64_FEATURE_1_AND = BTI | PAC).  The linker ANDs the
 *     property over all inputs, so the shared library is marked (and its
 *     pages guarded) only when the C files are built with
 *     -mbranch-protection too; without our note a protected build would
 *     silently lose the marking.  PAC is claimed truthfully: the kernels are
 *     leaves that never spill x30, and functions that do (the ABI
 *     trampoline) sign it with PACIASP/AUTIASP (hint #25 / hint #29);
 *   - .note.GNU-stack with no flags: the objects need no executable stack.
 *
 * MEMASM_THR_* (byte offset = index * 8 into *memasm_thr) come from
 * c/memasm-internal.h, which is safe to include from assembly.
 */
#ifndef MEMASM_AARCH64_ASM_H
#define MEMASM_AARCH64_ASM_H

#include "memasm-internal.h"

#define BTI_C hint 34     /* bti c   */
#define PACIASP hint 25   /* paciasp */
#define AUTIASP hint 29   /* autiasp */

/* Hidden, 64-byte aligned, BTI landing pad, CFI. */
#define ENTRY(name)                  \
	.text;                           \
	.p2align 6;                      \
	.globl name;                     \
	.hidden name;                    \
	.type name, %function;           \
	name:                            \
	.cfi_startproc;                  \
	BTI_C

#define END(name)                    \
	.cfi_endproc;                    \
	.size name, . - name

/* The threshold table pointer (c/thresholds.c), hidden like the kernels:
 * adrp + ldr :lo12: reach it PC-relatively, with no GOT entry. */
	.hidden memasm_thr

/* GNU property note: AArch64 feature bits BTI (1) and PAC (2). */
#define MEMASM_NT_GNU_PROPERTY_TYPE_0 5
#define MEMASM_GNU_PROPERTY_AARCH64_FEATURE_1_AND 0xc0000000
	.pushsection .note.gnu.property, "a"
	.p2align 3
	.word 4                                   /* name size: "GNU\0"     */
	.word 16                                  /* descriptor size        */
	.word MEMASM_NT_GNU_PROPERTY_TYPE_0
	.asciz "GNU"
	.word MEMASM_GNU_PROPERTY_AARCH64_FEATURE_1_AND
	.word 4                                   /* property data size     */
	.word 3                                   /* BTI | PAC              */
	.word 0                                   /* pad to 8 bytes         */
	.popsection

	.pushsection .note.GNU-stack, "", %progbits
	.popsection

#endif /* MEMASM_AARCH64_ASM_H */
