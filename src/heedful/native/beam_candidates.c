/* Beam search's candidates at one step: for each sentence, the `count` best of its K beams'
   continuations, each scored as

       score(beam) + log softmax(logits[beam])[token]

   with the tokens the search forbids left out (``heedful.search._mask_logits``). The same
   numbers as PyTorch's log_softmax, add and top-k over n x K·V values (heedful/search.py), in one
   pass over the logits after a pass for each row's log-sum-exp, instead of five that each write
   or read all of them. */

#include <math.h>
#include <stdint.h>

#include "exp.h"

/* Insert (value, index) into the best-first list top[0..count), which holds values > its last. */
static void insert(float *values, int64_t *indices, int64_t count, float value, int64_t index) {
    int64_t i = count - 1;
    while (i > 0 && values[i - 1] < value) {
        values[i] = values[i - 1];
        indices[i] = indices[i - 1];
        --i;
    }
    values[i] = value;
    indices[i] = index;
}

static int banned_token(int64_t token, const int64_t *banned, int64_t banned_count) {
    for (int64_t i = 0; i < banned_count; ++i)
        if (banned[i] == token) return 1;
    return 0;
}

/* log Σ e^x over one row */
static float log_sum_exp(const float *x, int64_t n) {
    float most = -INFINITY;
#pragma omp simd reduction(max : most)
    for (int64_t i = 0; i < n; ++i) most = x[i] > most ? x[i] : most;
    float total = 0.0f;
    for (int64_t i = 0; i < n; ++i) total += exp_nonpositive(x[i] - most);
    return most + logf(total);
}

#define BLOCK 64

void heedful_beam_candidates(
    const float *logits, int64_t logits_row, /* [n·K, V], rows logits_row floats apart */
    const float *scores,                      /* [n·K]: each beam's score so far */
    int64_t sentences, int64_t beams, int64_t vocab,
    const int64_t *banned, int64_t banned_count, /* ids never generated */
    int64_t eos, const uint8_t *early, /* [n·K] or NULL: where set, no EOS (before min_length) */
    const uint8_t *last, /* [n·K] or NULL: where set, EOS only, at no cost (forced) */
    int64_t count, float *top_scores, int64_t *top_index, /* [n, count], best first */
    int threads) {
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
    for (int64_t s = 0; s < sentences; ++s) {
        float *values = top_scores + s * count;
        int64_t *indices = top_index + s * count;
        for (int64_t i = 0; i < count; ++i) values[i] = -INFINITY, indices[i] = 0;
        for (int64_t b = 0; b < beams; ++b) {
            int64_t row = s * beams + b;
            const float *x = logits + row * logits_row;
            if (last && last[row]) {
                if (scores[row] > values[count - 1])
                    insert(values, indices, count, scores[row], b * vocab + eos);
                continue;
            }
            float lse = log_sum_exp(x, vocab);
            for (int64_t start = 0; start < vocab; start += BLOCK) {
                int64_t end = start + BLOCK < vocab ? start + BLOCK : vocab;
                float most = -INFINITY;
#pragma omp simd reduction(max : most)
                for (int64_t v = start; v < end; ++v) most = x[v] > most ? x[v] : most;
                if ((most - lse) + scores[row] <= values[count - 1]) continue;
                for (int64_t v = start; v < end; ++v) {
                    float value = (x[v] - lse) + scores[row];
                    if (value <= values[count - 1]) continue;
                    if (v == eos && early && early[row]) continue;
                    if (banned_token(v, banned, banned_count)) continue;
                    insert(values, indices, count, value, b * vocab + v);
                }
            }
        }
    }
}
