"""A tiny model learns a tiny task."""

import time

from heedful.toy import ToyTask, token_accuracy, train_toy


def test_tiny_preset_learns_to_reverse_in_under_a_minute():
    task = ToyTask(kind="reverse")
    start = time.monotonic()
    model = train_toy(task, time_limit=55)
    assert time.monotonic() - start < 60
    assert token_accuracy(model, task, n=300, seed=123) > 0.99


def test_an_untrained_model_does_not_reverse():
    """The accuracy measure can fail: an untrained model scores far below the bar."""
    task = ToyTask(kind="reverse")
    model = train_toy(task, steps=0)
    assert token_accuracy(model, task, n=100) < 0.5
