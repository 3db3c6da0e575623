"""Shared test settings."""

import torch

# Tests run tiny models: one thread is as fast there and far steadier on a busy machine, where
# two threads' OpenMP barriers can make a tiny forward pass 50x slower.
torch.set_num_threads(1)
