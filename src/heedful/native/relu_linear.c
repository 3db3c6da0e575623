/* The second product of a ReLU feed-forward layer, y = h Wᵀ + b, from h's nonzero values only.

   After a ReLU most of h is zero: 92-97% in the bundled models' decoder layers. A dense product
   multiplies every zero all the same; here each row lists its nonzero values first, then adds
   up only their columns of W (rows of Wᵀ, each `out` floats in one piece), the bias first and
   then by increasing index, so a row's result never depends on the rows beside it. */

#include <stdint.h>
#include <stdlib.h>

#ifdef __AVX512F__
#include <immintrin.h>
#endif

#define WIDTH 256 /* outputs summed at once: 16 AVX-512 registers */

/* The nonzero values of x[0..n) and their indices; returns how many. NaN counts as nonzero. */
static int64_t nonzeros(const float *x, int64_t n, float *values, int32_t *indices) {
    int64_t count = 0, j = 0;
#ifdef __AVX512F__
    const __m512i lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    for (; j + 16 <= n; j += 16) {
        __m512 v = _mm512_loadu_ps(x + j);
        __mmask16 m = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_NEQ_UQ);
        if (!m) continue;
        _mm512_mask_compressstoreu_ps(values + count, m, v);
        __m512i at = _mm512_add_epi32(lanes, _mm512_set1_epi32((int32_t)j));
        _mm512_mask_compressstoreu_epi32(indices + count, m, at);
        count += __builtin_popcount(m);
    }
#endif
    for (; j < n; ++j) {
        if (x[j] == 0.0f) continue;
        values[count] = x[j];
        indices[count++] = (int32_t)j;
    }
    return count;
}

/* y[0..width) = bias + Σ_k values[k] · w[indices[k] · stride + (0..width)] */
static void sum_columns(const float *values, const int32_t *indices, int64_t count,
                        const float *w, int64_t stride, const float *bias, int64_t width,
                        float *y) {
#ifdef __AVX512F__
    if (width == WIDTH) {
        __m512 acc[16];
        for (int i = 0; i < 16; ++i)
            acc[i] = bias ? _mm512_loadu_ps(bias + 16 * i) : _mm512_setzero_ps();
        for (int64_t k = 0; k < count; ++k) {
            const float *column = w + (int64_t)indices[k] * stride;
            __m512 a = _mm512_set1_ps(values[k]);
            for (int i = 0; i < 16; ++i)
                acc[i] = _mm512_fmadd_ps(a, _mm512_loadu_ps(column + 16 * i), acc[i]);
        }
        for (int i = 0; i < 16; ++i) _mm512_storeu_ps(y + 16 * i, acc[i]);
        return;
    }
#endif
    for (int64_t o = 0; o < width; ++o) y[o] = bias ? bias[o] : 0.0f;
    for (int64_t k = 0; k < count; ++k) {
        const float *column = w + (int64_t)indices[k] * stride;
        const float a = values[k];
#pragma omp simd
        for (int64_t o = 0; o < width; ++o) y[o] = __builtin_fmaf(a, column[o], y[o]);
    }
}

/* h: [rows, inner], rows h_row floats apart; weight_t: [inner, out] contiguous (Wᵀ); bias:
   [out] or NULL; y: [rows, out] contiguous. Returns 1 if it could not allocate, else 0. */
int heedful_relu_linear(const float *h, int64_t h_row, int64_t rows, int64_t inner,
                        const float *weight_t, const float *bias, int64_t out, float *y,
                        int threads) {
    int failed = 0;
#pragma omp parallel num_threads(threads) if (threads > 1 && rows > 1)
    {
        float *values = malloc(sizeof(float) * (size_t)inner);
        int32_t *indices = malloc(sizeof(int32_t) * (size_t)inner);
        int ok = values != NULL && indices != NULL;
        if (!ok) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(static)
        for (int64_t r = 0; r < rows; ++r) {
            if (!ok) continue;
            int64_t count = nonzeros(h + r * h_row, inner, values, indices);
            for (int64_t o = 0; o < out; o += WIDTH) {
                int64_t width = out - o < WIDTH ? out - o : WIDTH;
                sum_columns(values, indices, count, weight_t + o, out, bias ? bias + o : NULL,
                            width, y + r * out + o);
            }
        }
        free(values);
        free(indices);
    }
    return failed;
}
