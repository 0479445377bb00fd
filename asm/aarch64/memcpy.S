/*
 * memcpy.S -- memasm_k_memcpy_generic and memasm_k_memmove_generic: the
 * baseline ("generic" level) aarch64 copy kernels, general registers only.
 *
 * Assumptions:
 *   ARMv8-A AArch64, little or big endian (only whole bytes are moved);
 *   unaligned ldr/ldp/str/stp to Normal memory are allowed (SCTLR_EL1.A = 0,
 *   as on Linux); no AdvSIMD, so these run where q registers are off-limits.
 *
 * Strategy by size class (details and the overlap argument in
 * copy-template.h, the one algorithm for every width):
 *   0..16    two overlapping 8- or 4-byte moves; 1..3 three byte moves
 *   17..64   first and last 16 (or 32) bytes, all loads before stores
 *   65..96   first 64 and last 32 bytes, all loads before stores
 *   > 96     memmove with dst inside src above it: backward loop; else
 *            16 unaligned bytes, 64-byte loop with aligned stores (stnp
 *            from memcpy.nt_min when the regions do not overlap), last 64
 * With general registers a 16-byte chunk is an x-register pair and the 12
 * free caller-saved registers x6..x17 hold 96 bytes, hence the 96.
 *
 * memcpy and memmove are two expansions of the same macro: memcpy skips
 * the overlap test and the backward path.
 */
#include "asm.h"

/* Chunks: pairs of x registers. */
#define A_l x6
#define A_h x7
#define B_l x8
#define B_h x9
#define C_l x10
#define C_h x11
#define D_l x12
#define D_h x13
#define E_l x14
#define E_h x15
#define F_l x16
#define F_h x17

#define LD16(r, base, off) ldp r##_l, r##_h, [base, off]
#define ST16(r, base, off) stp r##_l, r##_h, [base, off]
#define LD32(r, s, base, off) \
	ldp r##_l, r##_h, [base, off]; ldp s##_l, s##_h, [base, off + 16]
#define ST32(r, s, base, off) \
	stp r##_l, r##_h, [base, off]; stp s##_l, s##_h, [base, off + 16]
#define LD64_FWD(b)                                                     \
	ldp B_l, B_h, [b, 16]; ldp C_l, C_h, [b, 32]; ldp D_l, D_h, [b, 48]; \
	ldp A_l, A_h, [b], 64
#define ST64_FWD(b)                                                     \
	stp B_l, B_h, [b, 16]; stp C_l, C_h, [b, 32]; stp D_l, D_h, [b, 48]; \
	stp A_l, A_h, [b], 64
#define STNP64_FWD(b)                                                   \
	stnp A_l, A_h, [b]; stnp B_l, B_h, [b, 16];                         \
	stnp C_l, C_h, [b, 32]; stnp D_l, D_h, [b, 48]; add b, b, 64
#define LD64_BWD(b)                                                     \
	ldp D_l, D_h, [b, -16]; ldp C_l, C_h, [b, -32];                     \
	ldp B_l, B_h, [b, -48]; ldp A_l, A_h, [b, -64]!
#define ST64_BWD(b)                                                     \
	stp D_l, D_h, [b, -16]; stp C_l, C_h, [b, -32];                     \
	stp B_l, B_h, [b, -48]; stp A_l, A_h, [b, -64]!
#define MEDIUM_MAX 96

#include "copy-template.h"

	COPY_KERNEL memasm_k_memcpy_generic, 0
	COPY_KERNEL memasm_k_memmove_generic, 1
