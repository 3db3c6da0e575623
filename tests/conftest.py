"""Shared test settings."""

import atexit
import os
import shutil
import tempfile

import pytest
import torch

from heedful import native

# heedful's native kernels build into a folder of this test session's own (unless one is given):
# every run tests the build, and a home folder nobody may write to cannot fail it.
if not os.environ.get("HEEDFUL_CACHE"):
    os.environ["HEEDFUL_CACHE"] = tempfile.mkdtemp(prefix="heedful-tests-")
    atexit.register(shutil.rmtree, os.environ["HEEDFUL_CACHE"], ignore_errors=True)

# Tests run tiny models: one thread is as fast there and far steadier on a busy machine, where
# two threads' OpenMP barriers can make a tiny forward pass 50x slower.
torch.set_num_threads(1)


@pytest.fixture
def fresh_build(monkeypatch, tmp_path):
    """The native kernels built anew into tmp_path, and the session's own build loaded again
    afterwards."""
    monkeypatch.setenv("HEEDFUL_CACHE", str(tmp_path))
    native._library.cache_clear()
    yield tmp_path
    native._library.cache_clear()


@pytest.fixture(scope="module")
def tiny_decoder():
    """An untrained tiny model built for inference whose outputs end now and then (end of
    sentence favoured), for the beam's rescoring (tests/test_coverage.py, test_dropped.py)."""
    from heedful.config import ModelConfig
    from heedful.inference import for_inference
    from heedful.model import Transformer

    torch.manual_seed(3)
    model = Transformer(ModelConfig.tiny(60, max_positions=128)).eval()
    model.logits_bias = torch.zeros(60)
    model.logits_bias[model.config.eos_id] = 1.5
    return for_inference(model)
