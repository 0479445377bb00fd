/*
 * copy-template.h -- the one memcpy/memmove algorithm of libmemasm's aarch64
 * kernels, instantiated per register width by memcpy.S (general registers,
 * ldp/stp of x pairs) and memcpy-neon.S (AdvSIMD q registers).
 *
 * The including file defines the data "chunks" A..F (16 bytes each; G and H
 * too when MEDIUM_MAX is 128) and these cpp macros over them:
 *   LD16(r, base, off) / ST16(r, base, off)        one chunk at base+off
 *   LD32(r, s, base, off) / ST32(r, s, base, off)  r at base+off, s at +16
 *   LD64_FWD(b) / ST64_FWD(b) / STNP64_FWD(b)      A..D at b+0..b+63, then
 *                                                  b += 64 (STNP: stnp)
 *   LD64_BWD(b) / ST64_BWD(b)                      A..D at b-64..b-1, then
 *                                                  b -= 64
 *   MEDIUM_MAX                                     96 (12 x registers hold
 *                                                  96 bytes) or 128
 * and then expands COPY_KERNEL <symbol>, <move> (move = 1: memmove).
 *
 * Strategy by size class (n = count):
 *   0..16     general registers: 8..16 as two overlapping 8-byte moves
 *             (first 8, last 8), 4..7 as two 4-byte moves, 1..3 as three
 *             byte moves (first, middle, last).  No loops.
 *   17..32    two overlapping 16-byte chunks (first, last).
 *   33..64    first 32 and last 32.
 *   65..MEDIUM_MAX  first 64 and last 32 (or 64).
 *             Up to here every load precedes every store, so these paths
 *             are overlap-safe and serve memmove unchanged.
 *   larger    memmove: dst - src (unsigned) < n means dst lies inside the
 *             source above it: copy backward.  dst == src returns at once
 *             (memcpy too: self-copy is legal and needs no work).
 *             Forward: copy the first 16 bytes unaligned, then a 64-byte
 *             loop with 16-byte aligned stores, software pipelined (the
 *             block loaded in one iteration is stored in the next), and the
 *             last 64 bytes unaligned from the end.  Backward mirrors it
 *             (last 16, aligned loop downward, first 64).
 *             Non-temporal: n >= memcpy.nt_min (read once per call from the
 *             memasm_thr snapshot, only on this path) and the regions do not
 *             overlap (memmove checks both directions; memcpy may assume it)
 *             takes the same forward loop with stnp stores.  Backward copies
 *             never use stnp (they only happen on overlap).
 *
 * Why the pipelined loops are overlap-safe.  Forward with src above dst: a
 * store at offset j can only destroy source bytes at offsets below j, so it
 * is harmless as long as every load at a lower offset came first.  The loop
 * stores block k only after block k has been loaded, and loads block k+1
 * only after storing block k (lower offsets); the end sequence loads the
 * last 64 bytes a half at a time, each before the pending store that could
 * reach it.  Backward with dst above src is the mirror image.  The first
 * (forward) / last (backward) unaligned 16 bytes are stored only after the
 * first block has been loaded.
 */

/* Arguments and pointers; the same for every width. */
#define dstin x0   /* destination as passed, also the return value */
#define src x1     /* source; forward: next block to load          */
#define count x2   /* n, then bytes left (biased, see the loops)    */
#define dst x3     /* forward: next block to store                  */
#define srcend x4  /* src + n; backward: next block to load (end)   */
#define dstend x5  /* dst + n; backward: next block to store (end)  */
#define t0 x6      /* scratch of the 0..16 paths                    */
#define t1 x7
#define t2 x8
#define t3 x9
#define t0w w6
#define t1w w7
#define t3w w9
#define tmp1 x17   /* scratch of the large path; never live at the
                      same time as chunk F, which may share it       */

/* Body of the forward copy of the large path; nt = 1: stnp stores. */
.macro COPY_FORWARD lbl, nt
	LD16(E, src, 0)                 /* first 16 bytes, stored below       */
	and	tmp1, dstin, 15
	sub	dst, dstin, tmp1        /* dst aligned down to 16              */
	sub	src, src, tmp1          /* src moved by the same amount        */
	add	count, count, tmp1      /* count = n + misalignment            */
	add	src, src, 16
	LD64_FWD(src)                   /* first block: offsets 16-t..80-t     */
	ST16(E, dstin, 0)               /* after the load: overlap-safe        */
	add	dst, dst, 16            /* first aligned block of dst          */
	/* Bytes after the pending block = count - 80; loop while more than
	 * 64 remain, so keep count - 144 and stop once it is <= 0. */
	subs	count, count, 144
	b.le	\lbl\()_end
\lbl\()_loop:
.if \nt
	STNP64_FWD(dst)
.else
	ST64_FWD(dst)
.endif
	LD64_FWD(src)
	subs	count, count, 64
	b.hi	\lbl\()_loop
\lbl\()_end:
	/* Pending block A..D goes to dst; the last 64 bytes come from the
	 * end.  Each half of the end is loaded before the store that could
	 * overwrite it (see the overlap note at the top). */
	LD32(E, F, srcend, -64)
	ST32(A, B, dst, 0)
	LD32(A, B, srcend, -32)
	ST32(C, D, dst, 32)
	ST32(E, F, dstend, -64)
	ST32(A, B, dstend, -32)
	ret
.endm

/* Body of the backward copy (memmove with dst inside the source, above). */
.macro COPY_BACKWARD lbl
	LD16(E, srcend, -16)            /* last 16 bytes, stored below        */
	and	tmp1, dstend, 15
	sub	srcend, srcend, tmp1    /* srcend moved like dstend below     */
	sub	count, count, tmp1      /* count = bytes below the aligned end */
	LD64_BWD(srcend)                /* first block: ends at n - t         */
	ST16(E, dstend, -16)            /* after the load: overlap-safe       */
	sub	dstend, dstend, tmp1    /* dstend aligned down to 16          */
	/* Bytes below the pending block = count - 64; loop while more than
	 * 64 remain. */
	subs	count, count, 128
	b.le	\lbl\()_start
\lbl\()_loop:
	ST64_BWD(dstend)
	LD64_BWD(srcend)
	subs	count, count, 64
	b.hi	\lbl\()_loop
\lbl\()_start:
	/* Pending block A..D goes to dstend - 64; the first 64 bytes come
	 * from the start, upper half first. */
	LD32(E, F, src, 32)
	ST32(C, D, dstend, -32)
	LD32(C, D, src, 0)
	ST32(A, B, dstend, -64)
	ST32(E, F, dstin, 32)
	ST32(C, D, dstin, 0)
	ret
.endm

.macro COPY_KERNEL name, move
ENTRY(\name)
	add	srcend, src, count
	add	dstend, dstin, count
	cmp	count, 16
	b.hi	.L\name\()_17
	/* 0..16 bytes */
	cmp	count, 8
	b.lo	.L\name\()_0_7
	ldr	t0, [src]
	ldr	t1, [srcend, -8]
	str	t0, [dstin]
	str	t1, [dstend, -8]
	ret
.L\name\()_0_7:
	tbz	count, 2, .L\name\()_0_3
	ldr	t0w, [src]
	ldr	t1w, [srcend, -4]
	str	t0w, [dstin]
	str	t1w, [dstend, -4]
	ret
.L\name\()_0_3:
	cbz	count, .L\name\()_ret
	lsr	t2, count, 1            /* middle: 0, 1, 1 for n = 1, 2, 3     */
	ldrb	t0w, [src]
	ldrb	t1w, [srcend, -1]
	ldrb	t3w, [src, t2]
	strb	t0w, [dstin]
	strb	t3w, [dstin, t2]
	strb	t1w, [dstend, -1]
.L\name\()_ret:
	ret

.L\name\()_17:
	cmp	count, 32
	b.hi	.L\name\()_33
	LD16(A, src, 0)
	LD16(B, srcend, -16)
	ST16(A, dstin, 0)
	ST16(B, dstend, -16)
	ret

.L\name\()_33:
	cmp	count, 64
	b.hi	.L\name\()_65
	LD32(A, B, src, 0)
	LD32(C, D, srcend, -32)
	ST32(A, B, dstin, 0)
	ST32(C, D, dstend, -32)
	ret

.L\name\()_65:
	cmp	count, MEDIUM_MAX
	b.hi	.L\name\()_large
	LD32(A, B, src, 0)
	LD32(C, D, src, 32)
#if MEDIUM_MAX == 128
	LD32(E, F, srcend, -64)
	LD32(G, H, srcend, -32)
#elif MEDIUM_MAX == 96
	LD32(E, F, srcend, -32)
#else
#error "MEDIUM_MAX must be 96 or 128"
#endif
	ST32(A, B, dstin, 0)
	ST32(C, D, dstin, 32)
#if MEDIUM_MAX == 128
	ST32(E, F, dstend, -64)
	ST32(G, H, dstend, -32)
#else
	ST32(E, F, dstend, -32)
#endif
	ret

.L\name\()_large:
.if \move
	sub	tmp1, dstin, src
	cbz	tmp1, .L\name\()_ret    /* self-copy: nothing to do            */
	cmp	tmp1, count
	b.lo	.L\name\()_bwd          /* dst inside the source, above it     */
.else
	cmp	dstin, src
	b.eq	.L\name\()_ret          /* self-copy: nothing to do            */
.endif
	adrp	tmp1, memasm_thr
	ldr	tmp1, [tmp1, :lo12:memasm_thr]   /* the one snapshot of this call */
	ldr	tmp1, [tmp1, MEMASM_THR_MEMCPY_NT_MIN * 8]
	cmp	count, tmp1
	b.hs	.L\name\()_nt
.L\name\()_fwd:
	COPY_FORWARD .L\name\()_f, 0
.L\name\()_nt:
.if \move
	sub	tmp1, src, dstin        /* src inside the destination, above? */
	cmp	tmp1, count
	b.lo	.L\name\()_fwd          /* overlap: no non-temporal stores     */
.endif
	COPY_FORWARD .L\name\()_n, 1
.if \move
.L\name\()_bwd:
	COPY_BACKWARD .L\name\()_b
.endif
END(\name)
.endm
