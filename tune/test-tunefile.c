/*
 * test-tunefile.c -- memasm-tune's file, without timing anything: the
 * library's writer with the tuner's notes, read back by the library's own
 * parser; the rules for replacing a file; the atomic write.
 *
 * Linked statically with libmemasm, for the internal writer and parser.
 */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memasm-internal.h"
#include "tunefile.h"

static char dir[256];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "%s/memasm-tunefile.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[600];
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* Entries in dir (. and .. not counted). */
static int entries(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static char *slurp(const char *path, size_t *len)
{
    static char buf[1 << 17];
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    *len = fread(buf, 1, sizeof buf - 1, f);
    buf[*len] = 0;
    fclose(f);
    return buf;
}

/* The notes as the tuner gives them, with hostile bytes in them. */
static void sample_notes(struct memasm_config_notes *n)
{
    memset(n, 0, sizeof *n);
    n->header = "tuned by a test\nobjective: readback\n\tcontrol \x01 and \xff bytes\nkey = 1 must stay a comment";
    n->isa_remark = "no lower level faster\nsecond line";
    for (size_t i = 0; i < memasm_threshold_defs_count; i++)
        n->remark[memasm_threshold_defs[i].index] = "crossover at 6M: nt 2.4x above, +-3%\nmemset.nt_min = 512";
}

START_TEST(writer_round_trip)
{
    /* Thresholds away from the defaults, then the file read back. */
    for (size_t i = 0; i < memasm_threshold_count(); i++)
        memasm_threshold_set(memasm_threshold_key(i), (size_t)(1 + i) << 20, NULL);
    struct memasm_config_notes notes;
    sample_notes(&notes);
    size_t need = memasm_config_write_notes(NULL, 0, "test-tunefile", &notes);
    char *text = malloc(need + 1);
    ck_assert_uint_eq(memasm_config_write_notes(text, need + 1, "test-tunefile", &notes), need);
    ck_assert_uint_eq(strlen(text), need);
    /* every note line is a comment, printable */
    ck_assert_ptr_nonnull(strstr(text, "# tuned by a test\n"));
    ck_assert_ptr_nonnull(strstr(text, "# ?control ? and ? bytes\n"));
    ck_assert_ptr_nonnull(strstr(text, "# key = 1 must stay a comment\n"));
    ck_assert_ptr_nonnull(strstr(text, "# memset.nt_min = 512\n"));
    ck_assert_ptr_nonnull(strstr(text, "# second line\nisa = "));
    for (size_t i = 0; i < need; i++)
        ck_assert(text[i] == '\n' || (text[i] >= 0x20 && text[i] < 0x7f));
    uint64_t back[MEMASM_THR_COUNT];
    char problem[480];
    int r = memasm_config_try(text, need, MEMASM_SRC_FILE, back, problem, sizeof problem);
    ck_assert_msg(r == 0, "%s", problem);
    for (size_t i = 0; i < memasm_threshold_count(); i++) {
        const char *k = memasm_threshold_key(i);
        const struct memasm_threshold_def *d = memasm_threshold_lookup(k, strlen(k));
        size_t now;
        memasm_threshold_get(k, &now);
        ck_assert_msg(back[d->index] == now, "%s: wrote %zu, read back %llu", k, now,
                      (unsigned long long)back[d->index]);
    }
    /* without notes: the plain writer's output, every line of it in the
     * annotated file too */
    size_t plain_len = memasm_config_write(NULL, 0, "test-tunefile");
    char *plain = malloc(plain_len + 1);
    memasm_config_write(plain, plain_len + 1, "test-tunefile");
    ck_assert_uint_lt(plain_len, need);
    for (char *line = strtok(plain, "\n"); line; line = strtok(NULL, "\n"))
        ck_assert_msg(strstr(text, line) != NULL, "line '%s' missing", line);
    /* a short buffer: still NUL-terminated, still counts everything */
    char small[100];
    ck_assert_uint_eq(memasm_config_write_notes(small, sizeof small, "test-tunefile", &notes), need);
    ck_assert_uint_eq(strlen(small), sizeof small - 1);
    free(plain);
    free(text);
    memasm_threshold_reset();
}
END_TEST

START_TEST(replace_rules)
{
    char path[600], why[600];
    make_dir();
    snprintf(path, sizeof path, "%s/memasm.conf", dir);
    /* nothing there: may write */
    ck_assert_int_eq(tunefile_may_replace(path, 0, why, sizeof why), 0);
    /* our own file for this CPU: may replace */
    size_t need = memasm_config_write(NULL, 0, "t");
    char *text = malloc(need + 1);
    memasm_config_write(text, need + 1, "t");
    put_file(path, text);
    ck_assert_int_eq(tunefile_may_replace(path, 0, why, sizeof why), 0);
    /* tuned for another CPU: refused, unless forced */
    char *fam = strstr(text, "cpu.l1d = ");
    ck_assert_ptr_nonnull(fam);
    fam[10] = fam[10] == '9' ? '8' : '9';
    put_file(path, text);
    ck_assert_int_eq(tunefile_may_replace(path, 0, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "another CPU"));
    ck_assert_int_eq(tunefile_may_replace(path, 1, why, sizeof why), 0);
    /* not a configuration at all (a mistyped --output): refused */
    put_file(path, "int main(void) { return 0; }\n");
    ck_assert_int_eq(tunefile_may_replace(path, 0, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "line 1"));
    /* a directory: refused even with force */
    ck_assert_int_eq(tunefile_may_replace(dir, 1, why, sizeof why), -1);
    free(text);
    remove_dir();
}
END_TEST

START_TEST(atomic_write)
{
    char path[600], why[600];
    size_t len;
    make_dir();
    snprintf(path, sizeof path, "%s/memasm.conf", dir);
    put_file(path, "old\n");
    ck_assert_int_eq(tunefile_write(path, "new contents\n", 13, why, sizeof why), 0);
    ck_assert_str_eq(slurp(path, &len), "new contents\n");
    ck_assert_int_eq(entries(), 1); /* no temporary left */
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0644);
    /* a directory that cannot take the temporary: fails, old file kept */
    if (geteuid() != 0) {
        chmod(dir, 0555);
        ck_assert_int_eq(tunefile_write(path, "lost\n", 5, why, sizeof why), -1);
        ck_assert_str_eq(slurp(path, &len), "new contents\n");
        chmod(dir, 0755);
    } else {
        printf("test-tunefile: the unwritable-directory case skipped: needs a non-root user\n");
    }
    /* a path in a directory that does not exist */
    char bad[700];
    snprintf(bad, sizeof bad, "%s/no/such/dir/memasm.conf", dir);
    ck_assert_int_eq(tunefile_write(bad, "x\n", 2, why, sizeof why), -1);
    ck_assert_int_eq(entries(), 1);
    remove_dir();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tunefile");
    TCase *tc = tcase_create("file");
    tcase_add_test(tc, writer_round_trip);
    tcase_add_test(tc, replace_rules);
    tcase_add_test(tc, atomic_write);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
