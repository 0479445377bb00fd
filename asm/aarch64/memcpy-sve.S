/*
 * memcpy-sve.S -- memasm_k_memcpy_sve and memasm_k_memmove_sve: the "sve"
 * level copy kernels.  SVE adds one thing the NEON kernels cannot do: a
 * copy of any length up to two vectors with no branch on the length, by
 * predicated loads and stores.  Longer copies are the NEON kernels' job.
 *
 * Assumptions:
 *   ARMv8.2-A AArch64 with SVE and AdvSIMD (listed as requiring
 *   MEMASM_F_A64_SVE and MEMASM_F_A64_ASIMD: the long sizes run the NEON
 *   kernel).  Any vector length, 128 to 2048 bits, read with cntb at run
 *   time.  Uses z0, z1, p0, p1, x3 (all caller-saved under the
 *   base AAPCS64: callee-saved are only the low 64 bits of v8..v15).
 *
 * Strategy by size class (VL = vector length in bytes):
 *   0..2*VL  p0 = whilelo(0, n), p1 = whilelo(VL, n); two predicated
 *            ld1b, then two predicated st1b.  Inactive lanes neither load
 *            nor store nor fault, so n = 0 touches nothing and a copy that
 *            ends at a guard page stays inside it; all loads come before
 *            all stores, so any overlap (memmove) is handled.
 *   larger   tail call (plain b: no BTI landing pad needed) into the NEON
 *            kernel of the same operation, with x0..x2 untouched.
 */
#include "asm.h"

	.arch armv8.2-a+sve

#define dstin x0
#define src x1
#define count x2
#define vlen x3

.macro SVE_COPY name, tail
ENTRY(\name)
	cntb	vlen
	cmp	count, vlen, lsl 1
	b.hi	\tail
	whilelo	p0.b, xzr, count
	whilelo	p1.b, vlen, count
	ld1b	z0.b, p0/z, [src]
	ld1b	z1.b, p1/z, [src, 1, mul vl]
	st1b	z0.b, p0, [dstin]
	st1b	z1.b, p1, [dstin, 1, mul vl]
	ret
END(\name)
.endm

	SVE_COPY memasm_k_memcpy_sve, memasm_k_memcpy_neon
	SVE_COPY memasm_k_memmove_sve, memasm_k_memmove_neon
