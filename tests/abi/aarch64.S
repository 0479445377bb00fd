/*
 * aarch64.S -- the ABI checker's trampoline for aarch64 (tests/abi/abi.h).
 *
 * int memasm_abi_call(void (*fn)(void), uint64_t a0, uint64_t a1,
 *                     uint64_t a2, const uint64_t *seeds, unsigned flags,
 *                     uint64_t *ret);
 *
 * Calls fn(a0, a1, a2) with every callee-saved register of AAPCS64 holding
 * a seed: x19..x28 = seeds[0..9], d8..d15 = seeds[10..17] (only the low 64
 * bits of v8..v15 are callee-saved, so only d8..d15 are checked).  a0..a2
 * are passed as full x registers, so the caller can put junk in bits 32..63
 * of memset's int.  A 16-byte canary (the complements of seeds[0] and
 * seeds[1]) sits at the trampoline's sp during the call, i.e. right above
 * the callee's frame: a kernel that writes above its own stack pointer hits
 * it first.  flags has no aarch64 meaning and is ignored.
 *
 * After the call: *ret = x0; then each register against its seed in the
 * order above (the first mismatch returns 1 + its index), then the canary
 * (MEMASM_ABI_ERR_CANARY); 0 when all held.  The caller's own x19..x28 and
 * d8..d15 are restored from this frame whatever the kernel did, so a broken
 * kernel is reported, not propagated.
 *
 * Frame (192 bytes, sp 16-aligned throughout):
 *   sp+0    canary (2 x 8)          <- callee's frame starts below this
 *   sp+16   seeds, ret pointers
 *   sp+32   x19..x28
 *   sp+112  d8..d15
 *   sp+176  x29, x30 (frame record; x29 points here)
 * The return address is signed (PACIASP/AUTIASP, NOPs without PAC) as the
 * GNU property note in asm.h claims.
 */
#include "asm.h"

/* abi.h is C only; this must equal its MEMASM_ABI_ERR_CANARY. */
#define MEMASM_ABI_ERR_CANARY 0x100
#define FRAME 192

/* Compare x register reg with seeds[idx]; on mismatch fail with 1 + idx. */
.macro CHECK_X reg, idx
	ldr	x11, [x9, \idx * 8]
	mov	w12, \idx + 1
	cmp	\reg, x11
	b.ne	.Lcheck_done
.endm

/* The same for the low 64 bits of a v register, read as d. */
.macro CHECK_D reg, idx
	ldr	x11, [x9, \idx * 8]
	fmov	x13, \reg
	mov	w12, \idx + 1
	cmp	x13, x11
	b.ne	.Lcheck_done
.endm

ENTRY(memasm_abi_call)
	PACIASP
	.cfi_negate_ra_state
	sub	sp, sp, FRAME
	.cfi_def_cfa_offset FRAME
	stp	x29, x30, [sp, 176]
	.cfi_offset x29, -16
	.cfi_offset x30, -8
	add	x29, sp, 176
	stp	x19, x20, [sp, 32]
	.cfi_offset x19, -160
	.cfi_offset x20, -152
	stp	x21, x22, [sp, 48]
	.cfi_offset x21, -144
	.cfi_offset x22, -136
	stp	x23, x24, [sp, 64]
	.cfi_offset x23, -128
	.cfi_offset x24, -120
	stp	x25, x26, [sp, 80]
	.cfi_offset x25, -112
	.cfi_offset x26, -104
	stp	x27, x28, [sp, 96]
	.cfi_offset x27, -96
	.cfi_offset x28, -88
	stp	d8, d9, [sp, 112]
	.cfi_offset d8, -80
	.cfi_offset d9, -72
	stp	d10, d11, [sp, 128]
	.cfi_offset d10, -64
	.cfi_offset d11, -56
	stp	d12, d13, [sp, 144]
	.cfi_offset d12, -48
	.cfi_offset d13, -40
	stp	d14, d15, [sp, 160]
	.cfi_offset d14, -32
	.cfi_offset d15, -24
	stp	x4, x6, [sp, 16]        /* seeds, ret: needed after the call */

	ldp	x9, x10, [x4]           /* canary = ~seeds[0], ~seeds[1] */
	mvn	x9, x9
	mvn	x10, x10
	stp	x9, x10, [sp]

	mov	x16, x0                 /* fn */
	ldp	x19, x20, [x4, 0]
	ldp	x21, x22, [x4, 16]
	ldp	x23, x24, [x4, 32]
	ldp	x25, x26, [x4, 48]
	ldp	x27, x28, [x4, 64]
	ldp	d8, d9, [x4, 80]
	ldp	d10, d11, [x4, 96]
	ldp	d12, d13, [x4, 112]
	ldp	d14, d15, [x4, 128]
	mov	x0, x1
	mov	x1, x2
	mov	x2, x3
	blr	x16

	ldp	x9, x10, [sp, 16]
	str	x0, [x10]               /* *ret, whatever happened */
	CHECK_X	x19, 0
	CHECK_X	x20, 1
	CHECK_X	x21, 2
	CHECK_X	x22, 3
	CHECK_X	x23, 4
	CHECK_X	x24, 5
	CHECK_X	x25, 6
	CHECK_X	x26, 7
	CHECK_X	x27, 8
	CHECK_X	x28, 9
	CHECK_D	d8, 10
	CHECK_D	d9, 11
	CHECK_D	d10, 12
	CHECK_D	d11, 13
	CHECK_D	d12, 14
	CHECK_D	d13, 15
	CHECK_D	d14, 16
	CHECK_D	d15, 17
	ldp	x11, x13, [x9]          /* expected canary */
	mvn	x11, x11
	mvn	x13, x13
	ldp	x14, x15, [sp]
	mov	w12, MEMASM_ABI_ERR_CANARY
	cmp	x11, x14
	ccmp	x13, x15, 0, eq         /* Z only if both halves match */
	b.ne	.Lcheck_done
	mov	w12, 0
.Lcheck_done:
	mov	w0, w12
	ldp	x19, x20, [sp, 32]
	ldp	x21, x22, [sp, 48]
	ldp	x23, x24, [sp, 64]
	ldp	x25, x26, [sp, 80]
	ldp	x27, x28, [sp, 96]
	ldp	d8, d9, [sp, 112]
	ldp	d10, d11, [sp, 128]
	ldp	d12, d13, [sp, 144]
	ldp	d14, d15, [sp, 160]
	ldp	x29, x30, [sp, 176]
	add	sp, sp, FRAME
	.cfi_def_cfa_offset 0
	AUTIASP
	ret
END(memasm_abi_call)
