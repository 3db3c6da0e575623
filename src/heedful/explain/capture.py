"""Capturing attention as an ``Attended``: a translation model's for one sentence pair (the
translation beam search finds, or a target forced), a batch of forced pairs' cross-attention
(for word alignments), and a decoder-only language model's over a text. One way to get an
``Attended`` from any model directory: ``heedful.explain.attender``.

A translation's weights under beam search are the final hypothesis's own, carried along the beam
(``keep_attention``); they equal forced decoding's of the same target. A language model has
nothing to search: it reads ``<s>`` and the text's tokens and predicts each next token, the
text's tokens then ``</s>``. Its ``Attended`` follows the translation decoder's convention:
``target_pieces`` are the tokens predicted (ending with ``</s>``), the keys are what was read
(``<s>`` then every target token but the last), and there is no source.
"""

from __future__ import annotations

from dataclasses import replace

import torch
from torch import nn

from heedful.attended import Attended
from heedful.decoding import pad
from heedful.explain.paragraphs import attend_paragraph
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


# --- translation models ----------------------------------------------------------------------


def attend(
    translator, source: str, target: str | None = None, beam_size: int = 4,
    *, full_context: bool | None = None,
) -> Attended:  # fmt: skip
    """``Translator.attend``: every attention weight for one sentence, of the translation found
    by beam search (the final hypothesis's own weights), or, with ``target``, of that target
    forced. Without ``target``, the model reads the sentence as ``translate`` gives it (ALL CAPS
    cased; numbers, dates, URLs and unseen names as placeholders: ``Translator.as_translated``)
    and the translation is ``translate``'s; words are labelled as the user's texts write them
    where they line up one to one, else as the model read and wrote them ("lunes" for "3 de mayo
    de 1990"). Raises ValueError for an empty source, and, without ``target``, for one that
    ``translate`` leaves untranslated (only characters outside the vocabulary).
    ``full_context``: as ``attend_ids``'s."""
    if not source.strip():
        raise ValueError("the source is empty: give a sentence to attend to")
    paragraph = attend_paragraph(
        translator, source, target,
        lambda s, t: attend(translator, s, t, beam_size, full_context=full_context),
    )  # fmt: skip
    if paragraph is not None:  # sentence by sentence, as translate translates it
        return paragraph
    if target is None:  # as translate translates it: cased, spans kept from the model
        read, finish = translator.as_translated(source)
        src_ids = translator._fit_source(translator.tokenizer.encode(read))
        if not translator._knows_some_of(src_ids):
            raise ValueError(
                f"{source[:40]!r} holds only characters outside the model's vocabulary, so "
                "it has no translation to show the attention of; give a target to force one"
            )
        found = attend_ids(translator, src_ids, None, beam_size=beam_size, source=source,
                           full_context=full_context)  # fmt: skip
        return replace(found, translation=finish(found.translation))
    src_ids = translator._fit_source(translator.tokenizer.encode(source))
    # a tokenizer with two vocabularies (Marian) encodes targets with the target one
    encode_target = getattr(translator.tokenizer, "encode_target", translator.tokenizer.encode)
    return attend_ids(
        translator, src_ids, encode_target(target), source=source, full_context=full_context
    )


@torch.inference_mode()
def attend_ids(
    translator,
    src_ids: list[int],
    tgt_ids: list[int] | None = None,
    *,
    beam_size: int = 4,
    source: str | None = None,
    full_context: bool | None = None,
) -> Attended:
    """``attend`` at id level: ``tgt_ids`` are the tokens the decoder is to produce.
    ``full_context``: also the cross-attention of a full-context pass (``cross_full``, for the
    ``full`` alignment method); None: where the model's recorded method is ``full``."""
    model, tokenizer = translator.model, translator.tokenizer
    src = pad([src_ids], model.config.pad_id, next(model.parameters()).device)
    encoder_self = model.encode(src, return_attention=True).attention[:, 0]
    score = None

    def forced(full_context: bool):  # every weight with tgt_ids forced
        tgt_in = torch.tensor([[model.config.start_id, *tgt_ids[:-1]]], device=src.device)
        return model(src, tgt_in, return_attention=True, full_context=full_context).attention

    if tgt_ids is None:
        (best,) = translator.generate([src_ids], beam_size, keep_attention=True)[0][:1]
        tgt_ids, score = best.tokens, best.score
        cross = torch.stack([c for _, c in best.trace], dim=2)  # [L, H, T, S]
        T = len(best.trace)
        decoder_self = cross.new_zeros(cross.shape[0], cross.shape[1], T, T)
        for t, (d, _) in enumerate(best.trace):
            decoder_self[:, :, t, : t + 1] = d
    else:
        attention = forced(full_context=False)
        decoder_self, cross = attention.decoder_self[:, 0], attention.cross[:, 0]
    if full_context is None:
        full_context = translator.resolved_alignment().method == "full"
    cross_full = forced(full_context=True).cross[:, 0] if full_context else None
    return Attended(
        source=source if source is not None else translator._text(src_ids),
        translation=translator._text(tgt_ids),
        source_pieces=getattr(tokenizer, "source_pieces", tokenizer.pieces)(src_ids),
        target_pieces=tokenizer.pieces(tgt_ids),
        encoder_self=encoder_self,
        decoder_self=decoder_self,
        cross=cross,
        score=score,
        cross_full=cross_full,
    )
