; memset-avx2.asm -- memasm_k_memset_avx2.
; AVX2 (32-byte ymm vectors); selected when the CPU has AVX2.
; The algorithm and its assumptions are in memset.inc.
%define VEC 32
%define ISA avx2
%include "memset.inc"
