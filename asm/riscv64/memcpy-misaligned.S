/*
 * memcpy-misaligned.S -- scalar RV64GC memcpy and memmove that load (and,
 * below 16 bytes, store) misaligned words (kernels memcpy_scalar_misaligned,
 * memmove_scalar_misaligned).
 *
 * Assumptions: RV64GC, little-endian, and misaligned scalar accesses that
 * the hardware does at full speed: the dispatcher chooses these kernels
 * only with MEMASM_F_RV_MISALIGNED_FAST (the master list's "prefers"),
 * which c/cpu.c sets only when riscv_hwprobe says so
 * (RISCV_HWPROBE_KEY_MISALIGNED_SCALAR_PERF, or CPUPERF_0 on older
 * kernels, equal to FAST).  Elsewhere each misaligned access may trap into
 * the kernel's emulation: still correct (so the tests run them
 * everywhere), hundreds of times slower.
 * Strategy by size class: memcpy-word.h.
 */
#include "asm.h"

#define MEMCPY_SYM memasm_k_memcpy_scalar_misaligned
#define MEMMOVE_SYM memasm_k_memmove_scalar_misaligned
#define MISALIGNED_LOADS 1
#include "memcpy-word.h"
