/*
 * env.c -- the MEMASM_* environment variables, read once at start-up.
 *
 * Layer 5 (start-up, with c/init.c above it): uses layers 0-4; it hands
 * what it reads to the configuration (read and checked by c/config.c,
 * applied by c/dispatch.c).  See c/README.md.
 *
 * Everything here runs inside every process that links libmemasm, setuid
 * programs included, so the environment is hostile input: it is never
 * written, never copied without a bound, and never read at all in a
 * secure-execution process (the caller checks AT_SECURE).  Messages go to
 * stderr with write(2), one line each, prefixed "libmemasm:", with the
 * untrusted part shortened and stripped of control characters.
 *
 *   MEMASM_CONFIG=<file>      configuration file (c/config.c); unset: the
 *                             system file, $(sysconfdir)/memasm.conf; set
 *                             but empty: no file
 *   MEMASM_TUNABLES=k=v:k=v   the same keys inline, applied after the file
 *   MEMASM_ISA=<level>        cap the ISA level (the lower of this and the
 *                             configuration's 'isa' wins)
 *   MEMASM_DEBUG=<n>          say on stderr what was applied: a decimal
 *                             number, on unless it is 0; empty is off
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "memasm-internal.h"

#define ENV_VALUE_MAX 4096 /* longer values are rejected whole */

/* Configure's $(sysconfdir), given by Makefile.am.  Fixed at build time: an
 * environment variable moving it would let anyone point every program at a
 * file of their own with the system file's standing. */
#ifndef MEMASM_SYSCONF_FILE
#error "MEMASM_SYSCONF_FILE (the system configuration file) is not defined"
#endif
const char memasm_config_system_file[] = MEMASM_SYSCONF_FILE;

static int env_isa_applied; /* MEMASM_ISA set the cap in force */

/* The values ignored (MEMASM_DEBUG, MEMASM_ISA), each as its line without
 * the "libmemasm: " prefix, for memasm-info. */
#define ENV_PROBLEMS_MAX 2
static char env_problem[ENV_PROBLEMS_MAX][256];
static int env_problems;
static int env_debug; /* MEMASM_DEBUG is on */

/* The value v (n bytes) of a variable was ignored: one line on stderr,
 * msg, the value made printable, tail; kept for memasm_env_problem(). */
static void ignored(const char *msg, const char *v, size_t n, const char *tail)
{
    if (env_problems == ENV_PROBLEMS_MAX)
        return;
    char *line = env_problem[env_problems++];
    size_t len = 0, cap = sizeof env_problem[0];
    memasm_diag_append(line, &len, cap, msg, strlen(msg), 0);
    memasm_diag_append(line, &len, cap, v, n, 1);
    memasm_diag_append(line, &len, cap, tail, strlen(tail), 0);
    line[len] = '\0';
    memasm_diag(line, NULL, 0, NULL);
}

const char *memasm_env_problem(int i)
{
    return i >= 0 && i < env_problems ? env_problem[i] : NULL;
}

int memasm_env_debug(void)
{
    return env_debug;
}

/* MEMASM_DEBUG: decimal digits, on unless they are all 0; unset or empty is
 * off; anything else is ignored (off) with one line. */
static int debug_wanted(void)
{
    const char *v = getenv("MEMASM_DEBUG");
    if (!v)
        return 0;
    size_t n = strnlen(v, ENV_VALUE_MAX + 1), i;
    int on = 0;
    for (i = 0; i < n && v[i] >= '0' && v[i] <= '9'; i++)
        on |= v[i] != '0';
    if (i == n && n <= ENV_VALUE_MAX)
        return on;
    ignored("MEMASM_DEBUG: '", v, n,
            "' ignored (a decimal number: 1 or more is on; 0 or empty is off)");
    return 0;
}

/* MEMASM_ISA=<level>: cap the ISA level.  An unknown value is ignored with
 * one line on stderr; a level above the CPU's cannot raise anything, and a
 * lower 'isa' from the configuration stays in force. */
static void apply_isa(void)
{
    const char *v = getenv("MEMASM_ISA");
    if (!v)
        return;
    size_t n = strnlen(v, ENV_VALUE_MAX + 1);
    int level = n <= ENV_VALUE_MAX ? memasm_isa_level_n(v, n) : -1;
    if (level < 0) {
        char tail[160];
        size_t len = 0;
        memasm_diag_append(tail, &len, sizeof tail - 2, "' ignored (levels: ", 19, 0);
        for (int i = 0; i < memasm_isa_names_count; i++) {
            if (i)
                memasm_diag_append(tail, &len, sizeof tail - 2, ", ", 2, 0);
            memasm_diag_append(tail, &len, sizeof tail - 2, memasm_isa_names[i],
                               strlen(memasm_isa_names[i]), 0);
        }
        tail[len++] = ')';
        tail[len] = '\0';
        ignored("MEMASM_ISA: unknown level '", v, n, tail);
        return;
    }
    int cfg = memasm_config_isa(NULL);
    if (cfg >= 0 && cfg < level)
        return; /* the configuration's lower cap stays */
    memasm_isa_set_cap_level(level);
    env_isa_applied = 1;
}

int memasm_secure_mode(void)
{
    return getauxval(AT_SECURE) != 0;
}

int memasm_env_isa_applied(void)
{
    return env_isa_applied;
}

void memasm_env_apply(void)
{
    env_problems = 0;
    int dbg = env_debug = debug_wanted();
    const char *path = getenv("MEMASM_CONFIG"), *tunables = getenv("MEMASM_TUNABLES");
    if (path)
        memasm_config_load(path, tunables, dbg); /* "" reads no file */
    else
        memasm_config_load_system(memasm_config_system_file, tunables, dbg);
    apply_isa();
}
