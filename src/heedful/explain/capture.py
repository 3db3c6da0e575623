"""Capturing a decoder-only language model's attention over a text, as an ``Attended``, and
one way to get an ``Attended`` from any model directory.

The translation model's weights come from ``Translator.attend`` (beam search or forced decoding).
A language model has nothing to search: it reads ``<s>`` and the text's tokens and predicts each
next token, the text's tokens then ``</s>``. Its ``Attended`` follows the translation decoder's
convention: ``target_pieces`` are the tokens predicted (ending with ``</s>``), the keys are what
was read (``<s>`` then every target token but the last), and there is no source.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import torch
from torch import nn

from heedful.attended import Attended
from heedful.checkpoint import CONFIG_FILE, load_model_dir, read_json
from heedful.tokenizer import Tokenizer


@torch.no_grad()
def attend_lm(model: nn.Module, tokenizer: Tokenizer, text: str) -> Attended:
    """Every self-attention weight of a DecoderOnlyLM reading ``text`` ([L, H, T, T])."""
    ids = tokenizer.encode(text, add_eos=False)
    device = next(model.parameters()).device
    read = torch.tensor([[model.config.start_id] + ids], device=device)  # [1, T]
    out = model(read, return_attention=True)
    return Attended(
        source="",
        translation=tokenizer.decode(ids),
        source_pieces=[],
        target_pieces=tokenizer.pieces(ids + [model.config.eos_id]),
        encoder_self=None,
        decoder_self=out.attention.decoder_self[:, 0].cpu(),  # [L, H, T, T]
        cross=None,
    )


def is_language_model(model_dir: str | Path) -> bool:
    """Does the model directory hold a decoder-only language model (not a translator)?"""
    meta = read_json(Path(model_dir) / CONFIG_FILE)
    return isinstance(meta, dict) and meta.get("architecture") == "DecoderOnlyLM"


def attender(model_dir: str | Path, device: str | torch.device = "cpu") -> Callable[..., Attended]:
    """``attend(text, target=None, beam_size=4) -> Attended`` for any model directory: a
    translator's (``Translator.attend``: beam search, or ``target`` forced) or a language
    model's (``attend_lm``: the text read; ``target`` and ``beam_size`` do not apply)."""
    if not is_language_model(model_dir):
        from heedful.translator import Translator

        return Translator.load(model_dir, device=device).attend
    model, tokenizer, _ = load_model_dir(model_dir, device=device)

    def attend(text: str, target: str | None = None, beam_size: int = 4) -> Attended:
        if target is not None:
            raise ValueError("a language model has no target to force: give only the text")
        return attend_lm(model, tokenizer, text)

    return attend
