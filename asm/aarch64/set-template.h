/*
 * set-template.h -- the one memset algorithm of libmemasm's aarch64 kernels,
 * instantiated per register width by memset.S (general registers) and
 * memset-neon.S (AdvSIMD q registers).
 *
 * The including file defines these cpp macros over its fill register(s):
 *   PREP                    make the fill value from w1 (bits 8..63 of x1
 *                           are junk: only the low byte counts)
 *   SET4(base, off) / SET8(base, off)     4 / 8 bytes at base+off
 *   SET16 / SET32 / SET64 (base, off)     16 / 32 / 64 bytes at base+off
 *   SET64_FWD(b) / SETNP64_FWD(b)         64 bytes at b, then b += 64
 *                                         (SETNP: stnp stores)
 * and then expands SET_KERNEL <symbol>.
 *
 * Strategy by size class (n = count):
 *   0..16     8..16: two overlapping 8-byte stores; 4..7: two 4-byte
 *             stores; 1..3: three byte stores (first, middle, last).
 *   17..32    two overlapping 16-byte stores; 33..64: 32 + 32;
 *   65..128   64 from the start, 64 from the end.
 *   larger    the thresholds are read once from the memasm_thr snapshot:
 *     zero fill, n >= memset.zva_min and dc zva permitted: `dc zva` for the
 *             whole blocks (below);
 *     n >= memset.nt_min: as the plain loop, with stnp stores;
 *     plain:  16 bytes unaligned at the start, a 64-byte loop of 16-byte
 *             aligned stores, the last 64 bytes unaligned from the end.
 *
 * dc zva.  The block size is read from DCZID_EL0 in the kernel, on this
 * path only (one mrs, next to a fill of at least memset.zva_min bytes),
 * rather than from a global set at start-up: the register is the truth the
 * instruction obeys, it needs no initialisation order (the kernels run
 * before the constructor), and it also rechecks DZP (bit 4: dc zva
 * prohibited), falling back to plain stores when set.  Any block size the
 * architecture allows (4 << DCZID_EL0.BS, 4 bytes to 2 KiB) is handled:
 *   - the zva path is taken only when n >= 2 * block + 64, which leaves at
 *     least one whole block after aligning (memset.zva_min may legally be
 *     anything, so the kernel does not rely on it for correctness);
 *   - 64 bytes unaligned at the start, then 64-byte aligned stores up to
 *     the first block boundary (none when the block is <= 64 bytes);
 *   - dc zva for every whole block up to (dst + n) rounded down to a block;
 *   - the rest (< one block) by 64-byte stores, and the last 64 bytes
 *     unaligned from the end.  Overlapping stores are harmless: every byte
 *     written is zero.
 */

#define dstin x0   /* destination as passed, also the return value */
#define val x1     /* fill byte; bits 8..63 junk on entry           */
#define valw w1
#define count x2   /* n, then bytes left (biased, see the loops)    */
#define dst x3     /* next aligned block to store                   */
#define dstend x4  /* dst + n                                       */
#define tmp x5
#define thr x6     /* this call's threshold snapshot                */
#define zbs x7     /* dc zva block size in bytes                    */
#define zmask x8   /* zbs - 1                                       */
#define zend x9    /* dstend rounded down to a block                */

/* 16 bytes unaligned, a 64-byte aligned loop, 64 bytes from the end. */
.macro SET_FORWARD lbl, nt
	SET16(dstin, 0)
	bic	dst, dstin, 15
	add	dst, dst, 16            /* first 16-byte boundary above dstin */
	sub	count, dstend, dst      /* > 112: n > 128                     */
	sub	count, count, 64        /* loop while more than 64 remain     */
\lbl\()_loop:
.if \nt
	SETNP64_FWD(dst)
.else
	SET64_FWD(dst)
.endif
	subs	count, count, 64
	b.hi	\lbl\()_loop
	SET64(dstend, -64)
	ret
.endm

.macro SET_KERNEL name
ENTRY(\name)
	PREP
	add	dstend, dstin, count
	cmp	count, 16
	b.hi	.L\name\()_17
	/* 0..16 bytes */
	cmp	count, 8
	b.lo	.L\name\()_0_7
	SET8(dstin, 0)
	SET8(dstend, -8)
	ret
.L\name\()_0_7:
	tbz	count, 2, .L\name\()_0_3
	SET4(dstin, 0)
	SET4(dstend, -4)
	ret
.L\name\()_0_3:
	cbz	count, .L\name\()_ret
	lsr	tmp, count, 1           /* middle: 0, 1, 1 for n = 1, 2, 3     */
	strb	valw, [dstin]
	strb	valw, [dstin, tmp]
	strb	valw, [dstend, -1]
.L\name\()_ret:
	ret

.L\name\()_17:
	cmp	count, 32
	b.hi	.L\name\()_33
	SET16(dstin, 0)
	SET16(dstend, -16)
	ret
.L\name\()_33:
	cmp	count, 64
	b.hi	.L\name\()_65
	SET32(dstin, 0)
	SET32(dstend, -32)
	ret
.L\name\()_65:
	cmp	count, 128
	b.hi	.L\name\()_large
	SET64(dstin, 0)
	SET64(dstend, -64)
	ret

.L\name\()_large:
	adrp	thr, memasm_thr
	ldr	thr, [thr, :lo12:memasm_thr]   /* the one snapshot of this call */
	tst	valw, 255
	b.ne	.L\name\()_nonzero
	ldr	tmp, [thr, MEMASM_THR_MEMSET_ZVA_MIN * 8]
	cmp	count, tmp
	b.hs	.L\name\()_zva
.L\name\()_nonzero:
	ldr	tmp, [thr, MEMASM_THR_MEMSET_NT_MIN * 8]
	cmp	count, tmp
	b.hs	.L\name\()_nt
	SET_FORWARD .L\name\()_p, 0
.L\name\()_nt:
	SET_FORWARD .L\name\()_n, 1

.L\name\()_zva:
	mrs	tmp, dczid_el0
	tbnz	tmp, 4, .L\name\()_nonzero     /* DZP: dc zva prohibited */
	and	tmp, tmp, 15
	mov	zbs, 4
	lsl	zbs, zbs, tmp           /* block = 4 << BS bytes               */
	lsl	tmp, zbs, 1
	add	tmp, tmp, 64
	cmp	count, tmp
	b.lo	.L\name\()_nonzero      /* too short for a whole block        */
	sub	zmask, zbs, 1
	SET64(dstin, 0)
	add	dst, dstin, 64
	bic	dst, dst, 63            /* first 64-byte boundary above dstin */
	b	.L\name\()_zhead_test
.L\name\()_zhead:
	SET64_FWD(dst)
.L\name\()_zhead_test:
	tst	dst, zmask
	b.ne	.L\name\()_zhead        /* up to the first block boundary     */
	bic	zend, dstend, zmask
.L\name\()_zloop:
	dc	zva, dst
	add	dst, dst, zbs
	cmp	dst, zend
	b.lo	.L\name\()_zloop
	sub	count, dstend, dst      /* < one block left                   */
	b	.L\name\()_ztail_test
.L\name\()_ztail:
	SET64_FWD(dst)
	sub	count, count, 64
.L\name\()_ztail_test:
	cmp	count, 64
	b.hi	.L\name\()_ztail
	SET64(dstend, -64)
	ret
END(\name)
.endm
