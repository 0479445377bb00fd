/*
 * memcpy-rvv.S -- RVV 1.0 memcpy and memmove (kernels memcpy_rvv,
 * memmove_rvv).
 *
 * Assumptions: RV64GC plus V (RVV 1.0), any VLEN: the loops are strip-mined
 * with vsetvli and never assume a vector length.  Byte elements (e8) have no
 * alignment requirement, so neither buffer is aligned first.  The dispatcher
 * chooses these kernels only when the kernel reports V (AT_HWCAP or
 * riscv_hwprobe); V is enabled for this file alone (.option arch, +v), so
 * the rest of the library still runs on cores without it.  vtype is set by
 * vsetvli before the first vector instruction: nothing is assumed about the
 * caller's vtype (it may be invalid).
 *
 * Strategy by size class:
 *   n < memcpy.rvv_min   (run-time threshold, default 64): tail-call the
 *                        scalar kernel of memcpy.S; one compare decides.
 *   n >= memcpy.rvv_min  vsetvli e8, m8, ta, ma: each pass moves up to
 *                        8 * VLEN / 8 = VLEN bytes (128 B at VLEN 128) with
 *                        one vle8.v and one vse8.v; the last pass is
 *                        simply shorter (vl = what is left).
 *   memmove: forward when (dst - src) as an unsigned number is >= n (dst
 *   below src or no overlap: each pass loads its whole chunk before storing
 *   it, below everything still to be loaded), otherwise strip-mined from
 *   the end, each chunk loaded before it is stored above everything still
 *   to be loaded.  dst == src returns at once.
 * n == 0 touches no memory (a pass with vl = 0 accesses nothing).
 */
#include "asm.h"

	.option push
	.option arch, +v

	EXTERN_HIDDEN(memasm_thr)
	EXTERN_HIDDEN(memasm_k_memcpy_scalar)
	EXTERN_HIDDEN(memasm_k_memmove_scalar)

#define dstin	a0	/* return value: never modified */
#define src	a1
#define count	a2
#define dst	a3
#define vl	t0

ENTRY(memasm_k_memmove_rvv)
	ld	t0, memasm_thr		/* snapshot of the thresholds */
	ld	t0, THR_OFF(MEMASM_THR_MEMCPY_RVV_MIN)(t0)
	bgeu	count, t0, 1f
	tail	memasm_k_memmove_scalar
1:	sub	t1, dstin, src
	bgeu	t1, count, L(forward)	/* dst below src, or no overlap */
	beqz	t1, L(bwd_ret)		/* dst == src */
	add	src, src, count
	add	dst, dstin, count
L(bwd_loop):
	vsetvli	vl, count, e8, m8, ta, ma
	sub	src, src, vl
	sub	dst, dst, vl
	vle8.v	v0, (src)
	sub	count, count, vl
	vse8.v	v0, (dst)
	bnez	count, L(bwd_loop)
L(bwd_ret):
	ret
END(memasm_k_memmove_rvv)

ENTRY(memasm_k_memcpy_rvv)
	ld	t0, memasm_thr		/* snapshot of the thresholds */
	ld	t0, THR_OFF(MEMASM_THR_MEMCPY_RVV_MIN)(t0)
	bgeu	count, t0, L(forward)
	tail	memasm_k_memcpy_scalar
L(forward):
	mv	dst, dstin
L(fwd_loop):
	vsetvli	vl, count, e8, m8, ta, ma
	vle8.v	v0, (src)
	sub	count, count, vl
	add	src, src, vl
	vse8.v	v0, (dst)
	add	dst, dst, vl
	bnez	count, L(fwd_loop)
	ret
END(memasm_k_memcpy_rvv)

	.option pop
