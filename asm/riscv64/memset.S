/*
 * memset.S -- scalar RV64GC memset with word stores unrolled 8x (kernel
 * memset_scalar).
 *
 * Assumptions: RV64GC; no misaligned access is ever made, so it is fast on
 * cores that trap misaligned stores.  Only the low 8 bits of c (a1) are
 * used: the psABI leaves the upper bits of an int argument sign-extended,
 * but callers that pass junk there get the right result too.
 *
 * Strategy by size class:
 *   n < 8      byte loop (0-7 stores).
 *   n >= 8     splat the byte into a doubleword; one sb, sh and/or sw to
 *              align dst to 8 (at most three stores, no loop); 64-byte
 *              blocks of 8 sd; single sd; then a sw, sh and/or sb tail
 *              (dst is aligned, so these are aligned too).
 * n == 0 touches no memory.  This is also the fallback of memset_rvv below
 * memset.rvv_min.
 */
#include "asm.h"

#define dstin	a0	/* return value: never modified */
#define val	a1
#define count	a2
#define dst	a3

ENTRY(memasm_k_memset_scalar)
	mv	dst, dstin
	andi	val, val, 0xff
	li	t0, 8
	bltu	count, t0, L(set_bytes)
	slli	t1, val, 8		/* splat: 0x..ab -> 0xabab...ab */
	or	val, val, t1
	slli	t1, val, 16
	or	val, val, t1
	slli	t1, val, 32
	or	val, val, t1
	/* Align dst to 8 with at most one sb, one sh and one sw. */
	andi	t1, dst, 1
	beqz	t1, 1f
	sb	val, 0(dst)
	addi	dst, dst, 1
	addi	count, count, -1
1:	andi	t1, dst, 2
	beqz	t1, 2f
	sh	val, 0(dst)
	addi	dst, dst, 2
	addi	count, count, -2
2:	andi	t1, dst, 4
	beqz	t1, L(set_aligned)
	sw	val, 0(dst)
	addi	dst, dst, 4
	addi	count, count, -4
L(set_aligned):				/* count >= 1 */
	andi	t1, count, -64
	beqz	t1, L(set_words)
	add	t2, dst, t1
L(set_blocks64):
	sd	val, 0(dst)
	sd	val, 8(dst)
	sd	val, 16(dst)
	sd	val, 24(dst)
	sd	val, 32(dst)
	sd	val, 40(dst)
	sd	val, 48(dst)
	sd	val, 56(dst)
	addi	dst, dst, 64
	bne	dst, t2, L(set_blocks64)
L(set_words):				/* count mod 64 left */
	andi	t1, count, 56
	beqz	t1, L(set_tail)
	add	t2, dst, t1
1:	sd	val, 0(dst)
	addi	dst, dst, 8
	bne	dst, t2, 1b
L(set_tail):				/* count mod 8 left, dst aligned */
	andi	t1, count, 4
	beqz	t1, 1f
	sw	val, 0(dst)
	addi	dst, dst, 4
1:	andi	t1, count, 2
	beqz	t1, 2f
	sh	val, 0(dst)
	addi	dst, dst, 2
2:	andi	t1, count, 1
	beqz	t1, 3f
	sb	val, 0(dst)
3:	ret

L(set_bytes):				/* count < 8 */
	beqz	count, 2f
	add	t2, dst, count
1:	sb	val, 0(dst)
	addi	dst, dst, 1
	bne	dst, t2, 1b
2:	ret
END(memasm_k_memset_scalar)
