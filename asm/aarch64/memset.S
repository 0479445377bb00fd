/*
 * memset.S -- memasm_k_memset_generic: the baseline ("generic" level)
 * aarch64 memset, general registers only.
 *
 * Assumptions:
 *   ARMv8-A AArch64; unaligned str/stp to Normal memory allowed
 *   (SCTLR_EL1.A = 0, as on Linux); no AdvSIMD.  dc zva is used only after
 *   checking DCZID_EL0.DZP, with the block size read from DCZID_EL0.
 *   The int argument arrives in w1; bits 8..63 of x1 may be junk.
 *
 * Strategy by size class (details in set-template.h):
 *   0..16    two overlapping 8- or 4-byte stores; 1..3 three byte stores
 *   17..128  first and last 16 / 32 / 64 bytes
 *   > 128    zero and n >= memset.zva_min: dc zva per block (size from
 *            DCZID_EL0); n >= memset.nt_min: stnp loop; else 16 unaligned
 *            bytes, a 64-byte stp loop with aligned stores, last 64
 * The fill byte is replicated into all of x1 (and/orr, no multiply) and
 * stored as x pairs.
 */
#include "asm.h"

#define PREP                                                    \
	and w1, w1, 255;             /* drop the junk, zero 32..63 */ \
	orr w1, w1, w1, lsl 8;                                      \
	orr w1, w1, w1, lsl 16;                                     \
	orr x1, x1, x1, lsl 32
#define SET4(base, off) str w1, [base, off]
#define SET8(base, off) str x1, [base, off]
#define SET16(base, off) stp x1, x1, [base, off]
#define SET32(base, off) \
	stp x1, x1, [base, off]; stp x1, x1, [base, off + 16]
#define SET64(base, off)                                        \
	stp x1, x1, [base, off]; stp x1, x1, [base, off + 16];      \
	stp x1, x1, [base, off + 32]; stp x1, x1, [base, off + 48]
#define SET64_FWD(b)                                            \
	stp x1, x1, [b, 16]; stp x1, x1, [b, 32];                   \
	stp x1, x1, [b, 48]; stp x1, x1, [b], 64
#define SETNP64_FWD(b)                                          \
	stnp x1, x1, [b]; stnp x1, x1, [b, 16];                     \
	stnp x1, x1, [b, 32]; stnp x1, x1, [b, 48]; add b, b, 64

#include "set-template.h"

	SET_KERNEL memasm_k_memset_generic
