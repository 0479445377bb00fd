/*
 * test_corpus.c -- make check's replay of the kernel fuzzer's corpus
 * (fuzz-kernels/ in the source tree): every file through the fuzzer's own
 * check (tests/kcase.c), without libFuzzer, so gcc builds and the cross
 * builds under qemu replay it too.
 *
 * Each file runs on the target its byte 1 picks and then on every other
 * target of its operation (every usable kernel called directly, each entry
 * point with each kernel forced and with the automatic choice), so a seed
 * or a crash input found on one machine checks every kernel here.
 *
 * A file named xfail-* is a known bug not yet fixed: its own target must
 * still fail (XFAIL, printed with the reason; failures on the other targets
 * are printed as XFAIL too, a bug is often in every kernel of a template);
 * if its own target passes, the test fails and asks for the rename (XPASS:
 * the bug was fixed, the file becomes a plain regression test).
 *
 *   tests/test_corpus [FILE or DIRECTORY...]    default: $srcdir/fuzz-kernels/
 */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "kguard.h"

#define INPUT_MAX 4096 /* the format uses at most KC_HEADER + 3 KC_MAX_THR */

typedef struct input {
    char *path;
    const char *base; /* file name without the directory */
    unsigned char *data;
    size_t size;
} input;

static input *inputs;
static int ninputs, cap;
static unsigned long cases, xfails;

static int by_name(const void *a, const void *b)
{
    return strcmp(((const input *)a)->base, ((const input *)b)->base);
}

/* Read one file (its first INPUT_MAX bytes) into the list; any failure is a
 * hard error (exit 99): the corpus is part of the source tree. */
static void load(const char *path)
{
    if (ninputs == cap) {
        cap = cap ? 2 * cap : 1024;
        inputs = realloc(inputs, (size_t)cap * sizeof *inputs);
    }
    input *in = inputs ? &inputs[ninputs] : NULL;
    unsigned char *buf = malloc(INPUT_MAX);
    FILE *f = fopen(path, "rb");
    if (!in || !buf || !(in->path = strdup(path)) || !f) {
        perror(path);
        exit(99);
    }
    const char *slash = strrchr(in->path, '/');
    in->base = slash ? slash + 1 : in->path;
    in->size = fread(buf, 1, INPUT_MAX, f);
    in->data = buf;
    fclose(f);
    ninputs++;
}

static void load_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        exit(99); /* the corpus is part of the source tree: a hard error */
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char p[1024];
        if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= sizeof p) {
            fprintf(stderr, "%s/%s: path too long\n", dir, e->d_name);
            exit(99);
        }
        load(p);
    }
    closedir(d);
}

START_TEST(replay)
{
    const input *in = &inputs[_i];
    int xfail = strncmp(in->base, "xfail-", 6) == 0;
    kc_recover();
    kc_case c;
    kc_decode(in->data, in->size, &c);
    size_t own = c.target;
    const kc_target *t = kc_target_get(own);
    char msg[1024];
    int r = kc_guarded_run(&c, 1, msg, sizeof msg);
    cases++;
    if (xfail) {
        if (!r)
            ck_abort_msg("%s: XPASS: expected to fail (a known bug) but %s passed; if the kernel was "
                         "fixed, rename the file without xfail- so it stays a regression test",
                         in->base, t->name);
        printf("XFAIL %s (known bug, see the file name): %s\n", in->base, msg);
        xfails++;
    } else if (r) {
        ck_abort_msg("%s: %s", in->path, msg);
    }
    for (size_t i = 0; i < kc_targets_of(t->op); i++) {
        size_t other = kc_target_of(t->op, i);
        if (other == own)
            continue;
        kc_retarget(&c, other);
        r = kc_guarded_run(&c, 1, msg, sizeof msg);
        cases++;
        /* A known bug is often in every kernel of one template. */
        if (r && xfail) {
            printf("XFAIL %s (known bug, on another target): %s\n", in->base, msg);
            xfails++;
        } else if (r) {
            ck_abort_msg("%s (run on another target): %s", in->path, msg);
        }
    }
}
END_TEST

int main(int argc, char **argv)
{
    t_fault_install();
    if (kc_init() != 0)
        return 99;
    if (argc > 1) {
        for (int i = 1; i < argc; i++) {
            struct stat st;
            if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
                load_dir(argv[i]);
            else
                load(argv[i]);
        }
    } else {
        const char *src = getenv("srcdir");
        char dir[512];
        snprintf(dir, sizeof dir, "%s/fuzz-kernels", src && *src ? src : ".");
        load_dir(dir);
    }
    if (ninputs == 0) {
        fprintf(stderr, "test_corpus: no input files\n");
        return 99;
    }
    qsort(inputs, (size_t)ninputs, sizeof *inputs, by_name);
    t_print_kernels();
    printf("replaying %d inputs, each on every target of its operation (%zu targets)\n", ninputs,
           kc_target_count());
    fflush(stdout);

    Suite *s = suite_create("corpus");
    TCase *tc = tcase_create("replay");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, replay, 0, ninputs);
    suite_add_tcase(s, tc);
    /* In this process: the counts below add up over the files. */
    int st = t_run_suite_nofork(s);
    printf("corpus: %d files, %lu cases, %lu expected failures (XFAIL)\n", ninputs, cases, xfails);
    return st;
}
