/*
 * tunefile.h -- how memasm-tune puts its result on disk: the checks before
 * it may replace a file, and the atomic write.  Kept apart from the
 * measuring so that tune/test-tunefile.c can test both without timing.
 */
#ifndef MEMASM_TUNE_TUNEFILE_H
#define MEMASM_TUNE_TUNEFILE_H

#include <stddef.h>

/*
 * May path be written?  Yes (0) when it does not exist, or is a regular
 * file that the library accepts as a configuration for this CPU, or force
 * is set and it is a regular file.  Otherwise -1 with the reason in why:
 * another CPU's file, a file that is not a configuration (a typo in
 * --output must not eat someone's data), a directory or device.
 */
int tunefile_may_replace(const char *path, int force, char *why, size_t why_len);

/*
 * Write len bytes of text to path atomically: a temporary file beside it,
 * mode 0644, fsync, rename.  SIGINT, SIGTERM and SIGHUP are held off from
 * creating the temporary to the rename, so an interrupt leaves the old file
 * or the new one and no temporary.  0, or -1 with the reason in why and
 * nothing left behind.
 */
int tunefile_write(const char *path, const char *text, size_t len, char *why, size_t why_len);

#endif /* MEMASM_TUNE_TUNEFILE_H */
