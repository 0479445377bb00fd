; memset-avx512.asm -- memasm_k_memset_avx512.
; AVX-512 (64-byte zmm0-15 vectors, no mask registers); selected when
; the CPU has AVX-512 F+BW+VL and the OS enables the zmm state.
; The algorithm and its assumptions are in memset.inc.
%define VEC 64
%define ISA avx512
%include "memset.inc"
