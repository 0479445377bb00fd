/*
 * asm.h -- what every riscv64 kernel file shares (GNU as, through cpp).
 *
 * ENTRY(sym)/END(sym) carry every ABI detail so the kernels don't repeat
 * it: 16-byte alignment (one fetch block on the cores we know; with RVC the
 * padding is c.nop), a global symbol with hidden visibility (kernels are
 * reached only through the dispatcher's table inside libmemasm, so calls
 * need no PLT and the dynamic symbol table stays small), .type and .size
 * for debuggers and profilers, and CFI start/end.  The kernels are leaf
 * functions that never touch sp, so the CFA rule at entry (CFA = sp, return
 * address in ra) holds throughout and no other CFI directive is needed.
 *
 * The GNU-stack note below is emitted once by every file that includes this
 * header: it marks the object as not needing an executable stack, without
 * which the linker would make the whole library's stack executable.
 *
 * Register use (standard psABI, LP64D): a0 dst (kept unchanged: it is the
 * return value), a1 src or fill byte, a2 count; the kernels use only a0-a7
 * and t0-t6, never a callee-saved s or fs register, and no stack.
 */
#ifndef MEMASM_RISCV64_ASM_H
#define MEMASM_RISCV64_ASM_H

#include "memasm-internal.h"

/* Local label named after the size range it handles: L(copy_words). */
#define L(name) .L##name

#define ENTRY(sym)                      \
	.text;                          \
	.p2align 4;                     \
	.globl sym;                     \
	.hidden sym;                    \
	.type sym, @function;           \
sym:                                    \
	.cfi_startproc

#define END(sym)                        \
	.cfi_endproc;                   \
	.size sym, . - sym

/* A hidden symbol defined in another kernel file or in C (memasm_thr, the
 * scalar kernels the vector ones fall back to): PC-relative access, no GOT,
 * no PLT. */
#define EXTERN_HIDDEN(sym) .hidden sym

/* Byte offset of threshold MEMASM_THR_<x> in the array memasm_thr points at. */
#define THR_OFF(idx) ((idx) * 8)

	.section .note.GNU-stack, "", @progbits
	.text

#endif
