/*
 * kernels-riscv64.c -- master list of the riscv64 kernels.
 *
 * Layer 2 (kernels, with c/kernels.c and asm/riscv64/): uses only the
 * kernels it lists.  See c/README.md.
 *
 * The dispatcher, the tests, the benchmark and the tuner all iterate this
 * list: a kernel added here is chosen, tested and measured with no further
 * change.  Levels: 0 scalar (RV64GC), 1 rvv (RVV 1.0, VLEN-agnostic).
 *
 * The *_scalar_misaligned kernels load misaligned words where the others
 * compose them from aligned loads.  Misaligned accesses are correct on every
 * Linux riscv64 system (the kernel emulates them where the core cannot), so
 * the kernels run anywhere and are tested everywhere; the dispatcher chooses
 * them only where riscv_hwprobe says misaligned scalar accesses are fast
 * (MEMASM_F_RV_MISALIGNED_FAST, the "prefers" field), and they are listed
 * before the aligned ones of the same level, because the dispatcher takes
 * the first eligible kernel among equal levels.
 */
#include "config.h"

#include "memasm-internal.h"

#define COPY(sym) void *sym(void *, const void *, size_t) MEMASM_HIDDEN
#define SET(sym) void *sym(void *, int, size_t) MEMASM_HIDDEN
COPY(memasm_k_memcpy_scalar);
COPY(memasm_k_memmove_scalar);
COPY(memasm_k_memcpy_scalar_misaligned);
COPY(memasm_k_memmove_scalar_misaligned);
SET(memasm_k_memset_scalar);
COPY(memasm_k_memcpy_rvv);
COPY(memasm_k_memmove_rvv);
SET(memasm_k_memset_rvv);

const char *const memasm_isa_names[] = {"scalar", "rvv"};
const int memasm_isa_names_count = 2;

#define K(name, op, level, req) {#name, op, level, req, (void (*)(void))memasm_k_##name, 0}
#define KP(name, op, level, req, pref) \
    {#name, op, level, req, (void (*)(void))memasm_k_##name, pref}

const struct memasm_kernel memasm_kernels[] = {
    KP(memcpy_scalar_misaligned, MEMASM_OP_MEMCPY, 0, 0, MEMASM_F_RV_MISALIGNED_FAST),
    KP(memmove_scalar_misaligned, MEMASM_OP_MEMMOVE, 0, 0, MEMASM_F_RV_MISALIGNED_FAST),
    K(memcpy_scalar, MEMASM_OP_MEMCPY, 0, 0),
    K(memmove_scalar, MEMASM_OP_MEMMOVE, 0, 0),
    K(memset_scalar, MEMASM_OP_MEMSET, 0, 0),
    K(memcpy_rvv, MEMASM_OP_MEMCPY, 1, MEMASM_F_RV_V),
    K(memmove_rvv, MEMASM_OP_MEMMOVE, 1, MEMASM_F_RV_V),
    K(memset_rvv, MEMASM_OP_MEMSET, 1, MEMASM_F_RV_V),
};
const size_t memasm_kernels_count = sizeof memasm_kernels / sizeof memasm_kernels[0];

/* Baseline: what the entry points call before (and without) the constructor. */
_Atomic(memasm_copy_fn) memasm_cur_memcpy = memasm_k_memcpy_scalar;
_Atomic(memasm_copy_fn) memasm_cur_memmove = memasm_k_memmove_scalar;
_Atomic(memasm_set_fn) memasm_cur_memset = memasm_k_memset_scalar;
