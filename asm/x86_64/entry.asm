; entry.asm -- the public entry points memasm_memcpy, memasm_memmove and
; memasm_memset on x86_64, shared by every ISA level (also named
; memasm_<op>_shared), and at the end the base entries memasm_<op>_base
; for CPUs without AVX2 and the AVX2 entries memasm_<op>_avx2 for CPUs
; with AVX2 and without AVX-512.  The public names are weak: the static archive
; has the shared entries under them, libmemasm.so binds them per CPU
; (c/entry-select.c).
;
; Assumes: SysV AMD64; rdi = dst, rsi = src (memset: the low 8 bits of esi
; are c), rdx = n; rax returns dst.  Unaligned loads and stores are cheap.
;
; Each entry does sizes up to 512 bytes itself and jumps through the
; selected kernel's atomic pointer (memasm_cur_*, c/kernels-x86_64.c) for
; the rest: a call that only jumped paid an indirect jump and the kernel's
; second size dispatch, 10-20% of an 8-9 cycle call.  What it may use
; follows the installed kernel, through the words of memasm_entry_<op> (one
; cache line each) that the dispatcher rewrites with every install
; (memasm_entry_follow):
;   vec        the vector byte: 2 the AVX-512 kernel is in (zmm), 1 an
;              AVX2 one (ymm), 0 SSE2 (baseline instructions only);
;   ymm_max    the last size of the ymm class (512 with byte 1, 64 with
;              byte 2; 32 or 31, none, with byte 0);
;   zmm_len    how many sizes from 65 the zmm class takes (448 with byte 2,
;              else 0);
;   small_end  memset: the first size past SET_0_31 (33 with byte 0, else
;              32);
;   big        where bytes 0 and 1 send sizes above 256 (the SSE2 or
;              AVX2 kernel's part for n > 8 VEC, past its own size tests).
; Comparing n with a limit word sends every byte to its path with the same
; branch that tests the size, where a test of the byte costs one class or
; another a second taken branch (a cycle of the call here).  The first tests
; stay at 16 and 32: with random sizes they are the ones mispredicted, and
; trees that tested 32 first lost 3-10% on the SPEC mixes.  From 16 the
; copies fall through the first: 33..64 takes no taken branch, 16..32 and
; 0..15 one each (in the SPEC memcpy sizes 32 bytes alone is a third of
; the calls, 8..16 another third).  16 goes with 17..32 because the first
; test is then taken a quarter of the time instead of two fifths (16 bytes
; is a seventh of the calls), and a branch that random sizes decide is
; mispredicted about as often as its rarer side: with 16 among the small
; sizes the SPEC copy mixes ran 10-30 % slower on the Intel Xeon VM.
;
; Paths by size:
;   copies  0..15      general registers (COPY_0_16, small.inc), behind one
;                      taken branch; 8..15 no further one;
;           16..32     two xmm moves (legacy SSE: no transition; at 32 a
;                      following overlapping move's loads are forwarded from
;                      16-byte stores, not from one 32-byte store);
;           33..ymm_max   ymm, loads first: to 256 from both ends, rungs at
;                      64, 128 and 256; above, one unaligned vector at
;                      each end and 32-byte aligned stores between, a
;                      class per 64 bytes to 448, then 480 and 512;
;           65..512    byte 2: zmm from both ends, rungs at 128, 256, 384
;                      and 512 (stores ascending above 128);
;           33..256    byte 0: xmm from both ends, rungs at 64, 128, 192
;                      and 256;
;           more       the kernel: byte 2 above 512 jumps straight to the
;                      AVX-512 kernel's part for n > 8 VEC, bytes 0 and 1
;                      through big (one taken branch fewer than the pointer
;                      and the kernel's own size test).
;   memset  0..31      general registers, 16..31 two xmm stores (SET_0_31),
;                      no VEX instruction; with byte 0 also 32 (below
;                      small_end): two stores where the xmm ladder makes
;                      four (cold 32-byte fills ran 0.75x glibc's SSE2
;                      variant);
;           32..64     two ymm stores, no taken branch (bytes 1 and 2);
;           65..512    byte 2: zmm from both ends, as many stores as
;                      the rung (128, 256, 384, 512) needs; byte 1: 65..256
;                      ymm from both ends, above one unaligned store at
;                      each end and aligned ones between (AFILL_HEAD),
;                      a fixed number per class (320, 384, 512);
;           32..256    byte 0: xmm, rungs at 64, 128, 192 and 256;
;           more       as for the copies: byte 2 above 512 straight to the
;                      AVX-512 kernel's part for n > 8 VEC, bytes 0 and 1
;                      through big (through the pointer, the kernel
;                      made its size tests a second time).
; No memset path uses a masked store: a load from a masked store's bytes
; cannot take them from the store buffer and waits for the store to reach
; the cache, so a fill the program reads back at once ran 0.95x glibc where
; plain stores run 1.4-1.9x (memasm-bench --readback, 1-48 bytes).
;
; Every load comes before the first store, so memmove's overlap is safe.
; Every path that touched a ymm or zmm register returns through
; vzeroupper; the baseline paths never execute a VEX instruction.
;
; Races with a change of kernel: the words are read with plain loads
; (relaxed atomics on x86_64) and may come from different installs.  Each
; value only allows what the CPU runs, and every path is correct for every
; size any mix of the words can send it (the ymm ladder from 32 to 512, the
; xmm ladders from 32, the zmm class guarded by n - 65 < zmm_len, the direct
; kernel jump by its own n > 512 test); tests/test_entry.c runs every mix
; behind every kernel.
;
; Why each layout, and what else was measured: doc/history-x86_64.md.

; The public names weak, their <op>_shared aliases hidden (the header above).
%define KERNEL_VISIBILITY weak default
%define KERNEL_ALIAS_VISIBILITY hidden
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
extern memasm_entry_memcpy
extern memasm_entry_memmove
extern memasm_entry_memset
extern memasm_k_memset_gt8v_avx512
extern memasm_k_memmove_gt8v_avx512

; The words of each operation (struct memasm_entry_words,
; c/kernels-x86_64.c, which checks these offsets).
%define EW_YMM_MAX 0
%define EW_ZMM_LEN 8
%define EW_VEC 16
%define EW_SMALL_END 24
%define EW_BIG 32

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
    ENDS_STORE_ORDER %1, %2, %3, %4, %5, 0
%endmacro
;; ENDS_STORE_UP mov, R, W, lo, hi: as ENDS_STORE, in ascending address
;; order (the lows up, then the highs up)
%macro ENDS_STORE_UP 5
    ENDS_STORE_ORDER %1, %2, %3, %4, %5, 1
%endmacro
;; ENDS_STORE_ORDER mov, R, W, lo, hi, up: the lows up, then the highs
;; down from the end (up = 0) or up towards it (up = 1)
%macro ENDS_STORE_ORDER 6
%assign i %4
%rep %5 - %4
    %1 [rdi + i * %3], %2 %+ %eval(2 * i)
%assign i i + 1
%endrep
%if %6
%assign i %5 - 1
%assign step -1
%else
%assign i %4
%assign step 1
%endif
%rep %5 - %4
    %1 [rdi + rdx - (i + 1) * %3], %2 %+ %eval(2 * i + 1)
%assign i i + step
%endrep
%endmacro
%macro ENDS_SET 5
%assign i %4
%rep %5 - %4
    %1 [rdi + i * %3], %2
%assign i i + 1
%endrep
%assign i %5 - 1
%rep %5 - %4
    %1 [rdi + rdx - (i + 1) * %3], %2
%assign i i - 1
%endrep
%endmacro

%macro NO_LOAD 5
%endmacro

;; The aligned fill (byte 1 above 256 bytes): one unaligned vector at
;; each end, W-aligned stores between.  From both ends of n unaligned, half
;; the ymm stores of a fill at a random address split a cache line, and
;; such 384-512-byte fills ran 0.69-0.76x glibc hot (whose loop stores
;; aligned there).  AFILL_HEAD mov, reg, W: the store at dst; rcx = the first
;; W boundary above dst, r8 = the last one below the end; the blocks of
;; [rcx, r8), L bytes with n - 2W <= L <= n - 2, are left.  Store j (from
;; 1) goes to the next block from the bottom (odd j) or the top (even j),
;; so j stores cover L <= jW, that is every n <= (j+1)W + 1, and stay
;; inside [rcx, r8) while L >= ceil(j/2) W.  A size class [lo, hi] takes
;; one count, j = (hi - 2) / W, where that holds at lo: at 257, 321 and
;; 385 it does for the classes to 320, 384 and 512 (and would at 129 and
;; 193 for classes to 192 and 256).  One
;; count per class, not a test per block: the blocks' number varies with
;; the alignment at one n, so a test on it is mispredicted when alignments
;; vary, and a test of n per block gives nearby sizes of one mix different
;; exits.  The price: at an aligned dst, up to one store more than the
;; blocks.  Stores reach the cache in program order, so every class
;; issues its stores in ascending address order: the bottom ones it shares
;; with the larger classes (AFILL_LOW) before its size test, then its own
;; top ones (AFILL_HIGH) and the vector at the end.  With the top stores
;; shared and the larger classes' middle ones after them, cold 256-512-byte
;; fills ran 4-8 % slower.
%macro AFILL_HEAD 3
    %1 [rdi], %2
    ABLOCKS %3
%endmacro
;; ABLOCKS W: rcx = the first W boundary above dst, r8 = the last one at or
;; below the end's last byte (the blocks of the aligned fill and copy)
%macro ABLOCKS 1
    lea rcx, [rdi + %1]
    and rcx, -%1
    lea r8, [rdi + rdx - 1]
    and r8, -%1
%endmacro
;; ABLOCK W, j: ABLK = the address of block j (from 1): odd j from rcx up,
;; even j from r8 down
%macro ABLOCK 2
%if (%2) % 2
%xdefine ABLK rcx + ((%2) - 1) / 2 * %1
%else
%xdefine ABLK r8 - (%2) / 2 * %1
%endif
%endmacro
;; AFILL_STORE mov, reg, W, j
%macro AFILL_STORE 4
    ABLOCK %3, %4
    %1 [ABLK], %2
%endmacro
;; AFILL_LOW / AFILL_HIGH mov, reg, W, first, last: the odd (bottom) or
;; even (top) stores among first..last, in ascending address order
%macro AFILL_LOW 5
%assign j %4
%rep %5 - %4 + 1
%if j % 2
    AFILL_STORE %1, %2, %3, j
%endif
%assign j j + 1
%endrep
%endmacro
%macro AFILL_HIGH 5
%assign j %5
%rep %5 - %4 + 1
%if j % 2 == 0
    AFILL_STORE %1, %2, %3, j
%endif
%assign j j - 1
%endrep
%endmacro
;; Y_AFILL_END last: byte 1's class end, its top stores among 1..last, the
;; vector at the end, and the return
%macro Y_AFILL_END 1
    AFILL_HIGH vmovdqa, ymm0, 32, 1, %1
    vmovdqu [rdi + rdx - 32], ymm0
    vzeroupper
    ret
%endmacro

;; SET_TOP mov, reg, W, mid, top, exit: the top class of a fill ladder,
;; up to "top" bytes from both ends: the stores up to "mid" first, then a
;; test and the rest (no taken branch above mid), and return through exit.
%macro SET_TOP 6
    ENDS_SET %1, %2, %3, 0, %4 / (2 * %3)
    cmp edx, %4
    jbe %%done
    ENDS_SET %1, %2, %3, %4 / (2 * %3), %5 / (2 * %3)
%%done:
    %6
%endmacro

;; STEP load, store, mov, R, W, lo, hi [, exit]: one rung of a size ladder,
;; for n up to 2 * hi * W with hi pairs from both ends: "load" (ENDS_LOAD,
;; or NO_LOAD for a fill) brings in pairs lo..hi-1 before the test, so every
;; load precedes every store; then it either leaves for the next rung (the
;; code that follows the macro) or "store" (ENDS_STORE or ENDS_SET) writes
;; pairs 0..hi-1 and it returns through exit (VZ_RET, or SSE_RET on the
;; baseline paths, which must not execute vzeroupper).
%macro STEP 7-8 VZ_RET
    %1 %3, %4, %5, %6, %7
    cmp edx, 2 * %7 * %5
    ja %%next
    %2 %3, %4, %5, 0, %7
    %8
    ALIGN_TARGET
%%next:
%endmacro
;; STEP_LAST: the top rung, the same with no test: loads pairs lo..hi-1,
;; stores pairs 0..hi-1 and returns.
%macro STEP_LAST 7-8 VZ_RET
    %1 %3, %4, %5, %6, %7
    %2 %3, %4, %5, 0, %7
    %8
%endmacro
%macro VZ_RET 0
    vzeroupper
    ret
%endmacro
%macro SSE_RET 0
    ret
%endmacro

;; The paths the shared entries and the AVX2 entries both take, as macros
;; (their labels local to each expansion).
;; Y_COPY_33_512: copies of 33..512 bytes with ymm, loads first: to 256
;; from both ends, above it the aligned copy (ACOPY_HEAD).  128 first:
;; one taken branch fewer for 129..512 for one more untaken test below 129.
;; 129..256 loads its pairs before the test of 256, which leaves them
;; unused above: with the test first the SPEC mixes ran 4-12 % slower.
%macro Y_COPY_33_512 0
    ENDS_LOAD vmovdqu, ymm, 32, 0, 1
    cmp edx, 128
    ja %%gt128
    STEP NO_LOAD, ENDS_STORE, vmovdqu, ymm, 32, 0, 1
    STEP_LAST ENDS_LOAD, ENDS_STORE, vmovdqu, ymm, 32, 1, 2
    ALIGN_TARGET
%%gt128:
    STEP ENDS_LOAD, ENDS_STORE, vmovdqu, ymm, 32, 1, 4
%%gt256:
    ACOPY_HEAD
    ACOPY_LOAD 1, 9
    cmp edx, 320
    ja %%gt320
    ACOPY_END 9
    ALIGN_TARGET
%%gt320:
    ACOPY_LOAD 10, 11
    cmp edx, 384
    ja %%gt384
    ACOPY_END 11
    ALIGN_TARGET
%%gt384:
    ACOPY_LOAD 12, 13
    cmp edx, 448
    ja %%gt448
    ACOPY_END 13
    ALIGN_TARGET
%%gt448:
    ACOPY_LOAD 14, 14
    cmp edx, 480
    ja %%gt480
    ACOPY_END 14
    ALIGN_TARGET
%%gt480:
    ; 481..512: block 15 would be a 17th register, so one end is stored
    ; first and block 15 loaded into that end's register.  The head's
    ; store covers part of block 15's source only when dst - src is in
    ; (193, 288), the tail's only when src - dst is in (160, 288): the
    ; tail goes first in the first window, the head everywhere else.
    lea r10, [rdi - 194]
    sub r10, rsi
    cmp r10, 288 - 194
    jb %%tail_first
    vmovdqu [rdi], ymm0
    vmovdqu ymm0, [rcx + r9 + 7 * 32]
    ACOPY_STORE 15, 0, 1
    ALIGN_TARGET
%%tail_first:
    vmovdqu [rdi + rdx - 32], ymm1
    vmovdqu ymm1, [rcx + r9 + 7 * 32]
    vmovdqu [rdi], ymm0
    ACOPY_STORE 15, 1, 0
%endmacro
;; The aligned copy (byte 1 above 256 bytes): one unaligned vector at each
;; end and the aligned fill's 32-byte blocks between (ABLOCK, AFILL_HEAD's
;; rule), each loaded from the matching source bytes before the first
;; store, so that no store splits a cache line.  From both ends, half the
;; stores of a copy to a misaligned dst split one, and 384-512-byte copies
;; ran 0.72-0.79x glibc (whose loop stores aligned) with dst 16 bytes off.
;; The price, at an aligned dst: a store and a load more than the blocks
;; (aligned hot 384-512 B run 1.1-1.25x glibc, the ladder 1.3-1.4x).  A
;; class per 64 bytes to 448 and one for 449..480 (the block counts 9, 11,
;; 13, 14 of that rule) fill at most the 16 ymm registers: ymm0 and ymm1
;; hold the head and the tail (the ladder's pair 0), block j ymm(j + 1);
;; 481..512 needs 15 blocks.
;; ACOPY_HEAD: rcx and r8 (ABLOCKS), r9 = src - dst.
%macro ACOPY_HEAD 0
    ABLOCKS 32
    mov r9, rsi
    sub r9, rdi
%endmacro
;; ACOPY_LOAD first, last: blocks first..last
%macro ACOPY_LOAD 2
%assign j %1
%rep %2 - %1 + 1
    ABLOCK 32, j
    vmovdqu ymm %+ %eval(j + 1), [ABLK + r9]
%assign j j + 1
%endrep
%endmacro
;; ACOPY_END last: the head, blocks 1..last and the tail, in ascending
;; address order, and the return
%macro ACOPY_END 1
    vmovdqu [rdi], ymm0
    ACOPY_STORE %1, %1 + 1, 1
%endmacro
;; ACOPY_STORE last, reg, tail: blocks 1..last in ascending address order,
;; block "last" from ymm(reg), the tail if "tail", and the return
%macro ACOPY_STORE 3
%assign j 1
%rep (%1 + 1) / 2
%if j == %1
%assign r %2
%else
%assign r j + 1
%endif
    ABLOCK 32, j
    vmovdqa [ABLK], ymm %+ r
%assign j j + 2
%endrep
%assign j %1 - (%1 % 2)
%rep %1 / 2
    ABLOCK 32, j
    vmovdqa [ABLK], ymm %+ %eval(j + 1)
%assign j j - 2
%endrep
%if %3
    vmovdqu [rdi + rdx - 32], ymm1
%endif
    vzeroupper
    ret
%endmacro
;; X_COPY_33_256: copies of 33..256 bytes with xmm from both ends (byte 0's
;; ladder; baseline instructions only)
%macro X_COPY_33_256 0
    STEP ENDS_LOAD, ENDS_STORE, movdqu, xmm, 16, 0, 2, SSE_RET
    STEP ENDS_LOAD, ENDS_STORE, movdqu, xmm, 16, 2, 4, SSE_RET
    STEP ENDS_LOAD, ENDS_STORE, movdqu, xmm, 16, 4, 6, SSE_RET
    STEP_LAST ENDS_LOAD, ENDS_STORE, movdqu, xmm, 16, 6, 8, SSE_RET
%endmacro
;; Y_SET_32_64 gt64: fills of 32..64 bytes, two ymm stores; ymm0 = c in
;; every byte for gt64, where larger sizes go
%macro Y_SET_32_64 1
    vmovd xmm0, esi
    vpbroadcastb ymm0, xmm0
    cmp rdx, 64
    ja %1
    ENDS_SET vmovdqu, ymm0, 32, 0, 1
    vzeroupper
    ret
%endmacro
;; Y_SET_65_512: byte 1's fills of 65..512 bytes, ymm0 = c in every byte
%macro Y_SET_65_512 0
    ; byte 1, 65..512: 65..128 two pairs and 129..256 four from both
    ; ends (glibc's stores); above, the aligned fill (AFILL_HEAD) with 9,
    ; 11 or 15 aligned stores for n up to 320, 384 and 512.  Below 257 the
    ; fill saves a store or two and the split lines, but needs a size test
    ; of its own per 64 bytes and its address arithmetic: hot 129..256-byte
    ; fills ran 10-20 % slower with it.  The taken branches go to the
    ; rarer classes: 65..128 (2 % of SPEC's memset calls) and 257..320
    ; (292 and 296 bytes, 8.6 %) take none after the test of 256, 129..256
    ; (0.1 %) and 321..384 one, 385..512 (0.2 %, up to two stores more
    ; than 448 needs: one class and one test less) two
    cmp edx, 256
    ja %%gt256
    cmp edx, 128
    ja %%gt128
    ENDS_SET vmovdqu, ymm0, 32, 0, 2
    vzeroupper
    ret
    ALIGN_TARGET
%%gt128:
    ENDS_SET vmovdqu, ymm0, 32, 0, 4
    vzeroupper
    ret
    ALIGN_TARGET
%%gt256:
    AFILL_HEAD vmovdqu, ymm0, 32
    AFILL_LOW vmovdqa, ymm0, 32, 1, 9
    cmp edx, 320
    ja %%gt320
    Y_AFILL_END 9
    ALIGN_TARGET
%%gt320:
    AFILL_LOW vmovdqa, ymm0, 32, 10, 11
    cmp edx, 384
    ja %%gt384
    Y_AFILL_END 11
    ALIGN_TARGET
%%gt384:
    AFILL_LOW vmovdqa, ymm0, 32, 12, 15
    Y_AFILL_END 15
%endmacro
;; X_SET_32_256: byte 0's fills of 32..256 bytes with xmm (baseline
;; instructions only)
%macro X_SET_32_256 0
    movzx ecx, sil
    mov r8, 0x0101010101010101
    imul rcx, r8
    movq xmm0, rcx
    punpcklqdq xmm0, xmm0
    STEP NO_LOAD, ENDS_SET, movdqu, xmm0, 16, 0, 2, SSE_RET
    STEP NO_LOAD, ENDS_SET, movdqu, xmm0, 16, 2, 4, SSE_RET
    SET_TOP movdqu, xmm0, 16, 192, 256, SSE_RET
%endmacro

;; COPY_TO_YMM_MAX words: a copy entry's start, every size up to the ymm
;; limit in the entry words; larger sizes go to the entry's .above
%macro COPY_TO_YMM_MAX 1
    mov rax, rdi
    cmp rdx, 16
    jb .le16
    cmp rdx, 32
    jbe .le32
    cmp rdx, [rel %1 + EW_YMM_MAX]
    ja .above
    ; bytes 1 and 2 from 33 bytes to the ymm limit (512 with byte 1, 64
    ; with byte 2)
    Y_COPY_33_512
    ; 0..15 and 16..32 (two thirds of the SPEC calls) from a line start,
    ; wherever the code above ends: with .le32 across a line boundary
    ; 24-32-byte copies take a cycle more
    align 64
.le16:
    COPY_0_16
    ALIGN_TARGET
.le32:
    ENDS_LOAD movdqu, xmm, 16, 0, 1
    ENDS_STORE movdqu, xmm, 16, 0, 1
    ret
%endmacro

;; SET_TO_YMM_MAX: a memset entry's start, every size up to the ymm limit
;; in the entry words; larger sizes go to the entry's .big
%macro SET_TO_YMM_MAX 0
    mov rax, rdi
    cmp rdx, [rel memasm_entry_memset + EW_SMALL_END]
    jb .small
    cmp rdx, [rel memasm_entry_memset + EW_YMM_MAX]
    ja .big
    ; ymm from 32 bytes to the limit (512 with byte 1, 64 with byte 2)
    Y_SET_32_64 .y_gt64
    ALIGN_TARGET
.small:
    SET_0_31 32
    ALIGN_TARGET
.y_gt64:
    Y_SET_65_512
%endmacro

;; COPY_ENTRY name, hidden name, kernel pointer, entry words
;; memcpy and memmove (the same code: every load precedes every store).
%macro COPY_ENTRY 4
KERNEL %1, %2
    COPY_TO_YMM_MAX %4
    ALIGN_TARGET
.above:
    lea rcx, [rdx - 65]
    cmp rcx, [rel %4 + EW_ZMM_LEN]
    jae .not_zmm
    ; byte 2, 65..512, the stores above 128 ascending as byte 1's above
    ; 256 (memmove random hot 256-512 B +3-8 %)
    STEP ENDS_LOAD, ENDS_STORE, vmovdqu64, zmm, 64, 0, 1
    STEP ENDS_LOAD, ENDS_STORE_UP, vmovdqu64, zmm, 64, 1, 2
    STEP ENDS_LOAD, ENDS_STORE_UP, vmovdqu64, zmm, 64, 2, 3
    STEP_LAST ENDS_LOAD, ENDS_STORE_UP, vmovdqu64, zmm, 64, 3, 4
    ALIGN_TARGET
.not_zmm:
    cmp rdx, 256
    ja .large
    ; byte 0, 33..256: SSE2 moves from both ends
    X_COPY_33_256
    ALIGN_TARGET
.large:
    cmp byte [rel %4 + EW_VEC], 2
    je .large_zmm
    ; bytes 0 and 1 above 256: the big word, the SSE2 or AVX2 kernel past
    ; its own size tests, or another kernel's start (c/kernels-x86_64.c)
    jmp [rel %4 + EW_BIG]
.large_zmm:
    ; byte 2 above 512: straight to the AVX-512 kernel's part for n > 8 VEC
    ; (a direct jump: through the big word ran 2-4 % slower at 768-1024)
    cmp rdx, 512
    ja memasm_k_memmove_gt8v_avx512
    jmp [rel %3]
KERNEL_END
%endmacro

COPY_ENTRY memasm_memcpy, memasm_memcpy_shared, memasm_cur_memcpy, memasm_entry_memcpy
COPY_ENTRY memasm_memmove, memasm_memmove_shared, memasm_cur_memmove, memasm_entry_memmove

KERNEL memasm_memset, memasm_memset_shared
    SET_TO_YMM_MAX
    ; .big (byte 0 from 33 bytes, byte 2 above 64) starts half way into a
    ; 64-byte line, where it was before the aligned fill above grew the
    ; code: at a line start the SSE2 memset mix ran 3-4 % slower (the
    ; paths' instructions the same).  A placement, not a rule: measure it
    ; again when the code before it changes (doc/history-x86_64.md).
    align 64
    times 32 int3
.big:
    lea rcx, [rdx - 65]
    cmp rcx, [rel memasm_entry_memset + EW_ZMM_LEN]
    jae .not_zmm
    ; byte 2, 65..512
    vpbroadcastb zmm0, esi
    STEP NO_LOAD, ENDS_SET, vmovdqu64, zmm0, 64, 0, 1
    STEP NO_LOAD, ENDS_SET, vmovdqu64, zmm0, 64, 1, 2
    SET_TOP vmovdqu64, zmm0, 64, 384, 512, VZ_RET
    ALIGN_TARGET
.not_zmm:
    ; byte 0 from 32 bytes, bytes 1 and 2 above 512
    cmp rdx, 256
    ja .large
    X_SET_32_256
    ALIGN_TARGET
.large:
    ; Past the kernels' own size tests: byte 2 straight to the AVX-512
    ; kernel's part for n > 8 VEC, bytes 0 and 1 through the big word (the
    ; SSE2 or AVX2 kernel's).  That part of a memset kernel is correct from
    ; 4 VEC (256 bytes with zmm) up, so every size a mix of words sends here
    ; (above 256) may take any of them.
    cmp byte [rel memasm_entry_memset + EW_VEC], 2
    je memasm_k_memset_gt8v_avx512
    jmp [rel memasm_entry_memset + EW_BIG]
KERNEL_END

; ---- the base entries --------------------------------------------------
; memasm_memcpy_base, memasm_memmove_base and memasm_memset_base: what
; libmemasm.so binds the public names to on a CPU without AVX2
; (c/entry-select.c), which can only ever install SSE2 kernels.  Byte 0's
; paths with no word read below 257 bytes, where the shared entry's word
; tests send byte 0's 33..256 bytes through two taken branches before its
; xmm ladder and its 16..32-byte copies through one (glibc's SSE2 variant
; takes none for 16..32).  So here the commonest classes fall through:
; copies of 16..32 (52 % of the SPEC memcpy calls) and fills of 16..48
; (81 % of the memset calls, with no size test inside).  Above 256 bytes
; the big word, which is valid behind every kernel, so these entries are
; correct whatever is installed, only not the fastest behind a vector
; kernel.  Baseline instructions only; nothing here executes vzeroupper.
%define KERNEL_VISIBILITY hidden
%define KERNEL_ALIAS_VISIBILITY hidden

;; BASE_COPY_ENTRY name, entry words
%macro BASE_COPY_ENTRY 2
KERNEL %1
    mov rax, rdi
    cmp rdx, 16
    jb .le16
    cmp rdx, 32
    ja .gt32
    ENDS_LOAD movdqu, xmm, 16, 0, 1
    ENDS_STORE movdqu, xmm, 16, 0, 1
    ret
    ALIGN_TARGET
.le16:
    COPY_0_16
    ALIGN_TARGET
.gt32:
    cmp rdx, 256
    ja .big
    ; 33..256 as a tree, 128 first: 129..256 one taken branch fewer than
    ; a ladder, for one more untaken test below 129
    ENDS_LOAD movdqu, xmm, 16, 0, 2
    cmp edx, 128
    ja .gt128
    STEP NO_LOAD, ENDS_STORE, movdqu, xmm, 16, 0, 2, SSE_RET
    STEP_LAST ENDS_LOAD, ENDS_STORE, movdqu, xmm, 16, 2, 4, SSE_RET
    ALIGN_TARGET
.gt128:
    STEP ENDS_LOAD, ENDS_STORE, movdqu, xmm, 16, 2, 6, SSE_RET
    STEP_LAST ENDS_LOAD, ENDS_STORE, movdqu, xmm, 16, 6, 8, SSE_RET
    ALIGN_TARGET
.big:
    jmp [rel %2 + EW_BIG]
KERNEL_END
%endmacro

BASE_COPY_ENTRY memasm_memcpy_base, memasm_entry_memcpy
BASE_COPY_ENTRY memasm_memmove_base, memasm_entry_memmove

KERNEL memasm_memset_base
    mov rax, rdi
    ; the pattern before the first test: behind its taken branch, the
    ; multiply's latency cost the 4..15-byte fills two cycles
    movzx ecx, sil
    mov r8, 0x0101010101010101
    imul rcx, r8
    cmp rdx, 16
    jb .small
    movq xmm0, rcx
    punpcklqdq xmm0, xmm0
    cmp rdx, 64
    ja .gt64
    cmp edx, 48
    ja .gt48
    ; 16..48 with no branch: 16 bytes at each end and 16 about the middle,
    ; from n/2 - 8 (which reaches 16 and n - 16 up to 48).  A test of 32
    ; would be decided by the mix's two commonest sizes (32 and 40 bytes,
    ; two thirds of SPEC's memset calls) and mispredicted about as often
    ; as its rarer side; a store more than glibc's two at 16..32 costs less.
    mov ecx, edx
    shr ecx, 1
    movdqu [rdi], xmm0
    movdqu [rdi + rcx - 8], xmm0
    movdqu [rdi + rdx - 16], xmm0
    ret
    ALIGN_TARGET
.gt48:
    ENDS_SET movdqu, xmm0, 16, 0, 2
    ret
    ALIGN_TARGET
.small:
    SET_BELOW 16, 0
    ALIGN_TARGET
.gt64:
    cmp rdx, 256
    ja .big
    cmp edx, 128
    ja .gt128
    ENDS_SET movdqu, xmm0, 16, 0, 4
    ret
    ALIGN_TARGET
.gt128:
    SET_TOP movdqu, xmm0, 16, 192, 256, SSE_RET
    ALIGN_TARGET
.big:
    jmp [rel memasm_entry_memset + EW_BIG]
KERNEL_END

; ---- the AVX2 entries --------------------------------------------------
; memasm_memcpy_avx2, memasm_memmove_avx2 and memasm_memset_avx2: what
; libmemasm.so binds the public names to on a CPU with AVX2 and without
; AVX-512 (c/entry-select.c), which installs byte 1's kernels or, under a
; cap, byte 0's.  Up to byte 1's ymm limit the same paths as the shared
; entries; what they drop is the zmm class and the test of the byte on
; the way to the kernel: above 512 bytes byte 1 reaches the big word with
; one taken branch after the ymm limit's, where the shared entries take
; three and read two more words (2-3 cycles of a 768-byte call).  Byte 0
; (a cap) takes its xmm ladders behind that branch, and byte 2, which such
; a CPU never installs, is still correct here: 65..256 through the xmm
; ladders, the rest through the big word.  VEX instructions only on byte
; 1's paths.

;; AVX2_COPY_ENTRY name, entry words
%macro AVX2_COPY_ENTRY 2
KERNEL %1
    COPY_TO_YMM_MAX %2
    ALIGN_TARGET
.above:
    cmp rdx, 256
    jbe .xmm
    jmp [rel %2 + EW_BIG]
    ALIGN_TARGET
.xmm:
    X_COPY_33_256
KERNEL_END
%endmacro

AVX2_COPY_ENTRY memasm_memcpy_avx2, memasm_entry_memcpy
AVX2_COPY_ENTRY memasm_memmove_avx2, memasm_entry_memmove

KERNEL memasm_memset_avx2
    SET_TO_YMM_MAX
    ALIGN_TARGET
.big:
    cmp rdx, 256
    jbe .xmm
    jmp [rel memasm_entry_memset + EW_BIG]
    ALIGN_TARGET
.xmm:
    X_SET_32_256
KERNEL_END
