/*
 * memcpy-neon.S -- memasm_k_memcpy_neon and memasm_k_memmove_neon: the
 * "neon" level aarch64 copy kernels, AdvSIMD q registers for 16 bytes and
 * up.
 *
 * Assumptions:
 *   ARMv8-A AArch64 with AdvSIMD (listed as requiring MEMASM_F_A64_ASIMD);
 *   unaligned ldr/ldp/str/stp of q registers to Normal memory allowed
 *   (SCTLR_EL1.A = 0, as on Linux).  Uses only v0..v7, which are
 *   caller-saved (AAPCS64 preserves the low 64 bits of v8..v15 only).
 *
 * Strategy by size class (details and the overlap argument in
 * copy-template.h, the one algorithm for every width):
 *   0..16    general registers, as in the generic kernel
 *   17..64   first and last 16 (or 32) bytes in q registers
 *   65..128  first 64 and last 64 bytes, all loads before stores
 *   > 128    memmove with dst inside src above it: backward loop; else
 *            16 unaligned bytes, 64-byte loop of q-pair ldp/stp with
 *            aligned stores (stnp from memcpy.nt_min without overlap),
 *            last 64
 * A 16-byte chunk is one q register; eight of them hold 128 bytes.
 */
#include "asm.h"

/* Chunks: one q register each. */
#define A_q q0
#define B_q q1
#define C_q q2
#define D_q q3
#define E_q q4
#define F_q q5
#define G_q q6
#define H_q q7

#define LD16(r, base, off) ldr r##_q, [base, off]
#define ST16(r, base, off) str r##_q, [base, off]
#define LD32(r, s, base, off) ldp r##_q, s##_q, [base, off]
#define ST32(r, s, base, off) stp r##_q, s##_q, [base, off]
#define LD64_FWD(b) ldp C_q, D_q, [b, 32]; ldp A_q, B_q, [b], 64
#define ST64_FWD(b) stp C_q, D_q, [b, 32]; stp A_q, B_q, [b], 64
#define STNP64_FWD(b) \
	stnp A_q, B_q, [b]; stnp C_q, D_q, [b, 32]; add b, b, 64
#define LD64_BWD(b) ldp C_q, D_q, [b, -32]; ldp A_q, B_q, [b, -64]!
#define ST64_BWD(b) stp C_q, D_q, [b, -32]; stp A_q, B_q, [b, -64]!
#define MEDIUM_MAX 128

#include "copy-template.h"

	COPY_KERNEL memasm_k_memcpy_neon, 0
	COPY_KERNEL memasm_k_memmove_neon, 1
