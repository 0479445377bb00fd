/*
 * memcpy.S -- scalar RV64GC memcpy and memmove that never make a
 * misaligned access (kernels memcpy_scalar, memmove_scalar).
 *
 * Assumptions: RV64GC, little-endian; misaligned loads may trap or be slow,
 * so a misaligned source is read as aligned words and shifted into place.
 * This is the baseline the dispatcher starts on and the fallback of the RVV
 * kernels below memcpy.rvv_min.  Strategy by size class: memcpy-word.h.
 */
#include "asm.h"

#define MEMCPY_SYM memasm_k_memcpy_scalar
#define MEMMOVE_SYM memasm_k_memmove_scalar
#define MISALIGNED_LOADS 0
#include "memcpy-word.h"
