/*
 * broken-aarch64.S -- memasm_test_broken_memcpy: a memcpy that copies
 * correctly (a plain byte loop, n = 0 touches nothing) and then flips bit 0
 * of x19, a callee-saved register.  Built only into the test that shows the
 * ABI checker (tests/abi/aarch64.S) catches a broken kernel: the checker
 * must report 1 (x19 is its register number 0).  Never linked into
 * libmemasm.
 */
#include "asm.h"

ENTRY(memasm_test_broken_memcpy)
	mov	x3, x0
	cbz	x2, 2f
1:	ldrb	w4, [x1], 1
	strb	w4, [x3], 1
	subs	x2, x2, 1
	b.ne	1b
2:	eor	x19, x19, 1             /* the deliberate ABI violation */
	ret
END(memasm_test_broken_memcpy)
