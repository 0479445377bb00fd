/*
 * memasm-internal.h -- what the C side and the kernels share.
 *
 * One section per layer of c/, bottom first (c/README.md): each file
 * includes this whole header but uses only the sections of the layers below
 * its own, which tests/layers.sh checks on the objects.
 *
 * Included from C and from the GNU as kernels (.S, through cpp).  The NASM
 * kernels get the MEMASM_THR_* indices from asm/x86_64/thresholds.inc, which
 * the build generates from this file, so there is a single source of truth.
 *
 * Thresholds: the kernels read them at run time through the pointer
 * memasm_thr (hidden), which points at an array of 64-bit values indexed by
 * MEMASM_THR_*.  A kernel loads the pointer once per call and reads every
 * field from that snapshot; writers fill a fresh array and publish it with
 * one atomic store, so a copy never sees a mix of old and new values.
 */
#ifndef MEMASM_INTERNAL_H
#define MEMASM_INTERNAL_H

/* Threshold indices (byte offset = index * 8).  Keep the numbers dense. */
#define MEMASM_THR_MEMCPY_ERMS_MIN 0 /* x86_64: rep movsb from here ...  */
#define MEMASM_THR_MEMCPY_ERMS_MAX 1 /* ... up to (excluding) here       */
#define MEMASM_THR_MEMCPY_NT_MIN 2   /* non-temporal copy from here      */
#define MEMASM_THR_MEMSET_ERMS_MIN 3 /* x86_64: rep stosb window         */
#define MEMASM_THR_MEMSET_ERMS_MAX 4
#define MEMASM_THR_MEMSET_NT_MIN 5 /* non-temporal fill from here      */
#define MEMASM_THR_MEMSET_ZVA_MIN 6 /* aarch64: dc zva from here        */
#define MEMASM_THR_MEMCPY_RVV_MIN 7 /* riscv64: vector copy from here   */
#define MEMASM_THR_MEMSET_RVV_MIN 8 /* riscv64: vector fill from here   */
#define MEMASM_THR_MEMCPY_BWD_PREFETCH_MAX 9 /* x86_64: prefetch below */
#define MEMASM_THR_MEMCPY_BWD_NT_MIN 10 /* x86_64: non-temporal backward */
#define MEMASM_THR_MEMCPY_BWD_PREFETCH_MIN 11 /* x86_64: prefetch from  */
/* Derived, not a key: min(BWD_NT_MIN, BWD_PREFETCH_MIN), set by sanitize. */
#define MEMASM_THR_MEMCPY_BWD_GATE 12
#define MEMASM_THR_MEMCPY_ERMS_MIN_DIST 13 /* x86_64: rep movsb distance */
#define MEMASM_THR_MEMCPY_ALIAS_NT_MIN 14 /* x86_64: 4K-aliasing copies  */
#define MEMASM_THR_MEMCPY_ALIAS_ERMS_MIN 15 /* x86_64: ... by rep movsb */
#define MEMASM_THR_COUNT 16

#ifndef __ASSEMBLER__

#include <stddef.h>
#include <stdint.h>

#include "memasm.h"

#define MEMASM_HIDDEN __attribute__((visibility("hidden")))

/* ==== Layer 0: messages (c/diag.c) and CPU facts (c/cpu.c) ============== */

/* Append src (n bytes) to buf[*len..cap), dropping what does not fit; when
 * untrusted, control and non-ASCII bytes become '?' and the text is cut at
 * 64 bytes with "...".  buf is not NUL-terminated. */
void memasm_diag_append(char *buf, size_t *len, size_t cap, const char *src, size_t n,
                        int untrusted) MEMASM_HIDDEN;

/* One line on stderr: "libmemasm: " msg, then bad (untrusted text, at most
 * bad_len bytes, shortened and made printable), then tail.  Keeps errno. */
void memasm_diag(const char *msg, const char *bad, size_t bad_len, const char *tail) MEMASM_HIDDEN;

/* Feature bits, per architecture (only the ones kernels depend on). */
enum {
    MEMASM_F_X86_SSE2 = 1u << 0,
    MEMASM_F_X86_AVX2 = 1u << 1,
    MEMASM_F_X86_AVX512F = 1u << 2,
    MEMASM_F_X86_AVX512BW = 1u << 3,
    MEMASM_F_X86_AVX512VL = 1u << 4,
    MEMASM_F_X86_ERMS = 1u << 5,
    MEMASM_F_X86_FSRM = 1u << 6,
    MEMASM_F_X86_BMI2 = 1u << 7,
    MEMASM_F_A64_ASIMD = 1u << 8,
    MEMASM_F_A64_SVE = 1u << 9,
    MEMASM_F_A64_DCZVA = 1u << 10, /* dc zva permitted (DCZID_EL0.DZP = 0) */
    MEMASM_F_RV_V = 1u << 12,
    MEMASM_F_RV_MISALIGNED_FAST = 1u << 13,
};

struct memasm_cpu {
    uint32_t features;     /* MEMASM_F_* */
    int isa_max;           /* highest ISA level the CPU (and OS) supports */
    char vendor[16];       /* "AuthenticAMD", "ARM", "riscv" ...           */
    char brand[64];        /* marketing name where the CPU reports one     */
    int family, model, stepping; /* x86 family/model/stepping; aarch64
                                    implementer/part/revision; riscv 0s   */
    size_t l1d, l2, l3;    /* data cache sizes in bytes, 0 when unknown    */
    unsigned vlen;         /* riscv64 VLEN in bits when V is present       */
    unsigned zva_size;     /* aarch64 dc zva block size in bytes, or 0    */
};

/* Detect once; later calls return the same description. */
const struct memasm_cpu *memasm_cpu_get(void) MEMASM_HIDDEN;

/* ==== Layer 1: thresholds (c/thresholds.c) ============================= */

/* Array the kernels read; never NULL (points at a static default).  Only
 * memasm_threshold_publish (layer 4) changes it. */
extern _Atomic(const uint64_t *) memasm_thr MEMASM_HIDDEN;

struct memasm_threshold_def {
    const char *key;    /* configuration key, e.g. "memcpy.erms_min" */
    int index;          /* MEMASM_THR_*                              */
    uint64_t min, max;  /* legal range the kernels assume            */
    const char *doc;    /* one line: what it steers                  */
};

/* Keys of this architecture. */
extern const struct memasm_threshold_def memasm_threshold_defs[] MEMASM_HIDDEN;
extern const size_t memasm_threshold_defs_count MEMASM_HIDDEN;

/* Windows [start, end) of sizes: {start index, end index}.  Sanitizing
 * keeps each end at or above its start. */
extern const int memasm_threshold_windows[][2] MEMASM_HIDDEN;
extern const size_t memasm_threshold_windows_count MEMASM_HIDDEN;

/* Defaults computed from the CPU (cache sizes, features) and the ISA levels
 * of the kernels in force (memasm_threshold_levels). */
void memasm_threshold_defaults(uint64_t out[MEMASM_THR_COUNT]) MEMASM_HIDDEN;
/* Record the ISA levels of the kernels serving memcpy and memset, which the
 * defaults follow; nonzero if they changed. */
int memasm_threshold_levels(int copy, int set) MEMASM_HIDDEN;

/* Clamp every value into its legal range and fix ordering constraints. */
void memasm_threshold_sanitize(uint64_t v[MEMASM_THR_COUNT]) MEMASM_HIDDEN;
/* v = the defaults with given[i] for each index i whose bit is set in mask;
 * a given window end below a start not given empties the window; then
 * sanitized. */
void memasm_threshold_compose(uint64_t v[MEMASM_THR_COUNT], const uint64_t given[MEMASM_THR_COUNT],
                              uint32_t mask) MEMASM_HIDDEN;
_Static_assert(MEMASM_THR_COUNT <= 32, "a mask has a bit per threshold");

const struct memasm_threshold_def *memasm_threshold_lookup(const char *key,
                                                           size_t len) MEMASM_HIDDEN;

/* ==== Layer 2: kernels (c/kernels.c, c/kernels-<arch>.c, asm/<arch>/) == */

struct memasm_kernel {
    const char *name;
    memasm_op op;
    int level;          /* ISA level index                           */
    uint32_t requires;  /* MEMASM_F_* bits the CPU must have to run it */
    void (*fn)(void);
    /* MEMASM_F_* bits that must be present for the dispatcher to choose
     * it, where they are about speed, not correctness (a kernel with
     * misaligned loads runs everywhere on Linux but is only worth it where
     * they are fast).  Tests and the benchmark run it regardless. */
    uint32_t prefers;
};

extern const struct memasm_kernel memasm_kernels[] MEMASM_HIDDEN;
extern const size_t memasm_kernels_count MEMASM_HIDDEN;

extern const char *const memasm_isa_names[] MEMASM_HIDDEN;
extern const int memasm_isa_names_count MEMASM_HIDDEN;

typedef void *(*memasm_copy_fn)(void *, const void *, size_t);
typedef void *(*memasm_set_fn)(void *, int, size_t);

/* The kernel serving each operation; defined with a static initialiser (the
 * baseline kernel) in c/kernels-<arch>.c. */
extern _Atomic(memasm_copy_fn) memasm_cur_memcpy MEMASM_HIDDEN;
extern _Atomic(memasm_copy_fn) memasm_cur_memmove MEMASM_HIDDEN;
extern _Atomic(memasm_set_fn) memasm_cur_memset MEMASM_HIDDEN;

#if defined(__x86_64__)
/* Tell the entry points (asm/x86_64/entry.asm) which kernel now serves op:
 * they use ymm/zmm registers themselves only as far as its ISA level goes
 * (c/kernels-x86_64.c). */
void memasm_entry_follow(memasm_op op, const struct memasm_kernel *k) MEMASM_HIDDEN;
/* The words the entry points read on every call (c/kernels-x86_64.c says
 * what each holds); the tests write mixes of them. */
struct memasm_entry_words {
    _Atomic size_t ymm_max;
    _Atomic size_t zmm_len;
    _Atomic unsigned char vec;
    _Atomic size_t small_end;
    void (*_Atomic big)(void);
};
extern struct memasm_entry_words memasm_entry_memcpy MEMASM_HIDDEN;
extern struct memasm_entry_words memasm_entry_memmove MEMASM_HIDDEN;
extern struct memasm_entry_words memasm_entry_memset MEMASM_HIDDEN;
/* The big word for kernel k (c/kernels-x86_64.c). */
void (*memasm_entry_big_of(const struct memasm_kernel *k))(void) MEMASM_HIDDEN;
/* entry.asm's three sets of entry points: the shared ones, which every ISA
 * level and cap can use (the archive's public names), the base ones, for a
 * CPU without AVX2, and the AVX2 ones, for a CPU with AVX2 and without
 * AVX-512; libmemasm.so binds its public names to one set per CPU
 * (c/entry-select.c). */
void *memasm_memcpy_shared(void *, const void *, size_t) MEMASM_HIDDEN;
void *memasm_memmove_shared(void *, const void *, size_t) MEMASM_HIDDEN;
void *memasm_memset_shared(void *, int, size_t) MEMASM_HIDDEN;
void *memasm_memcpy_base(void *, const void *, size_t) MEMASM_HIDDEN;
void *memasm_memmove_base(void *, const void *, size_t) MEMASM_HIDDEN;
void *memasm_memset_base(void *, int, size_t) MEMASM_HIDDEN;
void *memasm_memcpy_avx2(void *, const void *, size_t) MEMASM_HIDDEN;
void *memasm_memmove_avx2(void *, const void *, size_t) MEMASM_HIDDEN;
void *memasm_memset_avx2(void *, int, size_t) MEMASM_HIDDEN;
#endif

/* The entry points the shared library's callers run on this CPU: on x86_64
 * the base, the AVX2 or the shared set (c/entry-select.h), elsewhere the
 * public names.
 * memasm-bench and memasm-tune are linked with the archive, whose public
 * names are always the shared set, and call these instead, so that they
 * measure what a program linked with libmemasm.so runs. */
struct memasm_entries {
    const char *name; /* "base", "avx2", "shared" or "public" */
    memasm_copy_fn cpy, mov;
    memasm_set_fn set;
};
void memasm_entries_bound(struct memasm_entries *out) MEMASM_HIDDEN;

/* Level index of an ISA name given as pointer + length; -1 if unknown. */
int memasm_isa_level_n(const char *name, size_t len) MEMASM_HIDDEN;

/* ==== Layer 3: configuration (c/config.c; memasm.conf(5)) ============== */

/* Read, parse and check; nothing here applies, records or prints anything. */

enum { MEMASM_SRC_DEFAULT = 0, MEMASM_SRC_FILE = 1, MEMASM_SRC_INLINE = 2, MEMASM_SRC_ENV_ISA = 3 };

#define MEMASM_CONFIG_FILE_MAX 65536   /* bytes; larger files are rejected   */
#define MEMASM_CONFIG_INLINE_MAX 4096  /* bytes of MEMASM_TUNABLES           */
#define MEMASM_CONFIG_PATH_MAX 4096    /* bytes of MEMASM_CONFIG             */
#define MEMASM_CONFIG_PROBLEM_MAX 480  /* fits memasm_diag()'s line          */

/* What memasm_config_read() found. */
struct memasm_config_result {
    uint64_t thr[MEMASM_THR_COUNT];          /* the set to publish (success) */
    unsigned char thr_src[MEMASM_THR_COUNT]; /* MEMASM_SRC_* of each; 0s on failure */
    int isa;                                 /* ISA level asked for, -1: none */
    int isa_src;                             /* MEMASM_SRC_* of isa */
    int file_isa; /* the level the file's own 'isa' line names (its thresholds
                   * were tuned with that level's kernels), -1: none */
    int nothing;  /* no file and no inline text: nothing to apply */
    int quiet;    /* the problem is the system file's: print it only when debugging */
    const char *file; /* the file read or refused (the caller's path), or NULL */
    int file_system;  /* file is the system file */
    const char *no_file, *no_file_path; /* why no file was read (for debug), or NULL */
    char problem[MEMASM_CONFIG_PROBLEM_MAX]; /* without "libmemasm: "; "" when none */
};

/* The keys a configuration gave (thr_src not MEMASM_SRC_DEFAULT), one bit
 * per index, as memasm_threshold_compose takes them. */
uint32_t memasm_config_given(const unsigned char src[MEMASM_THR_COUNT]) MEMASM_HIDDEN;

/* Read path (NULL or "": no file; system: read it as the system file, see
 * memasm_config_load_system), then inline_str (MEMASM_TUNABLES, may be
 * NULL), and check the result against this CPU and the defaults: 0 with
 * *res ready to apply, -1 with res->problem.  Keeps errno. */
int memasm_config_read(const char *path, int system, const char *inline_str,
                       struct memasm_config_result *res) MEMASM_HIDDEN;

/* The parser on text alone, for the tests and the fuzzer: parse text
 * (file format when source is MEMASM_SRC_FILE, else MEMASM_TUNABLES format)
 * and check it against this CPU and the current defaults.  Returns 0 or -1;
 * out (may be NULL) receives the thresholds that would be applied, problem
 * (may be NULL) the message. */
int memasm_config_try(const char *text, size_t len, int source,
                      uint64_t out[MEMASM_THR_COUNT], char *problem, size_t problem_cap) MEMASM_HIDDEN;

/* What memasm-tune adds to the file: header lines (LF-separated, each
 * written as a comment), and a remark line above each key (indexed by
 * MEMASM_THR_*) and above the ISA cap.  NULL entries are left out. */
struct memasm_config_notes {
    const char *header;
    const char *remark[MEMASM_THR_COUNT];
    const char *isa_remark;
};

/* A configuration file for this CPU with ISA level isa and thresholds thr,
 * with notes (may be NULL), into buf; returns the full length (like
 * snprintf), buf is NUL-terminated when cap > 0.  writer names the program
 * in the header comment. */
size_t memasm_config_format(char *buf, size_t cap, const char *writer,
                            const struct memasm_config_notes *notes, int isa,
                            const uint64_t thr[MEMASM_THR_COUNT]) MEMASM_HIDDEN;

/* v as the file format writes it ("never", 4M, 48K, 1000) into buf (not
 * NUL-terminated); returns its length. */
size_t memasm_config_value_text(char *buf, size_t cap, uint64_t v) MEMASM_HIDDEN;

/* Every key and ISA level name of every architecture (the others' are
 * accepted and ignored). */
extern const char *const memasm_config_all_keys[] MEMASM_HIDDEN;
extern const size_t memasm_config_all_keys_count MEMASM_HIDDEN;
extern const char *const memasm_config_all_isas[] MEMASM_HIDDEN;
extern const size_t memasm_config_all_isas_count MEMASM_HIDDEN;

/* ==== Layer 4: dispatch, what is in force (c/dispatch.c) ================ */

/* Redo the automatic choice of every operation's kernel. */
void memasm_dispatch_select(void) MEMASM_HIDDEN;
/* Force kernel i of the list (-1, errno ENOTSUP, if this CPU cannot run it);
 * give op back to the automatic choice (-1, errno EINVAL, for a bad op). */
int memasm_dispatch_force(long i) MEMASM_HIDDEN;
int memasm_dispatch_auto(memasm_op op) MEMASM_HIDDEN;
/* Set the cap by index (-1 = none) and redo the automatic choice. */
int memasm_isa_set_cap_level(int level) MEMASM_HIDDEN;

/* Publish a complete, sanitized set (copied into a fresh slot). */
void memasm_threshold_publish(const uint64_t v[MEMASM_THR_COUNT]) MEMASM_HIDDEN;
/* Publish the defaults, sanitized. */
void memasm_threshold_apply_defaults(void) MEMASM_HIDDEN;
/* Set key d to value in the set in force (the other bound of its window
 * follows it) and publish; *applied (may be NULL) gets the value kept. */
void memasm_threshold_apply(const struct memasm_threshold_def *d, size_t value,
                            size_t *applied) MEMASM_HIDDEN;

/* Read (memasm_config_read) and apply MEMASM_CONFIG (path; NULL or "" for
 * no file) and then MEMASM_TUNABLES (inline, may be NULL): everything or
 * nothing.  On failure prints one "libmemasm:" line and returns -1; 0 when
 * applied or when there was nothing to apply.  debug: also describe what was
 * applied.  Keeps errno.  Not reentrant: memasm_init() calls it (or the
 * next) once; tests call them more. */
int memasm_config_load(const char *path, const char *inline_str, int debug) MEMASM_HIDDEN;

/* The same with path read as the system file (memasm_config_system_file
 * when MEMASM_CONFIG is unset; tests pass their own): a missing file is no
 * file; one that is a symbolic link, not a regular file, not owned by root,
 * writable by group or others, or refused for its content leaves the
 * defaults entirely, and its line is printed only when debug (it is still
 * recorded for memasm_config_problem()). */
int memasm_config_load_system(const char *path, const char *inline_str, int debug) MEMASM_HIDDEN;
/* Threshold index i came from a file tuned for a higher ISA level than the
 * kernel now serving its operation, and so holds that level's default. */
int memasm_threshold_tuned_dropped(int index) MEMASM_HIDDEN;

/* What the last memasm_config_load() did: source (MEMASM_SRC_*) of
 * threshold index i, and of the ISA cap; the problem line (without the
 * "libmemasm: " prefix) or NULL; the ISA level the configuration asked for
 * (-1: none). */
int memasm_config_source(int index) MEMASM_HIDDEN;
int memasm_config_isa(int *source) MEMASM_HIDDEN;
const char *memasm_config_problem(void) MEMASM_HIDDEN;
/* The file the last load read or refused (NULL: none, also when the system
 * file does not exist); *system (may be NULL) says whether it was the
 * system file.  The pointer is the caller's path. */
const char *memasm_config_file(int *system) MEMASM_HIDDEN;

/* memasm_config_format with the ISA cap and the thresholds in force. */
size_t memasm_config_write(char *buf, size_t cap, const char *writer) MEMASM_HIDDEN;
size_t memasm_config_write_notes(char *buf, size_t cap, const char *writer,
                                 const struct memasm_config_notes *notes) MEMASM_HIDDEN;

/* ==== Layer 5: the environment (c/env.c) ================================ */

/* Non-zero in a secure-execution process (getauxval(AT_SECURE)). */
int memasm_secure_mode(void) MEMASM_HIDDEN;

/* Read MEMASM_* from the environment and apply it (the caller checks
 * memasm_secure_mode() first). */
void memasm_env_apply(void) MEMASM_HIDDEN;

/* $(sysconfdir)/memasm.conf, fixed at build time. */
extern const char memasm_config_system_file[] MEMASM_HIDDEN;

/* Non-zero when MEMASM_ISA set the ISA cap in force. */
int memasm_env_isa_applied(void) MEMASM_HIDDEN;
/* The i-th environment value memasm_env_apply() ignored (MEMASM_DEBUG,
 * MEMASM_ISA), as its line without the "libmemasm: " prefix; NULL past the
 * last. */
const char *memasm_env_problem(int i) MEMASM_HIDDEN;
/* Non-zero when MEMASM_DEBUG asked for debug output (a decimal number other
 * than 0); 0 before memasm_init() and in a secure-execution process. */
int memasm_env_debug(void) MEMASM_HIDDEN;

/* ==== Layer 6: start-up (c/init.c) ====================================== */

/* One-time initialisation (CPU, defaults, environment, kernels);
 * idempotent. */
void memasm_init(void) MEMASM_HIDDEN;

#endif /* !__ASSEMBLER__ */
#endif /* MEMASM_INTERNAL_H */
