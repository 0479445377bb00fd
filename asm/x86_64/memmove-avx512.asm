; memmove-avx512.asm -- memasm_k_memmove_avx512 and memasm_k_memcpy_avx512 (one body).
; AVX-512 (64-byte zmm0-15 vectors, no mask registers); selected when
; the CPU has AVX-512 F+BW+VL and the OS enables the zmm state.
; The algorithm and its assumptions are in memmove.inc.
%define VEC 64
%define ISA avx512
%include "memmove.inc"
