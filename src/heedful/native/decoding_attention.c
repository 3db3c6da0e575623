/* Attention of one new query per row, as decoding steps ask it (paper §3.2.1):

       out[r, h] = softmax(q[r, h] · K[s, h]ᵀ / sqrt(d_k)) V[s, h],   s = r / group

   over the keys of the row's sentence s; a sentence's `group` rows (its beams) share them.
   With a beam cache (origin != NULL) each position p of a sentence holds one key per beam slot,
   and row r reads the slot origin[r, p]: its own history's. Keys a mask rules out get weight 0
   (a row that may see no key at all gets zeros, where PyTorch's softmax gives NaN).
   With `weights` (else NULL), the softmax's weights [R, H, S] too: word links read some heads'
   (heedful.aligning) and would otherwise compute them again, in some ten operator calls.

   The same numbers as PyTorch's batched products and softmax (heedful/attention.py), without
   their per-call costs, which dominate at these sizes: a few thousand multiply-adds per row. */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "exp.h"

typedef struct {
    const float *data;
    int64_t sentence, head, position, slot; /* strides, in floats */
} Keys;

/* Four dot products with q at once: independent sums keep the multiply-add units busy. */
static void dot4(const float *q, const float *const *keys, int64_t d, float *out) {
    const float *k0 = keys[0], *k1 = keys[1], *k2 = keys[2], *k3 = keys[3];
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    for (int64_t i = 0; i < d; ++i) {
        s0 += q[i] * k0[i];
        s1 += q[i] * k1[i];
        s2 += q[i] * k2[i];
        s3 += q[i] * k3[i];
    }
    out[0] = s0, out[1] = s1, out[2] = s2, out[3] = s3;
}

static float dot(const float *a, const float *b, int64_t n) {
    float s = 0.0f;
    for (int64_t i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}

int heedful_decoding_attention(
    const float *q, int64_t q_row, int64_t q_head,             /* q[r, h, :] */
    Keys k, Keys v,                                             /* [n, H, S, (slots,) d_k] */
    const uint8_t *mask, int64_t mask_sentence, int64_t mask_position, /* [n, S] or NULL */
    const int64_t *origin, int64_t origin_row, int64_t origin_position, /* [R, S] or NULL */
    int64_t rows, int64_t heads, int64_t d, int64_t positions, int64_t group, float scale,
    float *out,     /* [R, H·d_k], contiguous */
    float *weights, /* [R, H, positions], contiguous, or NULL */
    int threads) {
    int failed = 0;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        /* per thread: the keys and values each position of a row reads, the scores, and
           which position each score is of */
        size_t n = (size_t)(positions > 0 ? positions : 1);
        const float **seen = malloc(n * (2 * sizeof(float *) + sizeof(float) + sizeof(int64_t)));
        const float **read = seen ? seen + n : NULL;
        int64_t *at = seen ? (int64_t *)(read + n) : NULL;
        float *w = seen ? (float *)(at + n) : NULL;
        if (!seen) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(static)
        for (int64_t rh = 0; rh < rows * heads; ++rh) {
            if (!seen) continue;
            int64_t r = rh / heads, h = rh % heads, s = r / group;
            const float *query = q + r * q_row + h * q_head;
            const float *keys = k.data + s * k.sentence + h * k.head;
            const float *values = v.data + s * v.sentence + h * v.head;
            int64_t count = 0; /* the positions this row may see */
            for (int64_t p = 0; p < positions; ++p) {
                if (mask && !mask[s * mask_sentence + p * mask_position]) continue;
                int64_t slot = origin ? origin[r * origin_row + p * origin_position] : 0;
                at[count] = p;
                seen[count] = keys + p * k.position + slot * k.slot;
                read[count++] = values + p * v.position + slot * v.slot;
            }
            int64_t p = 0;
            for (; p + 4 <= count; p += 4) dot4(query, seen + p, d, w + p);
            for (; p < count; ++p) w[p] = dot(query, seen[p], d);
            float most = -INFINITY, total = 0.0f;
            for (p = 0; p < count; ++p) most = w[p] > most ? w[p] : most;
            for (p = 0; p < count; ++p) total += (w[p] = exp_nonpositive((w[p] - most) * scale));
            if (weights) { /* the positions ruled out get 0, as in PyTorch's softmax */
                float *row = weights + rh * positions;
                for (p = 0; p < positions; ++p) row[p] = 0.0f;
                for (p = 0; p < count; ++p) row[at[p]] = w[p] / total;
            }
            float *o = out + r * heads * d + h * d;
            for (int64_t i = 0; i < d; ++i) o[i] = 0.0f;
            for (p = 0; p + 4 <= count; p += 4) { /* four values at a time: a quarter of the stores */
                const float *v0 = read[p], *v1 = read[p + 1], *v2 = read[p + 2], *v3 = read[p + 3];
                float w0 = w[p] / total, w1 = w[p + 1] / total;
                float w2 = w[p + 2] / total, w3 = w[p + 3] / total;
#pragma omp simd
                for (int64_t i = 0; i < d; ++i)
                    o[i] += w0 * v0[i] + w1 * v1[i] + w2 * v2[i] + w3 * v3[i];
            }
            for (; p < count; ++p) {
                const float *v0 = read[p];
                float w0 = w[p] / total;
#pragma omp simd
                for (int64_t i = 0; i < d; ++i) o[i] += w0 * v0[i];
            }
        }
        free(seen);
    }
    return failed;
}
