/*
 * memset-rvv.S -- RVV 1.0 memset (kernel memset_rvv).
 *
 * Assumptions: RV64GC plus V (RVV 1.0), any VLEN; V is enabled for this
 * file alone (.option arch, +v) and the dispatcher picks the kernel only
 * when the kernel reports V.  Nothing is assumed about the caller's vtype:
 * vsetvli comes before the first vector instruction.  vmv.v.x at SEW = 8
 * takes the low 8 bits of c, so junk in the upper bits of a1 is harmless.
 *
 * Strategy by size class:
 *   n < memset.rvv_min   (run-time threshold, default 64): tail-call the
 *                        scalar kernel of memset.S; one compare decides.
 *   n >= memset.rvv_min  splat c into the register group v0-v7 once at
 *                        VLMAX, then strip-mine vsetvli e8, m8, ta, ma with
 *                        one vse8.v per pass (VLEN bytes per pass).  A
 *                        shorter vl later does not change v0-v7.
 * n == 0 touches no memory.
 */
#include "asm.h"

	.option push
	.option arch, +v

	EXTERN_HIDDEN(memasm_thr)
	EXTERN_HIDDEN(memasm_k_memset_scalar)

#define dstin	a0	/* return value: never modified */
#define val	a1
#define count	a2
#define dst	a3
#define vl	t0

ENTRY(memasm_k_memset_rvv)
	ld	t0, memasm_thr		/* snapshot of the thresholds */
	ld	t0, THR_OFF(MEMASM_THR_MEMSET_RVV_MIN)(t0)
	bgeu	count, t0, 1f
	tail	memasm_k_memset_scalar
1:	mv	dst, dstin
	vsetvli	vl, zero, e8, m8, ta, ma
	vmv.v.x	v0, val
L(set_loop):
	vsetvli	vl, count, e8, m8, ta, ma
	vse8.v	v0, (dst)
	sub	count, count, vl
	add	dst, dst, vl
	bnez	count, L(set_loop)
	ret
END(memasm_k_memset_rvv)

	.option pop
