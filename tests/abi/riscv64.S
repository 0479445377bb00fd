/*
 * riscv64.S -- the ABI checker's trampoline for riscv64 (see abi.h).
 *
 * int memasm_abi_call(void (*fn)(void), uint64_t a0, uint64_t a1,
 *                     uint64_t a2, const uint64_t *seeds, unsigned flags,
 *                     uint64_t *ret);
 *
 * Assumptions: LP64D psABI.  Callee-saved: s0-s11 and fs0-fs11 (the low 64
 * bits, which is all D has), sp; vector registers and vtype/vl are
 * caller-saved, so they are not checked.  The trampoline:
 *   1. saves ra, s0-s11 and fs0-fs11 of its own caller in its frame;
 *   2. writes a canary (derived from seeds[0], so it differs run to run)
 *      into the two doublewords at the bottom of its frame, the ones just
 *      above the kernel's stack frame;
 *   3. loads s0-s11 from seeds[0..11] and fs0-fs11 from seeds[12..23];
 *   4. with MEMASM_ABI_POISON_VTYPE, makes vtype invalid (vill = 1, vl = 0)
 *      with vsetvl: any vector instruction the kernel runs before its own
 *      vsetvli then raises SIGILL.  Only pass this flag when the CPU has V
 *      (the vsetvl itself is an illegal instruction otherwise);
 *   5. calls fn with a0..a2 as given (full 64-bit values: junk in the upper
 *      half of memset's int is the caller's to put there);
 *   6. stores the kernel's a0 in *ret, then checks s0..s11, fs0..fs11 (in
 *      that order) against the seeds and then the canary, and returns
 *      0, 1 + i for the first register i that changed, or
 *      MEMASM_ABI_ERR_CANARY;
 *   7. restores its caller's registers whatever happened.
 * sp itself cannot be checked after the fact (the trampoline needs it to
 * find its frame); a kernel that moves it crashes the test, which fails.
 */

#define ERR_CANARY 0x100

/* Frame layout (offsets from sp after the prologue). */
#define F_CANARY	0	/* 16 bytes: two canary doublewords */
#define F_RA		16
#define F_SEEDS		24
#define F_RETP		32
#define F_S		40	/* s0..s11: 12 * 8 */
#define F_FS		136	/* fs0..fs11: 12 * 8 */
#define F_SIZE		240	/* 232 rounded up to 16 */

#define CANARY_MIX 0x5a17c0de9e3779b9

	.text
	.p2align 2
	.globl	memasm_abi_call
	.type	memasm_abi_call, @function
memasm_abi_call:
	.cfi_startproc
	addi	sp, sp, -F_SIZE
	.cfi_def_cfa_offset F_SIZE
	sd	ra, F_RA(sp)
	.cfi_offset ra, F_RA - F_SIZE
	.irp i, 0,1,2,3,4,5,6,7,8,9,10,11
	sd	s\i, F_S + 8 * \i(sp)
	.cfi_offset s\i, F_S + 8 * \i - F_SIZE
	fsd	fs\i, F_FS + 8 * \i(sp)
	.cfi_offset fs\i, F_FS + 8 * \i - F_SIZE
	.endr
	sd	a4, F_SEEDS(sp)
	sd	a6, F_RETP(sp)

	/* Canary just above the kernel's frame. */
	ld	t1, 0(a4)
	li	t2, CANARY_MIX
	xor	t1, t1, t2
	sd	t1, F_CANARY(sp)
	not	t1, t1
	sd	t1, F_CANARY + 8(sp)

	/* Seed the callee-saved registers. */
	.irp i, 0,1,2,3,4,5,6,7,8,9,10,11
	ld	s\i, 8 * \i(a4)
	fld	fs\i, 8 * (12 + \i)(a4)
	.endr

	mv	t3, a0			/* fn */
	andi	t0, a5, 1		/* MEMASM_ABI_POISON_VTYPE */
	beqz	t0, 1f
	.option push
	.option arch, +v
	li	t0, 1
	slli	t0, t0, 63		/* vtype.vill */
	vsetvl	t0, zero, t0		/* unsupported vtype: vill = 1, vl = 0 */
	.option pop
1:	mv	a0, a1
	mv	a1, a2
	mv	a2, a3
	jalr	ra, 0(t3)

	/* Return value first, whatever else went wrong. */
	ld	t1, F_RETP(sp)
	beqz	t1, 2f
	sd	a0, 0(t1)
2:	ld	t2, F_SEEDS(sp)
	.irp i, 0,1,2,3,4,5,6,7,8,9,10,11
	ld	t1, 8 * \i(t2)
	li	a0, 1 + \i
	bne	s\i, t1, .Lrestore
	.endr
	.irp i, 0,1,2,3,4,5,6,7,8,9,10,11
	ld	t1, 8 * (12 + \i)(t2)
	fmv.x.d	t0, fs\i
	li	a0, 13 + \i
	bne	t0, t1, .Lrestore
	.endr
	ld	t1, 0(t2)
	li	t0, CANARY_MIX
	xor	t1, t1, t0
	li	a0, ERR_CANARY
	ld	t0, F_CANARY(sp)
	bne	t0, t1, .Lrestore
	not	t1, t1
	ld	t0, F_CANARY + 8(sp)
	bne	t0, t1, .Lrestore
	li	a0, 0

.Lrestore:
	.irp i, 0,1,2,3,4,5,6,7,8,9,10,11
	ld	s\i, F_S + 8 * \i(sp)
	fld	fs\i, F_FS + 8 * \i(sp)
	.endr
	ld	ra, F_RA(sp)
	addi	sp, sp, F_SIZE
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	memasm_abi_call, . - memasm_abi_call

	.section .note.GNU-stack, "", @progbits
