/*
 * memset-neon.S -- memasm_k_memset_neon: the "neon" level aarch64 memset,
 * the fill byte broadcast into q0 and stored as q registers (s0/d0 for
 * 4..15 bytes).
 *
 * Assumptions:
 *   ARMv8-A AArch64 with AdvSIMD (listed as requiring MEMASM_F_A64_ASIMD);
 *   unaligned stores to Normal memory allowed (SCTLR_EL1.A = 0, as on
 *   Linux).  Uses only v0 (caller-saved).  dc zva only after checking
 *   DCZID_EL0.DZP, block size read from DCZID_EL0.  The int argument
 *   arrives in w1; bits 8..63 of x1 may be junk (dup .16b reads bits 0..7).
 *
 * Strategy by size class (details in set-template.h):
 *   0..16    two overlapping d0 / s0 stores; 1..3 three byte stores
 *   17..128  first and last 16 / 32 / 64 bytes from q0
 *   > 128    zero and n >= memset.zva_min: dc zva per block (size from
 *            DCZID_EL0); n >= memset.nt_min: stnp q0 loop; else 16
 *            unaligned bytes, a 64-byte loop of stp q0 with aligned
 *            stores, last 64
 */
#include "asm.h"

#define PREP dup v0.16b, w1
#define SET4(base, off) str s0, [base, off]
#define SET8(base, off) str d0, [base, off]
#define SET16(base, off) str q0, [base, off]
#define SET32(base, off) stp q0, q0, [base, off]
#define SET64(base, off) \
	stp q0, q0, [base, off]; stp q0, q0, [base, off + 32]
#define SET64_FWD(b) stp q0, q0, [b, 32]; stp q0, q0, [b], 64
#define SETNP64_FWD(b) \
	stnp q0, q0, [b]; stnp q0, q0, [b, 32]; add b, b, 64

#include "set-template.h"

	SET_KERNEL memasm_k_memset_neon
