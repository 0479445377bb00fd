/*
 * kernels-x86_64.c -- master list of the x86_64 kernels.
 *
 * Layer 2 (kernels, with c/kernels.c and asm/x86_64/): uses layer 0.
 * See c/README.md.
 *
 * The dispatcher, the tests, the benchmark and the tuner all iterate this
 * list: a kernel added here is chosen, tested and measured with no further
 * change.  Levels: 0 sse2, 1 avx2, 2 avx512 (AVX-512 F+BW+VL, with the zmm
 * state enabled by the OS, as cpu_features reports it).
 *
 * The kernels are in asm/x86_64 (README.md there): memcpy_<isa> and
 * memmove_<isa> are two symbols for one body, so memcpy tolerates overlap
 * and self-copy; they are listed separately so each operation is chosen,
 * tested and measured on its own.
 */
#include "config.h"

#include <stdatomic.h>

#include "memasm-internal.h"

#define COPY(sym) void *sym(void *, const void *, size_t) MEMASM_HIDDEN
#define SET(sym) void *sym(void *, int, size_t) MEMASM_HIDDEN
COPY(memasm_k_memcpy_sse2);
COPY(memasm_k_memmove_sse2);
SET(memasm_k_memset_sse2);
COPY(memasm_k_memcpy_avx2);
COPY(memasm_k_memmove_avx2);
SET(memasm_k_memset_avx2);
COPY(memasm_k_memcpy_avx512);
COPY(memasm_k_memmove_avx512);
SET(memasm_k_memset_avx512);

const char *const memasm_isa_names[] = {"sse2", "avx2", "avx512"};
const int memasm_isa_names_count = 3;

#define AVX512 (MEMASM_F_X86_AVX512F | MEMASM_F_X86_AVX512BW | MEMASM_F_X86_AVX512VL)
#define K(name, op, level, req) {#name, op, level, req, (void (*)(void))memasm_k_##name, 0}

const struct memasm_kernel memasm_kernels[] = {
    K(memcpy_sse2, MEMASM_OP_MEMCPY, 0, MEMASM_F_X86_SSE2),
    K(memmove_sse2, MEMASM_OP_MEMMOVE, 0, MEMASM_F_X86_SSE2),
    K(memset_sse2, MEMASM_OP_MEMSET, 0, MEMASM_F_X86_SSE2),
    K(memcpy_avx2, MEMASM_OP_MEMCPY, 1, MEMASM_F_X86_AVX2),
    K(memmove_avx2, MEMASM_OP_MEMMOVE, 1, MEMASM_F_X86_AVX2),
    K(memset_avx2, MEMASM_OP_MEMSET, 1, MEMASM_F_X86_AVX2),
    K(memcpy_avx512, MEMASM_OP_MEMCPY, 2, AVX512),
    K(memmove_avx512, MEMASM_OP_MEMMOVE, 2, AVX512),
    K(memset_avx512, MEMASM_OP_MEMSET, 2, AVX512),
};
const size_t memasm_kernels_count = sizeof memasm_kernels / sizeof memasm_kernels[0];

/* Baseline: what the entry points call before (and without) the constructor. */
_Atomic(memasm_copy_fn) memasm_cur_memcpy = memasm_k_memcpy_sse2;
_Atomic(memasm_copy_fn) memasm_cur_memmove = memasm_k_memmove_sse2;
_Atomic(memasm_set_fn) memasm_cur_memset = memasm_k_memset_sse2;

/* asm/x86_64/entry.asm does sizes up to 256 bytes (512 with zmm) itself,
 * with the registers that its byte for the operation allows:
 *   2  zmm and k1 (masked moves, which also need BMI2's bzhi); set only
 *      while the AVX-512 kernel itself is installed, which the entry points
 *      then jump to directly;
 *   1  ymm;
 *   0  neither (SSE2).
 * The byte follows the installed kernel (memasm_entry_follow, called by the
 * dispatcher on every install), which the CPU was checked to run, so a cap
 * or a forced kernel keeps the entry points at the same ISA level as the
 * kernel behind them. */
_Atomic unsigned char memasm_entry_vec_memcpy MEMASM_HIDDEN;
_Atomic unsigned char memasm_entry_vec_memmove MEMASM_HIDDEN;
_Atomic unsigned char memasm_entry_vec_memset MEMASM_HIDDEN;

void memasm_entry_follow(memasm_op op, const struct memasm_kernel *k)
{
    /* The kernels the entry points jump to directly with byte 2. */
    static void (*const avx512[MEMASM_OP_COUNT])(void) = {
        [MEMASM_OP_MEMCPY] = (void (*)(void))memasm_k_memcpy_avx512,
        [MEMASM_OP_MEMMOVE] = (void (*)(void))memasm_k_memmove_avx512,
        [MEMASM_OP_MEMSET] = (void (*)(void))memasm_k_memset_avx512,
    };
    int bmi2 = (memasm_cpu_get()->features & MEMASM_F_X86_BMI2) != 0;
    unsigned char v = k->fn == avx512[op] && bmi2 ? 2 : k->level >= 1;
    switch (op) {
    case MEMASM_OP_MEMCPY:
        atomic_store_explicit(&memasm_entry_vec_memcpy, v, memory_order_relaxed);
        break;
    case MEMASM_OP_MEMMOVE:
        atomic_store_explicit(&memasm_entry_vec_memmove, v, memory_order_relaxed);
        break;
    case MEMASM_OP_MEMSET:
        atomic_store_explicit(&memasm_entry_vec_memset, v, memory_order_relaxed);
        break;
    default:
        break;
    }
}
