; memmove-avx2.asm -- memasm_k_memmove_avx2 and memasm_k_memcpy_avx2 (one body).
; AVX2 (32-byte ymm vectors); selected when the CPU has AVX2.
; The algorithm and its assumptions are in memmove.inc.
%define VEC 32
%define ISA avx2
%include "memmove.inc"
