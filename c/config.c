/*
 * config.c -- the configuration: a file (the one MEMASM_CONFIG names, or
 * else the system file, $(sysconfdir)/memasm.conf; memasm-tune and
 * `memasm-info --config` write the format) and MEMASM_TUNABLES (the same
 * keys inline, "key=value:key=value"), parsed as hostile input; and the
 * writer of the file format.
 *
 * Layer 3 (configuration): uses layers 0-2 (CPU facts, thresholds, the ISA
 * names of the kernel list).  It reads and checks, and changes nothing:
 * c/dispatch.c applies what it returns and prints its problem.  See
 * c/README.md.
 *
 * This code runs in the constructor of every process that links libmemasm,
 * so it is written to be the opposite of glibc's GLIBC_TUNABLES parser
 * (CVE-2023-4911):
 *   - the caller (memasm_init) never gets here in a secure-execution process;
 *   - the environment string is read in place as pointer + length, never
 *     written, never copied, parsed once, and rejected whole when longer than
 *     MEMASM_CONFIG_INLINE_MAX or with too many entries;
 *   - the file must be a regular file of at most MEMASM_CONFIG_FILE_MAX
 *     bytes; it is stat()ed before it is opened (so a FIFO or a device is
 *     never opened), opened O_RDONLY|O_CLOEXEC|O_NOCTTY|O_NONBLOCK, checked
 *     again with fstat() to be the file that was stat()ed, and read into one
 *     static buffer; a file whose size changes while it is read is rejected;
 *   - the system file, which nobody asked for by name, is moreover not
 *     reached through a symbolic link (lstat(), O_NOFOLLOW) and must be
 *     owned by root and writable by no one else, checked on the open
 *     descriptor; its absence is normal, and its problems are marked to be
 *     printed only under MEMASM_DEBUG=1 (memasm-info always shows them);
 *   - no malloc, no stdio, no locale; errno is kept for the caller;
 *   - everything is validated first (syntax, keys, ranges, the CPU
 *     fingerprint, ordering between thresholds) and returned as one result,
 *     which the caller applies with one publication, or applies nothing and
 *     prints the one "libmemasm:" line that says why;
 *   - a repeated key overwrites the earlier value: nothing grows per token.
 * The format is documented in doc/configuration.md and memasm.conf(5).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memasm-internal.h"

#if defined(__x86_64__)
#define ARCH_NAME "x86_64"
#elif defined(__aarch64__)
#define ARCH_NAME "aarch64"
#elif defined(__riscv)
#define ARCH_NAME "riscv64"
#endif

#define FILE_ENTRIES_MAX 1024 /* key = value lines in a file */
#define INLINE_ENTRIES_MAX 64 /* entries in MEMASM_TUNABLES  */
#define NAME_MAX_LEN 15       /* cpu.arch, cpu.vendor values */

/* Every key of every architecture (one file format everywhere). */
const char *const memasm_config_all_keys[] = {
    "memcpy.erms_min", "memcpy.erms_max", "memcpy.nt_min",  "memset.erms_min", "memset.erms_max",
    "memset.nt_min",   "memset.zva_min",  "memcpy.rvv_min", "memset.rvv_min",
    "memcpy.bwd_prefetch_min", "memcpy.bwd_prefetch_max", "memcpy.bwd_nt_min",
    "memcpy.erms_min_dist", "memcpy.alias_nt_min", "memcpy.alias_erms_min",
};
const size_t memasm_config_all_keys_count =
    sizeof memasm_config_all_keys / sizeof memasm_config_all_keys[0];

const char *const memasm_config_all_isas[] = {
    "sse2", "avx2", "avx512", "generic", "neon", "sve", "scalar", "rvv",
};
const size_t memasm_config_all_isas_count =
    sizeof memasm_config_all_isas / sizeof memasm_config_all_isas[0];

/* Fingerprint fields, in the order the writer prints them. */
enum { FP_ARCH, FP_VENDOR, FP_FAMILY, FP_MODEL, FP_STEPPING, FP_L1D, FP_L2, FP_L3, FP_VLEN, FP_COUNT };
static const char *const fp_keys[FP_COUNT] = {
    "cpu.arch", "cpu.vendor", "cpu.family", "cpu.model", "cpu.stepping",
    "cpu.l1d",  "cpu.l2",     "cpu.l3",     "cpu.vlen",
};

/* A configuration being parsed: file and inline accumulate into one. */
struct cfg {
    uint64_t thr[MEMASM_THR_COUNT];
    unsigned char thr_src[MEMASM_THR_COUNT];
    unsigned thr_line[MEMASM_THR_COUNT];
    int isa;
    unsigned char isa_src;
    int file_isa; /* the level the file's own 'isa' line names, -1: none */
    int have_file;
    int cpu_any;
    unsigned fp_have; /* bit per FP_* */
    unsigned fp_line[FP_COUNT];
    uint64_t fp_num[FP_COUNT];
    char fp_name[FP_COUNT][NAME_MAX_LEN + 1]; /* FP_ARCH, FP_VENDOR */
    const char *path;                         /* the file, for messages */
    size_t path_len;
    int system;   /* path is the system file: stricter rules, quiet problems */
    int fail_src; /* MEMASM_SRC_* of the problem reported */
    char *problem;
    size_t problem_cap;
};

/* ---- message building (bounded, untrusted text made printable) --------- */

struct msg {
    char *buf;
    size_t cap, len; /* buf[cap] is never written; len < cap */
};

static void m_raw(struct msg *m, const char *s, size_t n)
{
    for (size_t i = 0; i < n && m->len + 1 < m->cap; i++)
        m->buf[m->len++] = s[i];
    if (m->cap)
        m->buf[m->len] = '\0';
}

static void m_str(struct msg *m, const char *s)
{
    m_raw(m, s, strlen(s));
}

/* Untrusted text: at most max bytes, control and non-ASCII bytes as '?'. */
static void m_untrusted(struct msg *m, const char *s, size_t n, size_t max)
{
    size_t limit = n > max ? max : n;
    for (size_t i = 0; i < limit; i++) {
        unsigned char ch = (unsigned char)s[i];
        char c = ch < 0x20 || ch > 0x7e ? '?' : (char)ch;
        m_raw(m, &c, 1);
    }
    if (limit < n)
        m_str(m, "...");
}

/* An untrusted token: at most 48 bytes. */
static void m_bad(struct msg *m, const char *s, size_t n)
{
    m_untrusted(m, s, n, 48);
}

static void m_num(struct msg *m, uint64_t v)
{
    char d[24];
    size_t i = sizeof d;
    do {
        d[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    m_raw(m, d + i, sizeof d - i);
}

/* A value as the file format writes it: "never", 4M, 48K or 1000. */
static void m_value(struct msg *m, uint64_t v)
{
    static const char suffix[] = "GMK";
    if (v == UINT64_MAX) {
        m_str(m, "never");
        return;
    }
    for (int s = 0; s < 3; s++) {
        unsigned shift = 30 - 10 * (unsigned)s;
        if (v && v % ((uint64_t)1 << shift) == 0) {
            m_num(m, v >> shift);
            m_raw(m, &suffix[s], 1);
            return;
        }
    }
    m_num(m, v);
}

/* Start the problem message with where it is: the file and line, or the
 * MEMASM_TUNABLES entry. */
static void fail_at(struct cfg *c, struct msg *m, int source, unsigned line)
{
    m->buf = c->problem;
    m->cap = c->problem_cap;
    m->len = 0;
    if (m->cap)
        m->buf[0] = '\0';
    c->fail_src = source;
    if (source == MEMASM_SRC_FILE) {
        m_str(m, c->system ? "system file " : "MEMASM_CONFIG ");
        m_untrusted(m, c->path ? c->path : "(text)", c->path ? c->path_len : 6, 160);
        if (line) {
            m_str(m, ":");
            m_num(m, line);
        }
    } else {
        m_str(m, "MEMASM_TUNABLES");
        if (line) {
            m_str(m, " entry ");
            m_num(m, line);
        }
    }
    m_str(m, ": ");
}

static int fail(struct cfg *c, int source, unsigned line, const char *what, const char *bad,
                size_t bad_len, const char *tail)
{
    struct msg m;
    fail_at(c, &m, source, line);
    m_str(&m, what);
    if (bad) {
        m_str(&m, " '");
        m_bad(&m, bad, bad_len);
        m_str(&m, "'");
    }
    if (tail)
        m_str(&m, tail);
    return -1;
}

/* ---- tokens ------------------------------------------------------------- */

static int is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r';
}

static void trim(const char **p, size_t *n)
{
    while (*n && is_space(**p)) {
        (*p)++;
        (*n)--;
    }
    while (*n && is_space((*p)[*n - 1]))
        (*n)--;
}

static int equals(const char *p, size_t n, const char *s)
{
    return strlen(s) == n && memcmp(p, s, n) == 0;
}

/* Unsigned decimal, optional K/M/G (powers of 1024), or "never" when
 * allow_never; the whole token.  0; NOT_A_NUMBER; TOO_LARGE for digits
 * (and suffix) whose value does not fit in 64 bits. */
enum { NOT_A_NUMBER = -1, TOO_LARGE = -2 };
static int parse_number(const char *p, size_t n, int allow_never, uint64_t *out)
{
    if (allow_never && equals(p, n, "never")) {
        *out = UINT64_MAX;
        return 0;
    }
    unsigned shift = 0;
    if (n && (p[n - 1] == 'K' || p[n - 1] == 'M' || p[n - 1] == 'G')) {
        shift = p[n - 1] == 'K' ? 10 : p[n - 1] == 'M' ? 20 : 30;
        n--;
    }
    if (n == 0)
        return NOT_A_NUMBER;
    uint64_t v = 0;
    int overflow = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return NOT_A_NUMBER;
        unsigned d = (unsigned)(p[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            overflow = 1; /* keep going: a later non-digit makes it no number */
        v = v * 10 + d;
    }
    if (overflow || (shift && v > (UINT64_MAX >> shift)))
        return TOO_LARGE;
    *out = v << shift;
    return 0;
}

static int in_list(const char *const *list, size_t count, const char *p, size_t n)
{
    for (size_t i = 0; i < count; i++)
        if (equals(p, n, list[i]))
            return 1;
    return 0;
}

/* ---- one entry: "key = value" ------------------------------------------ */

/* "key = value is <what> (legal: min to max)"; with never, the bounds as
 * the format writes them (UINT64_MAX is "never"), else in digits. */
static int range_fail(struct cfg *c, int source, unsigned line, const char *k, size_t kn,
                      const char *v, size_t vn, const char *what, uint64_t min, uint64_t max,
                      int never)
{
    struct msg m;
    fail_at(c, &m, source, line);
    m_bad(&m, k, kn);
    m_str(&m, " = ");
    m_bad(&m, v, vn);
    m_str(&m, what);
    m_str(&m, " (legal: ");
    if (never)
        m_value(&m, min);
    else
        m_num(&m, min);
    m_str(&m, " to ");
    if (never)
        m_value(&m, max);
    else
        m_num(&m, max);
    m_str(&m, ")");
    return -1;
}

/* The value of k that parse_number() refused with r (never: whether the
 * key takes "never"; min, max: its legal range). */
static int number_fail(struct cfg *c, int source, unsigned line, int r, const char *k, size_t kn,
                       const char *v, size_t vn, uint64_t min, uint64_t max, int never)
{
    if (r == TOO_LARGE)
        return range_fail(c, source, line, k, kn, v, vn, " is too large", min, max, never);
    return fail(c, source, line,
                never ? "not a number (digits, optional K/M/G, or never):"
                      : "not a number (digits, optional K/M/G):",
                v, vn, NULL);
}

static int entry(struct cfg *c, int source, unsigned line, const char *p, size_t n)
{
    const char *eq = memchr(p, '=', n);
    if (!eq)
        return fail(c, source, line, "expected 'key = value', got", p, n, NULL);
    const char *k = p, *v = eq + 1;
    size_t kn = (size_t)(eq - p), vn = n - kn - 1;
    trim(&k, &kn);
    trim(&v, &vn);
    if (kn == 0)
        return fail(c, source, line, "empty key in", p, n, NULL);
    if (vn == 0)
        return fail(c, source, line, "empty value for", k, kn, NULL);
    if (memchr(v, '=', vn))
        return fail(c, source, line, "'=' in the value of", k, kn, " (one 'key = value' per entry)");

    uint64_t x;
    int r;
    const struct memasm_threshold_def *d = memasm_threshold_lookup(k, kn);
    if (d) {
        if ((r = parse_number(v, vn, 1, &x)) < 0)
            return number_fail(c, source, line, r, k, kn, v, vn, d->min, d->max, 1);
        if (x < d->min || x > d->max)
            return range_fail(c, source, line, k, kn, v, vn, " is out of range", d->min, d->max, 1);
        c->thr[d->index] = x;
        c->thr_src[d->index] = (unsigned char)source;
        c->thr_line[d->index] = line;
        return 0;
    }
    if (in_list(memasm_config_all_keys, memasm_config_all_keys_count, k, kn)) {
        /* Another architecture's key: checked, then ignored. */
        if ((r = parse_number(v, vn, 1, &x)) < 0)
            return number_fail(c, source, line, r, k, kn, v, vn, 0, UINT64_MAX, 1);
        return 0;
    }
    if (equals(k, kn, "isa")) {
        int level = memasm_isa_level_n(v, vn);
        if (level >= 0) {
            c->isa = level;
            c->isa_src = (unsigned char)source;
            if (source == MEMASM_SRC_FILE)
                c->file_isa = level;
        } else if (!in_list(memasm_config_all_isas, memasm_config_all_isas_count, v, vn)) {
            struct msg m;
            fail_at(c, &m, source, line);
            m_str(&m, "unknown ISA level '");
            m_bad(&m, v, vn);
            m_str(&m, "' (levels here: ");
            for (int i = 0; i < memasm_isa_names_count; i++) {
                m_str(&m, i ? ", " : "");
                m_str(&m, memasm_isa_names[i]);
            }
            m_str(&m, ")");
            return -1;
        }
        return 0;
    }
    if (kn >= 3 && memcmp(k, "cpu", 3) == 0 && (kn == 3 || k[3] == '.')) {
        if (source != MEMASM_SRC_FILE)
            return fail(c, source, line, "the CPU fingerprint belongs in the file (MEMASM_CONFIG):",
                        k, kn, NULL);
        if (kn == 3) {
            if (!equals(v, vn, "any"))
                return fail(c, source, line, "'cpu' takes only the value 'any', not", v, vn, NULL);
            c->cpu_any = 1;
            return 0;
        }
        for (int f = 0; f < FP_COUNT; f++) {
            if (!equals(k, kn, fp_keys[f]))
                continue;
            if (f == FP_ARCH || f == FP_VENDOR) {
                if (vn > NAME_MAX_LEN)
                    return fail(c, source, line, "name too long:", v, vn, NULL);
                memcpy(c->fp_name[f], v, vn);
                c->fp_name[f][vn] = '\0';
            } else if ((r = parse_number(v, vn, 0, &c->fp_num[f])) < 0) {
                return number_fail(c, source, line, r, k, kn, v, vn, 0, UINT64_MAX, 0);
            }
            c->fp_have |= 1u << f;
            c->fp_line[f] = line;
            return 0;
        }
    }
    return fail(c, source, line, "unknown key", k, kn, " (keys: memasm.conf(5))");
}

/* ---- the two formats ---------------------------------------------------- */

/* File: lines of "key = value", '#' starts a comment, blank lines.  Bytes
 * other than printable ASCII, tab and CR are refused (a binary file), except
 * non-ASCII text inside comments. */
static int parse_file(struct cfg *c, const char *text, size_t len)
{
    unsigned line = 0, entries = 0;
    size_t pos = 0;
    c->have_file = 1;
    while (pos < len) {
        line++;
        const char *p = text + pos;
        const char *nl = memchr(p, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - p) : len - pos;
        pos += n + 1;
        size_t content = n;
        for (size_t i = 0; i < n; i++) {
            unsigned char ch = (unsigned char)p[i];
            if (ch == '#' && content == n)
                content = i;
            if (ch == 0)
                return fail(c, MEMASM_SRC_FILE, line, "NUL byte (not a text file)", NULL, 0, NULL);
            if ((ch < 0x20 && ch != '\t' && ch != '\r') || ch == 0x7f ||
                (ch > 0x7f && i < content))
                return fail(c, MEMASM_SRC_FILE, line, "binary or non-ASCII byte (not a text file)",
                            NULL, 0, NULL);
        }
        const char *q = p;
        trim(&q, &content);
        if (content == 0)
            continue;
        if (++entries > FILE_ENTRIES_MAX)
            return fail(c, MEMASM_SRC_FILE, line, "too many entries (at most 1024)", NULL, 0, NULL);
        if (entry(c, MEMASM_SRC_FILE, line, q, content) < 0)
            return -1;
    }
    return 0;
}

/* MEMASM_TUNABLES: entries separated by ':'; empty entries are skipped.
 * Printable ASCII only, no comments. */
static int parse_inline(struct cfg *c, const char *text, size_t len)
{
    unsigned number = 0;
    if (len > MEMASM_CONFIG_INLINE_MAX)
        return fail(c, MEMASM_SRC_INLINE, 0, "longer than 4096 bytes, ignored whole", NULL, 0,
                    NULL);
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch < 0x20 || ch > 0x7e || ch == '#')
            return fail(c, MEMASM_SRC_INLINE, 0, "control, non-ASCII or '#' character", NULL, 0,
                        NULL);
    }
    size_t pos = 0;
    while (pos < len) {
        const char *p = text + pos;
        const char *colon = memchr(p, ':', len - pos);
        size_t n = colon ? (size_t)(colon - p) : len - pos;
        pos += n + 1;
        const char *q = p;
        trim(&q, &n);
        if (n == 0)
            continue;
        if (++number > INLINE_ENTRIES_MAX)
            return fail(c, MEMASM_SRC_INLINE, number, "too many entries (at most 64)", NULL, 0,
                        NULL);
        if (entry(c, MEMASM_SRC_INLINE, number, q, n) < 0)
            return -1;
    }
    return 0;
}

/* ---- validation against this CPU and the defaults ---------------------- */

static void trimmed_vendor(const struct memasm_cpu *cpu, const char **p, size_t *n)
{
    *p = cpu->vendor;
    *n = strnlen(cpu->vendor, sizeof cpu->vendor);
    trim(p, n);
}

static uint64_t cpu_fp_num(const struct memasm_cpu *cpu, int f)
{
    switch (f) {
    case FP_FAMILY: return (uint64_t)(unsigned)cpu->family;
    case FP_MODEL: return (uint64_t)(unsigned)cpu->model;
    case FP_STEPPING: return (uint64_t)(unsigned)cpu->stepping;
    case FP_L1D: return cpu->l1d;
    case FP_L2: return cpu->l2;
    case FP_L3: return cpu->l3;
    case FP_VLEN: return cpu->vlen;
    default: return 0;
    }
}

static int check_fingerprint(struct cfg *c)
{
    if (!c->have_file || c->cpu_any)
        return 0;
    if (!c->fp_have)
        return fail(c, MEMASM_SRC_FILE, 0,
                    "no CPU fingerprint (cpu.* lines); re-run memasm-tune, or add 'cpu = any' to "
                    "apply it on any CPU",
                    NULL, 0, NULL);
    const struct memasm_cpu *cpu = memasm_cpu_get();
    for (int f = 0; f < FP_COUNT; f++) {
        if (!(c->fp_have & (1u << f)))
            continue;
        const char *have;
        size_t have_n;
        uint64_t num = 0;
        int same;
        if (f == FP_ARCH) {
            have = ARCH_NAME;
            have_n = strlen(have);
            same = equals(have, have_n, c->fp_name[f]);
        } else if (f == FP_VENDOR) {
            trimmed_vendor(cpu, &have, &have_n);
            same = strlen(c->fp_name[f]) == have_n && memcmp(c->fp_name[f], have, have_n) == 0;
        } else {
            have = NULL;
            have_n = 0;
            num = cpu_fp_num(cpu, f);
            same = num == c->fp_num[f];
        }
        if (same)
            continue;
        struct msg m;
        fail_at(c, &m, MEMASM_SRC_FILE, c->fp_line[f]);
        m_str(&m, "tuned for another CPU (");
        m_str(&m, fp_keys[f]);
        m_str(&m, " = ");
        if (have)
            m_bad(&m, c->fp_name[f], strlen(c->fp_name[f]));
        else
            m_value(&m, c->fp_num[f]);
        m_str(&m, ", this one has ");
        if (have)
            m_bad(&m, have, have_n);
        else
            m_value(&m, num);
        m_str(&m, "); not applied: re-run memasm-tune, or put 'cpu = any' in the file");
        return -1;
    }
    return 0;
}

uint32_t memasm_config_given(const unsigned char src[MEMASM_THR_COUNT])
{
    uint32_t mask = 0;
    for (int i = 0; i < MEMASM_THR_COUNT; i++)
        if (src[i] != MEMASM_SRC_DEFAULT)
            mask |= (uint32_t)1 << i;
    return mask;
}

/* Merge onto the thresholds in force and check that sanitizing (clamping,
 * ordering) keeps every value the configuration set: a value it would have
 * to move is a conflict, reported rather than silently changed. */
static int merge(struct cfg *c, uint64_t v[MEMASM_THR_COUNT])
{
    memasm_threshold_compose(v, c->thr, memasm_config_given(c->thr_src));
    for (size_t j = 0; j < memasm_threshold_defs_count; j++) {
        const struct memasm_threshold_def *d = &memasm_threshold_defs[j];
        int i = d->index;
        if (!c->thr_src[i] || v[i] == c->thr[i])
            continue;
        struct msg m;
        fail_at(c, &m, c->thr_src[i], c->thr_line[i]);
        m_str(&m, d->key);
        m_str(&m, " = ");
        m_value(&m, c->thr[i]);
        m_str(&m, " breaks an ordering constraint with the other thresholds (it would become ");
        m_value(&m, v[i]);
        m_str(&m, "; e.g. erms_min <= erms_max: set both)");
        return -1;
    }
    return 0;
}

static void cfg_init(struct cfg *c, char *problem, size_t problem_cap)
{
    memset(c, 0, sizeof *c);
    c->isa = -1;
    c->file_isa = -1;
    c->problem = problem;
    c->problem_cap = problem_cap;
    if (problem_cap)
        problem[0] = '\0';
}

int memasm_config_try(const char *text, size_t len, int source, uint64_t out[MEMASM_THR_COUNT],
                      char *problem, size_t problem_cap)
{
    struct cfg c;
    uint64_t v[MEMASM_THR_COUNT];
    int saved = errno;
    cfg_init(&c, problem, problem_cap);
    int r = source == MEMASM_SRC_FILE ? parse_file(&c, text, len) : parse_inline(&c, text, len);
    if (r == 0)
        r = check_fingerprint(&c);
    if (r == 0)
        r = merge(&c, v);
    if (r == 0 && out)
        memcpy(out, v, sizeof v);
    errno = saved;
    return r;
}

/* ---- the file ----------------------------------------------------------- */

static char file_buf[MEMASM_CONFIG_FILE_MAX + 1];

static const char *errno_text(int e)
{
    switch (e) {
    case ENOENT: return "no such file";
    case EACCES: return "permission denied";
    case ELOOP: return "too many levels of symbolic links";
    case ENOTDIR: return "a path component is not a directory";
    case ENAMETOOLONG: return "name too long";
    case EISDIR: return "is a directory";
    case EIO: return "input/output error";
    default: return "cannot be read";
    }
}

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The system file's ownership and mode, on the open descriptor's fstat():
 * root's, and writable by nobody else, so no other user chose its values. */
static int system_file_trusted(struct cfg *c, const struct stat *st)
{
    struct msg m;
    if (st->st_uid != 0) {
        fail_at(c, &m, MEMASM_SRC_FILE, 0);
        m_str(&m, "owned by uid ");
        m_num(&m, st->st_uid);
        m_str(&m, "; the system file must be owned by root");
        return -1;
    }
    if (st->st_mode & (S_IWGRP | S_IWOTH))
        return fail(c, MEMASM_SRC_FILE, 0,
                    "writable by group or others; the system file must be writable only by root",
                    NULL, 0, NULL);
    return 0;
}

/* Read c->path into file_buf; *len receives its size.  Only a regular file
 * of at most MEMASM_CONFIG_FILE_MAX bytes is opened at all.  The system file
 * (c->system) must be that file itself, not a symbolic link (lstat(), then
 * O_NOFOLLOW against a swap in between), and pass system_file_trusted().
 * Returns 0 when read, -1 on a problem, 1 when the system file does not
 * exist (not a problem). */
static int read_file(struct cfg *c, size_t *len)
{
    struct stat before, st;
    if ((c->system ? lstat(c->path, &before) : stat(c->path, &before)) < 0) {
        if (c->system && errno == ENOENT)
            return 1;
        return fail(c, MEMASM_SRC_FILE, 0, errno_text(errno), NULL, 0, NULL);
    }
    if (S_ISLNK(before.st_mode))
        return fail(c, MEMASM_SRC_FILE, 0,
                    "a symbolic link; the system file must be the file itself", NULL, 0, NULL);
    if (S_ISDIR(before.st_mode))
        return fail(c, MEMASM_SRC_FILE, 0, "is a directory, not a file", NULL, 0, NULL);
    if (!S_ISREG(before.st_mode))
        return fail(c, MEMASM_SRC_FILE, 0, "not a regular file (FIFO, device or socket)", NULL, 0,
                    NULL);
    if (before.st_size > MEMASM_CONFIG_FILE_MAX)
        return fail(c, MEMASM_SRC_FILE, 0, "larger than 64 KiB", NULL, 0, NULL);
    int fd = open(c->path,
                  O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (c->system ? O_NOFOLLOW : 0));
    if (fd < 0)
        return fail(c, MEMASM_SRC_FILE, 0, errno_text(errno), NULL, 0, NULL);
    int r = 0;
    size_t got = 0;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !same_file(&before, &st)) {
        r = fail(c, MEMASM_SRC_FILE, 0, "replaced while being opened", NULL, 0, NULL);
    } else if (!c->system || (r = system_file_trusted(c, &st)) == 0) {
        /* Read one byte more than allowed, to see a file that grew. */
        while (got < sizeof file_buf) {
            ssize_t n = read(fd, file_buf + got, sizeof file_buf - got);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0) {
                r = fail(c, MEMASM_SRC_FILE, 0, errno_text(errno), NULL, 0, NULL);
                break;
            }
            if (n == 0)
                break;
            got += (size_t)n;
        }
        if (r == 0 && got > MEMASM_CONFIG_FILE_MAX)
            r = fail(c, MEMASM_SRC_FILE, 0, "larger than 64 KiB", NULL, 0, NULL);
        else if (r == 0 && (off_t)got != st.st_size)
            r = fail(c, MEMASM_SRC_FILE, 0, "changed size while being read", NULL, 0, NULL);
    }
    close(fd);
    *len = got;
    return r;
}

/* ---- read and check, nothing applied ---------------------------------- */

size_t memasm_config_value_text(char *buf, size_t cap, uint64_t v)
{
    struct msg m = {buf, cap, 0};
    m_value(&m, v);
    return m.len;
}

int memasm_config_read(const char *path, int system, const char *inline_str,
                       struct memasm_config_result *res)
{
    int saved = errno;
    struct cfg c;
    size_t len = 0;
    int r = 0;

    memset(res, 0, sizeof *res);
    res->isa = -1;
    res->file_isa = -1;
    res->no_file_path = "";
    cfg_init(&c, res->problem, sizeof res->problem);
    c.system = system;
    if (path && !path[0]) {
        /* MEMASM_CONFIG set but empty: no file at all, not even the system one. */
        res->no_file = "MEMASM_CONFIG is empty: no configuration file";
        path = NULL;
    }
    if (path) {
        c.path = path;
        c.path_len = strnlen(path, MEMASM_CONFIG_PATH_MAX + 1);
        if (c.path_len > MEMASM_CONFIG_PATH_MAX)
            r = fail(&c, MEMASM_SRC_FILE, 0, "path too long", NULL, 0, NULL);
        else if ((r = read_file(&c, &len)) == 0)
            r = parse_file(&c, file_buf, len);
        if (r > 0) {
            /* No system file: the usual case, the defaults and inline apply. */
            res->no_file = "no system file ";
            res->no_file_path = path;
            path = c.path = NULL;
            r = 0;
        } else {
            res->file = path;
            res->file_system = system;
        }
    }
    if (r == 0 && !path && !inline_str) {
        res->nothing = 1;
        goto out;
    }
    if (r == 0 && inline_str) {
        size_t n = strnlen(inline_str, MEMASM_CONFIG_INLINE_MAX + 1);
        r = parse_inline(&c, inline_str, n);
    }
    if (r == 0)
        r = check_fingerprint(&c);
    if (r == 0)
        r = merge(&c, res->thr);
    if (r < 0) {
        /* The system file's problems are its administrator's business, not
         * every process's (the caller prints them only when debugging). */
        res->quiet = c.system && c.fail_src == MEMASM_SRC_FILE;
        goto out;
    }
    memcpy(res->thr_src, c.thr_src, sizeof res->thr_src);
    res->isa = c.isa;
    res->isa_src = c.isa_src;
    res->file_isa = c.file_isa;
out:
    errno = saved;
    return r;
}

/* ---- the writer --------------------------------------------------------- */

/* Each line of text as a comment line ("# " + the line), with bytes other
 * than printable ASCII as '?'; *total counts what was (or would be)
 * written. */
static void emit_comment(struct msg *out, size_t *total, const char *text)
{
    while (text && *text) {
        size_t n = strcspn(text, "\n");
        m_raw(out, "# ", 2);
        for (size_t i = 0; i < n; i++) {
            unsigned char ch = (unsigned char)text[i];
            char c = ch < 0x20 || ch > 0x7e ? '?' : (char)ch;
            m_raw(out, &c, 1);
        }
        m_raw(out, "\n", 1);
        *total += n + 3;
        text += n;
        if (*text)
            text++;
    }
}

size_t memasm_config_format(char *buf, size_t cap, const char *writer,
                            const struct memasm_config_notes *notes, int isa,
                            const uint64_t thr[MEMASM_THR_COUNT])
{
    /* Built line by line: each line is counted in total even when buf is
     * too small to hold it. */
    char line[256];
    size_t total = 0;
    const struct memasm_cpu *cpu = memasm_cpu_get();
    struct msg out = {buf, cap, 0};
    if (cap)
        buf[0] = '\0';

#define EMIT()                                                                                   \
    do {                                                                                         \
        m_raw(&out, line, lm.len);                                                               \
        total += lm.len;                                                                         \
    } while (0)
/* The line so far, then a note's comment lines; the line starts again. */
#define EMIT_NOTE(field)                                                                         \
    do {                                                                                         \
        EMIT();                                                                                  \
        if (notes)                                                                               \
            emit_comment(&out, &total, notes->field);                                            \
        lm.len = 0;                                                                              \
    } while (0)

    for (int part = 0;; part++) {
        struct msg lm = {line, sizeof line, 0};
        if (part == 0) {
            m_str(&lm, "# libmemasm configuration (MEMASM_CONFIG); format: memasm.conf(5)\n");
            m_str(&lm, "# written by ");
            m_bad(&lm, writer ? writer : "libmemasm", writer ? strlen(writer) : 9);
            m_str(&lm, " for ");
            const char *brand = cpu->brand;
            size_t brand_n = strnlen(cpu->brand, sizeof cpu->brand);
            trim(&brand, &brand_n);
            m_bad(&lm, brand_n ? brand : "an unnamed CPU", brand_n ? brand_n : 14);
            m_str(&lm, "\n");
            EMIT_NOTE(header);
            m_str(&lm, "# applied only on a CPU with this fingerprint (or add: cpu = any)\n");
        } else if (part <= FP_COUNT) {
            int f = part - 1;
            if (f == FP_VLEN && !cpu->vlen)
                continue;
            m_str(&lm, fp_keys[f]);
            m_str(&lm, " = ");
            if (f == FP_ARCH) {
                m_str(&lm, ARCH_NAME);
            } else if (f == FP_VENDOR) {
                const char *p;
                size_t n;
                trimmed_vendor(cpu, &p, &n);
                if (n == 0) {
                    p = "unknown";
                    n = 7;
                }
                for (size_t i = 0; i < n; i++) {
                    char ch = p[i] == '#' || p[i] == '=' || p[i] == ':' ? '_' : p[i];
                    m_bad(&lm, &ch, 1);
                }
            } else {
                m_value(&lm, cpu_fp_num(cpu, f));
            }
            m_str(&lm, "\n");
        } else if (part == FP_COUNT + 1) {
            m_str(&lm, "\n# ISA level cap (can only lower what the CPU supports)\n");
            EMIT_NOTE(isa_remark);
            m_str(&lm, "isa = ");
            m_str(&lm, memasm_isa_names[isa]);
            m_str(&lm, "\n");
        } else if ((size_t)(part - FP_COUNT - 2) < memasm_threshold_defs_count) {
            const struct memasm_threshold_def *d = &memasm_threshold_defs[part - FP_COUNT - 2];
            m_str(&lm, "\n# ");
            m_str(&lm, d->doc);
            m_str(&lm, "\n");
            EMIT_NOTE(remark[d->index]);
            m_str(&lm, d->key);
            m_str(&lm, " = ");
            m_value(&lm, thr[d->index]);
            m_str(&lm, "\n");
        } else {
            break;
        }
        EMIT();
    }
#undef EMIT_NOTE
#undef EMIT
    return total;
}
