/*
 * kernels-aarch64.c -- master list of the aarch64 kernels.
 *
 * Layer 2 (kernels, with c/kernels.c and asm/aarch64/): uses only the
 * kernels it lists.  See c/README.md.
 *
 * The dispatcher, the tests, the benchmark and the tuner all iterate this
 * list: a kernel added here is chosen, tested and measured with no further
 * change.  Levels: 0 generic (general registers, ldp/stp), 1 neon (AdvSIMD
 * q registers), 2 sve.
 *
 * Kernels (asm/aarch64/): memcpy.S (memcpy/memmove_generic), memcpy-neon.S
 * (memcpy/memmove_neon), both from copy-template.h; memset.S and
 * memset-neon.S from set-template.h.  memset kernels use dc zva on their
 * own check of DCZID_EL0, so they need no feature bit for it.  The sve
 * kernels (memcpy-sve.S, memset-sve.S) do up to two vectors with predicated
 * loads/stores and hand longer sizes to the neon kernels, hence they
 * require ASIMD too.
 */
#include "config.h"

#include "memasm-internal.h"

#define COPY(sym) void *sym(void *, const void *, size_t) MEMASM_HIDDEN
#define SET(sym) void *sym(void *, int, size_t) MEMASM_HIDDEN
COPY(memasm_k_memcpy_generic);
COPY(memasm_k_memmove_generic);
SET(memasm_k_memset_generic);
COPY(memasm_k_memcpy_neon);
COPY(memasm_k_memmove_neon);
SET(memasm_k_memset_neon);
COPY(memasm_k_memcpy_sve);
COPY(memasm_k_memmove_sve);
SET(memasm_k_memset_sve);

const char *const memasm_isa_names[] = {"generic", "neon", "sve"};
const int memasm_isa_names_count = 3;

#define K(name, op, level, req) {#name, op, level, req, (void (*)(void))memasm_k_##name, 0}

const struct memasm_kernel memasm_kernels[] = {
    K(memcpy_generic, MEMASM_OP_MEMCPY, 0, 0),
    K(memmove_generic, MEMASM_OP_MEMMOVE, 0, 0),
    K(memset_generic, MEMASM_OP_MEMSET, 0, 0),
    K(memcpy_neon, MEMASM_OP_MEMCPY, 1, MEMASM_F_A64_ASIMD),
    K(memmove_neon, MEMASM_OP_MEMMOVE, 1, MEMASM_F_A64_ASIMD),
    K(memset_neon, MEMASM_OP_MEMSET, 1, MEMASM_F_A64_ASIMD),
    K(memcpy_sve, MEMASM_OP_MEMCPY, 2, MEMASM_F_A64_SVE | MEMASM_F_A64_ASIMD),
    K(memmove_sve, MEMASM_OP_MEMMOVE, 2, MEMASM_F_A64_SVE | MEMASM_F_A64_ASIMD),
    K(memset_sve, MEMASM_OP_MEMSET, 2, MEMASM_F_A64_SVE | MEMASM_F_A64_ASIMD),
};
const size_t memasm_kernels_count = sizeof memasm_kernels / sizeof memasm_kernels[0];

/* Baseline: what the entry points call before (and without) the constructor. */
_Atomic(memasm_copy_fn) memasm_cur_memcpy = memasm_k_memcpy_generic;
_Atomic(memasm_copy_fn) memasm_cur_memmove = memasm_k_memmove_generic;
_Atomic(memasm_set_fn) memasm_cur_memset = memasm_k_memset_generic;
