; broken-x86_64.asm -- a deliberately broken kernel for the ABI checker test.
;
; memasm_test_broken_memcpy copies correctly (rep movsb) and returns dst,
; but inverts rbx, a callee-saved register.  Only tests/test_abi_broken links
; it; the checker must report code 1 (rbx, the first register of abi.h).

default rel

section .note.GNU-stack noalloc noexec nowrite progbits

section .text
    global memasm_test_broken_memcpy:function (memasm_test_broken_memcpy.end - memasm_test_broken_memcpy)
    align 16
memasm_test_broken_memcpy:
    endbr64
    mov rax, rdi
    mov rcx, rdx
    rep movsb
    not rbx                     ; the bug: rbx is callee-saved
    ret
.end:
