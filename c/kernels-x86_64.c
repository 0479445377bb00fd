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

#include <stddef.h>

#include "entry-select.h"
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
/* Second entries of the AVX2 and SSE2 kernels: n > 8 VEC only (the copies'
 * also rax = dst already). */
COPY(memasm_k_memmove_gt8v_sse2);
COPY(memasm_k_memmove_gt8v_avx2);
SET(memasm_k_memset_gt8v_sse2);
SET(memasm_k_memset_gt8v_avx2);

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

/* What asm/x86_64/entry.asm reads on every call, one line per operation,
 * rewritten with every install of a kernel (memasm_entry_follow, called by
 * the dispatcher), which the CPU was checked to run: a cap or a forced
 * kernel keeps the entry points at the ISA level of the kernel behind them.
 *   vec        2 the AVX-512 kernel is installed (zmm; the entry points then
 *              jump to it directly), 1 an AVX2 kernel (ymm), 0 SSE2;
 *   ymm_max    the last size of the ymm class from 32: 512 with byte 1,
 *              64 with byte 2, 32 (memset 31) with byte 0, none;
 *   zmm_len    how many sizes from 65 the zmm class takes: 448 (to 512)
 *              with byte 2, 0 otherwise;
 *   small_end  (memset) the first size past the general-register class:
 *              33 with byte 0, whose 32 then takes SET_0_31's two xmm
 *              stores instead of the xmm ladder's four, else 32;
 *   big        where bytes 0 and 1 send the sizes above the entry's own
 *              paths: the AVX2 or SSE2 kernel's part for n > 8 VEC, past
 *              its own size tests (memasm_entry_big_of).
 * The initial values are byte 0's, what the entry points run before (and
 * without) the constructor.  The struct is memasm_entry_words
 * (c/memasm-internal.h); its offsets are EW_* in entry.asm. */
_Static_assert(offsetof(struct memasm_entry_words, ymm_max) == 0 &&
                   offsetof(struct memasm_entry_words, zmm_len) == 8 &&
                   offsetof(struct memasm_entry_words, vec) == 16 &&
                   offsetof(struct memasm_entry_words, small_end) == 24 &&
                   offsetof(struct memasm_entry_words, big) == 32,
               "entry.asm's EW_* offsets");
#define ENTRY_WORDS_BYTE0(ymm, small, big) {(ymm), 0, 0, (small), (void (*)(void))(big)}
_Alignas(64) struct memasm_entry_words memasm_entry_memcpy MEMASM_HIDDEN =
    ENTRY_WORDS_BYTE0(32, 0, memasm_k_memmove_gt8v_sse2);
_Alignas(64) struct memasm_entry_words memasm_entry_memmove MEMASM_HIDDEN =
    ENTRY_WORDS_BYTE0(32, 0, memasm_k_memmove_gt8v_sse2);
_Alignas(64) struct memasm_entry_words memasm_entry_memset MEMASM_HIDDEN =
    ENTRY_WORDS_BYTE0(31, 33, memasm_k_memset_gt8v_sse2);

/* The entry points send a call there only above 256 bytes (every path of
 * entry.asm, with any mix of two installs' words), past the n > 8 VEC of
 * the SSE2 and AVX2 kernels (128, 256): so their second entries, where the
 * kernels' own size tests are already done.  Any other kernel at its
 * start (byte 2 jumps to the AVX-512 ones' second entries itself, after
 * its own n > 512 test). */
void (*memasm_entry_big_of(const struct memasm_kernel *k))(void)
{
    /* memcpy_<isa> is memmove_<isa>'s address (one body) */
    if (k->fn == (void (*)(void))memasm_k_memmove_sse2)
        return (void (*)(void))memasm_k_memmove_gt8v_sse2;
    if (k->fn == (void (*)(void))memasm_k_memmove_avx2)
        return (void (*)(void))memasm_k_memmove_gt8v_avx2;
    if (k->fn == (void (*)(void))memasm_k_memset_sse2)
        return (void (*)(void))memasm_k_memset_gt8v_sse2;
    if (k->fn == (void (*)(void))memasm_k_memset_avx2)
        return (void (*)(void))memasm_k_memset_gt8v_avx2;
    return k->fn;
}

void memasm_entries_bound(struct memasm_entries *out)
{
    memasm_entries_pick(out);
}

void memasm_entry_follow(memasm_op op, const struct memasm_kernel *k)
{
    /* The kernels the entry points jump to directly with byte 2. */
    static void (*const avx512[MEMASM_OP_COUNT])(void) = {
        [MEMASM_OP_MEMCPY] = (void (*)(void))memasm_k_memcpy_avx512,
        [MEMASM_OP_MEMMOVE] = (void (*)(void))memasm_k_memmove_avx512,
        [MEMASM_OP_MEMSET] = (void (*)(void))memasm_k_memset_avx512,
    };
    struct memasm_entry_words *w;
    switch (op) {
    case MEMASM_OP_MEMCPY:
        w = &memasm_entry_memcpy;
        break;
    case MEMASM_OP_MEMMOVE:
        w = &memasm_entry_memmove;
        break;
    case MEMASM_OP_MEMSET:
        w = &memasm_entry_memset;
        break;
    default:
        return;
    }
    unsigned char v = k->fn == avx512[op] ? 2 : k->level >= 1;
    size_t none = op == MEMASM_OP_MEMSET ? 31 : 32;
    atomic_store_explicit(&w->zmm_len, v == 2 ? 448 : 0, memory_order_relaxed);
    atomic_store_explicit(&w->ymm_max, v == 2 ? 64 : v == 1 ? 512 : none, memory_order_relaxed);
    atomic_store_explicit(&w->vec, v, memory_order_relaxed);
    if (op == MEMASM_OP_MEMSET)
        atomic_store_explicit(&w->small_end, v == 0 ? 33 : 32, memory_order_relaxed);
    atomic_store_explicit(&w->big, memasm_entry_big_of(k), memory_order_relaxed);
}
