/*
 * harness.h -- what the libmemasm test programs share.
 *
 * - A seeded random generator (xoshiro256**); the seed comes from
 *   MEMASM_TEST_SEED (decimal or 0x hex) or the clock, and is printed once so
 *   any failure can be replayed.
 * - Guarded arenas: mmap'd areas with a PROT_NONE page directly before and
 *   after, so a kernel that reads or writes one byte outside faults.
 * - A fault catcher: SIGSEGV, SIGBUS and SIGILL inside a guarded call jump
 *   back (sigsetjmp/siglongjmp, SA_NODEFER so it also works when Check does
 *   not fork) and become a test failure that names the kernel and the call.
 * - Byte-loop references for the three operations.
 * - Threshold profiles built generically from memasm_threshold_key().
 * - The Check runner every test program's main() ends with.
 *
 * Everything here goes through the public API (memasm.h) only.
 *
 * Messages given to ck_assert_msg/ck_abort_msg avoid %ll: the Check built
 * for riscv64 formats them with its own vsnprintf, which does not know it.
 */
#ifndef MEMASM_TEST_HARNESS_H
#define MEMASM_TEST_HARNESS_H

#include <check.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "memasm.h"

typedef void *(*t_copy_fn)(void *, const void *, size_t);
typedef void *(*t_set_fn)(void *, int, size_t);

/* ---- random numbers ----------------------------------------------------- */

typedef struct t_rng {
    uint64_t s[4];
} t_rng;

/* The run's seed: MEMASM_TEST_SEED or the clock; printed on first use. */
uint64_t t_seed(void);
/* Seed a generator from the run's seed and a stream number (e.g. the kernel
 * index), so one kernel's sequence does not depend on the others. */
void t_rng_init(t_rng *r, uint64_t stream);
uint64_t t_rand(t_rng *r);
/* Uniform in [0, n); n > 0. */
uint64_t t_below(t_rng *r, uint64_t n);
void t_fill(t_rng *r, unsigned char *p, size_t n);

/* ---- guarded memory ------------------------------------------------------ */

typedef struct t_arena {
    unsigned char *base; /* first usable byte, page aligned            */
    size_t size;         /* usable bytes, a multiple of the page size  */
    unsigned char *map;  /* the whole mapping including the guards     */
    size_t map_size;
} t_arena;

/* Map size bytes (rounded up to pages) between two PROT_NONE pages. */
void t_arena_new(t_arena *a, size_t size);
void t_arena_free(t_arena *a);
/* Make the usable part read-only (1) or read-write (0). */
void t_arena_readonly(t_arena *a, int ro);
size_t t_page(void);
/* First byte of a PROT_NONE page (for the n = 0 checks). */
unsigned char *t_noaccess_page(void);

/* ---- fault catcher ------------------------------------------------------- */

/* Describes the call in progress, for the message when it faults. */
typedef struct t_call {
    const char *kernel;
    const char *what;     /* "copy", "overlap", "self-copy", ...            */
    size_t n;
    unsigned dalign, salign;
    const char *profile;  /* threshold profile name                       */
} t_call;

extern sigjmp_buf t_fault_jmp;
extern volatile sig_atomic_t t_fault_armed;
extern volatile int t_fault_sig;
extern void *volatile t_fault_addr;

/* Install the SIGSEGV/SIGBUS/SIGILL handlers (on an alternate stack). */
void t_fault_install(void);

/*
 * Run stmt with the fault catcher armed; if a fault happens, fail the Check
 * test with a message naming the call (call is a t_call *).  Usable in a loop:
 * sigsetjmp without saving the signal mask costs no system call.
 */
#define T_GUARDED(call, stmt)                                                  \
    do {                                                                       \
        if (sigsetjmp(t_fault_jmp, 0) == 0) {                                  \
            t_fault_armed = 1;                                                 \
            stmt;                                                              \
            t_fault_armed = 0;                                                 \
        } else {                                                               \
            t_fault_armed = 0;                                                 \
            t_fault_fail(call);                                                \
        }                                                                      \
    } while (0)

/* Call a kernel with the fault catcher armed; a fault fails the test with
 * a message naming the call c. */
void *t_copy(const t_call *c, t_copy_fn fn, void *d, const void *s, size_t n);
void *t_set(const t_call *c, t_set_fn fn, void *d, int v, size_t n);

/* Report the caught fault as a Check failure (does not return). */
void t_fault_fail(const t_call *c) __attribute__((noreturn));
/* Describe a call as text (for failure messages). */
const char *t_call_str(const t_call *c);

/* ---- references ---------------------------------------------------------- */

void t_ref_move(unsigned char *dst, const unsigned char *src, size_t n);
void t_ref_set(unsigned char *dst, int c, size_t n);
/* Index of the first byte where a and b differ, or n when equal. */
size_t t_diff(const unsigned char *a, const unsigned char *b, size_t n);

/* ---- kernels and thresholds --------------------------------------------- */

/* Why this CPU cannot run kernel d (for the SKIPPED line). */
const char *t_skip_reason(const memasm_kernel_desc *d);

/* Print the wall and CPU time since the first call (information only:
 * no test asserts a time). */
void t_print_time(const char *what);

/* Print the kernel list once: name, op, ISA level, usable or not, and the
 * kernel serving each operation. */
void t_print_kernels(void);

#define T_MAX_PROFILES 32
#define T_MAX_KEYS 32

/* A set of threshold values; ops[] says which operations it steers
 * (a profile that only moves memset keys need not re-run memcpy). */
typedef struct t_profile {
    char name[96];
    int nkeys;
    const char *key[T_MAX_KEYS];
    size_t value[T_MAX_KEYS];
    int ops[MEMASM_OP_COUNT];
} t_profile;

/*
 * Build the profiles: "defaults"; "all-off" (every *_min key at its legal
 * maximum, *_max keys at their maximum); then, for each *_min key alone, that
 * key at its legal minimum with the rest off; then the listed pairs of keys
 * that open a path only together (each key at its minimum, rest off), where
 * this architecture has both.  Returns the number built.
 */
int t_profiles(t_profile *out, int max);
/* Apply a profile (defaults first, then its keys). */
void t_profile_apply(const t_profile *p);
/* 1 if threshold key steers operation op ("memcpy.*" also memmove). */
int t_key_steers(const char *key, memasm_op op);

/* ---- running ------------------------------------------------------------- */

/* Run suite s (CK_NORMAL output) and free its runner; returns the exit status
 * for main(): 0 when every test passed, 1 otherwise.  The _nofork variant
 * runs the tests in this process whatever CK_FORK says. */
int t_run_suite(Suite *s);
int t_run_suite_nofork(Suite *s);

#endif
