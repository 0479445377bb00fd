/*
 * test_entry.c -- the public entry points memasm_memcpy, memasm_memmove and
 * memasm_memset themselves, not the kernels behind them.
 *
 * On x86_64 the entry points copy and set the smallest sizes on their own
 * (asm/x86_64/entry.asm) and jump to the selected kernel for the rest; the
 * conformance suite calls the kernels directly and never reaches that code.
 * For every ISA cap the CPU allows (the kernel behind the entry changes with
 * it), each entry point is checked against a byte loop:
 *  - every length 0..600; every dst and src alignment 0..63 up to 64 bytes,
 *    a set of alignments above;
 *  - buffers at both ends of mmap'd arenas between PROT_NONE pages, the
 *    source read-only: one byte read or written outside faults;
 *  - random canaries 64 bytes either side of the destination, unchanged;
 *  - the return value is dst; n = 0 with pointers into a PROT_NONE page;
 *  - memmove: every overlap distance 0..64 in both directions, and n/3,
 *    n/2 and n - 1 above that;
 *  - memset: c beyond 8 bits (0x1ff, -1, ...) and junk in the upper 32 bits
 *    of the register that carries c.
 * On x86_64 the same runs go through the base entries too (memasm_<op>_base,
 * what libmemasm.so binds the public names to on a CPU without AVX2) and,
 * where the CPU has AVX2, the AVX2 entries (memasm_<op>_avx2, its names on a
 * CPU with AVX2 and without AVX-512), behind every kernel the CPU allows;
 * entry_mixed_words then writes every mix of the words the entry points read
 * (what a call racing a change of kernel can see) and checks lengths 0..1100
 * behind each level's kernels, through every set of entries.
 * MEMASM_TEST_REDUCED (make check-valgrind): the lengths, alignment classes
 * and overlap distances of memcheck.h only; under memcheck every call is
 * made again on exact-size heap blocks.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "memasm-internal.h"
#include "memcheck.h"

#define WIN 64     /* canary bytes either side                  */
#define MAXN 600   /* longest length (past the entry's own 512)  */
#define FULLN 64   /* every alignment up to this length        */

static t_arena dst_arena, src_arena;
static unsigned char expect[1 << 16]; /* shadow of dst_arena */
static t_rng rng;
static char label[160];

/* The entry points under test: the public names, or on x86_64 the base
 * entries (asm/x86_64/entry.asm, bound by c/entry-select.c). */
static const struct memasm_entries public_entries = {"public", memasm_memcpy, memasm_memmove,
                                                     memasm_memset};
#if defined(__x86_64__)
static const struct memasm_entries base_entries = {"base", memasm_memcpy_base,
                                                   memasm_memmove_base, memasm_memset_base};
static const struct memasm_entries avx2_entries = {"avx2", memasm_memcpy_avx2,
                                                   memasm_memmove_avx2, memasm_memset_avx2};
static const struct memasm_entries *const entry_sets[] = {&public_entries, &base_entries,
                                                          &avx2_entries};
/* the lowest ISA level each set runs on: the AVX2 entries execute AVX2 */
static const int set_level[] = {0, 0, 1};
#else
static const struct memasm_entries *const entry_sets[] = {&public_entries};
static const int set_level[] = {0};
#endif
#define N_SETS (sizeof entry_sets / sizeof entry_sets[0])

/* Whether this CPU runs set s; says so when it does not. */
static int set_runs(size_t s, int cpu)
{
    if (set_level[s] <= cpu)
        return 1;
    printf("skipped: the %s entry points (this CPU lacks %s)\n", entry_sets[s]->name,
           memasm_isa_name(set_level[s]));
    return 0;
}
static const struct memasm_entries *ent = &public_entries;

static const unsigned some_align[] = {0, 1, 3, 7, 8, 15, 16, 31, 32, 33, 48, 63};
#define N_SOME (sizeof some_align / sizeof some_align[0])

/* Fill [p - WIN, p + len + WIN) of the destination arena (clipped) with
 * random bytes, the same in the shadow; return the window. */
static void window(unsigned char *p, size_t len, size_t *lo, size_t *hi)
{
    size_t off = (size_t)(p - dst_arena.base);
    *lo = off > WIN ? off - WIN : 0;
    *hi = off + len + WIN < dst_arena.size ? off + len + WIN : dst_arena.size;
    t_fill(&rng, dst_arena.base + *lo, *hi - *lo);
    memcpy(expect + *lo, dst_arena.base + *lo, *hi - *lo);
}

static void compare(const t_call *c, void *ret, void *d, size_t lo, size_t hi)
{
    ck_assert_msg(ret == d, "returned %p, not dst %p: %s", ret, d, t_call_str(c));
    size_t bad = t_diff(dst_arena.base + lo, expect + lo, hi - lo);
    if (bad < hi - lo)
        ck_abort_msg("byte dst%+ld wrong (0x%02x, expected 0x%02x): %s",
                     (long)(lo + bad) - (long)((unsigned char *)d - dst_arena.base),
                     dst_arena.base[lo + bad], expect[lo + bad], t_call_str(c));
}

/* A copy from the read-only source arena to the destination arena. */
static void check_copy(const char *what, t_copy_fn fn, unsigned char *d, const unsigned char *s,
                       size_t n)
{
    t_call c = {label, what, n, (unsigned)((uintptr_t)d % 64), (unsigned)((uintptr_t)s % 64), NULL};
    size_t lo, hi;
    window(d, n, &lo, &hi);
    t_ref_move(expect + (d - dst_arena.base), s, n);
    void *ret = t_copy(&c, fn, d, s, n);
    compare(&c, ret, d, lo, hi);
    t_mc_copy(&c, fn, s, n, c.dalign, c.salign);
}

/* memmove inside the destination arena: [p, p + n + dist), dst below src
 * (forward) or above it (backward). */
static void check_overlap(unsigned char *p, size_t n, size_t dist, int backward)
{
    unsigned char *d = backward ? p + dist : p, *s = backward ? p : p + dist;
    t_call c = {label, backward ? "memmove dst above src" : "memmove dst below src", n,
                (unsigned)((uintptr_t)d % 64), (unsigned)((uintptr_t)s % 64), NULL};
    size_t lo, hi;
    window(p, n + dist, &lo, &hi);
    t_mc_move(&c, ent->mov, p, n, dist, backward, (unsigned)((uintptr_t)p % 64));
    t_ref_move(expect + (d - dst_arena.base), expect + (s - dst_arena.base), n);
    void *ret = t_copy(&c, ent->mov, d, s, n);
    compare(&c, ret, d, lo, hi);
}

typedef void *(*set_long_fn)(void *, long, size_t);

/* memset with c passed in a full 64-bit register: junk above bit 31. */
static void check_set(unsigned char *d, int v, long junk, size_t n)
{
#if !defined(__x86_64__) && !defined(__aarch64__)
    junk = 0; /* riscv64: an int argument must arrive sign-extended */
#endif
    t_call c = {label, junk ? "memset, junk in the upper 32 bits of c's register" : "memset", n,
                (unsigned)((uintptr_t)d % 64), 0, NULL};
    size_t lo, hi;
    window(d, n, &lo, &hi);
    t_ref_set(expect + (d - dst_arena.base), v, n);
    void *ret;
    if (junk) {
        set_long_fn f = (set_long_fn)(void (*)(void))ent->set;
        long arg = (long)(((unsigned long)junk << 32) | (unsigned)v);
        void *volatile r = NULL;
        T_GUARDED(&c, r = f(d, arg, n));
        ret = r;
    } else {
        ret = t_set(&c, ent->set, d, v, n);
    }
    compare(&c, ret, d, lo, hi);
    t_mc_set(&c, ent->set, v, n, c.dalign);
}

/* Destination (or source) at alignment a near the lower guard page, or
 * ending a bytes before the upper guard page (a = 0: touching it). */
static unsigned char *place(t_arena *ar, size_t len, unsigned a, int high)
{
    return high ? ar->base + ar->size - len - a : ar->base + a;
}

static void run_all(void)
{
    static const int vals[] = {0, 0x1ff, 0xa5, -1, 0x80, 0x7f00, 0x12345678};
    int reduced = t_reduced();
    for (size_t n = 0; n <= MAXN; n++) {
        if (reduced && !t_keep_len(n))
            continue;
        /* every alignment, the classes of memcheck.h (reduced), or some */
        size_t na = n > FULLN ? N_SOME : reduced ? T_NALIGN_CLASSES : 64;
        const unsigned *al = n > FULLN ? some_align : reduced ? t_align_class : NULL;
        for (size_t i = 0; i < na; i++) {
            unsigned da = al ? al[i] : (unsigned)i;
            for (size_t j = 0; j < na; j++) {
                unsigned sa = al ? al[j] : (unsigned)j;
                /* dst at either end; src at the same or the other end */
                for (int hd = 0; hd < 2; hd++) {
                    int hs = hd ^ (int)((i + j) & 1);
                    unsigned char *d = place(&dst_arena, n, da, hd);
                    const unsigned char *s = place(&src_arena, n, sa, hs);
                    check_copy("memcpy", ent->cpy, d, s, n);
                    check_copy("memmove, disjoint", ent->mov, d, s, n);
                }
            }
            for (int hd = 0; hd < 2; hd++) {
                unsigned char *d = place(&dst_arena, n, da, hd);
                for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++)
                    check_set(d, vals[k], (long)((i + k) % 3 == 0 ? 0 : 0x5eadbeef + (long)k), n);
            }
        }
        /* 0..64, then n/3, n/2 and n - 1 where they are larger (not in the
         * reduced mode): the entry's ladders go to 512 bytes */
        const size_t far[] = {n / 3, n / 2, n - 1};
        for (size_t t = 0; t < 65 + 3; t++) {
            size_t dist = t <= 64 ? t : far[t - 65];
            if (t > 64 && (reduced || n == 0 || dist <= 64))
                continue;
            for (int back = 0; back < 2 && (!reduced || !dist || t_keep_dist(n, dist)); back++)
                for (int high = 0; high < 2; high++) {
                    unsigned a = (unsigned)((n * 7 + dist * 3 + (size_t)high) % 64);
                    check_overlap(place(&dst_arena, n + dist, a, high), n, dist, back);
                    check_overlap(place(&dst_arena, n + dist, 0, high), n, dist, back);
                }
        }
    }
    /* n = 0 touches nothing: pointers into a PROT_NONE page. */
    unsigned char *none = t_noaccess_page();
    t_call c = {label, "n = 0, PROT_NONE pointers", 0, 0, 0, NULL};
    ck_assert(t_copy(&c, ent->cpy, none + 5, none + 9, 0) == none + 5);
    ck_assert(t_copy(&c, ent->mov, none + 5, none + 9, 0) == none + 5);
    ck_assert(t_set(&c, ent->set, none + 5, 0x41, 0) == none + 5);
}

START_TEST(entry_points)
{
    unsigned long errs = t_mc_errors();
    t_fault_install();
    t_rng_init(&rng, 0xe7);
    t_arena_new(&dst_arena, t_page() > sizeof expect ? sizeof expect : t_page());
    ck_assert(dst_arena.size <= sizeof expect);
    t_arena_new(&src_arena, t_page());
    t_fill(&rng, src_arena.base, src_arena.size);
    t_arena_readonly(&src_arena, 1);
    int cpu = memasm_isa_cpu();
    for (size_t e = 0; e < N_SETS; e++) {
        if (!set_runs(e, cpu))
            continue;
        for (int level = 0; level <= cpu; level++) {
            ent = entry_sets[e];
            const char *isa = memasm_isa_name(level);
            ck_assert_msg(memasm_isa_set_cap(isa) == 0, "memasm_isa_set_cap(%s) failed", isa);
            snprintf(label, sizeof label,
                     "%s entry points, cap %s (memcpy=%s memmove=%s memset=%s)", ent->name, isa,
                     memasm_kernel_current(MEMASM_OP_MEMCPY),
                     memasm_kernel_current(MEMASM_OP_MEMMOVE),
                     memasm_kernel_current(MEMASM_OP_MEMSET));
            printf("%s\n", label);
            fflush(stdout);
            run_all();
        }
    }
    ent = &public_entries;
    memasm_isa_set_cap(NULL);
    t_arena_free(&dst_arena);
    t_arena_free(&src_arena);
    t_print_time("entry points");
    ck_assert_msg(t_mc_errors() == errs, "memcheck counted %lu error(s) (above)",
                  t_mc_errors() - errs);
}
END_TEST

#if defined(__x86_64__)
#include <stdatomic.h>

/* The entry points read their words (ymm_max, zmm_len, vec, small_end, big) with
 * plain loads, so while another thread changes the kernel one call may see a mix
 * of two installs' values: every mix of the values the dispatcher writes on
 * this CPU must still be correct, behind every kernel.  Each mix is written
 * by hand here (the dispatcher never leaves one behind) and lengths 0..1100
 * go through every entry point: the ladders to 512 and the jumps past the
 * kernels' size tests above. */
#define MIX_MAXN 1100

static void words_set(struct memasm_entry_words *w, size_t ymm_max, size_t zmm_len, int vec,
                      size_t small_end, void (*big)(void))
{
    atomic_store_explicit(&w->ymm_max, ymm_max, memory_order_relaxed);
    atomic_store_explicit(&w->zmm_len, zmm_len, memory_order_relaxed);
    atomic_store_explicit(&w->vec, (unsigned char)vec, memory_order_relaxed);
    atomic_store_explicit(&w->small_end, small_end, memory_order_relaxed);
    atomic_store_explicit(&w->big, big, memory_order_relaxed);
}

/* The big word the dispatcher writes for op's kernel of this level. */
static void (*big_of(memasm_op op, int level))(void)
{
    for (size_t i = 0; i < memasm_kernels_count; i++)
        if (memasm_kernels[i].op == op && memasm_kernels[i].level == level)
            return memasm_entry_big_of(&memasm_kernels[i]);
    ck_abort_msg("no %s kernel of level %d", memasm_op_name(op), level);
    return NULL;
}

static unsigned long run_lengths(void)
{
    unsigned long calls = 0;
    for (size_t n = 0; n <= MIX_MAXN; n++) {
        if (t_reduced() && !t_keep_len(n))
            continue;
        unsigned da = (unsigned)t_below(&rng, 64), sa = (unsigned)t_below(&rng, 64);
        int high = (int)(n & 1);
        unsigned char *d = place(&dst_arena, n, da, high);
        const unsigned char *s = place(&src_arena, n, sa, !high);
        check_copy("memcpy", ent->cpy, d, s, n);
        check_copy("memmove, disjoint", ent->mov, d, s, n);
        check_overlap(place(&dst_arena, n + n / 2, da, high), n, n / 2, 0);
        check_overlap(place(&dst_arena, n + n / 2, da, !high), n, n / 2, 1);
        check_set(d, 0x1a5 + (int)n, (long)(n % 3) * 0x5eadbeef, n);
        calls += 5;
    }
    return calls;
}

START_TEST(entry_mixed_words)
{
    /* ymm_max's values by operation: none (byte 0), 64 (byte 2), the
     * byte 1 limit; the level each needs */
    static const size_t ymm_vals[MEMASM_OP_COUNT][3] = {
        [MEMASM_OP_MEMCPY] = {32, 64, 512},
        [MEMASM_OP_MEMMOVE] = {32, 64, 512},
        [MEMASM_OP_MEMSET] = {31, 64, 512},
    };
    static const int ymm_level[3] = {0, 2, 1};
    static const size_t zmm_vals[2] = {0, 448};
    static const int zmm_level[2] = {0, 2};
    /* memset's small_end: byte 0's 33 and the others' 32 (both level 0) */
    static const size_t small_vals[2] = {33, 32};
    t_fault_install();
    t_rng_init(&rng, 0x3e);
    t_arena_new(&dst_arena, t_page() > sizeof expect ? sizeof expect : t_page());
    t_arena_new(&src_arena, t_page());
    ck_assert(dst_arena.size >= 2 * MIX_MAXN && src_arena.size >= MIX_MAXN);
    t_fill(&rng, src_arena.base, src_arena.size);
    t_arena_readonly(&src_arena, 1);
    int cpu = memasm_isa_cpu();
    unsigned long calls = 0, mixes = 0;
    for (int level = 0; level <= cpu; level++) {
        const char *isa = memasm_isa_name(level);
        ck_assert_msg(memasm_isa_set_cap(isa) == 0, "memasm_isa_set_cap(%s) failed", isa);
        for (int y = 0; y < 3; y++)
            for (int z = 0; z < 2; z++)
                for (int v = 0; v <= 2; v++) {
                    if (ymm_level[y] > cpu || zmm_level[z] > cpu || v > cpu)
                        continue;
                    for (int e = 0; e < 2; e++)
                        for (int b = 0; b <= cpu; b++) {
                            words_set(&memasm_entry_memcpy, ymm_vals[MEMASM_OP_MEMCPY][y],
                                      zmm_vals[z], v, 0, big_of(MEMASM_OP_MEMCPY, b));
                            words_set(&memasm_entry_memmove, ymm_vals[MEMASM_OP_MEMMOVE][y],
                                      zmm_vals[z], v, 0, big_of(MEMASM_OP_MEMMOVE, b));
                            words_set(&memasm_entry_memset, ymm_vals[MEMASM_OP_MEMSET][y],
                                      zmm_vals[z], v, small_vals[e], big_of(MEMASM_OP_MEMSET, b));
                            for (size_t s = 0; s < N_SETS; s++) {
                                if (set_level[s] > cpu)
                                    continue; /* said so in entry_points */
                                ent = entry_sets[s];
                                snprintf(label, sizeof label,
                                         "%s entry points, mixed words behind %s kernels: "
                                         "ymm_max #%d, zmm_len %zu, vec %d, memset small_end "
                                         "%zu, big of level %d",
                                         ent->name, isa, y, zmm_vals[z], v, small_vals[e], b);
                                calls += run_lengths();
                            }
                            ent = &public_entries;
                            mixes++;
                        }
                }
    }
    memasm_isa_set_cap(NULL); /* reinstalls, and rewrites the words */
    t_arena_free(&dst_arena);
    t_arena_free(&src_arena);
    printf("mixed entry words: %lu mixes behind the kernels of %d level(s), %lu calls\n", mixes,
           cpu + 1, calls);
    ck_assert(mixes > 0 && calls > 0);
}
END_TEST
#endif

int main(void)
{
    t_seed();
    t_mc_banner("entry");
    Suite *s = suite_create("entry");
    TCase *tc = tcase_create("entry");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, entry_points);
#if defined(__x86_64__)
    tcase_add_test(tc, entry_mixed_words);
#endif
    suite_add_tcase(s, tc);
    return t_run_suite(s);
}
