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
;   memcpy and memmove, any byte (0..16 before the byte is read):
;     0         returns, touching nothing;
;     1..3      bytes 0, n/2 and n-1;
;     4..16     two overlapping 4- or 8-byte general-register moves;
;     17..32    two overlapping 16-byte SSE moves;
;     33..64    two overlapping ymm moves (byte 0: four SSE2 moves);
;   byte 2, the one this machine (AMD Zen 5) takes:
;     0..63     memset: one masked store, to dst's own line with the mask
;               (the low n bits, BMI2 bzhi, k1) shifted to dst's offset when
;               the fill lies in one line, or the 64 bytes from dst when it
;               spans two (see "Masked moves" below);
;     65..128   two zmm moves from both ends (memset from 64), 129..256
;               four, 257..512 eight (all loads first);
;     more      a direct jump to the AVX-512 kernel: for memcpy/memmove
;               to its part for n > 8 VEC, for memset to its start;
;   byte 0 or 1:
;     0..16     memset: general registers, as the copies above;
;     17..64    memset: two or four 16-byte SSE2 moves;
;     65..256   (byte 1 only) four or eight ymm moves from both ends;
;   memset spreads c (the low 8 bits of esi only) by imul for the general
;   registers, vpbroadcastb for vectors.
; Every load comes before the first store, so memmove's overlap is safe.
; Every path that touched a ymm or zmm register returns through vzeroupper;
; k1 is left as it is (the mask registers are caller-saved scratch in the
; psABI and have no transition penalty; see tests/abi/x86_64.asm).
;
; Small copies.  The copies test 0..16 first, before the vector byte, and
; 17..64 before it too (SSE2 is baseline; ymm only after the byte); they
; have no masked path (memcpy used to take one masked 64-byte move below 64
; bytes when dst and src were both 64-byte aligned).  A branch on the
; pointers' alignment is what cost: with the SPEC CPU2017 alignments (both
; aligned in about 3% of calls) a fixed size ran 0.80-0.91x glibc at 1-64
; bytes, and the same build with the masked move replaced by a jump back to
; the registers ran the same, so it was the branch, not the masked move.
; Medians over 7 processes of memasm-bench, the old entry paired in the
; same process (old in parentheses): SPEC memcpy mix 1.01-1.06x glibc
; (0.81-0.94x), memmove mix 1.03-1.06x (0.90-0.96x); random alignments
; 1.00-1.13x at 2-16 bytes (0.90x), 0.89x at 1 and 32 (0.80x); the
; 4K-alias case 1.00-1.25x at 1-16 (0.82-0.91x).  The cost is one cycle
; in eight or nine above 64 bytes in a loop of one fixed size: 64-128
; bytes 0.89x glibc (1.00x), 256 1.00x (1.11x), memmove 128 0.89x, backward
; 512 0.85x (0.99x).  Every order of the tests measured moved that cycle to
; another size class or lost the mixes: the byte or 0..64 tested first
; (memcpy mix 0.87-0.93x), 17..64 behind two taken branches (aligned 32 B
; 0.89x); memmove alone in the old order kept 128-512 at 0.99-1.11x but its
; mix at 0.92x.
;
; Masked moves.  A masked access still reaches every cache line its 64-byte
; window covers, masked-off bytes or not: a load or store whose window runs
; into the next line waits for that line (and a store takes it exclusive).
; Measured here with 8-byte copies whose own lines were in L1: 15-16 ns per
; call either way with the next line cached, but 50 ns (masked) against
; 16 ns (general registers) with the source's next line flushed to memory,
; 90 against 16 with the destination's; with another thread writing or
; reading the next line, the masked copy ran 2x slower and slowed that
; thread 2.4-2.8x (false sharing the caller never asked for).  So memset
; aligns its window to dst's line, which the same mask, shifted, fills
; exactly (about one cycle in ten at random alignments against the
; unaligned window; SPEC mix 0.975x against 1.01x).  glibc 2.36's own
; memset stores through the unaligned window and has the effect above.
; n = 0 still issues a masked store with an empty mask at dst's line: no
; byte is written and nothing can fault, but the store may take the line
; exclusive.
;
; Layout: memset's byte-2 path falls through from the top below 64 bytes
; (see memasm_memset for what a taken branch there cost), the copies' below
; 17; each size class costs at most two taken branches before its stores,
; three for the copies' 33..64 and above 256.
; Medians of paired ratios against glibc 2.36 (its __mem*_avx512_unaligned_erms) on Zen 5:
; 65..256 with the byte checked first and zmm stores 1.0-1.2 where checking
; the size first was 0.71-1.0.  A vzeroupper before ret measured no slower
; than leaving zmm16-31 dirty as glibc does (and ymm16/zmm16 without it ran
; 80-128 byte copies 0.74x glibc at SPEC alignments, against 0.82x).

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

;; COPY_ENTRY name, kernel pointer, vector byte
;; memcpy and memmove (the same code: every load precedes every store).
%macro COPY_ENTRY 3
KERNEL %1
    mov rax, rdi
    ; 0..16 first, before the vector byte: the general registers need no
    ; vector state, and these are the commonest sizes (SPEC CPU2017: about
    ; 60% of memcpy calls).  See "Small copies" above for what it measured.
    cmp rdx, 16
    ja .gt16
    COPY_0_16
    ALIGN_TARGET
.gt16:
    cmp rdx, 64
    jbe .le64
    cmp byte [rel %3], 2
    jne .gt64
    ; byte 2 says the AVX-512 kernel is installed: above 512 bytes go
    ; straight to its part for n > 8 VEC, a direct jump instead of the
    ; pointer's indirect one and the kernel's size tests
    cmp rdx, 512
    ja memasm_k_memmove_gt8v_avx512
    RUNGS ENDS_LOAD, ENDS_STORE, vmovdqu64, zmm, 64, 1, 3
    ALIGN_TARGET
.le64:
    cmp edx, 32
    ja .b33
    ; (16, 32], any byte: legacy SSE moves, no transition (the upper state
    ; is clean on entry)
    ENDS_LOAD movdqu, xmm, 16, 0, 1
    ENDS_STORE movdqu, xmm, 16, 0, 1
    ret
    ALIGN_TARGET
.b33:
    ; (32, 64]: two ymm moves with byte 1 or 2 (four SSE2 moves measured
    ; 0.86-0.89 of glibc's two when each call reads what the last one
    ; wrote), four SSE2 moves with byte 0
    cmp byte [rel %3], 0
    je .sse33
    ENDS_LOAD vmovdqu, ymm, 32, 0, 1
    ENDS_STORE vmovdqu, ymm, 32, 0, 1
    vzeroupper
    ret
    ALIGN_TARGET
.sse33:
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

COPY_ENTRY memasm_memcpy, memasm_cur_memcpy, memasm_entry_vec_memcpy
COPY_ENTRY memasm_memmove, memasm_cur_memmove, memasm_entry_vec_memmove

KERNEL memasm_memset
    mov rax, rdi
    cmp byte [rel memasm_entry_vec_memset], 2
    jne .narrow
    ; Below 64 bytes falls through.  With a taken branch to it (its target
    ; aligned), every fixed size below 64 ran a cycle slower than glibc in
    ; a harness's loop of calls (8 cycles against 7; an empty function also
    ; runs 7 there) at each of 12 placements of the calling loop, falling
    ; through at 7; in memasm-bench's own loop the two layouts trade that
    ; cycle from run to run (aligned or random alignments, either way).
    cmp rdx, 64
    jae .ge64
    ; One masked store that reaches only the fill's own lines, branch-free
    ; (a branch on the line crossing mispredicted under random alignments:
    ; 0.75-0.94x where this runs 0.9-1.0x).  s = dst's offset in its line
    ; when dst + n stays in that line, else 0; the window starts at dst - s
    ; and the mask is the low n bits shifted left by s.  Each instruction
    ; here shows: this path runs 0.88-0.91x glibc's unaligned window in the
    ; bench's full run (one cycle in eight), with the sign of off + n - 65
    ; as the condition 1-3% ahead of cmp/cmova, and computing both windows
    ; and selecting at the end (a shorter chain, three more instructions)
    ; at 0.75x.
    mov ecx, edi
    and ecx, 63                     ; dst's offset in its line
    lea r8, [rcx + rdx - 65]
    sar r8, 63                      ; all ones when off + n <= 64
    and ecx, r8d                    ; spans two lines: s = 0
    mov r9, -1
    bzhi r9, r9, rdx
    shlx r9, r9, rcx
    sub rdi, rcx                    ; the window (rax keeps dst)
    kmovq k1, r9
    vpbroadcastb zmm0, esi
    vmovdqu8 [rdi]{k1}, zmm0
    vzeroupper
    ret
    ALIGN_TARGET
.ge64:
    cmp rdx, 512
    ja memasm_k_memset_avx512       ; byte 2: the installed kernel, directly
    vpbroadcastb zmm0, esi
    RUNGS NO_LOAD, ENDS_SET, vmovdqu64, zmm0, 64, 1, 3
    ALIGN_TARGET
.narrow:
    cmp rdx, 64
    ja .gt64
    ; n <= 64, any vector byte
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

