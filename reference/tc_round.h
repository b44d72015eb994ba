/*
 * tc_round.h - rounding to the tensor-core operand types, written in integer
 * bit arithmetic so that it means the same thing on every C compiler and in
 * CUDA device code (no _Float16, no dependence on the FPU's modes).
 *
 * All three round to nearest, ties to even (RNE), as IEEE 754 defines it:
 *   fp16  (1 sign, 5 exponent, 10 fraction bits; subnormals down to 2^-24)
 *   bf16  (1, 8, 7: the top half of an fp32)
 *   tf32  (1, 8, 10: an fp32 whose low 13 fraction bits are zero)
 * Values too large round to infinity; NaN stays NaN (made quiet).
 *
 * Used by the reference (tc_model.c), by the CUDA kernels (tc_spmm.cu, for
 * tf32) and by the tests, so the operands the GPU multiplies are the ones
 * the reference multiplies.
 */
#ifndef LOOM_REFERENCE_TC_ROUND_H
#define LOOM_REFERENCE_TC_ROUND_H

#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define TC_HD __host__ __device__ __forceinline__
#else
#define TC_HD static inline
#endif

TC_HD uint32_t tc_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

TC_HD float tc_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* fp32 -> fp16 bits, RNE. */
TC_HD uint16_t tc_f32_to_f16(float f)
{
    uint32_t x = tc_f32_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;

    if (ax > 0x7f800000u) /* NaN: keep the top payload bits, force quiet */
        return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
    if (ax >= 0x477ff000u) /* >= 65520 = halfway between 65504 and 2^16: ties go to inf (65504 is odd) */
        return (uint16_t)(sign | 0x7c00u);
    if (ax < 0x38800000u) { /* below 2^-14: an fp16 subnormal or zero */
        if (ax <= 0x33000000u) /* <= 2^-25, half the smallest subnormal: to zero (the tie goes to even 0) */
            return sign;
        /* value = m * 2^(e-150); in units of 2^-24 that is m >> (126 - e). */
        uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126u - e; /* 14 .. 24 */
        uint32_t q = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (q & 1u)))
            q++; /* q may reach 0x400, the smallest normal: still right */
        return (uint16_t)(sign | q);
    }
    /* Normal: add just under half an ulp, plus the ulp's parity (ties to even). */
    uint32_t r = ax + 0xfffu + ((ax >> 13) & 1u);
    return (uint16_t)(sign | ((r - (112u << 23)) >> 13));
}

/* fp16 bits -> fp32 (exact). */
TC_HD float tc_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1fu)
        return tc_f32_from_bits(sign | 0x7f800000u | (m << 13));
    if (e == 0) {
        if (m == 0)
            return tc_f32_from_bits(sign);
        /* subnormal m * 2^-24: normalise */
        int shift = 0;
        while (!(m & 0x400u)) {
            m <<= 1;
            shift++;
        }
        m &= 0x3ffu;
        return tc_f32_from_bits(sign | ((uint32_t)(113 - shift) << 23) | (m << 13));
    }
    return tc_f32_from_bits(sign | ((e + 112u) << 23) | (m << 13));
}

/* fp32 -> bf16 bits, RNE.  bf16 has fp32's exponent range, so subnormals and
 * overflow to infinity need no special case: the carry does the right thing. */
TC_HD uint16_t tc_f32_to_bf16(float f)
{
    uint32_t x = tc_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

TC_HD float tc_bf16_to_f32(uint16_t b)
{
    return tc_f32_from_bits((uint32_t)b << 16);
}

/* fp32 -> tf32 (returned as the fp32 with the low 13 bits clear), RNE.
 * (cvt.rna.tf32.f32 rounds ties away from zero; loom rounds ties to even
 * itself, then the MMA uses the value exactly.) */
TC_HD float tc_round_tf32(float f)
{
    uint32_t x = tc_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return tc_f32_from_bits(x | 0x400000u);
    return tc_f32_from_bits((x + 0xfffu + ((x >> 13) & 1u)) & ~0x1fffu);
}

#endif
