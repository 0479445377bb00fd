/*
 * kcase.h -- one kernel call checked against a byte loop, shared by the
 * kernel fuzzer (tests/fuzz-kernels.c, libFuzzer), the corpus replay in
 * make check (tests/test_corpus.c) and the exhaustive small sizes of make
 * check-slow (tests/test_small.c).
 *
 * A case names a target (a kernel of the master list called directly, or
 * a public entry point with one kernel forced behind it or the automatic
 * choice), a size, where the destination and the source lie in guarded
 * arenas (PROT_NONE pages before and after each; the source arena of a
 * disjoint copy is read-only), how they overlap, the memset value, and
 * threshold overrides applied through the control API.  kc_run() makes
 * the call and checks the return value, the destination against a byte
 * loop over a snapshot of the arena, and the bytes around it; with full
 * set, the whole destination arena.
 *
 * Uses the public API (memasm.h) and the C library only, no Check, so the
 * fuzzer links it without the test framework.
 *
 * Input format of kc_decode() (missing bytes read as 0, little endian):
 *   0      operation: byte % 3 (memcpy, memmove, memset)
 *   1      target among the operation's: byte % kc_targets_of(op)
 *   2-3    size code: class = v >> 13; 0: v & 511; 1: v & 8191;
 *          2: 2^k + d (k = ((v >> 3) & 31) % 17, d = (v & 7) - 4);
 *          3: 64 m + d (m = (v >> 4) & 511, d = (v & 15) - 8);
 *          4: 4096 m + d (m = (v >> 5) & 15, d = (v & 31) - 16);
 *          5-7: (v & 8191) * 8 + class - 5; clamped to 0..KC_MAX_N
 *   4-5    destination: bit 15 set = measured back from the arena's end,
 *          bits 0-11 the offset from that end
 *   6-7    source, the same (disjoint layout only)
 *   8      layout: byte % 4; memmove: disjoint, forward (dst = src +
 *          dist), backward (dst = src - dist), self (dst == src); memcpy:
 *          the same but forward and backward never overlap: their
 *          distance is n + min(code's distance, 8192)
 *   9-10   distance code: class = w >> 14; 0: w & 1023; 1: n - 16 +
 *          (w & 31); 2: 4096 k + e (k = (w >> 8) & 15, e = (w & 255) -
 *          128); 3: (w & 16383) * 4
 *   11-14  memset's int c (any bits above the low byte)
 *   15     bit 0: junk in the upper 32 bits of c's register (x86_64 and
 *          aarch64, where an int argument leaves them undefined)
 *   16...  up to KC_MAX_THR threshold overrides, 3 bytes each: key index
 *          (% memasm_threshold_count()), value code u: class = u >> 14;
 *          0: u & 16383; 1: n + (u & 255) - 128; 2: never; 3: (u & 16383) * 64
 */
#ifndef MEMASM_TEST_KCASE_H
#define MEMASM_TEST_KCASE_H

#include <stddef.h>
#include <stdint.h>

#include "memasm.h"

#define KC_MAX_N ((size_t)65536 + 64) /* largest size a case may have         */
#define KC_MAX_OFF 4095u              /* largest placement offset            */
#define KC_MAX_THR 8                  /* threshold overrides per case        */
#define KC_CANARY 64                  /* bytes checked either side of dst    */
#define KC_HEADER 16                  /* input bytes before the overrides    */

typedef enum kc_layout {
    KC_DISJOINT = 0, /* source in its own read-only arena                   */
    KC_FORWARD = 1,  /* one arena, dst = src + dist                         */
    KC_BACKWARD = 2, /* one arena, dst = src - dist                         */
    KC_SELF = 3      /* dst == src (memcpy and memmove)                     */
} kc_layout;

typedef struct kc_target {
    char name[80];      /* e.g. "memmove_avx2" or "memasm_memmove+memmove_avx2" */
    memasm_op op;
    int entry;          /* 1: the public entry point                        */
    const char *force;  /* entry: kernel forced behind it; NULL = automatic */
    void (*fn)(void);   /* what is called                                   */
} kc_target;

typedef struct kc_case {
    size_t target;       /* index in the target list (kc_target_get)        */
    size_t n;
    unsigned doff, soff; /* offsets from the anchor (0..KC_MAX_OFF)          */
    int dhigh, shigh;    /* anchor: 0 the arena's start, 1 its end           */
    kc_layout layout;
    size_t dist;         /* FORWARD/BACKWARD: |dst - src|                    */
    int c;               /* memset                                            */
    int junk;            /* memset: junk above bit 31 of c's register         */
    int nthr;
    const char *thr_key[KC_MAX_THR];
    size_t thr_val[KC_MAX_THR];
} kc_case;

/* Map the arenas and build the target list (usable kernels only); idempotent.
 * Returns 0, or -1 when memory cannot be mapped (message on stderr). */
int kc_init(void);
size_t kc_target_count(void);
const kc_target *kc_target_get(size_t i);
/* The i-th target of operation op (i < kc_targets_of(op)), as a list index. */
size_t kc_targets_of(memasm_op op);
size_t kc_target_of(memasm_op op, size_t i);

/* Decode an input (format above) into *out; the target follows byte 1. */
void kc_decode(const uint8_t *data, size_t size, kc_case *out);
/* The same case with another target of the same operation (replay). */
void kc_retarget(kc_case *c, size_t target);

/* Run the case; 0 when every check holds, else 1 with the reason in msg.
 * full: also compare the whole destination arena with its pattern. */
int kc_run(const kc_case *c, int full, char *msg, size_t len);
/* After a fault jumped out of kc_run: restore the arena and the defaults. */
void kc_recover(void);
/* The whole destination arena against its pattern: 0, or 1 and msg. */
int kc_verify_arena(char *msg, size_t len);
/* The case in words (target, size, placement, alignments, thresholds). */
const char *kc_describe(const kc_case *c, char *buf, size_t len);

/* Placement offset from the anchor that gives a pointer at alignment a
 * (mod 64) for a region of len bytes (the arenas are page aligned). */
unsigned kc_align_off(size_t len, unsigned a, int high);

/* Coverage hints for the fuzzer: up to KC_NFEAT feature numbers below
 * KC_FEATURES describing the paths a case should take inside a kernel
 * (size class, alignments, overlap, size against each threshold). */
#define KC_NFEAT (4 + KC_MAX_THR)
#define KC_FEATURES 16384
int kc_features(const kc_case *c, unsigned *out);

#endif
