/*
 * preload.c -- the C library's copy functions, served by libmemasm, for
 * LD_PRELOAD=libmemasm-preload.so.
 *
 * libmemasm-preload.so holds all of libmemasm (linked in, see
 * preload/local.mk) and exports only the C library's names of
 * preload/entry-points.h (the version script is preload/exports.sym).
 * Each one forwards to memasm_memcpy, memasm_memmove or memasm_memset,
 * which are correct from the very first instruction of
 * the process: they start on the baseline kernel through statically
 * initialised pointers, and the library's constructor only swaps those
 * pointers.  Nothing on the copy path calls into initialisation, so the
 * memcpy and memset calls that initialisation itself makes (cpu_features,
 * the configuration parser, code the compiler wrote) land here, run on
 * whichever kernel is installed, and cannot recurse.
 *
 * On x86_64 memcpy, memmove and memset are asm/x86_64/preload-jump.asm:
 * from the constructor on they go to the set of entry points libmemasm.so
 * binds on this CPU (the base, AVX2 or shared entries), by a byte this file
 * writes; elsewhere there is one set, the public names.
 *
 * MEMASM_DEBUG on at start-up (never read in a secure-execution process)
 * counts the calls from this library's constructor on and prints one line
 * per operation at exit, on a copy of stderr taken at start-up.  Counting is
 * off otherwise, and costs the normal path nothing on x86_64 (counting is
 * the byte's fourth value) and elsewhere one load of a flag and a branch
 * that is not taken.
 *
 * The exported names themselves are preload/entry-points.h, shared with
 * libmemasm-profile.so; this file is compiled with -fno-builtin.
 */
#include "config.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "memasm-internal.h"
#include "lines.h"

/* ---- call counting (MEMASM_DEBUG=1) ------------------------------------ */

/* Each thread counts into a slot of its own (claimed on its first counted
 * call, found again through an initial-exec TLS pointer: no allocation, no
 * __tls_get_addr), so counting threads share no cache line.  A slot outlives
 * its thread, so the sum at exit includes threads that ended; the threads
 * after the first SLOTS share the last slot with atomic additions.  The
 * owner writes its slot with relaxed atomic stores, so the sum read at exit
 * while threads still run is a consistent count per slot. */
enum { OP_COPY, OP_MOVE, OP_SET, OPS };
#define SLOTS 256

struct slot {
    _Atomic uint64_t calls[OPS];
} __attribute__((aligned(64)));

static struct slot slots[SLOTS];
static atomic_uint slots_used;
static atomic_int counting;
static int report_fd = -1; /* a copy of stderr, see preload_start */
static __thread struct slot *my_slot __attribute__((tls_model("initial-exec")));

static __attribute__((noinline, cold)) void count(int op)
{
    struct slot *s = my_slot;
    if (!s) {
        unsigned i = atomic_fetch_add_explicit(&slots_used, 1, memory_order_relaxed);
        s = my_slot = &slots[i < SLOTS - 1 ? i : SLOTS - 1];
    }
    if (s == &slots[SLOTS - 1]) {
        atomic_fetch_add_explicit(&s->calls[op], 1, memory_order_relaxed);
        return;
    }
    uint64_t v = atomic_load_explicit(&s->calls[op], memory_order_relaxed);
    atomic_store_explicit(&s->calls[op], v + 1, memory_order_relaxed);
}

/* ---- where the exported names go ----------------------------------------- */

/* The set of entry points the names go to: libmemasm.so's on this CPU. */
static struct memasm_entries bound = {"public", memasm_memcpy, memasm_memmove, memasm_memset};

#if defined(__x86_64__)
/* What preload-jump.asm reads on every call: 0 the shared entries (its
 * value before the constructor), 1 the AVX2 ones, 2 the base ones, 3 the
 * counting functions below.  Written once, by the constructor; any value a
 * thread may read sends it to a correct entry. */
_Atomic unsigned char memasm_preload_set MEMASM_HIDDEN;
void *memasm_preload_memcpy(void *, const void *, size_t) MEMASM_HIDDEN;
void *memasm_preload_memmove(void *, const void *, size_t) MEMASM_HIDDEN;
void *memasm_preload_memset(void *, int, size_t) MEMASM_HIDDEN;
void *memasm_preload_counting_memcpy(void *, const void *, size_t) MEMASM_HIDDEN;
void *memasm_preload_counting_memmove(void *, const void *, size_t) MEMASM_HIDDEN;
void *memasm_preload_counting_memset(void *, int, size_t) MEMASM_HIDDEN;

/* With counting on, after the constructor has filled in bound. */
void *memasm_preload_counting_memcpy(void *dst, const void *src, size_t n)
{
    count(OP_COPY);
    return bound.cpy(dst, src, n);
}

void *memasm_preload_counting_memmove(void *dst, const void *src, size_t n)
{
    count(OP_MOVE);
    return bound.mov(dst, src, n);
}

void *memasm_preload_counting_memset(void *dst, int c, size_t n)
{
    count(OP_SET);
    return bound.set(dst, c, n);
}

/* The constructor's choice: bound's set, or counting. */
static void preload_route(int counted)
{
    unsigned char v = counted                         ? 3
                      : bound.cpy == memasm_memcpy_avx2 ? 1
                      : bound.cpy == memasm_memcpy_base ? 2
                                                        : 0;
    atomic_store_explicit(&memasm_preload_set, v, memory_order_release);
}
#define PRELOAD_NAMES_IN_ASM 1
#else
static void preload_route(int counted)
{
    (void)counted; /* copy(), move() and set() test the flag themselves */
}
#define COUNT(op)                                                                   \
    do {                                                                            \
        if (__builtin_expect(atomic_load_explicit(&counting, memory_order_relaxed), 0)) \
            count(op);                                                              \
    } while (0)
#endif

__attribute__((constructor)) static void preload_start(void)
{
    /* The library's own reading of MEMASM_DEBUG (any decimal number but
     * 0; never in a secure-execution process); memasm_init is idempotent
     * and would run from the library's constructor anyway. */
    memasm_init();
    memasm_entries_bound(&bound);
    /* Programs often close stderr in an atexit handler (gnulib's
     * close_stdout does), which runs before this library's destructor:
     * report through a copy of it taken now. */
    if (memasm_env_debug())
        report_fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 10);
    if (report_fd >= 0)
        atomic_store_explicit(&counting, 1, memory_order_relaxed);
    preload_route(report_fd >= 0);
}

/* The exit line, once.  Only async-signal-safe work (loads, a buffer on the
 * stack, write(2)): exit() may be called from a signal handler, and other
 * threads may still be copying (their later calls are simply not in the
 * sum). */
__attribute__((destructor)) static void preload_report(void)
{
    static atomic_int reported;
    static const char *const names[OPS] = {"memcpy", "memmove", "memset"};
    static const memasm_op ops[OPS] = {MEMASM_OP_MEMCPY, MEMASM_OP_MEMMOVE, MEMASM_OP_MEMSET};
    if (!atomic_load_explicit(&counting, memory_order_relaxed) ||
        atomic_exchange_explicit(&reported, 1, memory_order_relaxed))
        return;
    unsigned used = atomic_load_explicit(&slots_used, memory_order_relaxed);
    if (used > SLOTS)
        used = SLOTS;
    for (int op = 0; op < OPS; op++) {
        uint64_t sum = atomic_load_explicit(&slots[SLOTS - 1].calls[op], memory_order_relaxed);
        for (unsigned i = 0; i < used && i < SLOTS - 1; i++)
            sum += atomic_load_explicit(&slots[i].calls[op], memory_order_relaxed);
        const char *kernel = memasm_kernel_current(ops[op]);
        char line[160];
        size_t len = 0;
        put(line, &len, sizeof line - 1, "libmemasm-preload: ");
        put(line, &len, sizeof line - 1, names[op]);
        put(line, &len, sizeof line - 1, " ");
        put_u64(line, &len, sizeof line - 1, sum);
        put(line, &len, sizeof line - 1, " calls (kernel ");
        put(line, &len, sizeof line - 1, kernel ? kernel : "?");
        put(line, &len, sizeof line - 1, ", ");
        put(line, &len, sizeof line - 1, bound.name);
        put(line, &len, sizeof line - 1, " entries)");
        line[len++] = '\n';
        ssize_t r = write(report_fd, line, len);
        (void)r;
    }
}

/* ---- the exported functions --------------------------------------------- */

/* What every exported name does (preload/entry-points.h): count, forward;
 * on x86_64 through preload-jump.asm, which does both. */
#if defined(__x86_64__)
static inline void *copy(void *restrict dst, const void *restrict src, size_t n)
{
    return memasm_preload_memcpy(dst, src, n);
}

static inline void *move(void *dst, const void *src, size_t n)
{
    return memasm_preload_memmove(dst, src, n);
}

static inline void *set(void *dst, int c, size_t n)
{
    return memasm_preload_memset(dst, c, n);
}
#else
static inline void *copy(void *restrict dst, const void *restrict src, size_t n)
{
    COUNT(OP_COPY);
    return memasm_memcpy(dst, src, n);
}

static inline void *move(void *dst, const void *src, size_t n)
{
    COUNT(OP_MOVE);
    return memasm_memmove(dst, src, n);
}

static inline void *set(void *dst, int c, size_t n)
{
    COUNT(OP_SET);
    return memasm_memset(dst, c, n);
}
#endif

#include "entry-points.h"
