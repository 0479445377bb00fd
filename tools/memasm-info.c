/*
 * memasm-info -- what libmemasm does on this machine: version, CPU, caches,
 * the kernel serving each operation, every threshold in force and where it
 * came from, and any configuration problem.  Like `ld.so --list-diagnostics`,
 * but for libmemasm.
 *
 *   memasm-info            human-readable report
 *   memasm-info --json     the same as one JSON object
 *   memasm-info --config   a configuration file (memasm.conf(5)) for this
 *                          CPU with the values in force: MEMASM_CONFIG
 *                          accepts it back as it is
 *
 * Linked statically with libmemasm (it reads the library's internal CPU
 * description and configuration record), so it reports the library code it
 * was built with; the environment (MEMASM_CONFIG, MEMASM_TUNABLES,
 * MEMASM_ISA) and the system file are read by the library's constructor as
 * in any program.  It shows the system file's problem, which the library
 * prints only under MEMASM_DEBUG=1.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memasm-internal.h"

#if defined(__x86_64__)
#define MEMASM_ARCH_NAME "x86_64"
#elif defined(__aarch64__)
#define MEMASM_ARCH_NAME "aarch64"
#elif defined(__riscv)
#define MEMASM_ARCH_NAME "riscv64"
#endif

struct feature {
    uint32_t bit;
    const char *name;
};

static const struct feature features[] = {
#if defined(__x86_64__)
    {MEMASM_F_X86_SSE2, "sse2"},         {MEMASM_F_X86_AVX2, "avx2"},
    {MEMASM_F_X86_AVX512F, "avx512f"},   {MEMASM_F_X86_AVX512BW, "avx512bw"},
    {MEMASM_F_X86_AVX512VL, "avx512vl"}, {MEMASM_F_X86_ERMS, "erms"},
    {MEMASM_F_X86_FSRM, "fsrm"},        {MEMASM_F_X86_BMI2, "bmi2"},
#elif defined(__aarch64__)
    {MEMASM_F_A64_ASIMD, "asimd"},
    {MEMASM_F_A64_SVE, "sve"},
    {MEMASM_F_A64_DCZVA, "dczva"},
#elif defined(__riscv)
    {MEMASM_F_RV_V, "v"},
    {MEMASM_F_RV_MISALIGNED_FAST, "misaligned_fast"},
#endif
};
#define NFEATURES (sizeof features / sizeof features[0])

static const char *source_name(int src)
{
    switch (src) {
    case MEMASM_SRC_FILE: return "file";
    case MEMASM_SRC_INLINE: return "inline";
    case MEMASM_SRC_ENV_ISA: return "MEMASM_ISA";
    default: return "default";
    }
}

static int isa_source(void)
{
    int src;
    if (memasm_env_isa_applied())
        return MEMASM_SRC_ENV_ISA;
    return memasm_config_isa(&src) >= 0 ? src : MEMASM_SRC_DEFAULT;
}

/* 48K, 1M, "never", or plain bytes. */
static void human(char *buf, size_t cap, uint64_t v)
{
    if (v == UINT64_MAX)
        snprintf(buf, cap, "never");
    else if (v && v % (1u << 30) == 0)
        snprintf(buf, cap, "%lluG", (unsigned long long)(v >> 30));
    else if (v && v % (1u << 20) == 0)
        snprintf(buf, cap, "%lluM", (unsigned long long)(v >> 20));
    else if (v && v % (1u << 10) == 0)
        snprintf(buf, cap, "%lluK", (unsigned long long)(v >> 10));
    else
        snprintf(buf, cap, "%llu", (unsigned long long)v);
}

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v ? v : dflt;
}

static void text_report(void)
{
    const struct memasm_cpu *c = memasm_cpu_get();
    char a[32], b[32], d[32];

    printf("libmemasm %s (%s)\n", memasm_version(), MEMASM_ARCH_NAME);
    printf("cpu:         %s\n", c->brand[0] ? c->brand : "(no brand string)");
    printf("             vendor %s, family %d, model %d, stepping %d\n", c->vendor, c->family,
           c->model, c->stepping);
    printf("features:   ");
    for (size_t i = 0; i < NFEATURES; i++)
        printf(" %s%s", c->features & features[i].bit ? "" : "-", features[i].name);
    printf("\n");
#if defined(__riscv)
    if (c->vlen)
        printf("VLEN:        %u bits\n", c->vlen);
#elif defined(__aarch64__)
    if (c->zva_size)
        printf("dc zva:      %u-byte blocks\n", c->zva_size);
#endif
    human(a, sizeof a, c->l1d);
    human(b, sizeof b, c->l2);
    human(d, sizeof d, c->l3);
    printf("caches:      L1d %s, L2 %s, L3 %s (0 = unknown)\n", a, b, d);
    printf("isa:         cpu %s, in force %s (%s)\n", memasm_isa_name(memasm_isa_cpu()),
           memasm_isa_name(memasm_isa_cap()), source_name(isa_source()));
    struct memasm_entries e;
    memasm_entries_bound(&e);
    printf("entries:     %s (the entry points libmemasm.so binds its names to on this CPU)\n",
           e.name);
    printf("kernels:\n");
    for (int op = 0; op < MEMASM_OP_COUNT; op++) {
        const char *k = memasm_kernel_current((memasm_op)op);
        printf("  %-10s %s\n", memasm_op_name((memasm_op)op), k ? k : "(none)");
    }
    printf("thresholds:\n");
    for (size_t i = 0; i < memasm_threshold_defs_count; i++) {
        const struct memasm_threshold_def *t = &memasm_threshold_defs[i];
        human(a, sizeof a, memasm_thr[t->index]);
        printf("  %-23s = %-8s (%s)  %s\n", t->key, a, source_name(memasm_config_source(t->index)),
               t->doc);
    }
    printf("configuration:\n");
    int system;
    const char *file = memasm_config_file(&system);
    if (file)
        printf("  file            %s%s\n", file, system ? " (system file)" : "");
    else if (memasm_secure_mode())
        printf("  file            none\n");
    else if (getenv("MEMASM_CONFIG"))
        printf("  file            none (MEMASM_CONFIG is empty)\n");
    else
        printf("  file            none (no system file %s)\n", memasm_config_system_file);
    printf("  MEMASM_CONFIG   %s\n", env_or("MEMASM_CONFIG", "(unset)"));
    printf("  MEMASM_TUNABLES %s\n", env_or("MEMASM_TUNABLES", "(unset)"));
    printf("  MEMASM_ISA      %s\n", env_or("MEMASM_ISA", "(unset)"));
    int dropped = 0;
    for (size_t i = 0; i < memasm_threshold_defs_count; i++)
        dropped += memasm_threshold_tuned_dropped(memasm_threshold_defs[i].index);
    if (dropped)
        printf("  tuned keys      %d of the file's, tuned with the kernels of its 'isa' level, are at\n"
               "                  their defaults behind the lower level in force\n",
               dropped);
    if (memasm_secure_mode())
        printf("  secure-execution process: MEMASM_* ignored\n");
    /* One status line per problem: the configuration's, then each
     * environment value ignored; "ok" only when there is none. */
    const char *p = memasm_config_problem();
    if (p)
        printf("  status          %s\n", p);
    for (int i = 0; memasm_env_problem(i); i++)
        printf("  status          %s\n", memasm_env_problem(i));
    if (!p && !memasm_env_problem(0))
        printf("  status          ok\n");
}

static void json_str(const char *s)
{
    putchar('"');
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            printf("\\%c", ch);
        else if (ch < 0x20 || ch >= 0x7f)
            printf("\\u%04x", ch);
        else
            putchar(ch);
    }
    putchar('"');
}

/* A size: a JSON number when a double holds it exactly (up to 2^53, which
 * jq and JavaScript read as doubles), "never" for UINT64_MAX, else the
 * digits as a string. */
static void json_size(uint64_t v)
{
    if (v == UINT64_MAX)
        printf("\"never\"");
    else if (v <= (uint64_t)1 << 53)
        printf("%llu", (unsigned long long)v);
    else
        printf("\"%llu\"", (unsigned long long)v);
}

static void json_report(void)
{
    const struct memasm_cpu *c = memasm_cpu_get();
    printf("{\"version\":");
    json_str(memasm_version());
    printf(",\"arch\":");
    json_str(MEMASM_ARCH_NAME);
    printf(",\"cpu\":{\"brand\":");
    json_str(c->brand);
    printf(",\"vendor\":");
    json_str(c->vendor);
    printf(",\"family\":%d,\"model\":%d,\"stepping\":%d,\"vlen\":%u,\"zva_size\":%u,\"features\":[",
           c->family, c->model, c->stepping, c->vlen, c->zva_size);
    int first = 1;
    for (size_t i = 0; i < NFEATURES; i++) {
        if (!(c->features & features[i].bit))
            continue;
        printf(first ? "" : ",");
        json_str(features[i].name);
        first = 0;
    }
    printf("]},\"caches\":{\"l1d\":");
    json_size(c->l1d);
    printf(",\"l2\":");
    json_size(c->l2);
    printf(",\"l3\":");
    json_size(c->l3);
    printf("}");
    printf(",\"isa\":{\"cpu\":");
    json_str(memasm_isa_name(memasm_isa_cpu()));
    printf(",\"in_force\":");
    json_str(memasm_isa_name(memasm_isa_cap()));
    printf(",\"source\":");
    json_str(source_name(isa_source()));
    struct memasm_entries e;
    memasm_entries_bound(&e);
    printf("},\"entries\":");
    json_str(e.name);
    printf(",\"kernels\":{");
    for (int op = 0; op < MEMASM_OP_COUNT; op++) {
        printf(op ? "," : "");
        json_str(memasm_op_name((memasm_op)op));
        printf(":");
        json_str(memasm_kernel_current((memasm_op)op));
    }
    printf("},\"thresholds\":[");
    for (size_t i = 0; i < memasm_threshold_defs_count; i++) {
        const struct memasm_threshold_def *t = &memasm_threshold_defs[i];
        printf(i ? ",{\"key\":" : "{\"key\":");
        json_str(t->key);
        printf(",\"value\":");
        json_size(memasm_thr[t->index]);
        printf(",\"min\":");
        json_size(t->min);
        printf(",\"max\":");
        json_size(t->max);
        printf(",\"source\":");
        json_str(source_name(memasm_config_source(t->index)));
        printf(",\"doc\":");
        json_str(t->doc);
        printf("}");
    }
    printf("],\"config\":{\"MEMASM_CONFIG\":");
    const char *names[] = {"MEMASM_CONFIG", "MEMASM_TUNABLES", "MEMASM_ISA"};
    for (int i = 0; i < 3; i++) {
        if (i) {
            printf(",");
            json_str(names[i]);
            printf(":");
        }
        const char *v = getenv(names[i]);
        if (v)
            json_str(v);
        else
            printf("null");
    }
    int system;
    const char *file = memasm_config_file(&system);
    printf(",\"file\":");
    if (file) {
        printf("{\"path\":");
        json_str(file);
        printf(",\"system\":%s}", system ? "true" : "false");
    } else {
        printf("null");
    }
    printf(",\"secure_mode\":%s,\"problem\":", memasm_secure_mode() ? "true" : "false");
    const char *p = memasm_config_problem();
    if (p)
        json_str(p);
    else
        printf("null");
    printf(",\"env_problems\":[");
    for (int i = 0; memasm_env_problem(i); i++) {
        printf(i ? "," : "");
        json_str(memasm_env_problem(i));
    }
    printf("]}}\n");
}

static void config_file(void)
{
    char buf[8192];
    char writer[64];
    snprintf(writer, sizeof writer, "memasm-info %s", memasm_version());
    size_t n = memasm_config_write(buf, sizeof buf, writer);
    if (n >= sizeof buf) {
        fprintf(stderr, "memasm-info: configuration longer than %zu bytes\n", sizeof buf);
        exit(1);
    }
    fputs(buf, stdout);
}

static void usage(FILE *f)
{
    fputs("usage: memasm-info [--json | --config | --version | --help]\n"
          "  (no option)  report the CPU, kernels, thresholds and configuration\n"
          "  --json       the same report as JSON\n"
          "  --config     print a configuration file (memasm.conf(5)) for this CPU\n"
          "               with the values in force\n",
          f);
}

int main(int argc, char **argv)
{
    memasm_init();
    if (argc == 1) {
        text_report();
    } else if (argc == 2 && strcmp(argv[1], "--json") == 0) {
        json_report();
    } else if (argc == 2 && strcmp(argv[1], "--config") == 0) {
        config_file();
    } else if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("memasm-info (libmemasm) %s\n", memasm_version());
    } else if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
    } else {
        if (argc > 2)
            fprintf(stderr, "memasm-info: one option at most\n");
        else if (argv[1][0] == '-')
            fprintf(stderr, "memasm-info: unknown option '%s'\n", argv[1]);
        else
            fprintf(stderr, "memasm-info: unexpected argument '%s'\n", argv[1]);
        usage(stderr);
        return 2;
    }
    return ferror(stdout) || fflush(stdout) ? 1 : 0;
}
