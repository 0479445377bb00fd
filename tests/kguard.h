/*
 * kguard.h -- kc_run() (tests/kcase.h) with harness.c's fault catcher
 * armed, for the Check programs that run cases (tests/test_corpus.c,
 * tests/test_small.c).  A SIGSEGV, SIGBUS or SIGILL during the case becomes
 * a failure with the case's description instead of killing the program,
 * and the arena and control state are restored for the next case.
 */
#ifndef MEMASM_TEST_KGUARD_H
#define MEMASM_TEST_KGUARD_H

#include <setjmp.h>
#include <signal.h>
#include <stdio.h>

#include "harness.h"
#include "kcase.h"

static int kc_guarded_run(const kc_case *c, int full, char *msg, size_t len)
{
    if (sigsetjmp(t_fault_jmp, 0) == 0) {
        t_fault_armed = 1;
        int r = kc_run(c, full, msg, len);
        t_fault_armed = 0;
        return r;
    }
    t_fault_armed = 0;
    kc_recover();
    char what[512];
    int sig = t_fault_sig;
    snprintf(msg, len, "%s at %p during %s",
             sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGILL ? "SIGILL" : "signal",
             t_fault_addr, kc_describe(c, what, sizeof what));
    return 1;
}

#endif
