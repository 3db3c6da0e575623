"""Text from a decoder-only language model: a prompt in, sampled text out, as it is produced.

    >>> model, tokenizer, _ = load_model_dir("runs/lm")
    >>> generate(model, tokenizer, "The black cat", max_new_tokens=20, top_k=50, seed=1,
    ...          on_text=lambda s: print(s, end="", flush=True))

The sampling itself is ``heedful.search.sample`` (temperature, top-k, top-p); this module gives it
the model as a step function and watches the tokens it feeds back, so each one is shown as soon
as it is chosen. The model reads ``[bos] + prompt`` and continues it, the convention it was
trained with (and that ``heedful.explain.capture.attend_lm`` shows).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor, nn

from heedful.search import Step, Stepped, sample
from heedful.tokenizer import UNK_ID, Tokenizer


@dataclass
class FullContext:
    """The "cache" of uncached decoding: every token so far, all re-read at each step."""

    tokens: Tensor | None = None  # [B, t]; None before the first step

    def reorder(self, index: Tensor) -> FullContext:
        return FullContext(None if self.tokens is None else self.tokens.index_select(0, index))


def lm_step(model: nn.Module, *, cached: bool = True) -> tuple[Step, Any]:
    """The language model as ``heedful.search`` sees it: ``step(tokens [B, t], cache) ->
    Stepped(logits of the next token [B, V], cache)``, and the empty cache to start from.

    ``cached=False`` runs the model over the whole sequence at every step instead of feeding it
    only the new tokens with the keys and values kept: slower, and the same numbers.
    """

    if cached:

        def step(tokens: Tensor, cache: Any) -> Stepped:
            out = model.decode_step(tokens, cache)
            return Stepped(out.logits[:, -1], out.cache)

        return step, model.start_decoding()

    def full_step(tokens: Tensor, context: FullContext) -> Stepped:
        so_far = tokens if context.tokens is None else torch.cat([context.tokens, tokens], dim=1)
        return Stepped(model(so_far)[:, -1], FullContext(so_far))  # so_far: [B, t]

    return full_step, FullContext()


def watch(step: Step, on_token: Callable[[int], None]) -> Step:
    """``step``, also calling ``on_token(id)`` with every token the search feeds back: the prompt
    comes first, then each chosen token the moment it is chosen (one row only)."""
    started = False

    def watched(tokens: Tensor, cache: Any) -> Stepped:
        nonlocal started
        if started:
            on_token(int(tokens[0, -1]))
        started = True
        return step(tokens, cache)

    return watched


class TextStream:
    """Turns ids, one at a time, into the new characters of the decoded text."""

    def __init__(self, tokenizer: Tokenizer, prompt_ids: list[int], on_text: Callable[[str], None]):
        self.tokenizer, self.on_text = tokenizer, on_text
        self.ids = list(prompt_ids)
        self.shown = ""
        self._show()

    def add(self, token: int) -> None:
        self.ids.append(token)
        self._show()

    def _show(self) -> None:
        text = self.tokenizer.decode(self.ids)
        # A new piece only appends to the text (its word-start mark becomes a space); should the
        # decoded text ever change before its end, what was shown stays and the rest follows.
        same = 0
        while same < min(len(text), len(self.shown)) and text[same] == self.shown[same]:
            same += 1
        if text[same:]:
            self.on_text(text[same:])
        self.shown = text


@dataclass
class Generated:
    text: str  # the prompt and its continuation, decoded
    tokens: list[int]  # the generated ids (ending with end-of-sentence unless cut)
    log_prob: float  # of the generated tokens, under the (temperature-free) model
    stopped: str  # "eos" or "length"


@torch.no_grad()
def generate(
    model: nn.Module,
    tokenizer: Tokenizer,
    prompt: str,
    *,
    max_new_tokens: int = 50,
    temperature: float = 1.0,
    top_k: int = 0,
    top_p: float = 1.0,
    seed: int | None = None,
    on_text: Callable[[str], None] | None = None,
    cached: bool = True,
) -> Generated:
    """Continue ``prompt`` (empty: from nothing) with at most ``max_new_tokens`` sampled tokens,
    end-of-sentence included. ``seed`` makes it reproducible; ``on_text`` receives the decoded
    prompt, then each new piece of text as soon as its token is chosen."""
    config = model.config
    if max_new_tokens < 1:
        raise ValueError(f"max_new_tokens must be at least 1, not {max_new_tokens}")
    prompt_ids = tokenizer.encode(prompt, add_eos=False)
    read = [config.start_id, *prompt_ids]
    if len(read) + max_new_tokens > config.max_positions + 1:
        raise ValueError(
            f"the prompt ({len(prompt_ids)} tokens) and {max_new_tokens} new tokens exceed the "
            f"model's {config.max_positions} positions; shorten one of them"
        )
    device = next(model.parameters()).device
    generator = torch.Generator(device=device)
    if seed is None:
        generator.seed()
    else:
        generator.manual_seed(seed)
    stream = TextStream(tokenizer, prompt_ids, on_text or (lambda _: None))
    step, cache = lm_step(model.eval(), cached=cached)
    (result,) = sample(
        watch(step, stream.add), cache, torch.tensor([read], device=device),
        eos_id=config.eos_id, max_length=max_new_tokens, temperature=temperature, top_k=top_k,
        top_p=top_p, banned=(config.pad_id, config.bos_id, UNK_ID), generator=generator,
    )  # fmt: skip
    last = result.tokens[-1]
    if last != config.eos_id:  # the last token is never fed back: show it now
        stream.add(last)
    return Generated(
        tokenizer.decode(prompt_ids + result.tokens),
        result.tokens,
        result.log_prob,
        "eos" if last == config.eos_id else "length",
    )
