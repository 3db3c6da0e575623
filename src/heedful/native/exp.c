/* exp_nonpositive over an array: for its test (tests/test_native.py). */

#include "exp.h"

void heedful_exp_nonpositive(const float *x, float *out, int64_t n) {
    for (int64_t i = 0; i < n; ++i) out[i] = exp_nonpositive(x[i]);
}
