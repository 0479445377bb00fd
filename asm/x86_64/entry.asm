; entry.asm -- the public entry points memasm_memcpy, memasm_memmove and
; memasm_memset on x86_64 (exported: default visibility).
;
; Each one does sizes up to 256 bytes (512 with AVX-512) itself and jumps
; through the selected kernel's atomic pointer (memasm_cur_*,
; c/kernels-x86_64.c; hidden, so a RIP-relative load needs no GOT) for the
; rest.  A call that only jumped cost 10-20% against glibc at 1-256 bytes
; here: the indirect jump and the kernel's second size dispatch are each
; about a cycle of an 8-9 cycle call.
;
; Which registers the entry may use follows the installed kernel: one byte
; per operation, memasm_entry_vec_* (c/kernels-x86_64.c, rewritten by the
; dispatcher whenever it installs a kernel), holds
;   2  the AVX-512 kernel is installed and the CPU has BMI2 (the entry
;      then jumps to that kernel directly, not through the pointer);
;   1  an AVX2 kernel (or AVX-512 without BMI2);
;   0  an SSE2 kernel: baseline instructions only.
; The byte and the pointer are read with ordinary loads (relaxed atomics on
; x86_64).  Each value only ever allows what the CPU runs, so a call that
; races with a change of kernel is still correct.
;
; Paths (rdi = dst, rsi = src, rdx = n, rax = dst):
;   byte 2, the one this machine (AMD Zen 5) takes:
;     0..63     one masked 64-byte load and store (mask = the low n bits,
;               BMI2 bzhi; k1; masked-off bytes are never read or written
;               and cannot fault), unless the 64 bytes from src or dst
;               cross into the next page: a masked access that does costs
;               ~100 times more here (220 ns measured into a PROT_NONE page,
;               7 ns into a mapped one, 2 ns inside a page), so those go to
;               the general-register path below; memmove takes that path
;               always, with two ymm moves for 33..64 (see COPY_ENTRY);
;     64..128   two zmm moves from both ends, 129..256 four, 257..512
;               eight (all loads first);
;     more      a direct jump to the AVX-512 kernel: for memcpy/memmove
;               to its part for n > 8 VEC, for memset to its start;
;   byte 0 or 1:
;     0         returns, touching nothing;
;     1..3      bytes 0, n/2 and n-1;
;     4..16     two overlapping 4- or 8-byte general-register moves;
;     17..32    two overlapping 16-byte SSE2 moves;
;     33..64    four 16-byte SSE2 moves, two from each end;
;     65..256   (byte 1 only) four or eight ymm moves from both ends;
;   memset spreads c (the low 8 bits of esi only) by imul for the general
;   registers, vpbroadcastb for vectors.
; Every load comes before the first store, so memmove's overlap is safe.
; Every path that touched a ymm or zmm register returns through vzeroupper;
; k1 is left as it is (the mask registers are caller-saved scratch in the
; psABI and have no transition penalty; see tests/abi/x86_64.asm).
;
; Layout: memcpy's byte-2 path falls through from the top below 64 bytes,
; memset's takes one branch there (see memasm_memset); each size class costs
; at most one taken branch before its stores (two above 128).
; Medians of paired ratios against glibc 2.36 (its __mem*_avx512_unaligned_erms) on Zen 5:
; masked copy 1.14 at every size 1..63 where the branchy path was
; 0.89-1.00; memset 1.00-1.14 where the imul path was 0.76-0.93; 65..256
; with the byte checked first and zmm stores 1.0-1.2 where checking the
; size first was 0.71-1.0.  A vzeroupper before ret measured no slower than
; leaving zmm16-31 dirty as glibc does.

%define KERNEL_VISIBILITY default
%include "macros.inc"
; Branch targets that only a jump reaches start on a 16-byte boundary
; (multi-byte NOP padding, never executed): with them unaligned, adding code
; elsewhere moved 96-128 B copies and 192-256 B fills between 0.88 and 1.0
; of glibc from one build to the next.  (macros.inc selects the NOPs.)
%define ALIGN_TARGET align 16
%include "small.inc"

extern memasm_cur_memcpy
extern memasm_cur_memmove
extern memasm_cur_memset
extern memasm_entry_vec_memcpy
extern memasm_entry_vec_memmove
extern memasm_entry_vec_memset
extern memasm_k_memmove_gt8v_avx512
extern memasm_k_memset_avx512

; PAGE_CROSS reg32, label: jump to label if the 64 bytes at reg32's address
; reach into the next 4 KiB page.  Clobbers ecx.
%macro PAGE_CROSS 2
    mov ecx, %1
    and ecx, 4095
    cmp ecx, 4096 - 64
    ja %2
%endmacro

; LOW_MASK: k1 = the low n (rdx < 64) bits set.  Clobbers rcx.
%macro LOW_MASK 0
    mov rcx, -1
    bzhi rcx, rcx, rdx
    kmovq k1, rcx
%endmacro

; Moves from both ends: with register prefix R and width W, pair i is
; R(2i) <-> [base + i*W] and R(2i+1) <-> [base + n - (i+1)*W].
; ENDS_LOAD mov, R, W, lo, hi   loads pairs lo..hi-1 from src
; ENDS_STORE mov, R, W, lo, hi  stores pairs lo..hi-1 to dst
; ENDS_SET mov, reg, W, lo, hi  stores reg at both ends, pairs lo..hi-1
%macro ENDS_LOAD 5
%assign i %4
%rep %5 - %4
    %1 %2 %+ %eval(2 * i), [rsi + i * %3]
%assign i i + 1
%endrep
%assign i %4
%rep %5 - %4
    %1 %2 %+ %eval(2 * i + 1), [rsi + rdx - (i + 1) * %3]
%assign i i + 1
%endrep
%endmacro
%macro ENDS_STORE 5
%assign i %4
%rep %5 - %4
    %1 [rdi + i * %3], %2 %+ %eval(2 * i)
%assign i i + 1
%endrep
%assign i %4
%rep %5 - %4
    %1 [rdi + rdx - (i + 1) * %3], %2 %+ %eval(2 * i + 1)
%assign i i + 1
%endrep
%endmacro
%macro ENDS_SET 5
%assign i %4
%rep %5 - %4
    %1 [rdi + i * %3], %2
    %1 [rdi + rdx - (i + 1) * %3], %2
%assign i i + 1
%endrep
%endmacro

; RUNGS load, store, mov, R, W, p, rungs: the size ladder of the vector
; paths, for n in (p*W, p*W << rungs] (entered with n above p*W and at most
; that top).  Rung k handles n up to 2^(k+1)*p*W with 2^k*p pairs from both
; ends: "load" (ENDS_LOAD, or NO_LOAD for a fill) brings in the pairs the
; rung adds before the test that leaves for the next rung, so every load
; precedes every store; "store" (ENDS_STORE or ENDS_SET) writes all pairs
; of the rung it stops at, which then returns through vzeroupper.
%macro NO_LOAD 5
%endmacro
%macro RUNGS 7
%assign p %6
%assign k 0
    %1 %3, %4, %5, 0, p
%rep %7 - 1
    cmp edx, 2 * p * %5
    ja .rung_%5_ %+ k
    %2 %3, %4, %5, 0, p
    vzeroupper
    ret
    ALIGN_TARGET
.rung_%5_ %+ k:
    %1 %3, %4, %5, p, 2 * p
%assign p 2 * p
%assign k k + 1
%endrep
    %2 %3, %4, %5, 0, p
    vzeroupper
    ret
%endmacro

; COPY_ENTRY name, kernel pointer, vector byte, masked
; masked = 0 (memmove): below 64 bytes the general-register path even with
; byte 2.  A masked store cannot forward its data to a later load, so a
; memmove whose source overlaps what the previous call wrote (shifting a
; buffer step by step) waits for the store to reach the cache: 0.88-0.91 of
; glibc at 16-64 bytes, where the general registers forward.
%macro COPY_ENTRY 4
KERNEL %1
    mov rax, rdi
    cmp byte [rel %3], 2
    jne .narrow
    cmp rdx, 64
%if %4
    jae .z64
    PAGE_CROSS esi, .small
    PAGE_CROSS edi, .small
    LOW_MASK
    vmovdqu8 zmm0{k1}{z}, [rsi]
    vmovdqu8 [rdi]{k1}, zmm0
    vzeroupper
    ret
    ALIGN_TARGET
%else
    ja .z64
    cmp edx, 32
    jbe .small
    ; (32, 64]: two ymm moves (four SSE2 moves measured 0.86-0.89 of
    ; glibc's two when each call reads what the last one wrote)
    ENDS_LOAD vmovdqu, ymm, 32, 0, 1
    ENDS_STORE vmovdqu, ymm, 32, 0, 1
    vzeroupper
    ret
    ALIGN_TARGET
%endif
.z64:
    ; byte 2 says the AVX-512 kernel is installed: above 512 bytes go
    ; straight to its part for n > 8 VEC, a direct jump instead of the
    ; pointer's indirect one and the kernel's size tests
    cmp rdx, 512
    ja memasm_k_memmove_gt8v_avx512
    RUNGS ENDS_LOAD, ENDS_STORE, vmovdqu64, zmm, 64, 1, 3

    ALIGN_TARGET
.narrow:
    cmp rdx, 64
    ja .gt64
.small:                             ; n <= 64, any vector byte
    cmp edx, 16
    ja .g17
    COPY_0_16
    ALIGN_TARGET
.g17:
    cmp edx, 32
    ja .g33
    ; [17, 32]
    ENDS_LOAD movdqu, xmm, 16, 0, 1
    ENDS_STORE movdqu, xmm, 16, 0, 1
    ret
    ALIGN_TARGET
.g33:
    ; [33, 64]
    ENDS_LOAD movdqu, xmm, 16, 0, 2
    ENDS_STORE movdqu, xmm, 16, 0, 2
    ret
    ALIGN_TARGET
.gt64:
    ; (64, 256] with ymm when the byte is 1; byte 0, or above 256: kernel
    cmp rdx, 256
    ja .kernel
    cmp byte [rel %3], 0
    je .kernel
    RUNGS ENDS_LOAD, ENDS_STORE, vmovdqu, ymm, 32, 2, 2
    ALIGN_TARGET
.kernel:
    jmp [rel %2]
KERNEL_END
%endmacro

COPY_ENTRY memasm_memcpy, memasm_cur_memcpy, memasm_entry_vec_memcpy, 1
COPY_ENTRY memasm_memmove, memasm_cur_memmove, memasm_entry_vec_memmove, 0

KERNEL memasm_memset
    mov rax, rdi
    cmp byte [rel memasm_entry_vec_memset], 2
    jne .narrow
    ; Below 64 bytes is the taken branch here, not the fall-through as in
    ; the copies: with the SPEC sizes (75% in 17..63) the memset mix ran
    ; 1.00-1.03x glibc this way against 0.90-0.96x, in one process, same
    ; runs; fixed sizes within 0.5%, random alignment at 256-512 B +7-12%.
    cmp rdx, 64
    jb .lt64
    cmp rdx, 512
    ja memasm_k_memset_avx512       ; byte 2: the installed kernel, directly
    vpbroadcastb zmm0, esi
    RUNGS NO_LOAD, ENDS_SET, vmovdqu64, zmm0, 64, 1, 3
    ALIGN_TARGET
.lt64:
    PAGE_CROSS edi, .small
    vpbroadcastb zmm0, esi
    LOW_MASK
    vmovdqu8 [rdi]{k1}, zmm0
    vzeroupper
    ret

    ALIGN_TARGET
.narrow:
    cmp rdx, 64
    ja .gt64
.small:                             ; n <= 64, any vector byte
    movzx ecx, sil
    mov r8, 0x0101010101010101
    imul rcx, r8
    cmp edx, 16
    ja .g17
    SET_0_16
    ALIGN_TARGET
.g17:
    cmp edx, 32
    ja .g33
    SET_17_32
    ALIGN_TARGET
.g33:
    ; [33, 64]
    movq xmm0, rcx
    punpcklqdq xmm0, xmm0
    ENDS_SET movdqu, xmm0, 16, 0, 2
    ret
    ALIGN_TARGET
.gt64:
    cmp rdx, 256
    ja .kernel
    cmp byte [rel memasm_entry_vec_memset], 0
    je .kernel
    vmovd xmm0, esi
    vpbroadcastb ymm0, xmm0
    ENDS_SET vmovdqu, ymm0, 32, 0, 2
    cmp edx, 128
    jbe .y_done
    ENDS_SET vmovdqu, ymm0, 32, 2, 4
.y_done:
    vzeroupper
    ret
    ALIGN_TARGET
.kernel:
    jmp [rel memasm_cur_memset]
KERNEL_END

