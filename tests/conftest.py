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
