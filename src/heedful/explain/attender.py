"""An ``Attended`` from any model directory: one function for ``heedful attend``.

A translation model's attention is ``Translator.attend``'s (beam search, or a target forced); a
language model's is ``heedful.explain.capture.attend_lm``'s (the text read). Which kind a
directory holds is ``heedful.loading``'s to say.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import torch

from heedful.attended import Attended
from heedful.explain.capture import attend_lm
from heedful.loading import load_model, model_format
from heedful.translator import Translator


def attender(model_dir: str | Path, device: str | torch.device = "cpu") -> Callable[..., Attended]:
    """``attend(text, target=None, beam_size=4) -> Attended`` for any model directory: a
    translator's (``Translator.attend``: beam search, or ``target`` forced) or a language
    model's (``attend_lm``: the text read; ``target`` and ``beam_size`` do not apply)."""
    found = model_format(model_dir)
    if found is None or found.task != "lm":
        return Translator.load(model_dir, device=device).attend
    model, tokenizer, _ = load_model(model_dir, device, task="lm")

    def attend(text: str, target: str | None = None, beam_size: int = 4) -> Attended:
        if target is not None:
            raise ValueError("a language model has no target to force: give only the text")
        return attend_lm(model, tokenizer, text)

    return attend
