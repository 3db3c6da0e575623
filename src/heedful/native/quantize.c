/* A float32 tensor quantised to uint8 with one scale and zero point for all of it: what
   oneDNN's int8 products read (heedful.inference.OneDNNInt8Linear), as PyTorch's
   quantize_per_tensor_dynamic makes it, in two passes over the values instead of four calls
   (minimum, maximum, quantise, copy out of the quantised tensor).

   The range always holds 0 (so zero is exact); scale = (high - low) / 255, zero point
   = round(-low / scale); each value becomes clamp(round(x / scale + zero point), 0, 255).
   A range of 0 (every value zero) takes scale 1. NaN is left out of the range and becomes 0. */

#include <math.h>
#include <stdint.h>

#ifdef __AVX512F__
#include <immintrin.h>
#endif

/* The smallest and largest of x[0..n) and 0. Written out for AVX-512: gcc vectorises a
   minimum only where it may assume there is no NaN (vminps(v, m) keeps m where v is NaN). */
static void range(const float *x, int64_t n, float *low, float *high) {
    float lo = 0.0f, hi = 0.0f;
    int64_t i = 0;
#ifdef __AVX512F__
    __m512 vlo = _mm512_setzero_ps(), vhi = _mm512_setzero_ps();
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_loadu_ps(x + i);
        vlo = _mm512_min_ps(v, vlo);
        vhi = _mm512_max_ps(v, vhi);
    }
    lo = _mm512_reduce_min_ps(vlo);
    hi = _mm512_reduce_max_ps(vhi);
#endif
    for (; i < n; ++i) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    *low = lo;
    *high = hi;
}

void heedful_quantize_u8(const float *x, int64_t n, uint8_t *out, double *scale, int32_t *zero) {
    float low, high;
    range(x, n, &low, &high);
    double step = ((double)high - low) / 255.0; /* in double, as PyTorch's scale */
    if (!(step > 0.0) || !isfinite((float)step) || !isfinite(1.0f / (float)step)) step = 1.0;
    float zero_point = (float)nearbyint(-low / step);
    zero_point = zero_point < 0.0f ? 0.0f : zero_point > 255.0f ? 255.0f : zero_point;
    const float inverse = 1.0f / (float)step; /* as fbgemm's Quantize */
    int64_t i = 0;
#ifdef __AVX512F__
    /* round to nearest even (the default mode), NaN to INT_MIN, then 0..255 */
    const __m512 scale_v = _mm512_set1_ps(inverse), zero_v = _mm512_set1_ps(zero_point);
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_fmadd_ps(_mm512_loadu_ps(x + i), scale_v, zero_v);
        __m512i q = _mm512_max_epi32(_mm512_cvtps_epi32(v), _mm512_setzero_si512());
        _mm_storeu_si128((__m128i *)(out + i), _mm512_cvtusepi32_epi8(q));
    }
#endif
    for (; i < n; ++i) {
        float q = nearbyintf(fmaf(x[i], inverse, zero_point)); /* one rounding, as fbgemm */
        q = q > 0.0f ? q : 0.0f; /* NaN fails the test: 0 */
        q = q < 255.0f ? q : 255.0f;
        out[i] = (uint8_t)q;
    }
    *scale = step;
    *zero = (int32_t)zero_point;
}
