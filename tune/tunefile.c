/*
 * tunefile.c -- the replace check and the atomic write of memasm-tune's
 * file (tunefile.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memasm-internal.h"
#include "tunefile.h"

int tunefile_may_replace(const char *path, int force, char *why, size_t why_len)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(why, why_len, "%s", strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, why_len, "not a regular file");
        return -1;
    }
    if (force)
        return 0;
    if (st.st_size > MEMASM_CONFIG_FILE_MAX) {
        snprintf(why, why_len, "larger than a configuration can be (64 KiB)");
        return -1;
    }
    static char text[MEMASM_CONFIG_FILE_MAX + 1];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        snprintf(why, why_len, "%s", strerror(errno));
        return -1;
    }
    size_t len = 0;
    ssize_t n;
    while (len < sizeof text && (n = read(fd, text + len, sizeof text - len)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            snprintf(why, why_len, "%s", strerror(errno));
            close(fd);
            return -1;
        }
        len += (size_t)n;
    }
    close(fd);
    char problem[480];
    if (len > MEMASM_CONFIG_FILE_MAX ||
        memasm_config_try(text, len, MEMASM_SRC_FILE, NULL, problem, sizeof problem) != 0) {
        /* the parser's message starts "MEMASM_CONFIG (text):LINE: " */
        const char *p = strstr(problem, "(text)");
        const char *msg = p ? strstr(p, ": ") : NULL;
        unsigned long line = p && p[6] == ':' ? strtoul(p + 7, NULL, 10) : 0;
        char at[32] = "";
        if (line)
            snprintf(at, sizeof at, "line %lu: ", line);
        snprintf(why, why_len, "not a configuration this CPU accepts (%s%s)", at,
                 len > MEMASM_CONFIG_FILE_MAX ? "larger than 64 KiB" : msg ? msg + 2 : problem);
        return -1;
    }
    return 0;
}

int tunefile_write(const char *path, const char *text, size_t len, char *why, size_t why_len)
{
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp) {
        snprintf(why, why_len, "path too long");
        return -1;
    }
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &old);
    int r = -1, fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(why, why_len, "cannot create %s: %s", tmp, strerror(errno));
        goto out;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            snprintf(why, why_len, "writing %s: %s", tmp, n < 0 ? strerror(errno) : "no space");
            close(fd);
            unlink(tmp);
            goto out;
        }
        done += (size_t)n;
    }
    if (fchmod(fd, 0644) != 0 || fsync(fd) != 0) {
        snprintf(why, why_len, "writing %s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        goto out;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        snprintf(why, why_len, "replacing %s: %s", path, strerror(errno));
        unlink(tmp);
        goto out;
    }
    r = 0;
out:
    sigprocmask(SIG_SETMASK, &old, NULL);
    return r;
}
