/*
 * test_config.c -- the configuration parser (c/config.c, c/env.c) as a
 * hostile-input parser: MEMASM_CONFIG files, the system file's ownership
 * rules, MEMASM_TUNABLES strings, MEMASM_ISA, MEMASM_DEBUG, and secure
 * execution.
 *
 * Linked statically with libmemasm to reach the hidden entry points
 * (memasm_config_load, memasm_config_load_system, memasm_config_try,
 * memasm_config_write).  Every bad input must leave the defaults in force
 * *entirely* and print exactly one "libmemasm:" line on stderr (a bad
 * system file: none, unless MEMASM_DEBUG=1); every good input must apply
 * all its values and print nothing.  The system-file tests use files in the
 * temporary directory through memasm_config_load_system; those that need
 * files owned by root or by another user are skipped when not root.
 * Whole-process behaviour (the constructor reading the environment) is
 * checked by running this program again as a probe
 * (`test_config --probe`), and, as root, as a setuid copy run by another
 * user (secure execution: nothing read, nothing opened).
 *
 * Data files are made in a fresh directory under $TMPDIR (or /tmp).
 */
#define _GNU_SOURCE /* setresuid, setresgid */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memasm-internal.h"

/* Paths are built in PATH_MAX buffers from shorter parts. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

/* ---- fixtures and helpers ----------------------------------------------- */

static char dir[PATH_MAX];
static char self[PATH_MAX];

static void setup(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/memasm-config-XXXXXX", t && *t ? t : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    memasm_threshold_reset();
    memasm_isa_set_cap(NULL);
}

static void teardown(void)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_config: could not remove %s\n", dir);
}

static const char *path_in(const char *name)
{
    static char p[4][PATH_MAX];
    static int next;
    char *r = p[next++ % 4];
    snprintf(r, PATH_MAX, "%s/%s", dir, name);
    return r;
}

static const char *write_file(const char *name, const void *data, size_t n)
{
    const char *p = path_in(name);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, data, n), (ssize_t)n);
    close(fd);
    return p;
}

static const char *write_text(const char *name, const char *text)
{
    return write_file(name, text, strlen(text));
}

static void defaults(uint64_t v[MEMASM_THR_COUNT])
{
    memasm_threshold_defaults(v);
    memasm_threshold_sanitize(v);
}

static int at_defaults(void)
{
    uint64_t d[MEMASM_THR_COUNT];
    defaults(d);
    return memcmp(d, (const void *)memasm_thr, sizeof d) == 0 &&
           memasm_isa_cap() == memasm_isa_cpu();
}

/* Allocation counting: the library's configuration path must not
 * allocate.  These replace glibc's allocator entry points in this program
 * and hand every call to glibc's own implementation.  Under ASan or TSan
 * (--enable-sanitizers), whose allocator must see every block, the
 * sanitizer's allocation hook counts instead. */
static volatile int counting, allocations;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define T_SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define T_SANITIZER_ALLOCATOR 1
#endif
#endif
#ifdef T_SANITIZER_ALLOCATOR
int __sanitizer_install_malloc_and_free_hooks(void (*)(const volatile void *, size_t),
                                              void (*)(const volatile void *));
static void on_malloc(const volatile void *p, size_t n)
{
    (void)p, (void)n;
    allocations += counting;
}
static void on_free(const volatile void *p)
{
    (void)p;
}
__attribute__((constructor)) static void count_with_hooks(void)
{
    __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
}
/* LeakSanitizer cannot stop the threads of a process that is not dumpable:
 * it is off in the secure-execution probe (setuid) only. */
__attribute__((visibility("default"))) int __lsan_is_turned_off(void);
__attribute__((visibility("default"))) int __lsan_is_turned_off(void)
{
    return getauxval(AT_SECURE) != 0;
}
#else
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

void *malloc(size_t n)
{
    allocations += counting;
    return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
    allocations += counting;
    return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
    allocations += counting;
    return __libc_realloc(p, n);
}
#endif

/* Run memasm_config_load (or, when system, memasm_config_load_system)
 * with stderr captured (in captured[]); returns its result.  Checks that
 * errno is kept and that nothing was allocated. */
static char captured[1 << 16];

static int load_as(int system, const char *path, const char *inl, int debug)
{
    int pfd[2];
    ck_assert_int_eq(pipe(pfd), 0);
    fflush(stderr);
    int saved = dup(2);
    dup2(pfd[1], 2);
    close(pfd[1]);
    errno = 4242;
    allocations = 0;
    counting = 1;
    int r = system ? memasm_config_load_system(path, inl, debug)
                   : memasm_config_load(path, inl, debug);
    counting = 0;
    int e = errno;
    dup2(saved, 2);
    close(saved);
    ssize_t n = read(pfd[0], captured, sizeof captured - 1);
    (void)fcntl(pfd[0], F_SETFL, O_NONBLOCK);
    captured[n > 0 ? n : 0] = '\0';
    close(pfd[0]);
    ck_assert_msg(e == 4242, "errno not preserved (%d)", e);
    ck_assert_msg(allocations == 0, "the configuration path allocated %d times", allocations);
    return r;
}

static int load(const char *path, const char *inl, int debug)
{
    return load_as(0, path, inl, debug);
}

static const char *or_dash(const char *s)
{
    return s ? s : "-";
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* A refused configuration: -1, one "libmemasm:" line, defaults intact. */
#define REFUSED(path, inl, needle)                                                              \
    do {                                                                                        \
        int r_ = load((path), (inl), 0);                                                        \
        ck_assert_msg(r_ == -1, "accepted: %s / %.60s", or_dash(path), or_dash(inl));           \
        ck_assert_msg(count_lines(captured) == 1 && strncmp(captured, "libmemasm: ", 11) == 0,  \
                      "stderr is not one libmemasm: line: [%s]", captured);                     \
        ck_assert_msg(strstr(captured, (needle)) != NULL, "[%s] lacks [%s]", captured, (needle)); \
        ck_assert_msg(!strstr(captured, "doc/") && !strstr(captured, ".md"),                    \
                      "[%s] points to a file that is not installed", captured);                 \
        ck_assert_msg(at_defaults(), "a refused configuration changed something: %s", captured); \
        ck_assert_ptr_nonnull(memasm_config_problem());                                         \
    } while (0)

#define ACCEPTED(path, inl)                                                                     \
    do {                                                                                        \
        int r_ = load((path), (inl), 0);                                                        \
        ck_assert_msg(r_ == 0, "refused: %s", captured);                                        \
        ck_assert_msg(captured[0] == '\0', "printed on success: [%s]", captured);               \
        ck_assert_ptr_null(memasm_config_problem());                                            \
    } while (0)

static const struct memasm_threshold_def *def0(void)
{
    return &memasm_threshold_defs[0];
}

/* A legal value for d near want. */
static uint64_t legal(const struct memasm_threshold_def *d, uint64_t want)
{
    return want < d->min ? d->min : want > d->max ? d->max : want;
}

static int in_list(const char *const *l, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(l[i], s) == 0)
            return 1;
    return 0;
}

/* ---- key lists ---------------------------------------------------------- */

START_TEST(every_key_is_listed)
{
    /* The allocation counter sees allocations. */
    allocations = 0;
    counting = 1;
    void *volatile p = malloc(16);
    counting = 0;
    free(p);
    ck_assert_int_eq(allocations, 1);

    for (size_t i = 0; i < memasm_threshold_defs_count; i++)
        ck_assert_msg(in_list(memasm_config_all_keys, memasm_config_all_keys_count,
                              memasm_threshold_defs[i].key),
                      "%s is missing from memasm_config_all_keys (c/config.c)",
                      memasm_threshold_defs[i].key);
    for (int i = 0; i < memasm_isa_names_count; i++)
        ck_assert_msg(in_list(memasm_config_all_isas, memasm_config_all_isas_count,
                              memasm_isa_names[i]),
                      "%s is missing from memasm_config_all_isas", memasm_isa_names[i]);
}
END_TEST

/* ---- bad MEMASM_TUNABLES ------------------------------------------------ */

START_TEST(inline_bad)
{
    char k[64], s[256];
    const char *key = def0()->key;
    REFUSED(NULL, "=1", "empty key");
    snprintf(s, sizeof s, "%s=", key);
    REFUSED(NULL, s, "empty value");
    REFUSED(NULL, "a=b=c", "'=' in the value");
    snprintf(s, sizeof s, "%s==1", key);
    REFUSED(NULL, s, "'=' in the value");
    snprintf(k, sizeof k, "%s", key);
    const char *numbers[] = {"-1", "1Q", "1 2", "0x10", "+5", "1k", "K", "1KK", "never1",
                             "99999999999999999999999x", "99999999999999999999999 K"};
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        snprintf(s, sizeof s, "%s=%s", key, numbers[i]);
        REFUSED(NULL, s, "not a number");
    }
    /* Digits that do not fit in 64 bits: too large, with the legal range. */
    const char *large[] = {"18446744073709551616", "99999999999999999999999", "17179869184G",
                           "20000000000G", "18014398509481984K"};
    char want[256];
    for (size_t i = 0; i < sizeof large / sizeof large[0]; i++) {
        snprintf(s, sizeof s, "%s=%s", key, large[i]);
        snprintf(want, sizeof want, "%s = %s is too large (legal: ", key, large[i]);
        REFUSED(NULL, s, want);
        ck_assert_msg(strstr(captured, " to never)\n") && !strstr(captured, "not a number"),
                      "[%s]", captured);
    }
    /* Another architecture's key, and a fingerprint number, the same. */
    for (size_t i = 0; i < memasm_config_all_keys_count; i++) {
        const char *other = memasm_config_all_keys[i];
        if (memasm_threshold_lookup(other, strlen(other)))
            continue;
        snprintf(s, sizeof s, "%s=99999999999999999999999", other);
        snprintf(want, sizeof want, "%s = 99999999999999999999999 is too large (legal: 0 to never)",
                 other);
        REFUSED(NULL, s, want);
        break;
    }
    REFUSED(write_text("l2.conf", "cpu.l2 = 20000000000G\n"), NULL,
            ":1: cpu.l2 = 20000000000G is too large (legal: 0 to 18446744073709551615)");
    snprintf(s, sizeof s, "%s", key);
    REFUSED(NULL, s, "expected 'key = value'");
    /* Messages point to what is installed: the manual page, not the sources. */
    REFUSED(NULL, "nosuch.key=1", "unknown key 'nosuch.key' (keys: memasm.conf(5))\n");
    REFUSED(NULL, "isa=avx9", "unknown ISA level 'avx9'");
    REFUSED(NULL, "isa=", "empty value");
    REFUSED(NULL, "cpu=any", "belongs in the file");
    snprintf(s, sizeof s, "%s=1\001", key);
    REFUSED(NULL, s, "control");
    snprintf(s, sizeof s, "%s=1\303\251", key);
    REFUSED(NULL, s, "non-ASCII");
    snprintf(s, sizeof s, "%s=1#x", key);
    REFUSED(NULL, s, "'#'");
    /* Valid entries before a bad one: nothing of it is applied. */
    snprintf(s, sizeof s, "%s=%llu:isa=%s:bogus=1", key,
             (unsigned long long)legal(def0(), 12345), memasm_isa_names[0]);
    REFUSED(NULL, s, "entry 3: unknown key 'bogus'");
}
END_TEST

START_TEST(inline_too_long)
{
    /* A 1 MiB value, and 100 000 repeated keys: rejected whole. */
    size_t n = 1 << 20;
    char *s = malloc(n + 64);
    ck_assert_ptr_nonnull(s);
    int len = snprintf(s, 64, "%s=", def0()->key);
    memset(s + len, '1', n);
    s[len + n] = '\0';
    REFUSED(NULL, s, "longer than 4096 bytes");
    free(s);

    const char *e = "isa=sse2:";
    s = malloc(100000 * strlen(e) + 1);
    ck_assert_ptr_nonnull(s);
    s[0] = '\0';
    for (int i = 0; i < 100000; i++)
        memcpy(s + i * strlen(e), e, strlen(e) + 1);
    REFUSED(NULL, s, "longer than 4096 bytes");
    free(s);

    /* Short but too many entries. */
    char t[4096];
    size_t at = 0;
    for (int i = 0; i < 65; i++)
        at += (size_t)snprintf(t + at, sizeof t - at, "isa=%s:", memasm_isa_names[0]);
    REFUSED(NULL, t, "too many entries");
}
END_TEST

/* ---- bad MEMASM_CONFIG -------------------------------------------------- */

START_TEST(file_not_a_regular_file)
{
    REFUSED(path_in("missing.conf"), NULL, "no such file");
    REFUSED(dir, NULL, "is a directory");
    const char *fifo = path_in("fifo");
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    REFUSED(fifo, NULL, "not a regular file"); /* and did not block */
    REFUSED("/dev/zero", NULL, "not a regular file");
    REFUSED("/dev/null", NULL, "not a regular file");
    const char *a = path_in("loop-a"), *b = path_in("loop-b");
    ck_assert_int_eq(symlink(b, a), 0);
    ck_assert_int_eq(symlink(a, b), 0);
    REFUSED(a, NULL, "symbolic links");
    /* MEMASM_CONFIG= (empty) is no file: see config_empty_reads_no_file. */
    char longp[5000];
    memset(longp, 'a', sizeof longp - 1);
    longp[sizeof longp - 1] = '\0';
    REFUSED(longp, NULL, "path too long");
    /* A regular file whose size is not what stat() says (procfs): the
     * same check that catches a file growing while it is read. */
    REFUSED("/proc/self/status", NULL, "changed size while being read");
}
END_TEST

START_TEST(file_bad_content)
{
    static const char nul[] = "cpu = any\nisa = sse2\0\n";
    REFUSED(write_file("nul.conf", nul, sizeof nul - 1), NULL, ":2: NUL byte");

    unsigned char junk[4096];
    unsigned x = 12345;
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)((x = x * 1103515245u + 12345u) >> 16);
    REFUSED(write_file("junk.conf", junk, sizeof junk), NULL, "not a text file");

    /* 100 000 repeated keys: larger than 64 KiB. */
    const char *line = "isa = sse2\n";
    size_t n = 100000 * strlen(line);
    char *big = malloc(n);
    ck_assert_ptr_nonnull(big);
    for (int i = 0; i < 100000; i++)
        memcpy(big + i * strlen(line), line, strlen(line));
    REFUSED(write_file("big.conf", big, n), NULL, "larger than 64 KiB");
    /* A 1 MiB value. */
    memset(big, '7', 1 << 20);
    memcpy(big, "cpu = any\nmemcpy.nt_min = ", 26);
    REFUSED(write_file("value.conf", big, 1 << 20), NULL, "larger than 64 KiB");
    free(big);

    char s[512];
    snprintf(s, sizeof s, "cpu = any\n%s = 4K\nisa = %s\nbogus.key = 1\n", def0()->key,
             memasm_isa_names[0]);
    REFUSED(write_text("late.conf", s), NULL, ":4: unknown key 'bogus.key'");
    REFUSED(write_text("eqeq.conf", "cpu = any\nmemcpy.nt_min == 1\n"), NULL, ":2: '='");
    REFUSED(write_text("abc.conf", "cpu = any\na=b=c\n"), NULL, ":2: '='");
    REFUSED(write_text("nokey.conf", "cpu = any\n = 5\n"), NULL, ":2: empty key");
    REFUSED(write_text("cpu.conf", "cpu = some\n"), NULL, "only the value 'any'");
    REFUSED(write_text("ctl.conf", "cpu = any\n\033[2J\n"), NULL, "not a text file");
    /* Too many lines, each small. */
    size_t at = 0;
    char *many = malloc(65536);
    ck_assert_ptr_nonnull(many);
    at += (size_t)snprintf(many, 65536, "cpu = any\n");
    for (int i = 0; i < 1100; i++)
        at += (size_t)snprintf(many + at, 65536 - at, "isa=%s\n", memasm_isa_names[0]);
    REFUSED(write_file("many.conf", many, at), NULL, "too many entries");
    free(many);
}
END_TEST

START_TEST(file_fingerprint)
{
    const struct memasm_cpu *c = memasm_cpu_get();
    char s[512];
    snprintf(s, sizeof s, "isa = %s\n", memasm_isa_names[0]);
    REFUSED(write_text("nofp.conf", s), NULL, "no CPU fingerprint");
    snprintf(s, sizeof s, "# tuned elsewhere\ncpu.family = %d\nisa = %s\n", c->family + 1,
             memasm_isa_names[0]);
    REFUSED(write_text("family.conf", s), NULL, ":2: tuned for another CPU (cpu.family");
    ck_assert_ptr_nonnull(strstr(captured, "cpu = any"));
    ck_assert_ptr_nonnull(strstr(captured, "memasm-tune"));
    REFUSED(write_text("arch.conf", "cpu.arch = pdp11\n"), NULL, "tuned for another CPU");
    REFUSED(write_text("vendor.conf", "cpu.vendor = NoSuchVendor\n"), NULL, "cpu.vendor");
    snprintf(s, sizeof s, "cpu.l2 = %zu\n", c->l2 + 1);
    REFUSED(write_text("l2.conf", s), NULL, "cpu.l2");
    /* The same file with 'cpu = any' is applied. */
    snprintf(s, sizeof s, "cpu.family = %d\ncpu = any\nisa = %s\n", c->family + 1,
             memasm_isa_names[0]);
    ACCEPTED(write_text("any.conf", s), NULL);
    ck_assert_int_eq(memasm_isa_cap(), 0);
    memasm_isa_set_cap(NULL);
    /* The fingerprint is file-only. */
    REFUSED(NULL, "cpu.family=1", "belongs in the file");
}
END_TEST

START_TEST(file_and_inline_all_or_nothing)
{
    char f[256], s[256];
    snprintf(f, sizeof f, "cpu = any\n%s = %llu\n", def0()->key,
             (unsigned long long)legal(def0(), 3 << 20));
    const char *good = write_text("good.conf", f);
    const char *bad = write_text("bad.conf", "cpu = any\nnope = 1\n");
    snprintf(s, sizeof s, "%s=%llu", def0()->key, (unsigned long long)legal(def0(), 5 << 20));
    REFUSED(good, "nope=1", "MEMASM_TUNABLES entry 1");
    REFUSED(bad, s, "bad.conf:2");
}
END_TEST

START_TEST(out_of_range_and_order)
{
    char s[256];
    for (size_t i = 0; i < memasm_threshold_defs_count; i++) {
        const struct memasm_threshold_def *d = &memasm_threshold_defs[i];
        if (d->min > 0) {
            snprintf(s, sizeof s, "%s=%llu", d->key, (unsigned long long)d->min - 1);
            REFUSED(NULL, s, "out of range");
        }
        if (d->max < UINT64_MAX) {
            snprintf(s, sizeof s, "%s=%llu", d->key, (unsigned long long)d->max + 1);
            REFUSED(NULL, s, "out of range");
        }
    }
    /* A window's start above its end (erms_min > erms_max), both given:
     * refused, not silently fixed.  Every x_min key with an x_max key. */
    for (size_t i = 0; i < memasm_threshold_defs_count; i++) {
        const struct memasm_threshold_def *lo = &memasm_threshold_defs[i];
        char end[64];
        size_t len = strlen(lo->key);
        if (len < 4 || len >= sizeof end || strcmp(lo->key + len - 4, "_min") != 0)
            continue;
        memcpy(end, lo->key, len + 1);
        memcpy(end + len - 4, "_max", 4);
        const struct memasm_threshold_def *hi = memasm_threshold_lookup(end, len);
        if (!hi)
            continue;
        uint64_t a = legal(lo, 8 << 20), b = legal(hi, 1 << 20);
        if (a <= b)
            continue;
        snprintf(s, sizeof s, "%s=%llu:%s=%llu", lo->key, (unsigned long long)a, hi->key,
                 (unsigned long long)b);
        REFUSED(NULL, s, "ordering constraint");
        /* One bound alone: the other follows. */
        snprintf(s, sizeof s, "%s=%llu", hi->key, (unsigned long long)b);
        uint64_t out[MEMASM_THR_COUNT];
        char problem[320];
        ck_assert_msg(memasm_config_try(s, strlen(s), MEMASM_SRC_INLINE, out, problem,
                                        sizeof problem) == 0, "%s", problem);
        ck_assert_uint_eq(out[hi->index], b);
        ck_assert_uint_le(out[lo->index], b);
        snprintf(s, sizeof s, "%s=%llu", lo->key, (unsigned long long)a);
        ck_assert_msg(memasm_config_try(s, strlen(s), MEMASM_SRC_INLINE, out, problem,
                                        sizeof problem) == 0, "%s", problem);
        ck_assert_uint_eq(out[lo->index], a);
        ck_assert_uint_ge(out[hi->index], a);
    }
}
END_TEST

/* ---- good input --------------------------------------------------------- */

START_TEST(every_key_applied)
{
    /* Ascending values in table order satisfy min <= max pairs. */
    char f[4096];
    uint64_t want[MEMASM_THR_COUNT];
    int at = snprintf(f, sizeof f, "# every key\r\ncpu = any\n\n");
    for (size_t i = 0; i < memasm_threshold_defs_count; i++) {
        const struct memasm_threshold_def *d = &memasm_threshold_defs[i];
        want[d->index] = legal(d, ((uint64_t)i + 1) * 4096 + 7);
        at += snprintf(f + at, sizeof f - (size_t)at, "\t%s\t=  %llu   # remark é\r\n", d->key,
                       (unsigned long long)want[d->index]);
    }
    /* Keys and ISA names of the other architectures: accepted, ignored. */
    for (size_t i = 0; i < memasm_config_all_keys_count; i++)
        if (!memasm_threshold_lookup(memasm_config_all_keys[i], strlen(memasm_config_all_keys[i])))
            at += snprintf(f + at, sizeof f - (size_t)at, "%s = 1K\n", memasm_config_all_keys[i]);
    ACCEPTED(write_text("every.conf", f), NULL);
    for (size_t i = 0; i < memasm_threshold_defs_count; i++) {
        const struct memasm_threshold_def *d = &memasm_threshold_defs[i];
        ck_assert_msg(memasm_thr[d->index] == want[d->index], "%s = %llu, wanted %llu", d->key,
                      (unsigned long long)memasm_thr[d->index],
                      (unsigned long long)want[d->index]);
        ck_assert_int_eq(memasm_config_source(d->index), MEMASM_SRC_FILE);
        size_t got;
        ck_assert_int_eq(memasm_threshold_get(d->key, &got), 0);
        ck_assert_uint_eq(got, want[d->index]);
    }
}
END_TEST

/* The backward loop's gate (a derived slot, no key) is the smaller of the
 * two strategies' starts after every way of setting them: the API, a
 * window end that drags its start down, a configuration, a reset. */
START_TEST(bwd_gate_follows)
{
#if defined(__x86_64__)
    const int g = MEMASM_THR_MEMCPY_BWD_GATE, nt = MEMASM_THR_MEMCPY_BWD_NT_MIN,
              pf = MEMASM_THR_MEMCPY_BWD_PREFETCH_MIN;
#define GATE_OK()                                                                              \
    ck_assert_uint_eq(memasm_thr[g], memasm_thr[nt] < memasm_thr[pf] ? memasm_thr[nt] : memasm_thr[pf])
    memasm_threshold_reset();
    GATE_OK();
    ck_assert_int_eq(memasm_threshold_set("memcpy.bwd_prefetch_min", 100 << 10, NULL), 0);
    ck_assert_int_eq(memasm_threshold_set("memcpy.bwd_nt_min", 50 << 10, NULL), 0);
    ck_assert_uint_eq(memasm_thr[g], 50 << 10);
    ck_assert_int_eq(memasm_threshold_set("memcpy.bwd_nt_min", 1 << 20, NULL), 0);
    ck_assert_uint_eq(memasm_thr[g], 100 << 10);
    /* An end below the start moves the start down to it. */
    ck_assert_int_eq(memasm_threshold_set("memcpy.bwd_prefetch_max", 10 << 10, NULL), 0);
    ck_assert_uint_eq(memasm_thr[pf], 10 << 10);
    ck_assert_uint_eq(memasm_thr[g], 10 << 10);
    ACCEPTED(NULL, "memcpy.bwd_nt_min=3K:memcpy.bwd_prefetch_min=7K");
    ck_assert_uint_eq(memasm_thr[g], 3 << 10);
    memasm_threshold_reset();
    GATE_OK();
#undef GATE_OK
#endif
}
END_TEST

START_TEST(inline_overrides_file_and_repeats_overwrite)
{
    const struct memasm_threshold_def *d = def0();
    uint64_t a = legal(d, 1 << 20), b = legal(d, 2 << 20), c = legal(d, 3 << 20);
    char f[256], s[256];
    snprintf(f, sizeof f, "cpu = any\n%s = %llu\n", d->key, (unsigned long long)a);
    snprintf(s, sizeof s, "%s=%llu::%s = %llu:", d->key, (unsigned long long)b, d->key,
             (unsigned long long)c);
    ACCEPTED(write_text("o.conf", f), s);
    ck_assert_uint_eq(memasm_thr[d->index], c);
    ck_assert_int_eq(memasm_config_source(d->index), MEMASM_SRC_INLINE);
    /* Thresholds not named stay at their defaults. */
    for (size_t i = 1; i < memasm_threshold_defs_count; i++) {
        int j = memasm_threshold_defs[i].index;
        ck_assert_int_eq(memasm_config_source(j), MEMASM_SRC_DEFAULT);
    }
}
END_TEST

START_TEST(numbers)
{
    struct {
        const char *text;
        uint64_t value;
    } cases[] = {
        {"0", 0},           {"007", 7},           {"1K", 1024},
        {"3M", 3u << 20},   {"2G", 2ull << 30},   {"18446744073709551615", UINT64_MAX},
        {"never", UINT64_MAX}, {"16777215G", 16777215ull << 30},
    };
    char s[128], problem[320];
    uint64_t out[MEMASM_THR_COUNT];
    for (size_t k = 0; k < memasm_threshold_defs_count; k++) {
        const struct memasm_threshold_def *d = &memasm_threshold_defs[k];
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            if (cases[i].value < d->min || cases[i].value > d->max)
                continue;
            snprintf(s, sizeof s, "%s=%s", d->key, cases[i].text);
            int r = memasm_config_try(s, strlen(s), MEMASM_SRC_INLINE, out, problem, sizeof problem);
            if (r < 0 && strstr(problem, "ordering"))
                continue; /* e.g. a window bound of 0 below its partner */
            ck_assert_msg(r == 0, "%s: %s", s, problem);
            ck_assert_uint_eq(out[d->index], cases[i].value);
        }
    }
}
END_TEST

START_TEST(isa_only_narrows)
{
    char s[64];
    int cpu = memasm_isa_cpu();
    snprintf(s, sizeof s, "isa=%s", memasm_isa_names[0]);
    ACCEPTED(NULL, s);
    ck_assert_int_eq(memasm_isa_cap(), 0);
    for (int op = 0; op < MEMASM_OP_COUNT; op++) {
        const char *k = memasm_kernel_current((memasm_op)op);
        long i = memasm_kernel_find(k);
        ck_assert_int_ge(i, 0);
        ck_assert_int_eq(memasm_kernels[i].level, 0);
    }
    memasm_isa_set_cap(NULL);
    snprintf(s, sizeof s, "isa=%s", memasm_isa_names[memasm_isa_names_count - 1]);
    ACCEPTED(NULL, s);
    ck_assert_int_eq(memasm_isa_cap(), cpu); /* never above the CPU */
    /* Another architecture's level name: accepted and ignored. */
    const char *other = NULL;
    for (size_t i = 0; i < memasm_config_all_isas_count; i++)
        if (memasm_isa_level(memasm_config_all_isas[i]) < 0)
            other = memasm_config_all_isas[i];
    memasm_isa_set_cap(NULL);
    snprintf(s, sizeof s, "isa=%s", other);
    ACCEPTED(NULL, s);
    ck_assert_int_eq(memasm_isa_cap(), cpu);
}
END_TEST

START_TEST(round_trip)
{
    /* What memasm-info --config (and later memasm-tune) writes is accepted
     * and reproduces the values in force. */
    const struct memasm_threshold_def *d = def0();
    size_t applied;
    ck_assert_int_eq(memasm_threshold_set(d->key, (size_t)legal(d, 5 << 20), &applied), 0);
    uint64_t before[MEMASM_THR_COUNT];
    memcpy(before, (const void *)memasm_thr, sizeof before);
    char buf[8192];
    size_t n = memasm_config_write(buf, sizeof buf, "test_config");
    ck_assert_uint_lt(n, sizeof buf);
    ck_assert_uint_eq(strlen(buf), n);
    char small[40];
    ck_assert_uint_eq(memasm_config_write(small, sizeof small, "test_config"), n);
    ck_assert_uint_eq(strlen(small), sizeof small - 1);
    memasm_threshold_reset();
    ACCEPTED(write_file("rt.conf", buf, n), NULL);
    ck_assert_msg(memcmp(before, (const void *)memasm_thr, sizeof before) == 0, "%s", buf);
    for (size_t i = 0; i < memasm_threshold_defs_count; i++)
        ck_assert_int_eq(memasm_config_source(memasm_threshold_defs[i].index), MEMASM_SRC_FILE);
}
END_TEST

START_TEST(debug_output)
{
    char s[128];
    snprintf(s, sizeof s, "%s=%llu", def0()->key, (unsigned long long)legal(def0(), 1 << 20));
    ck_assert_int_eq(load(NULL, s, 1), 0);
    ck_assert_int_eq(count_lines(captured), (int)memasm_threshold_defs_count);
    ck_assert_ptr_nonnull(strstr(captured, "libmemasm: debug: MEMASM_TUNABLES"));
    ck_assert_int_eq(load(NULL, NULL, 0), 0);
    ck_assert_str_eq(captured, "");
}
END_TEST

START_TEST(growing_file)
{
    /* A writer keeps appending while the library reads: each load is either
     * a consistent snapshot that applies, or refused with one line. */
    const char *p = write_text("grow.conf", "cpu = any\n");
    pid_t w = fork();
    ck_assert_int_ge(w, 0);
    if (w == 0) {
        int fd = open(p, O_WRONLY | O_APPEND);
        for (int i = 0; fd >= 0 && i < 2000000; i++) {
            if (write(fd, "# grow\n", 7) != 7)
                break;
            if (i % 8000 == 7999 && ftruncate(fd, 10) != 0) /* back to "cpu = any\n" */
                break;
        }
        _exit(0);
    }
    struct stat st;
    for (int i = 0; i < 1000 && stat(p, &st) == 0 && st.st_size <= 10; i++)
        usleep(1000); /* let the writer start */
    int refused = 0;
    for (int i = 0; i < 2000; i++) {
        int r = load(p, NULL, 0);
        ck_assert_int_eq(count_lines(captured), r ? 1 : 0);
        refused += r != 0;
        ck_assert(r != 0 || memasm_config_problem() == NULL);
        ck_assert(at_defaults()); /* the file names no threshold */
    }
    kill(w, SIGKILL);
    waitpid(w, NULL, 0);
    fprintf(stderr, "test_config: growing file refused %d of 2000 loads\n", refused);
}
END_TEST

/* ---- the system file ---------------------------------------------------- */

/* Tests that need files owned by root (or by another user) say so. */
static int needs_root(const char *test)
{
    if (geteuid() == 0)
        return 0;
    fprintf(stderr, "test_config: %s: skipped: needs root\n", test);
    return 1;
}

/* name in the test directory with text and mode (owned by whoever runs). */
static const char *write_mode(const char *name, const char *text, mode_t mode)
{
    const char *p = write_text(name, text);
    ck_assert_int_eq(chmod(p, mode), 0);
    return p;
}

/* A system file refused: -1, *nothing* on stderr, the defaults intact, the
 * problem recorded and the file named as the system file; with debug, the
 * problem is the one line on stderr. */
#define SYS_REFUSED(path, inl, needle)                                                          \
    do {                                                                                        \
        const char *f_ = (path);                                                                \
        int r_ = load_as(1, f_, (inl), 0), sys_ = 0;                                            \
        ck_assert_msg(r_ == -1, "accepted: %s", f_);                                            \
        ck_assert_msg(captured[0] == '\0', "printed without MEMASM_DEBUG: [%s]", captured);     \
        ck_assert_msg(at_defaults(), "a refused system file changed something");               \
        const char *p_ = memasm_config_problem();                                               \
        ck_assert_ptr_nonnull(p_);                                                              \
        ck_assert_msg(strncmp(p_, "system file ", 12) == 0 && strstr(p_, (needle)) != NULL,     \
                      "[%s] lacks [%s]", p_, (needle));                                         \
        ck_assert_ptr_eq(memasm_config_file(&sys_), f_);                                        \
        ck_assert_int_eq(sys_, 1);                                                              \
        ck_assert_int_eq(load_as(1, f_, (inl), 1), -1);                                         \
        ck_assert_msg(count_lines(captured) == 1 &&                                             \
                          strncmp(captured, "libmemasm: system file ", 23) == 0 &&              \
                          strstr(captured, (needle)) != NULL,                                   \
                      "MEMASM_DEBUG=1: not one line with [%s]: [%s]", (needle), captured);      \
        ck_assert(at_defaults());                                                               \
    } while (0)

/* "cpu = any" and def0() at v. */
static const char *good_text(uint64_t v)
{
    static char s[128];
    snprintf(s, sizeof s, "cpu = any\n%s = %llu\n", def0()->key, (unsigned long long)v);
    return s;
}

/* MEMASM_TUNABLES setting def0() to v, given with path (read as the system
 * file when system): applied over the file, if any, silently. */
static void inline_applies(int system, const char *path, uint64_t v)
{
    const struct memasm_threshold_def *d = def0();
    char s[128];
    snprintf(s, sizeof s, "%s=%llu", d->key, (unsigned long long)v);
    ck_assert_int_eq(load_as(system, path, s, 0), 0);
    ck_assert_msg(captured[0] == '\0', "printed: [%s]", captured);
    ck_assert_uint_eq(memasm_thr[d->index], v);
    ck_assert_int_eq(memasm_config_source(d->index), MEMASM_SRC_INLINE);
}

START_TEST(system_file_missing)
{
    const char *p = path_in("none.conf");
    ck_assert_int_eq(load_as(1, p, NULL, 0), 0);
    ck_assert_str_eq(captured, "");
    ck_assert(at_defaults());
    ck_assert_ptr_null(memasm_config_problem());
    ck_assert_ptr_null(memasm_config_file(NULL));
    /* Debug: one line naming it. */
    ck_assert_int_eq(load_as(1, p, NULL, 1), 0);
    ck_assert_int_eq(count_lines(captured), 1);
    ck_assert_ptr_nonnull(strstr(captured, "libmemasm: debug: no system file "));
    ck_assert_ptr_nonnull(strstr(captured, p));
    /* MEMASM_TUNABLES still applies without the file. */
    inline_applies(1, p, legal(def0(), 6 << 20));
}
END_TEST

START_TEST(system_file_applied)
{
    if (needs_root("system_file_applied"))
        return;
    const struct memasm_threshold_def *d = def0();
    uint64_t v = legal(d, 5 << 20);
    const char *p = write_mode("sys.conf", good_text(v), 0644);
    ck_assert_int_eq(chown(p, 0, 0), 0);
    ck_assert_int_eq(load_as(1, p, NULL, 0), 0);
    ck_assert_msg(captured[0] == '\0', "printed: [%s]", captured);
    ck_assert_ptr_null(memasm_config_problem());
    ck_assert_uint_eq(memasm_thr[d->index], v);
    ck_assert_int_eq(memasm_config_source(d->index), MEMASM_SRC_FILE);
    int sys = 0;
    ck_assert_ptr_eq(memasm_config_file(&sys), p);
    ck_assert_int_eq(sys, 1);
    /* Debug names the system file as the source. */
    ck_assert_int_eq(load_as(1, p, NULL, 1), 0);
    ck_assert_ptr_nonnull(strstr(captured, "libmemasm: debug: system file "));
    /* MEMASM_TUNABLES applies after it, overriding it. */
    inline_applies(1, p, legal(d, 7 << 20));
    /* Mode 0400 (root's, read-only) is as good. */
    memasm_threshold_reset();
    ck_assert_int_eq(chmod(p, 0400), 0);
    ck_assert_int_eq(load_as(1, p, NULL, 0), 0);
    ck_assert_uint_eq(memasm_thr[d->index], v);
}
END_TEST

START_TEST(system_file_group_or_other_writable)
{
    if (needs_root("system_file_group_or_other_writable"))
        return;
    const char *g = write_mode("g.conf", good_text(legal(def0(), 5 << 20)), 0664);
    SYS_REFUSED(g, NULL, "writable by group or others");
    const char *o = write_mode("o.conf", good_text(legal(def0(), 5 << 20)), 0646);
    SYS_REFUSED(o, NULL, "writable by group or others");
    /* MEMASM_TUNABLES is not applied either: the defaults entirely. */
    char s[128];
    snprintf(s, sizeof s, "isa=%s", memasm_isa_names[0]);
    SYS_REFUSED(o, s, "writable by group or others");
}
END_TEST

START_TEST(system_file_not_owned_by_root)
{
    const char *p = write_mode("owner.conf", good_text(legal(def0(), 5 << 20)), 0644);
    char want[64];
    if (geteuid() == 0) {
        ck_assert_int_eq(chown(p, 65534, 65534), 0);
        snprintf(want, sizeof want, "owned by uid 65534;");
    } else {
        /* Ours, and we are not root. */
        snprintf(want, sizeof want, "owned by uid %u;", (unsigned)geteuid());
    }
    SYS_REFUSED(p, NULL, want);
}
END_TEST

START_TEST(system_file_not_the_file_itself)
{
    /* A symbolic link, even to a good file (refused before its owner is
     * looked at, so this runs unprivileged too). */
    const char *target = write_mode("target.conf", good_text(legal(def0(), 5 << 20)), 0644);
    if (geteuid() == 0) {
        ck_assert_int_eq(load_as(1, target, NULL, 0), 0); /* the control */
        memasm_threshold_reset();
    }
    const char *link = path_in("link.conf");
    ck_assert_int_eq(symlink(target, link), 0);
    SYS_REFUSED(link, NULL, "a symbolic link");
    /* A FIFO: refused without opening it (the test would block). */
    const char *fifo = path_in("sys.fifo");
    ck_assert_int_eq(mkfifo(fifo, 0644), 0);
    SYS_REFUSED(fifo, NULL, "not a regular file");
    SYS_REFUSED("/dev/null", NULL, "not a regular file");
    SYS_REFUSED(dir, NULL, "is a directory");
}
END_TEST

START_TEST(system_file_bad_content)
{
    if (needs_root("system_file_bad_content"))
        return;
    SYS_REFUSED(write_mode("parse.conf", "cpu = any\nbogus.key = 1\n", 0644), NULL,
                ":2: unknown key 'bogus.key'");
    SYS_REFUSED(write_mode("arch.conf", "cpu.arch = pdp11\n", 0644), NULL, "tuned for another CPU");
    /* A good system file with a bad MEMASM_TUNABLES: the user's own
     * mistake, printed as usual, and nothing applied. */
    const char *p = write_mode("good.conf", good_text(legal(def0(), 5 << 20)), 0644);
    ck_assert_int_eq(load_as(1, p, "nope=1", 0), -1);
    ck_assert_int_eq(count_lines(captured), 1);
    ck_assert_ptr_nonnull(strstr(captured, "libmemasm: MEMASM_TUNABLES entry 1: unknown key"));
    ck_assert(at_defaults());
}
END_TEST

/* MEMASM_CONFIG= (set, empty): no file, silently; MEMASM_TUNABLES applies. */
START_TEST(config_empty_reads_no_file)
{
    ck_assert_int_eq(load("", NULL, 0), 0);
    ck_assert_str_eq(captured, "");
    ck_assert(at_defaults());
    ck_assert_ptr_null(memasm_config_problem());
    ck_assert_ptr_null(memasm_config_file(NULL));
    ck_assert_int_eq(load("", NULL, 1), 0);
    ck_assert_int_eq(count_lines(captured), 1);
    ck_assert_ptr_nonnull(strstr(captured, "libmemasm: debug: MEMASM_CONFIG is empty"));
    inline_applies(0, "", legal(def0(), 6 << 20));
    ck_assert_ptr_null(memasm_config_problem());
    ck_assert_ptr_null(memasm_config_file(NULL));
}
END_TEST

/* ---- whole process: the constructor reading the environment ------------ */

/* `test_config --probe`: print what the constructor applied. */
static int probe(void)
{
    printf("secure=%lu\n", getauxval(AT_SECURE));
    printf("isa_cap=%d\n", memasm_isa_cap());
    int top = 0; /* highest level among the kernels in use */
    for (int op = 0; op < MEMASM_OP_COUNT; op++) {
        long k = memasm_kernel_find(memasm_kernel_current((memasm_op)op));
        if (k >= 0 && memasm_kernels[k].level > top)
            top = memasm_kernels[k].level;
    }
    printf("kernel_level=%d\n", top);
    for (size_t i = 0; i < memasm_threshold_defs_count; i++) {
        const struct memasm_threshold_def *d = &memasm_threshold_defs[i];
        printf("%s=%llu %d\n", d->key, (unsigned long long)memasm_thr[d->index],
               memasm_config_source(d->index));
    }
    return 0;
}

struct run {
    char out[8192], err[8192];
    int status;
};

/* Run `exe --probe` with env (NULL-terminated) and optional uid/gid. */
static void run_probe(const char *exe, char *const env[], uid_t uid, gid_t gid, struct run *r)
{
    int po[2], pe[2];
    ck_assert_int_eq(pipe(po), 0);
    ck_assert_int_eq(pipe(pe), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(po[1], 1);
        dup2(pe[1], 2);
        close(po[0]);
        close(pe[0]);
        if (uid != (uid_t)-1) {
            if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid))
                _exit(126);
        }
        char *argv[] = {(char *)"test_config", (char *)"--probe", NULL};
        alarm(30); /* a probe that hangs (e.g. opened a FIFO) dies */
        execve(exe, argv, env);
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    size_t no = 0, ne = 0;
    ssize_t n;
    while ((n = read(po[0], r->out + no, sizeof r->out - 1 - no)) > 0)
        no += (size_t)n;
    while ((n = read(pe[0], r->err + ne, sizeof r->err - 1 - ne)) > 0)
        ne += (size_t)n;
    r->out[no] = r->err[ne] = '\0';
    close(po[0]);
    close(pe[0]);
    waitpid(pid, &r->status, 0);
    ck_assert_msg(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0,
                  "probe failed (status %d): %s", r->status, r->err);
}

/* The probe's value of key, or UINT64_MAX - 1 when absent. */
static uint64_t probe_value(const struct run *r, const char *key, int *source)
{
    char pat[80];
    snprintf(pat, sizeof pat, "\n%s=", key);
    const char *p = strstr(r->out, pat);
    if (!p)
        return UINT64_MAX - 1;
    unsigned long long v;
    int s;
    if (sscanf(p + strlen(pat), "%llu %d", &v, &s) != 2)
        return UINT64_MAX - 1;
    if (source)
        *source = s;
    return v;
}

static int probe_int(const struct run *r, const char *key)
{
    char pat[40];
    snprintf(pat, sizeof pat, "%s=", key);
    const char *p = strstr(r->out, pat);
    return p ? atoi(p + strlen(pat)) : -999;
}

/* Under qemu-user (cross builds) this program cannot exec itself. */
static int emulated(void)
{
    const char *e = getenv("TEST_EMULATOR");
    if (e && *e) {
        fprintf(stderr, "test_config: SKIPPED a whole-process test under %s\n", e);
        return 1;
    }
    return 0;
}

/* A probe with env sets def0() to v from MEMASM_TUNABLES, silently. */
static void probe_inline_applied(char *const env[], uint64_t v)
{
    struct run r;
    int src = -1;
    run_probe(self, env, (uid_t)-1, 0, &r);
    ck_assert_str_eq(r.err, "");
    ck_assert_uint_eq(probe_value(&r, def0()->key, &src), v);
    ck_assert_int_eq(src, MEMASM_SRC_INLINE);
}

/* A probe with env prints exactly one line on stderr, containing needle. */
static void probe_one_line(char *const env[], const char *needle)
{
    struct run r;
    run_probe(self, env, (uid_t)-1, 0, &r);
    ck_assert_msg(count_lines(r.err) == 1 && strstr(r.err, needle) != NULL,
                  "expected one line with [%s]: [%s]", needle, r.err);
}

START_TEST(constructor_reads_environment)
{
    if (emulated())
        return;
    struct run r;
    const struct memasm_threshold_def *d = def0();
    uint64_t v = legal(d, 7 << 20);
    char tun[128], isa[64], cfg[PATH_MAX + 32];
    snprintf(tun, sizeof tun, "MEMASM_TUNABLES=%s=%llu", d->key, (unsigned long long)v);
    char *env1[] = {tun, NULL};
    probe_inline_applied(env1, v);

    /* A bad configuration at start-up: defaults, exactly one line. */
    snprintf(cfg, sizeof cfg, "MEMASM_CONFIG=%s", path_in("missing.conf"));
    char *env2[] = {cfg, tun, NULL};
    run_probe(self, env2, (uid_t)-1, 0, &r);
    ck_assert_int_eq(count_lines(r.err), 1);
    ck_assert_ptr_nonnull(strstr(r.err, "libmemasm: MEMASM_CONFIG "));
    uint64_t dv[MEMASM_THR_COUNT];
    defaults(dv);
    ck_assert_uint_eq(probe_value(&r, d->key, NULL), dv[d->index]);

    /* MEMASM_ISA and the configuration's isa: the lower wins. */
    snprintf(isa, sizeof isa, "MEMASM_ISA=%s", memasm_isa_names[memasm_isa_names_count - 1]);
    char tun2[64];
    snprintf(tun2, sizeof tun2, "MEMASM_TUNABLES=isa=%s", memasm_isa_names[0]);
    char *env3[] = {isa, tun2, NULL};
    run_probe(self, env3, (uid_t)-1, 0, &r);
    ck_assert_str_eq(r.err, "");
    ck_assert_int_eq(probe_int(&r, "isa_cap"), 0);
    ck_assert_int_eq(probe_int(&r, "kernel_level"), 0); /* chosen after the configuration */

    /* MEMASM_DEBUG=1 is the only way to get more than problems. */
    char dbg[] = "MEMASM_DEBUG=1", nocfg[] = "MEMASM_CONFIG=";
    char *env4[] = {nocfg, tun, dbg, NULL};
    run_probe(self, env4, (uid_t)-1, 0, &r);
    /* One line per threshold, and one saying that no file is read. */
    ck_assert_int_eq(count_lines(r.err), (int)memasm_threshold_defs_count + 1);
}
END_TEST

/* MEMASM_DEBUG: a decimal number other than 0 is on, 0 and empty are off,
 * anything else is ignored with one line saying what is accepted. */
START_TEST(constructor_debug_values)
{
    if (emulated())
        return;
    char nocfg[] = "MEMASM_CONFIG=";
    static char on[][48] = {"MEMASM_DEBUG=1", "MEMASM_DEBUG=2", "MEMASM_DEBUG=10",
                            "MEMASM_DEBUG=007", "MEMASM_DEBUG=99999999999999999999999"};
    static char off[][48] = {"MEMASM_DEBUG=0", "MEMASM_DEBUG=", "MEMASM_DEBUG=000"};
    static char bad[][48] = {"MEMASM_DEBUG=yes", "MEMASM_DEBUG=-1", "MEMASM_DEBUG= 1",
                             "MEMASM_DEBUG=1x", "MEMASM_DEBUG=0x1", "MEMASM_DEBUG=on"};
    struct run r;
    for (size_t i = 0; i < sizeof on / sizeof on[0]; i++) {
        char *env[] = {nocfg, on[i], NULL};
        probe_one_line(env, "libmemasm: debug: MEMASM_CONFIG is empty");
    }
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++) {
        char *env[] = {nocfg, off[i], NULL};
        run_probe(self, env, (uid_t)-1, 0, &r);
        ck_assert_msg(r.err[0] == '\0', "%s printed: [%s]", off[i], r.err);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *env[] = {nocfg, bad[i], NULL}, want[160];
        snprintf(want, sizeof want,
                 "libmemasm: MEMASM_DEBUG: '%s' ignored (a decimal number: 1 or more is on; 0 or "
                 "empty is off)\n",
                 bad[i] + strlen("MEMASM_DEBUG="));
        run_probe(self, env, (uid_t)-1, 0, &r);
        ck_assert_str_eq(r.err, want); /* that line only: no debug output */
    }
}
END_TEST

/* The constructor with MEMASM_CONFIG unset tries the system file, and with
 * MEMASM_CONFIG= reads no file; either way MEMASM_TUNABLES applies and
 * nothing is printed without MEMASM_DEBUG=1. */
START_TEST(constructor_system_file_and_empty_config)
{
    if (emulated())
        return;
    uint64_t v = legal(def0(), 7 << 20);
    char tun[128], nocfg[] = "MEMASM_CONFIG=", dbg[] = "MEMASM_DEBUG=1";
    snprintf(tun, sizeof tun, "MEMASM_TUNABLES=%s=%llu", def0()->key, (unsigned long long)v);
    char *empty[] = {nocfg, tun, NULL};
    probe_inline_applied(empty, v);
    char *empty_dbg[] = {nocfg, dbg, NULL};
    probe_one_line(empty_dbg, "libmemasm: debug: MEMASM_CONFIG is empty");

    struct stat st;
    if (lstat(memasm_config_system_file, &st) == 0) {
        fprintf(stderr, "test_config: SKIPPED the unset-MEMASM_CONFIG probe (%s exists here)\n",
                memasm_config_system_file);
        return;
    }
    char *unset[] = {tun, NULL};
    probe_inline_applied(unset, v);
    char *unset_dbg[] = {dbg, NULL};
    char want[PATH_MAX + 64];
    snprintf(want, sizeof want, "libmemasm: debug: no system file %s\n", memasm_config_system_file);
    probe_one_line(unset_dbg, want);
}
END_TEST

/* As root: a setuid copy of this program, run by another user with hostile
 * MEMASM_* values, must read none of them and open no file. */
static int nosuid(const char *d)
{
    struct statvfs s;
    return statvfs(d, &s) != 0 || (s.f_flag & ST_NOSUID);
}

START_TEST(secure_execution_ignores_everything)
{
    if (geteuid() != 0) {
        fprintf(stderr, "test_config: SKIPPED secure-execution test (needs root to make a "
                        "setuid copy)\n");
        return;
    }
    if (emulated())
        return;
    /* A directory on a filesystem that honours setuid, traversable by all. */
    const char *cands[] = {dir, "/var/tmp", "/usr/local/tmp"};
    char sdir[PATH_MAX] = "";
    for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++) {
        if (nosuid(cands[i]))
            continue;
        if (i == 0) {
            snprintf(sdir, sizeof sdir, "%s", dir);
        } else {
            snprintf(sdir, sizeof sdir, "%s/memasm-secure-XXXXXX", cands[i]);
            if (!mkdtemp(sdir)) {
                sdir[0] = '\0';
                continue;
            }
        }
        break;
    }
    if (!sdir[0]) {
        fprintf(stderr, "test_config: SKIPPED secure-execution test (no setuid-capable directory)\n");
        return;
    }
    ck_assert_int_eq(chmod(sdir, 0755), 0);
    const uid_t user = 4242, owner = 65534; /* nobody owns the setuid copy */
    const gid_t group = 4242;

    /* The probe: a setuid copy, and a plain copy as the control. */
    char suid[PATH_MAX], plain[PATH_MAX], cmd[3 * PATH_MAX];
    snprintf(suid, sizeof suid, "%s/probe-suid", sdir);
    snprintf(plain, sizeof plain, "%s/probe-plain", sdir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && cp '%s' '%s'", self, suid, self, plain);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(chown(suid, owner, owner), 0);
    ck_assert_int_eq(chmod(suid, 04755), 0);
    ck_assert_int_eq(chmod(plain, 0755), 0);

    /* Hostile values, all of which would change something if read. */
    char conf[PATH_MAX];
    snprintf(conf, sizeof conf, "%s/hostile.conf", sdir);
    const struct memasm_threshold_def *d = def0();
    uint64_t v = legal(d, 9 << 20);
    char text[256];
    snprintf(text, sizeof text, "cpu = any\n%s = %llu\n", d->key, (unsigned long long)v);
    int fd = open(conf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    char e_conf[PATH_MAX + 16], e_isa[64], e_tun[128];
    snprintf(e_conf, sizeof e_conf, "MEMASM_CONFIG=%s", conf);
    snprintf(e_isa, sizeof e_isa, "MEMASM_ISA=%s", memasm_isa_names[0]);
    snprintf(e_tun, sizeof e_tun, "MEMASM_TUNABLES=isa=%s:bogus==1", memasm_isa_names[0]);
    char e_dbg[] = "MEMASM_DEBUG=1";
    char *env[] = {e_conf, e_isa, e_dbg, NULL};
    char *env_bad[] = {e_conf, e_tun, e_dbg, NULL};
    /* A FIFO: opening it (without O_NONBLOCK) would block the probe. */
    char fifo[PATH_MAX], e_fifo[PATH_MAX + 16];
    snprintf(fifo, sizeof fifo, "%s/hostile.fifo", sdir);
    ck_assert_int_eq(mkfifo(fifo, 0666), 0);
    snprintf(e_fifo, sizeof e_fifo, "MEMASM_CONFIG=%s", fifo);
    char *env_fifo[] = {e_fifo, e_tun, NULL};
    char bad_dbg[] = "MEMASM_DEBUG=yes", bad_isa[] = "MEMASM_ISA=bogus";
    char *env_ignored[] = {e_conf, bad_dbg, bad_isa, NULL};

    /* Watch the configuration file for opens. */
    int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    ck_assert_int_ge(in, 0);
    ck_assert_int_ge(inotify_add_watch(in, conf, IN_OPEN | IN_ACCESS), 0);
    ck_assert_int_ge(inotify_add_watch(in, fifo, IN_OPEN | IN_ACCESS), 0);
    char ev[4096];

    /* Control: without setuid the same environment is applied and the file
     * is opened, so the checks below can see a failure. */
    struct run r;
    run_probe(plain, env, user, group, &r);
    ck_assert_int_eq(probe_int(&r, "secure"), 0);
    ck_assert_uint_eq(probe_value(&r, d->key, NULL), v);
    ck_assert_int_eq(probe_int(&r, "isa_cap"), 0);
    ck_assert_int_gt(read(in, ev, sizeof ev), 0);

    /* Setuid: AT_SECURE, nothing applied, nothing printed, not opened. */
    uint64_t dv[MEMASM_THR_COUNT];
    defaults(dv);
    char *const *envs[] = {env, env_bad, env_fifo, env_ignored};
    for (int k = 0; k < 4; k++) {
        run_probe(suid, envs[k], user, group, &r);
        ck_assert_int_eq(probe_int(&r, "secure"), 1);
        ck_assert_str_eq(r.err, "");
        ck_assert_uint_eq(probe_value(&r, d->key, NULL), dv[d->index]);
        ck_assert_int_eq(probe_int(&r, "isa_cap"), memasm_isa_cpu());
        errno = 0;
        ck_assert_msg(read(in, ev, sizeof ev) < 0 && errno == EAGAIN,
                      "the configuration file was opened in a secure-execution process");
    }
    close(in);
    if (strcmp(sdir, dir) != 0) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", sdir);
        ck_assert_int_eq(system(cmd), 0);
    }
}
END_TEST

/* A file that names its 'isa' level (as memasm-tune writes it) was tuned
 * with that level's kernels: behind a lower level its keys take that
 * level's defaults, and come back with the level; a file without 'isa',
 * MEMASM_TUNABLES and memasm_threshold_set keep their values at every
 * level. */
#if defined(__x86_64__)
static size_t tget(const char *key)
{
    size_t v = 0;
    ck_assert_msg(memasm_threshold_get(key, &v) == 0, "memasm_threshold_get(%s)", key);
    return v;
}
#endif

START_TEST(tuned_file_holds_at_its_level)
{
#if defined(__x86_64__)
    if (memasm_isa_cpu() == 0) {
        printf("tuned_file_holds_at_its_level: skipped, the CPU has no level above sse2\n");
        return;
    }
    const char *top = memasm_isa_name(memasm_isa_cpu());
    /* the defaults behind the SSE2 kernels */
    memasm_threshold_reset();
    ck_assert(memasm_isa_set_cap("sse2") == 0);
    size_t d_cpy = tget("memcpy.erms_min"), d_set = tget("memset.erms_min"), d_nt = tget("memcpy.nt_min");
    ck_assert(memasm_isa_set_cap(NULL) == 0);
    char text[256];
    snprintf(text, sizeof text,
             "cpu = any\nisa = %s\nmemcpy.erms_min = 100K\nmemset.erms_min = 200K\nmemcpy.nt_min = 64M\n", top);
    const char *tuned = write_text("tuned.conf", text);
    ck_assert_int_eq(load(tuned, NULL, 0), 0);
    ck_assert(tget("memcpy.erms_min") == 100 << 10 && tget("memset.erms_min") == 200 << 10 &&
              tget("memcpy.nt_min") == 64 << 20);
    ck_assert(memasm_isa_set_cap("sse2") == 0);
    ck_assert_msg(tget("memcpy.erms_min") == d_cpy && tget("memset.erms_min") == d_set &&
                      tget("memcpy.nt_min") == d_nt,
                  "behind sse2 a file tuned for %s still sets %zu, %zu, %zu (defaults %zu, %zu, %zu)", top,
                  tget("memcpy.erms_min"), tget("memset.erms_min"), tget("memcpy.nt_min"), d_cpy, d_set, d_nt);
    ck_assert_int_eq(memasm_config_source(MEMASM_THR_MEMCPY_ERMS_MIN), MEMASM_SRC_DEFAULT);
    ck_assert(memasm_isa_set_cap(NULL) == 0);
    ck_assert_msg(tget("memcpy.erms_min") == 100 << 10 && tget("memset.erms_min") == 200 << 10 &&
                      tget("memcpy.nt_min") == 64 << 20,
                  "the tuned values did not come back with the level");
    ck_assert_int_eq(memasm_config_source(MEMASM_THR_MEMCPY_ERMS_MIN), MEMASM_SRC_FILE);
    /* one operation forced down: only its keys */
    ck_assert(memasm_kernel_force("memset_sse2") == 0);
    ck_assert(tget("memset.erms_min") == d_set && tget("memcpy.erms_min") == 100 << 10);
    ck_assert(memasm_kernel_auto(MEMASM_OP_MEMSET) == 0);
    ck_assert(tget("memset.erms_min") == 200 << 10);
    /* a key set through the API, and an inline one, hold at every level */
    ck_assert(memasm_threshold_set("memset.erms_min", 300 << 10, NULL) == 0);
    ck_assert(memasm_isa_set_cap("sse2") == 0);
    ck_assert(tget("memset.erms_min") == 300 << 10 && tget("memcpy.erms_min") == d_cpy);
    ck_assert(memasm_isa_set_cap(NULL) == 0);
    ck_assert_int_eq(load(tuned, "memcpy.erms_min=50K", 0), 0);
    ck_assert(memasm_isa_set_cap("sse2") == 0);
    ck_assert(tget("memcpy.erms_min") == 50 << 10 && tget("memset.erms_min") == d_set);
    ck_assert(memasm_isa_set_cap(NULL) == 0);
    /* without 'isa' a file's values are the user's, at every level */
    const char *plain = write_text("plain.conf", "cpu = any\nmemcpy.erms_min = 100K\n");
    ck_assert_int_eq(load(plain, NULL, 0), 0);
    ck_assert(memasm_isa_set_cap("sse2") == 0);
    ck_assert(tget("memcpy.erms_min") == 100 << 10);
    ck_assert(memasm_isa_set_cap(NULL) == 0);
    /* the file's own 'isa' below the CPU's: its level is the one in force */
    const char *low = write_text("low.conf", "cpu = any\nisa = sse2\nmemcpy.erms_min = 100K\n");
    ck_assert_int_eq(load(low, NULL, 0), 0);
    ck_assert_int_eq(memasm_isa_cap(), 0);
    ck_assert(tget("memcpy.erms_min") == 100 << 10);
    memasm_isa_set_cap(NULL);
    memasm_threshold_reset();
#else
    printf("tuned_file_holds_at_its_level: no ISA level with its own defaults on this architecture\n");
#endif
}
END_TEST

/* ---- main --------------------------------------------------------------- */

static Suite *suite(void)
{
    Suite *s = suite_create("config");
    TCase *t = tcase_create("parser");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 30);
    tcase_add_test(t, every_key_is_listed);
    tcase_add_test(t, inline_bad);
    tcase_add_test(t, inline_too_long);
    tcase_add_test(t, file_not_a_regular_file);
    tcase_add_test(t, file_bad_content);
    tcase_add_test(t, file_fingerprint);
    tcase_add_test(t, file_and_inline_all_or_nothing);
    tcase_add_test(t, out_of_range_and_order);
    tcase_add_test(t, every_key_applied);
    tcase_add_test(t, inline_overrides_file_and_repeats_overwrite);
    tcase_add_test(t, bwd_gate_follows);
    tcase_add_test(t, tuned_file_holds_at_its_level);
    tcase_add_test(t, numbers);
    tcase_add_test(t, isa_only_narrows);
    tcase_add_test(t, round_trip);
    tcase_add_test(t, debug_output);
    tcase_add_test(t, growing_file);
    tcase_add_test(t, system_file_missing);
    tcase_add_test(t, system_file_applied);
    tcase_add_test(t, system_file_group_or_other_writable);
    tcase_add_test(t, system_file_not_owned_by_root);
    tcase_add_test(t, system_file_not_the_file_itself);
    tcase_add_test(t, system_file_bad_content);
    tcase_add_test(t, config_empty_reads_no_file);
    tcase_add_test(t, constructor_reads_environment);
    tcase_add_test(t, constructor_debug_values);
    tcase_add_test(t, constructor_system_file_and_empty_config);
    tcase_add_test(t, secure_execution_ignores_everything);
    suite_add_tcase(s, t);
    return s;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--probe") == 0)
        return probe();
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "test_config: cannot find /proc/self/exe\n");
        return 99;
    }
    self[n] = '\0';
    /* The suite sets the environment per test; start from none. */
    unsetenv("MEMASM_CONFIG");
    unsetenv("MEMASM_TUNABLES");
    unsetenv("MEMASM_ISA");
    unsetenv("MEMASM_DEBUG");
    SRunner *r = srunner_create(suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
