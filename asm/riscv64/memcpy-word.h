/*
 * memcpy-word.h -- template: scalar RV64GC memcpy and memmove, one body.
 *
 * Instantiated by memcpy.S (aligned accesses only) and memcpy-misaligned.S
 * (misaligned word loads allowed), which define before including it:
 *   MEMCPY_SYM, MEMMOVE_SYM  the two kernel symbols;
 *   MISALIGNED_LOADS         0: every access is naturally aligned;
 *                            1: loads and stores may be misaligned (chosen
 *                            only when riscv_hwprobe reports them fast).
 *
 * Assumptions: RV64GC, little-endian, LP64.  Without MISALIGNED_LOADS no
 * access is misaligned, so the kernel is fast on cores that trap (and have
 * the kernel emulate) misaligned loads.  No load ever reads a word that
 * holds no byte of the source: the tests put PROT_NONE pages right against
 * both ends of the buffers, and an aligned 8-byte word never crosses a page,
 * so "holds at least one source byte" means "is on a mapped page".
 *
 * memcpy (forward), by size class:
 *   n < SMALL     (8) byte loop; with MISALIGNED_LOADS (SMALL = 16) two
 *                 overlapping accesses of 8, 4, 2 or 1 bytes, all loads
 *                 before all stores.
 *   n >= SMALL    copy 0-7 bytes so that dst is 8-byte aligned, then
 *     src aligned too (or MISALIGNED_LOADS):
 *                 64-byte blocks of 8 ld + 8 sd, then single words, then a
 *                 byte tail of 0-7.
 *     src misaligned (by off = src & 7, 1..7), aligned accesses only:
 *                 each destination word is composed from the two aligned
 *                 source words it straddles,
 *                     out = (lo >> 8*off) | (hi << (64 - 8*off)),
 *                 keeping hi in a register for the next word, so each
 *                 aligned source word is loaded once; 32-byte blocks, then
 *                 single words.  Only full output words are composed, and
 *                 every aligned word loaded for one holds a byte of it, so
 *                 nothing is read past the last source byte's word.  The
 *                 0-7 byte tail is copied from the real source address.
 *
 * memmove: if (dst - src) as an unsigned number is >= n, dst is below src or
 * the regions don't overlap and the forward copy above is safe: every block
 * loads before it stores, and stores land below every byte still to be
 * loaded.  dst == src returns at once.  Otherwise (dst above src, overlap)
 * the same classes run backward from the ends: align the end of dst down,
 * 64-byte blocks or composed words downwards, byte head last.
 *
 * memcpy(p, p, n) runs the forward copy, which rewrites each byte with
 * itself.  n == 0 touches no memory.
 */

#ifndef MEMCPY_SYM
#error "define MEMCPY_SYM, MEMMOVE_SYM and MISALIGNED_LOADS, then include this"
#endif

#if MISALIGNED_LOADS
#define SMALL	16	/* below: overlapping misaligned accesses */
#else
#define SMALL	8	/* below: byte loop; from here >= 1 byte after the head */
#endif

#define dstin	a0	/* return value: never modified */
#define src	a1
#define count	a2
#define dst	a3

/*
 * memmove: the forward/backward decision, then the backward copy.  The
 * forward case branches into memcpy's body below.
 */
ENTRY(MEMMOVE_SYM)
	sub	t0, dstin, src
	bgeu	t0, count, L(forward)	/* dst below src, or no overlap */
	beqz	t0, L(bwd_ret)		/* dst == src (n > 0): nothing to do */
	li	t0, SMALL
#if MISALIGNED_LOADS
	bltu	count, t0, L(forward)	/* small: all loads before stores */
	add	dst, dstin, count	/* backward: work from the ends */
	add	src, src, count
#else
	add	dst, dstin, count	/* backward: work from the ends */
	add	src, src, count
	bltu	count, t0, L(bwd_bytes)
#endif
	/* Copy 0-7 bytes so that the end of dst is 8-byte aligned. */
	andi	t1, dst, 7
	beqz	t1, L(bwd_dst_aligned)
	sub	count, count, t1
	sub	t2, dst, t1
1:	lbu	t3, -1(src)
	addi	src, src, -1
	sb	t3, -1(dst)
	addi	dst, dst, -1
	bne	dst, t2, 1b
L(bwd_dst_aligned):			/* count >= SMALL - 7 */
#if !MISALIGNED_LOADS
	andi	t0, src, 7
	bnez	t0, L(bwd_src_misaligned)
#endif
	andi	t1, count, -64
	beqz	t1, L(bwd_words)
	sub	t2, dst, t1
	andi	count, count, 63
L(bwd_blocks64):
	ld	a4, -8(src)
	ld	a5, -16(src)
	ld	a6, -24(src)
	ld	a7, -32(src)
	ld	t3, -40(src)
	ld	t4, -48(src)
	ld	t5, -56(src)
	ld	t6, -64(src)
	sd	a4, -8(dst)
	sd	a5, -16(dst)
	sd	a6, -24(dst)
	sd	a7, -32(dst)
	sd	t3, -40(dst)
	sd	t4, -48(dst)
	sd	t5, -56(dst)
	sd	t6, -64(dst)
	addi	src, src, -64
	addi	dst, dst, -64
	bne	dst, t2, L(bwd_blocks64)
L(bwd_words):				/* count < 64 */
	andi	t1, count, -8
	beqz	t1, L(bwd_bytes)
	sub	t2, dst, t1
	andi	count, count, 7
1:	ld	a4, -8(src)
	addi	src, src, -8
	sd	a4, -8(dst)
	addi	dst, dst, -8
	bne	dst, t2, 1b
L(bwd_bytes):				/* count < SMALL */
	beqz	count, L(bwd_ret)
	sub	t2, dst, count
1:	lbu	t3, -1(src)
	addi	src, src, -1
	sb	t3, -1(dst)
	addi	dst, dst, -1
	bne	dst, t2, 1b
L(bwd_ret):
	ret

#if !MISALIGNED_LOADS
/*
 * Backward, dst end aligned, src end misaligned by off = t0 (1..7), count
 * >= 1.  The destination word below dst takes its low 8-off bytes from the
 * aligned word below t5 and its high off bytes from the word at t5 (which
 * holds the last source byte, src - 1).
 */
L(bwd_src_misaligned):
	slli	t3, t0, 3		/* right shift: 8 * off */
	neg	t4, t3			/* left shift: 64 - 8 * off (mod 64) */
	andi	t5, src, -8
	ld	a4, 0(t5)		/* hi word */
	andi	t1, count, -32
	beqz	t1, L(bwd_mis_words)
	sub	t2, dst, t1
	andi	count, count, 31
L(bwd_mis_blocks32):
	ld	a5, -8(t5)
	ld	a6, -16(t5)
	ld	a7, -24(t5)
	ld	t6, -32(t5)
	sll	a4, a4, t4
	srl	t0, a5, t3
	or	a4, a4, t0
	sll	a5, a5, t4
	srl	t0, a6, t3
	or	a5, a5, t0
	sll	a6, a6, t4
	srl	t0, a7, t3
	or	a6, a6, t0
	sll	a7, a7, t4
	srl	t0, t6, t3
	or	a7, a7, t0
	sd	a4, -8(dst)
	sd	a5, -16(dst)
	sd	a6, -24(dst)
	sd	a7, -32(dst)
	mv	a4, t6
	addi	t5, t5, -32
	addi	dst, dst, -32
	bne	dst, t2, L(bwd_mis_blocks32)
L(bwd_mis_words):			/* count < 32 */
	andi	t1, count, -8
	beqz	t1, L(bwd_mis_tail)
	sub	t2, dst, t1
1:	ld	a5, -8(t5)
	sll	a4, a4, t4
	srl	t0, a5, t3
	or	a4, a4, t0
	sd	a4, -8(dst)
	mv	a4, a5
	addi	t5, t5, -8
	addi	dst, dst, -8
	bne	dst, t2, 1b
L(bwd_mis_tail):
	andi	count, count, 7
	srli	t0, t3, 3
	add	src, t5, t0		/* back to the real source address */
	j	L(bwd_bytes)
#endif
END(MEMMOVE_SYM)

ENTRY(MEMCPY_SYM)
L(forward):
	mv	dst, dstin
	li	t0, SMALL
#if MISALIGNED_LOADS
	bgeu	count, t0, L(fwd_large)
/*
 * n < 16, misaligned accesses allowed: the first and the last 8/4/2/1
 * bytes, which overlap or meet in the middle.  All loads come before all
 * stores, so this serves memmove in both directions too.
 */
L(small):
	add	t2, src, count		/* ends, for the second access */
	add	t3, dst, count
	andi	t0, count, 8
	beqz	t0, 3f
	ld	a4, 0(src)
	ld	a5, -8(t2)
	sd	a4, 0(dst)
	sd	a5, -8(t3)
	ret
3:	andi	t0, count, 4
	beqz	t0, 4f
	lw	a4, 0(src)
	lw	a5, -4(t2)
	sw	a4, 0(dst)
	sw	a5, -4(t3)
	ret
4:	andi	t0, count, 2
	beqz	t0, 5f
	lh	a4, 0(src)
	lh	a5, -2(t2)
	sh	a4, 0(dst)
	sh	a5, -2(t3)
	ret
5:	beqz	count, 6f
	lbu	a4, 0(src)
	sb	a4, 0(dst)
6:	ret
L(fwd_large):
#else
	bltu	count, t0, L(fwd_bytes)
#endif
	/* Copy 0-7 bytes so that dst is 8-byte aligned. */
	neg	t1, dst
	andi	t1, t1, 7
	beqz	t1, L(fwd_dst_aligned)
	sub	count, count, t1
	add	t2, dst, t1
1:	lbu	t3, 0(src)
	addi	src, src, 1
	sb	t3, 0(dst)
	addi	dst, dst, 1
	bne	dst, t2, 1b
L(fwd_dst_aligned):			/* count >= SMALL - 7 */
#if !MISALIGNED_LOADS
	andi	t0, src, 7
	bnez	t0, L(fwd_src_misaligned)
#endif
	andi	t1, count, -64
	beqz	t1, L(fwd_words)
	add	t2, dst, t1
	andi	count, count, 63
L(fwd_blocks64):
	ld	a4, 0(src)
	ld	a5, 8(src)
	ld	a6, 16(src)
	ld	a7, 24(src)
	ld	t3, 32(src)
	ld	t4, 40(src)
	ld	t5, 48(src)
	ld	t6, 56(src)
	sd	a4, 0(dst)
	sd	a5, 8(dst)
	sd	a6, 16(dst)
	sd	a7, 24(dst)
	sd	t3, 32(dst)
	sd	t4, 40(dst)
	sd	t5, 48(dst)
	sd	t6, 56(dst)
	addi	src, src, 64
	addi	dst, dst, 64
	bne	dst, t2, L(fwd_blocks64)
L(fwd_words):				/* count < 64 */
	andi	t1, count, -8
	beqz	t1, L(fwd_bytes)
	add	t2, dst, t1
	andi	count, count, 7
1:	ld	a4, 0(src)
	addi	src, src, 8
	sd	a4, 0(dst)
	addi	dst, dst, 8
	bne	dst, t2, 1b
L(fwd_bytes):				/* count < SMALL */
	beqz	count, L(fwd_ret)
	add	t2, dst, count
1:	lbu	t3, 0(src)
	addi	src, src, 1
	sb	t3, 0(dst)
	addi	dst, dst, 1
	bne	dst, t2, 1b
L(fwd_ret):
	ret

#if !MISALIGNED_LOADS
/*
 * Forward, dst aligned, src misaligned by off = t0 (1..7), count >= 1.  The
 * destination word takes its low 8-off bytes from the aligned word at t5
 * (lo, kept in a4) and its high off bytes from the next one (hi).
 */
L(fwd_src_misaligned):
	slli	t3, t0, 3		/* right shift: 8 * off */
	neg	t4, t3			/* left shift: 64 - 8 * off (mod 64) */
	andi	t5, src, -8
	ld	a4, 0(t5)		/* lo word: holds the first source byte */
	andi	t1, count, -32
	beqz	t1, L(fwd_mis_words)
	add	t2, dst, t1
	andi	count, count, 31
L(fwd_mis_blocks32):
	ld	a5, 8(t5)
	ld	a6, 16(t5)
	ld	a7, 24(t5)
	ld	t6, 32(t5)
	srl	a4, a4, t3
	sll	t0, a5, t4
	or	a4, a4, t0
	srl	a5, a5, t3
	sll	t0, a6, t4
	or	a5, a5, t0
	srl	a6, a6, t3
	sll	t0, a7, t4
	or	a6, a6, t0
	srl	a7, a7, t3
	sll	t0, t6, t4
	or	a7, a7, t0
	sd	a4, 0(dst)
	sd	a5, 8(dst)
	sd	a6, 16(dst)
	sd	a7, 24(dst)
	mv	a4, t6
	addi	t5, t5, 32
	addi	dst, dst, 32
	bne	dst, t2, L(fwd_mis_blocks32)
L(fwd_mis_words):			/* count < 32 */
	andi	t1, count, -8
	beqz	t1, L(fwd_mis_tail)
	add	t2, dst, t1
1:	ld	a5, 8(t5)
	srl	a4, a4, t3
	sll	t0, a5, t4
	or	a4, a4, t0
	sd	a4, 0(dst)
	mv	a4, a5
	addi	t5, t5, 8
	addi	dst, dst, 8
	bne	dst, t2, 1b
L(fwd_mis_tail):
	andi	count, count, 7
	srli	t0, t3, 3
	add	src, t5, t0		/* back to the real source address */
	j	L(fwd_bytes)
#endif
END(MEMCPY_SYM)

#undef dstin
#undef src
#undef count
#undef dst
#undef SMALL
