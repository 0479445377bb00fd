/*
 * broken-riscv64.S -- a deliberately broken kernel for the test that shows
 * the ABI checker works (built only into that test, never into libmemasm).
 *
 * memasm_test_broken_memcpy copies n bytes correctly, one at a time, and
 * returns dst, but it overwrites the callee-saved register s1 (flipping all
 * its bits, so the result can never equal the seed) without restoring it.
 * tests/abi/riscv64.S must report it as register 2 (s1) not preserved.
 */
	.text
	.p2align 2
	.globl	memasm_test_broken_memcpy
	.type	memasm_test_broken_memcpy, @function
memasm_test_broken_memcpy:
	.cfi_startproc
	not	s1, s1			/* the bug: s1 is callee-saved */
	mv	a3, a0
	beqz	a2, 2f
	add	t2, a0, a2
1:	lbu	t0, 0(a1)
	addi	a1, a1, 1
	sb	t0, 0(a3)
	addi	a3, a3, 1
	bne	a3, t2, 1b
2:	ret
	.cfi_endproc
	.size	memasm_test_broken_memcpy, . - memasm_test_broken_memcpy

	.section .note.GNU-stack, "", @progbits
