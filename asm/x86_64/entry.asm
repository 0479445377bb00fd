; entry.asm -- the public entry points memasm_memcpy, memasm_memmove and
; memasm_memset on x86_64 (exported: default visibility).
;
; Each one handles the smallest sizes itself and jumps through the selected
; kernel's atomic pointer (memasm_cur_*, c/kernels-x86_64.c; hidden, so a
; RIP-relative load needs no GOT) for the rest.  The C entry points did only
; the jump, and that indirect jump cost about 10% of a call at 1-256 bytes.
; The pointer is read once per call with an ordinary load (a relaxed atomic
; load on x86_64), as the C version did.
;
; Small paths (rdi = dst, rsi = src, rdx = n, rax = dst):
;   copy (memcpy and memmove, one body each)
;     0          returns, touching nothing;
;     1..3       bytes 0, n/2 and n-1 (two overlapping 2-byte moves were
;                measured slower here: 0.8 against 1.0 of glibc at 2-3 B);
;     4..16      two overlapping 4- or 8-byte general-register moves;
;     17..32     two overlapping 16-byte SSE2 moves (baseline; no ymm/zmm
;                is touched, so no vzeroupper);
;     33..64     four 16-byte SSE2 moves, two from each end;
;     every load comes before the first store, so memmove's overlap is safe.
;   memset
;     c (the low 8 bits of esi only) spread over a register by imul;
;     0 returns, 1..3 bytes 0, n/2, n-1, 4..16 two overlapping
;     4/8-byte stores, 17..32 four 8-byte stores, 33..64 four 16-byte SSE2
;     stores of that register doubled.
; The cut-offs are ENTRY_COPY_MAX and ENTRY_SET_MAX (16, 32 or 64, nasm -D
; to try another).  Measured with bench/memasm-bench against glibc 2.36 on
; AMD Zen 5 (medians of 7-9 runs): 64 beat 32 for memcpy (geomean 1-256 B
; 1.00 against 0.96; 48-64 B 0.86-0.93 against 0.62-0.81) and for the
; memset size mix (0.99 against 0.88); 16 was worse than 32 for both.
; Falling through to the small path is better than falling through to the
; jump: the other layout cost 5-10% at 4-32 B and gained nothing clear above.

%define KERNEL_VISIBILITY default
%include "macros.inc"
%include "small.inc"

%ifndef ENTRY_COPY_MAX
    %define ENTRY_COPY_MAX 64
%endif
%ifndef ENTRY_SET_MAX
    %define ENTRY_SET_MAX 64
%endif
%if ENTRY_COPY_MAX != 16 && ENTRY_COPY_MAX != 32 && ENTRY_COPY_MAX != 64
    %error "ENTRY_COPY_MAX must be 16, 32 or 64"
%endif
%if ENTRY_SET_MAX != 16 && ENTRY_SET_MAX != 32 && ENTRY_SET_MAX != 64
    %error "ENTRY_SET_MAX must be 16, 32 or 64"
%endif

extern memasm_cur_memcpy
extern memasm_cur_memmove
extern memasm_cur_memset

; COPY_ENTRY name, pointer
%macro COPY_ENTRY 2
KERNEL %1
    cmp rdx, ENTRY_COPY_MAX
    ja .kernel
    mov rax, rdi
%if ENTRY_COPY_MAX > 16
    cmp edx, 16
    ja .g17
%endif
    COPY_0_16
%if ENTRY_COPY_MAX > 16
.g17:
%if ENTRY_COPY_MAX > 32
    cmp edx, 32
    ja .g33
%endif
    ; [17, 32]
    movdqu xmm0, [rsi]
    movdqu xmm1, [rsi + rdx - 16]
    movdqu [rdi], xmm0
    movdqu [rdi + rdx - 16], xmm1
    ret
%endif
%if ENTRY_COPY_MAX > 32
.g33:
    ; [33, 64]
    movdqu xmm0, [rsi]
    movdqu xmm1, [rsi + 16]
    movdqu xmm2, [rsi + rdx - 32]
    movdqu xmm3, [rsi + rdx - 16]
    movdqu [rdi], xmm0
    movdqu [rdi + 16], xmm1
    movdqu [rdi + rdx - 32], xmm2
    movdqu [rdi + rdx - 16], xmm3
    ret
%endif
.kernel:
    jmp [rel %2]
KERNEL_END
%endmacro

COPY_ENTRY memasm_memcpy, memasm_cur_memcpy
COPY_ENTRY memasm_memmove, memasm_cur_memmove

KERNEL memasm_memset
    cmp rdx, ENTRY_SET_MAX
    ja .kernel
    mov rax, rdi
    movzx ecx, sil
    mov r8, 0x0101010101010101
    imul rcx, r8
%if ENTRY_SET_MAX > 16
    cmp edx, 16
    ja .g17
%endif
    SET_0_16
%if ENTRY_SET_MAX > 16
.g17:
%if ENTRY_SET_MAX > 32
    cmp edx, 32
    ja .g33
%endif
    ; [17, 32]
    SET_17_32
%endif
%if ENTRY_SET_MAX > 32
.g33:
    ; [33, 64]
    movq xmm0, rcx
    punpcklqdq xmm0, xmm0
    movdqu [rdi], xmm0
    movdqu [rdi + 16], xmm0
    movdqu [rdi + rdx - 32], xmm0
    movdqu [rdi + rdx - 16], xmm0
    ret
%endif
.kernel:
    jmp [rel memasm_cur_memset]
KERNEL_END
