"""Validation on the dev split: label-smoothed loss, and sacreBLEU + chrF of translations.

``translate`` is the one place that decodes: through ``heedful.translator.Translator``, the same
code that serves users.
"""

from __future__ import annotations

import math
from contextlib import AbstractContextManager
from typing import Any

import sacrebleu
import torch
from torch import nn

from heedful.data.corpus import Corpus
from heedful.tokenizer import Tokenizer
from heedful.training.batching import collate, corpus_lengths, make_batches, model_logits
from heedful.training.loss import label_smoothed_loss


@torch.no_grad()
def dev_loss(
    model: nn.Module,
    corpus: Corpus,
    *,
    batch_tokens: int,
    epsilon: float,
    autocast: AbstractContextManager,
    device: torch.device,
) -> dict[str, float]:
    """Per-token label-smoothed loss, NLL and perplexity over the whole split."""
    config = model.config
    src_lengths, tgt_lengths = corpus_lengths(corpus)
    loss = nll = 0.0
    tokens = 0
    was_training = model.training
    model.eval()
    for indices in make_batches(src_lengths, tgt_lengths, batch_tokens, seed=0, epoch=0):
        batch = collate(corpus, indices, start_id=config.start_id, eos_id=config.eos_id)
        batch = batch.to(device)
        with autocast:
            logits = model_logits(model, batch)
        sums = label_smoothed_loss(logits, batch.labels, epsilon=epsilon, pad_id=config.pad_id)
        loss, nll, tokens = loss + float(sums.loss), nll + float(sums.nll), tokens + sums.tokens
    model.train(was_training)
    tokens = max(tokens, 1)
    return {"loss": loss / tokens, "nll": nll / tokens, "ppl": math.exp(min(nll / tokens, 50))}


def translation_scores(hypotheses: list[str], references: list[str]) -> dict[str, float]:
    """Corpus sacreBLEU (13a tokenisation, detokenised text) and chrF."""
    return {
        "bleu": sacrebleu.corpus_bleu(hypotheses, [references]).score,
        "chrf": sacrebleu.corpus_chrf(hypotheses, [references]).score,
    }


def translate(
    model: nn.Module,
    tokenizer: Tokenizer,
    meta: dict[str, Any],
    texts: list[str],
    *,
    beam_size: int = 1,
    batch_sentences: int = 64,
) -> list[str]:
    """Translate ``texts`` with the model as it is now, through a copy built for inference
    (``heedful.inference``); the model itself is unchanged."""
    from heedful.inference import inference_copy
    from heedful.translator import Translator

    translator = Translator(inference_copy(model), tokenizer, meta)
    return translator.translate(texts, beam_size=beam_size, batch_size=batch_sentences)
