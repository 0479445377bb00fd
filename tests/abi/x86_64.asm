; x86_64.asm -- the ABI checker's trampoline for x86_64 (NASM), see abi.h.
;
; int memasm_abi_call(void (*fn)(void), uint64_t a0, uint64_t a1,
;                     uint64_t a2, const uint64_t *seeds, unsigned flags,
;                     uint64_t *ret);
;
; Calls fn(a0, a1, a2) with rbx rbp r12 r13 r14 r15 loaded from seeds[0..5]
; and a canary (derived from seeds[0]) in the stack slot right above the
; return address, then checks, in this order: each of those registers
; against its seed (code 1 + index), the canary (0x100), the direction flag
; (0x200) and, with MEMASM_ABI_CHECK_UPPER, the XINUSE bits of xgetbv(1):
; 2 (upper halves of ymm0-15), 5 (the opmask registers), 6 (upper 256 bits
; of zmm0-15) and 7 (zmm16-31) must be clear (0x400).  Dirty upper halves
; slow down later SSE code, so a kernel must leave them clean; k0-k7 are
; caller-saved scratch in the psABI, but no kernel or entry point writes
; them, and a set bit 5 here would show one that does.  The caller's callee-saved registers
; are pushed on entry and popped on exit, so a broken kernel is reported,
; not propagated; the direction flag is cleared and the upper state cleaned
; before returning to C.
;
; Before the call, with MEMASM_ABI_CHECK_UPPER, the upper state is made
; clean so that only the kernel can dirty it: vzeroupper for bits 2/6 (they
; can only be set where AVX exists), and for bits 5/7 (which vzeroupper does
; not reset, and which the C library's own EVEX routines leave set) an
; XRSTOR from an all-zero header, which returns those components to their
; initial state.  The caller sets that flag only when CPUID says XGETBV with
; ECX=1 is supported (leaf 0xD, sub-leaf 1, EAX bit 2), which implies XSAVE.
;
; Assumptions: System V AMD64 ABI; the 7th argument (ret) is on the stack.

default rel

%define CHECK_UPPER 2           ; MEMASM_ABI_CHECK_UPPER
%define ERR_CANARY 0x100
%define ERR_DF 0x200
%define ERR_UPPER 0x400
%define UPPER_BITS 0xe4         ; XINUSE bits 2, 5, 6, 7
%define CANARY_MIX 0x5ca1ab1e0ddba115

; Frame below the six pushes (72 bytes keep rsp 16-byte aligned at the call):
%define F_CANARY 0              ; right above the kernel's return address
%define F_SEEDS 8
%define F_FLAGS 16
%define F_RET 24
%define F_FN 32
%define F_A0 40
%define F_A1 48
%define F_A2 56
%define FRAME 72
%define ARG7 (FRAME + 6 * 8 + 8)

section .note.GNU-stack noalloc noexec nowrite progbits

section .bss
    alignb 64
xsave_init: resb 576            ; legacy area + header, all zero: "initial state"

section .text

; CHK reg, index: code 1 + index unless reg still holds seeds[index] (r8)
%macro CHK 2
    mov r10d, %2 + 1
    cmp %1, [r8 + 8 * %2]
    jne .done
%endmacro

    global memasm_abi_call:function (memasm_abi_call.end - memasm_abi_call)
    align 16
memasm_abi_call:
    endbr64
    push rbp
    push rbx
    push r12
    push r13
    push r14
    push r15
    sub rsp, FRAME
    mov rax, [rsp + ARG7]
    mov [rsp + F_RET], rax
    mov [rsp + F_SEEDS], r8
    mov [rsp + F_FLAGS], r9
    mov [rsp + F_FN], rdi
    mov [rsp + F_A0], rsi
    mov [rsp + F_A1], rdx
    mov [rsp + F_A2], rcx

    test r9d, CHECK_UPPER
    jz .seed
    mov ecx, 1
    xgetbv
    test eax, 0x44              ; ymm/zmm upper halves of registers 0-15
    jz .no_vzu
    vzeroupper
.no_vzu:
    test eax, 0xa0              ; opmask, zmm16-31
    jz .seed
    mov eax, 0xa0               ; RFBM: initialise exactly those components
    xor edx, edx
    lea r10, [xsave_init]
    xrstor [r10]

.seed:
    mov rax, [rsp + F_SEEDS]
    mov rbx, [rax]
    mov rbp, [rax + 8]
    mov r12, [rax + 16]
    mov r13, [rax + 24]
    mov r14, [rax + 32]
    mov r15, [rax + 40]
    mov r10, CANARY_MIX
    xor r10, [rax]
    mov [rsp + F_CANARY], r10
    ; junk in the caller-saved registers the kernel must not rely on
    mov r8, rbp
    mov r9, r12
    mov r10, r13
    mov rcx, r14
    mov r11, [rsp + F_FN]
    mov rdi, [rsp + F_A0]
    mov rsi, [rsp + F_A1]
    mov rdx, [rsp + F_A2]
    mov rax, r15
    call r11

    mov r8, [rsp + F_SEEDS]
    mov r9, [rsp + F_RET]
    mov [r9], rax
    CHK rbx, 0
    CHK rbp, 1
    CHK r12, 2
    CHK r13, 3
    CHK r14, 4
    CHK r15, 5
    mov r11, CANARY_MIX
    xor r11, [r8]
    mov r10d, ERR_CANARY
    cmp [rsp + F_CANARY], r11
    jne .done
    pushfq
    pop r11
    mov r10d, ERR_DF
    test r11d, 0x400            ; DF
    jnz .done
    xor r10d, r10d
    test dword [rsp + F_FLAGS], CHECK_UPPER
    jz .done
    mov ecx, 1
    xgetbv
    test eax, UPPER_BITS
    jz .done
    mov r10d, ERR_UPPER

.done:
    cld
    test dword [rsp + F_FLAGS], CHECK_UPPER
    jz .out
    mov ecx, 1
    xgetbv
    test eax, 0x44
    jz .out
    vzeroupper
.out:
    mov eax, r10d
    add rsp, FRAME
    pop r15
    pop r14
    pop r13
    pop r12
    pop rbx
    pop rbp
    ret
.end:
