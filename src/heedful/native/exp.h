/* e^x for the kernels' softmax, where x = score - max <= 0. */

#ifndef HEEDFUL_EXP_H
#define HEEDFUL_EXP_H

#include <math.h>
#include <stdint.h>

/* e^x for x <= 0, within 2 ulp (Cephes' expf): 2^k · e^r with r = x - k·ln 2 in [-ln2/2, ln2/2].
   Unlike libm's expf it vectorises (decoding attention: 25% faster). Below -87, 0 would be
   exact enough: the largest weight is e^0 = 1, and float32 cannot tell 1 + 1e-38 from 1.
   Outside its domain the answer is still defined: NaN gives NaN, as expf does (a NaN logit, or
   -inf - -inf in a row without a finite one), and x > 0 gives e^0 = 1. */
static inline float exp_nonpositive(float x) {
    /* x into [-87, 0] before k becomes an int: converting NaN, or a float beyond int's range, is
       undefined behaviour in C. NaN fails both comparisons and becomes -87; it is put back at
       the end. */
    float y = x >= -87.0f ? x : -87.0f;
    y = y <= 0.0f ? y : 0.0f;
    /* fmaf throughout: one rounding each, and no reassociation (-fassociative-math) can undo
       the two-part subtraction of k·ln 2 */
    float k = floorf(fmaf(y, 1.44269504088896341f, 0.5f));
    float r = fmaf(k, -0.693359375f, y);
    r = fmaf(k, 2.12194440e-4f, r);
    float p = 1.9875691500e-4f;
    p = fmaf(p, r, 1.3981999507e-3f);
    p = fmaf(p, r, 8.3334519073e-3f);
    p = fmaf(p, r, 4.1665795894e-2f);
    p = fmaf(p, r, 1.6666665459e-1f);
    p = fmaf(p, r, 5.0000001201e-1f);
    p = fmaf(p, r * r, r) + 1.0f;
    union { int32_t bits; float value; } two_k = {((int32_t)k + 127) << 23}; /* 2^k, k >= -126 */
    return x == x ? p * two_k.value : x; /* x != x: x is NaN */
}

#endif
