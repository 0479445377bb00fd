/*
 * memset-sve.S -- memasm_k_memset_sve: the "sve" level memset.  Fills of up
 * to two vectors take no branch on the length (predicated stores); longer
 * ones are the NEON kernel's job.
 *
 * Assumptions:
 *   ARMv8.2-A AArch64 with SVE and AdvSIMD (listed as requiring both);
 *   any vector length, read with cntb.  The int argument arrives in w1 with
 *   junk allowed in bits 8..63: dup z0.b reads bits 0..7 only.  Uses z0,
 *   p0, p1, x3 (caller-saved).
 *
 * Strategy by size class (VL = vector length in bytes):
 *   0..2*VL  p0 = whilelo(0, n), p1 = whilelo(VL, n); two predicated st1b
 *            (inactive lanes store nothing and cannot fault: n = 0 touches
 *            nothing).
 *   larger   tail call (plain b) into memasm_k_memset_neon, x0..x2 intact.
 */
#include "asm.h"

	.arch armv8.2-a+sve

#define dstin x0
#define count x2
#define vlen x3

ENTRY(memasm_k_memset_sve)
	cntb	vlen
	cmp	count, vlen, lsl 1
	b.hi	memasm_k_memset_neon
	dup	z0.b, w1
	whilelo	p0.b, xzr, count
	whilelo	p1.b, vlen, count
	st1b	z0.b, p0, [dstin]
	st1b	z0.b, p1, [dstin, 1, mul vl]
	ret
END(memasm_k_memset_sve)
