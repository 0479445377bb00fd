/*
 * test-early.h -- preload/test-early.c, a library the early test program
 * links: it calls the copy functions before libmemasm's constructor.
 */
#ifndef TEST_EARLY_H
#define TEST_EARLY_H

/* Stop and join the start-up threads, print what the constructor, malloc
 * and the threads saw; returns the number of failures. */
__attribute__((visibility("default"))) int test_early_report(void);

#endif
