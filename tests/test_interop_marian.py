"""Marian / OPUS-MT checkpoints run on heedful's Transformer give HF transformers' numbers.

Every model here is a random-init ``MarianMTModel`` built from a ``MarianConfig`` in the test and
saved with ``save_pretrained`` next to sentencepiece models trained in seconds on Multi30k; nothing
comes from a model hub.
"""

from __future__ import annotations

import functools
import io
import itertools
import json
import shutil
import warnings
from contextlib import nullcontext
from pathlib import Path

import pytest
import sentencepiece as spm
import torch
import transformers
from transformers import MarianConfig, MarianMTModel
from transformers import MarianTokenizer as HFMarianTokenizer

from heedful.cli import main
from heedful.inference import OneDNNInt8Linear, for_inference
from heedful.interop.marian import (
    MarianTokenizer,
    is_marian_dir,
    load_marian_model,
    marian_config,
)
from heedful.translator import Translator

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "multi30k"
# Sentences whose cutting is easy to get wrong: unknown characters and emoji, the special
# tokens' literal strings, language codes, blank and odd whitespace.
TRICKY = [
    "Two men 🙂 stand ≠ §§ 中文 here.",
    "",
    "  leading   and trailing  ",
    "a </s> b<unk>c <pad>d",
    ">>fra<< A dog runs.",
    "x>>de<<y",
    "Tabs\tand\nnew lines",
    "café naïve ﬁsh ÆØÅ",
]
MAX_NEW = 20  # generated tokens at most, end-of-sentence included

# name -> how the test model differs: vocabularies, tying, depth, heads, width, activation,
# weights file, and whether outputs cut at the length limit end with a forced </s>
SHAPES = {
    "shared-tied": dict(shared=True, tied=True, layers=(2, 2), heads=4, d_model=32,
                        activation="swish", scale=True, weights="safetensors", forced_eos=False),
    "separate-vocabs-bin": dict(shared=False, tied=True, layers=(1, 3), heads=2, d_model=48,
                                activation="gelu", scale=True, weights="bin", forced_eos=True),
    "shared-untied": dict(shared=True, tied=False, layers=(3, 1), heads=8, d_model=64,
                          activation="relu", scale=False, weights="safetensors", forced_eos=False),
}  # fmt: skip


def lines(name: str, n: int) -> list[str]:
    with open(DATA / name, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in itertools.islice(f, n)]


@functools.cache
def spm_models() -> tuple[bytes, bytes]:
    """A source (English) and a target (German) unigram model, as Marian uses."""
    protos = []
    for name, size in [("train.en", 150), ("train.de", 180)]:
        model = io.BytesIO()
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(lines(name, 400)), model_writer=model, model_type="unigram",
            vocab_size=size, hard_vocab_limit=False, minloglevel=2,
        )  # fmt: skip
        protos.append(model.getvalue())
    return protos[0], protos[1]


def vocabulary(*protos: bytes, pad_last: bool) -> dict[str, int]:
    """Marian's layout: </s> 0, <unk> 1, the models' pieces, <pad> (last, or else at 2). Every
    9th piece is left out, so that pieces missing from the vocabulary map to <unk>."""
    pieces: list[str] = []
    for proto in protos:
        sp = spm.SentencePieceProcessor(model_proto=proto)
        for i in range(sp.get_piece_size()):
            if not (sp.is_control(i) or sp.is_unknown(i)) and sp.id_to_piece(i) not in pieces:
                pieces.append(sp.id_to_piece(i))
    pieces = [p for i, p in enumerate(pieces) if i % 9 != 4]
    tokens = (
        ["</s>", "<unk>", *pieces, "<pad>"] if pad_last else ["</s>", "<unk>", "<pad>", *pieces]
    )
    return {token: i for i, token in enumerate(tokens)}


def make_marian_dir(directory: Path, shape: str, seed: int = 0) -> MarianMTModel:
    """Save a random MarianMTModel of the named shape with its tokenizer files; return it."""
    s = SHAPES[shape]
    directory.mkdir(parents=True, exist_ok=True)
    source_proto, target_proto = spm_models()
    (directory / "source.spm").write_bytes(source_proto)
    (directory / "target.spm").write_bytes(target_proto)
    if s["shared"]:  # one joint vocabulary over both sides' pieces, as OPUS-MT's
        vocab = target_vocab = vocabulary(source_proto, target_proto, pad_last=True)
    else:  # separate vocabularies of different sizes, <pad> at 2 in both
        vocab = vocabulary(source_proto, pad_last=False)
        target_vocab = vocabulary(target_proto, pad_last=False)
    (directory / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    tokenizer_config = {"separate_vocabs": not s["shared"]}
    if not s["shared"]:
        (directory / "target_vocab.json").write_text(json.dumps(target_vocab), encoding="utf-8")
    (directory / "tokenizer_config.json").write_text(json.dumps(tokenizer_config))

    pad = vocab["<pad>"]
    d_model, (n_enc, n_dec) = s["d_model"], s["layers"]
    init_std = 1.7 / d_model**0.5  # logits of std ~1.7: clear winners, not near-ties
    config = MarianConfig(
        vocab_size=len(vocab), decoder_vocab_size=len(target_vocab), d_model=d_model,
        encoder_layers=n_enc, decoder_layers=n_dec, encoder_attention_heads=s["heads"],
        decoder_attention_heads=s["heads"], encoder_ffn_dim=2 * d_model,
        decoder_ffn_dim=2 * d_model, max_position_embeddings=128, pad_token_id=pad,
        decoder_start_token_id=pad, eos_token_id=0,
        forced_eos_token_id=0 if s["forced_eos"] else None,
        activation_function=s["activation"], scale_embedding=s["scale"],
        share_encoder_decoder_embeddings=s["shared"], tie_word_embeddings=s["tied"],
        init_std=init_std, attn_implementation="eager",
    )  # fmt: skip
    torch.manual_seed(seed)
    model = MarianMTModel(config).eval()
    with torch.no_grad():
        # The decoder starts from pad: give its row values so that a model that ignored it fails.
        model.get_decoder().embed_tokens.weight[pad].normal_(0, init_std)
        model.final_logits_bias.normal_(0, 1.0)
    model.generation_config.bad_words_ids = [[pad]]  # as every OPUS-MT model's config says
    make_some_outputs_end(model, hf_tokenizer(directory))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.save_pretrained(directory)
    if s["weights"] == "bin":  # an older checkpoint: every tensor, tied copies and sinusoids too
        (directory / "model.safetensors").unlink()
        torch.save(model.state_dict(), directory / "pytorch_model.bin")
    return model


def make_some_outputs_end(model: MarianMTModel, tokenizer) -> None:
    """Find an end-of-sentence logit bias (by bisection) whose greedy outputs of ``sources()``
    mix early ends, one at least 2 tokens in, with runs to MAX_NEW tokens: a random model
    otherwise never stops, or stops at once."""
    batch = tokenizer(sources(), return_tensors="pt", padding=True)
    eos, n = model.config.eos_token_id, len(sources())
    base, low, high = float(model.final_logits_bias[0, eos]), 2.0, 14.0
    for _ in range(16):
        extra = (low + high) / 2
        with torch.no_grad():
            model.final_logits_bias[0, eos] = base + extra
            out = model.generate(**batch, num_beams=1, do_sample=False, max_new_tokens=MAX_NEW)
        ended = [row.index(eos) for row in out[:, 1:].tolist() if eos in row[: MAX_NEW - 1]]
        if 3 <= len(ended) <= n - 3 and max(ended) >= 2:
            return
        low, high = (extra, high) if len(ended) < 3 else (low, extra)
    raise AssertionError("no end-of-sentence bias gives a mix of lengths")


@functools.cache
def _built(shape: str, root: str) -> MarianMTModel:
    return make_marian_dir(Path(root) / shape, shape)


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("marian")


def hf_tokenizer(directory: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Recommended: pip install sacremoses."
        return transformers.MarianTokenizer.from_pretrained(directory)


def sources() -> list[str]:
    return lines("val.en", 12) + [t for t in TRICKY if t.strip()]


def pad_batch(rows: list[list[int]], pad: int) -> torch.Tensor:
    out = torch.full((len(rows), max(map(len, rows))), pad, dtype=torch.long)
    for i, row in enumerate(rows):
        out[i, : len(row)] = torch.tensor(row)
    return out


# --- tokenisation -----------------------------------------------------------------------------


@pytest.mark.parametrize("shape", ["shared-tied", "separate-vocabs-bin"])
def test_tokenizer_matches_hf(root, shape):
    _built(shape, str(root))
    directory = root / shape
    hf, ours = hf_tokenizer(directory), MarianTokenizer.load(directory)
    texts = lines("val.en", 30) + lines("val.de", 30) + TRICKY
    assert ours.encode_batch(texts) == hf(texts)["input_ids"]
    assert [ours.encode(t, add_eos=False) for t in texts] == hf(texts, add_special_tokens=False)[
        "input_ids"
    ]
    assert [ours.encode_target(t) for t in texts] == hf(text_target=texts)["input_ids"]
    assert ours.vocab_size == hf.vocab_size
    assert any(ours.unk_id in ids for ids in ours.encode_batch(texts)), "no unknown piece tested"

    generator = torch.Generator().manual_seed(0)
    sequences = [torch.randint(0, ours.target_vocab_size, (12,), generator=generator).tolist()
                 for _ in range(20)]  # fmt: skip
    sequences += [ours.encode_target(t) for t in texts]
    for ids in sequences:
        assert ours.decode(ids) == hf.decode(ids, skip_special_tokens=True)
        assert ours.pieces(ids) == hf.convert_ids_to_tokens(ids)


# --- numbers ----------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", list(SHAPES))
def test_logits_and_attention_equal_hf(root, shape):
    hf_model = _built(shape, str(root))
    model, tokenizer, meta = load_marian_model(root / shape)
    config = model.config
    assert meta["generation"]["banned_ids"] == [config.pad_id]
    assert meta["generation"]["forced_eos_token_id"] == (0 if SHAPES[shape]["forced_eos"] else None)
    assert meta["generation"]["carry_unreadable"] is False  # translates as HF does
    src = pad_batch(tokenizer.encode_batch(sources()[:6]), config.pad_id)
    generator = torch.Generator().manual_seed(1)
    tgt = torch.randint(3, config.tgt_vocab_size, (src.shape[0], 9), generator=generator)
    tgt[:, 0] = config.start_id
    with torch.no_grad():
        expected = hf_model(
            input_ids=src, attention_mask=(src != config.pad_id).long(), decoder_input_ids=tgt,
            output_attentions=True,
        )  # fmt: skip
        ours = model(src, tgt, return_attention=True)
    assert ours.logits.shape == expected.logits.shape
    assert (ours.logits - expected.logits).abs().max() < 1e-4
    assert expected.logits.std() > 0.5  # not a degenerate model
    for kind, theirs in [("encoder_self", expected.encoder_attentions),
                         ("decoder_self", expected.decoder_attentions),
                         ("cross", expected.cross_attentions)]:  # fmt: skip
        weights = getattr(ours.attention, kind)  # [L, B, H, T, S]
        assert (weights - torch.stack(theirs)).abs().max() < 1e-5, kind


@pytest.mark.parametrize("shape", list(SHAPES))
def test_greedy_and_beam_equal_hf_generate(root, shape):
    hf_model = _built(shape, str(root))
    translator = Translator.load(root / shape)
    config, tokenizer = translator.config, translator.tokenizer
    texts = sources()
    src_ids = tokenizer.encode_batch(texts)
    src = pad_batch(src_ids, config.pad_id)
    lengths, by_rule = set(), {}
    for beams, early in ((1, False), (4, False), (4, True)):
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = hf_model.generate(
                input_ids=src, attention_mask=(src != config.pad_id).long(), num_beams=beams,
                do_sample=False, max_new_tokens=MAX_NEW, length_penalty=1.0, early_stopping=early,
            )  # fmt: skip
        expected = []
        for row in out[:, 1:].tolist():  # drop the start token; finished rows are padded
            expected.append(row[: row.index(config.eos_id) + 1] if config.eos_id in row else row)
        search = dict(max_length=MAX_NEW, length_penalty=1.0, length_penalty_form="power",
                      early_stopping=early)  # fmt: skip
        found = translator.generate(src_ids, beams, **search)
        assert [h[0].tokens for h in found] == expected, f"beam size {beams}, early {early}"
        assert translator.translate(texts, beams, **search) == hf_tokenizer(
            root / shape
        ).batch_decode(out, skip_special_tokens=True)
        lengths |= {(len(ids), ids[-1] == config.eos_id) for ids in expected}
        by_rule[early] = expected
    assert by_rule[True] != by_rule[False]  # the two stopping rules differ on these sentences
    # The outputs are not trivial: some end with </s> after a few tokens, some run to the limit
    # (and end there with </s> only when the model forces it).
    assert any(ended and 2 < n < MAX_NEW for n, ended in lengths)
    assert (MAX_NEW, SHAPES[shape]["forced_eos"]) in lengths


def test_translate_command_reads_a_marian_directory(root, capsys):
    hf_model = _built("shared-tied", str(root))
    directory = root / "shared-tied"
    assert isinstance(Translator.load(directory).tokenizer, MarianTokenizer)
    texts = sources()[:6]
    assert (
        main(
            [
                "translate",
                "--model",
                str(directory),
                "--beam",
                "4",
                "--penalty-form",
                "power",
                "--length-penalty",
                "1.0",
                "--max-length",
                str(MAX_NEW),
                *texts,
            ]
        )
        == 0
    )
    hf = hf_tokenizer(directory)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = hf_model.generate(
            **hf(texts, return_tensors="pt", padding=True),
            num_beams=4,
            max_new_tokens=MAX_NEW,
            length_penalty=1.0,
        )
    assert capsys.readouterr().out.splitlines() == hf.batch_decode(out, skip_special_tokens=True)


@pytest.mark.parametrize("shape", ["shared-tied", "separate-vocabs-bin"])
def test_attend_shows_an_imported_models_attention(root, shape):
    _built(shape, str(root))
    translator = Translator.load(root / shape)
    text = "A man in an orange hat starring at something."
    attended = translator.attend(text)
    L, H = translator.config.n_decoder_layers, translator.config.n_heads
    assert attended.cross.shape[:3] == (L, H, len(attended.target_pieces))
    assert attended.cross.shape[3] == len(attended.source_pieces)
    assert torch.allclose(attended.cross.sum(-1), torch.ones(()))
    # pieces come from the right vocabulary on each side, as HF's tokenizer has them
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Recommended: pip install sacremoses")
        hf = HFMarianTokenizer.from_pretrained(root / shape)
    source_vocab = {i: piece for piece, i in hf.encoder.items()}  # HF's decoder is the target's
    assert attended.source_pieces == [source_vocab[i] for i in hf(text).input_ids]
    target = "Ein Mann mit einem orangefarbenen Hut."
    forced = translator.attend(text, target=target)
    with hf.as_target_tokenizer() if hasattr(hf, "as_target_tokenizer") else nullcontext():
        expected = hf.convert_ids_to_tokens(hf(text_target=target).input_ids)
    assert forced.target_pieces == expected


# --- files and errors -------------------------------------------------------------------------


def test_is_marian_dir(root, tmp_path):
    _built("shared-tied", str(root))
    assert is_marian_dir(root / "shared-tied")
    (tmp_path / "config.json").write_text(json.dumps({"format": "heedful"}))
    assert not is_marian_dir(tmp_path) and not is_marian_dir(tmp_path / "nowhere")


@pytest.mark.parametrize(
    "missing", ["config.json", "model.safetensors", "source.spm", "target.spm", "vocab.json"]
)
def test_a_missing_file_is_named(root, tmp_path, missing):
    _built("shared-tied", str(root))
    directory = tmp_path / "model"
    shutil.copytree(root / "shared-tied", directory)
    (directory / missing).unlink()
    with pytest.raises((FileNotFoundError, ValueError), match=missing.replace(".", r"\.")):
        load_marian_model(directory)


def test_target_vocab_is_required_when_separate(root, tmp_path):
    _built("separate-vocabs-bin", str(root))
    directory = tmp_path / "model"
    shutil.copytree(root / "separate-vocabs-bin", directory)
    (directory / "target_vocab.json").unlink()
    with pytest.raises(FileNotFoundError, match=r"target_vocab\.json"):
        load_marian_model(directory)


def test_unsupported_configurations_are_refused():
    base = MarianConfig(vocab_size=10, d_model=8, encoder_attention_heads=2,
                        decoder_attention_heads=2, encoder_ffn_dim=16, decoder_ffn_dim=16,
                        pad_token_id=9, decoder_start_token_id=9).to_dict()  # fmt: skip
    config = marian_config(base)
    assert (config.positional, config.start_id, config.output_bias) == (
        "sinusoidal_concat",
        9,
        True,
    )
    with pytest.raises(ValueError, match="decoder_attention_heads"):
        marian_config({**base, "decoder_attention_heads": 4})
    with pytest.raises(ValueError, match="activation_function"):
        marian_config({**base, "activation_function": "tanh"})
    with pytest.raises(ValueError, match="model_type"):
        marian_config({**base, "model_type": "bart"})


@pytest.mark.parametrize("layer", ["dynamic", "onednn"])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_an_imported_model_in_int8_stays_close_to_its_float_logits(root, shape, layer, monkeypatch):
    # swish, GELU and ReLU feed-forward layers (oneDNN applies them as it writes), Marian's logits
    # bias folded into the output projection's
    _built(shape, str(root))
    monkeypatch.setenv("HEEDFUL_INT8", layer)
    float_model, tokenizer, _ = load_marian_model(root / shape)
    int8_model = for_inference(load_marian_model(root / shape)[0], "int8")
    wanted = {"dynamic": torch.ao.nn.quantized.dynamic.Linear, "onednn": OneDNNInt8Linear}[layer]
    assert any(isinstance(m, wanted) for m in int8_model.modules())
    src = pad_batch(tokenizer.encode_batch(sources()[:6]), float_model.config.pad_id)
    tgt = torch.randint(3, float_model.config.tgt_vocab_size, (src.shape[0], 9),
                        generator=torch.Generator().manual_seed(2))  # fmt: skip
    tgt[:, 0] = float_model.config.start_id
    with torch.inference_mode():
        a, b = float_model(src, tgt), int8_model(src, tgt)
    a, b = (getattr(x, "logits", x) for x in (a, b))
    assert torch.nn.functional.cosine_similarity(a.flatten(), b.flatten(), dim=0) > 0.99
