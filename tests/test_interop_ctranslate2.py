"""`heedful export --to ctranslate2`: CTranslate2's greedy translations equal heedful's, for
heedful models (post-LN and pre-LN, interleaved sinusoids) and for imported Marian models; the
export carries the tokenizer (normalisation included) and the recorded alignment heads."""

from __future__ import annotations

import functools
import itertools
from pathlib import Path

import ctranslate2
import pytest
import sentencepiece as spm
import torch
from test_interop_marian import make_marian_dir
from test_interop_marian import sources as marian_sources

from heedful.checkpoint import save_model_dir
from heedful.cli import main
from heedful.config import ModelConfig
from heedful.explain.alignment_methods import AlignmentMethod, write_method
from heedful.model import Transformer
from heedful.tokenizer import Tokenizer
from heedful.translator import Translator

TATOEBA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "tatoeba" / "spa-eng"
MAX_NEW = 20

# name -> ModelConfig overrides of the tiny preset
HEEDFUL_MODELS = {
    "paper": dict(),  # post-LN, ReLU, interleaved sinusoids, all embeddings shared
    "pre-ln-gelu-bias": dict(norm_first=True, activation="gelu", share_embeddings="none",
                             scale_embeddings=False, output_bias=True, n_decoder_layers=3),
}  # fmt: skip


@functools.cache
def pairs() -> list[tuple[str, str]]:
    with open(TATOEBA / "dev.tsv", encoding="utf-8") as f:
        return [tuple(line.rstrip("\n").split("\t")[:2]) for line in itertools.islice(f, 400)]


@functools.cache
def tokenizer() -> Tokenizer:
    return Tokenizer.train([text for pair in pairs() for text in pair], vocab_size=300)


def sources() -> list[str]:
    return [spanish for _, spanish in pairs()[::25]] + ["¿Dónde está 🙂 el tren de las 8:45?"]


def heedful_model_dir(directory: Path, name: str) -> Path:
    torch.manual_seed(0)
    config = ModelConfig.tiny(tokenizer().vocab_size, dropout=0.0, **HEEDFUL_MODELS[name])
    model = Transformer(config).eval()
    if config.output_bias:
        with torch.no_grad():
            model.logits_bias.normal_(0, 0.1)
    save_model_dir(directory, model, tokenizer())
    return directory


def export(model_dir: Path, out_dir: Path) -> ctranslate2.Translator:
    assert main(["export", "--to", "ctranslate2", str(model_dir), str(out_dir)]) == 0
    return ctranslate2.Translator(str(out_dir), device="cpu", inter_threads=1, intra_threads=1)


def assert_same_scores(translator: Translator, exported, source_pieces, encode_target) -> None:
    """Each reference translation's token log-probabilities, as CTranslate2 scores them, equal
    heedful's (with the ids its search bans taken out of the softmax, as the export does)."""
    tokenizer, config = translator.tokenizer, translator.config
    texts = sources()
    targets = [encode_target(english) for english, _ in pairs()[::25]] + [encode_target("Hi.")]
    theirs = exported.score_batch(
        [source_pieces(tokenizer.encode(text, add_eos=False)) for text in texts],
        [tokenizer.pieces(ids[:-1]) for ids in targets],  # CTranslate2 appends </s> itself
    )
    for text, target, result in zip(texts, targets, theirs, strict=True):
        src = torch.tensor([tokenizer.encode(text)])
        with torch.no_grad():
            logits = translator.model(src, torch.tensor([[config.start_id, *target[:-1]]]))[0]
        logits[:, translator.banned_ids()] = float("-inf")
        ours = logits.log_softmax(-1).gather(1, torch.tensor(target)[:, None]).squeeze(1)
        assert result.tokens == tokenizer.pieces(target)
        assert torch.allclose(torch.tensor(result.log_probs), ours, atol=1e-3)


def assert_same_greedy(translator: Translator, exported, source_pieces, texts: list[str]):
    """CTranslate2 reads pieces (it appends </s> itself); heedful reads ids."""
    tokenizer = translator.tokenizer
    ours = translator.generate(tokenizer.encode_batch(texts), 1, max_length=MAX_NEW)
    ours = [tokenizer.pieces(h[0].tokens) for h in ours]
    theirs = exported.translate_batch(
        [source_pieces(tokenizer.encode(text, add_eos=False)) for text in texts],
        beam_size=1, max_decoding_length=MAX_NEW, min_decoding_length=0, return_end_token=True,
    )  # fmt: skip
    assert [result.hypotheses[0] for result in theirs] == ours
    assert len({tuple(pieces) for pieces in ours}) > 1  # not one output for every input
    return ours


@pytest.mark.parametrize("name", list(HEEDFUL_MODELS))
def test_exported_heedful_model_translates_the_same(tmp_path, name):
    model_dir = heedful_model_dir(tmp_path / "model", name)
    exported = export(model_dir, tmp_path / "ct2")
    translator = Translator.load(model_dir)
    tokenizer = translator.tokenizer
    assert_same_greedy(translator, exported, tokenizer.pieces, sources())
    assert_same_scores(translator, exported, tokenizer.pieces, tokenizer.encode)


def test_exported_marian_model_translates_the_same(tmp_path):
    make_marian_dir(tmp_path / "marian", "shared-tied")
    exported = export(tmp_path / "marian", tmp_path / "ct2")
    translator = Translator.load(tmp_path / "marian")
    tokenizer = translator.tokenizer
    ours = assert_same_greedy(translator, exported, tokenizer.source_pieces, marian_sources())
    assert_same_scores(translator, exported, tokenizer.source_pieces, tokenizer.encode_target)
    assert any(p[-1] == "</s>" and len(p) > 2 for p in ours)  # some end early ...
    assert any(len(p) == MAX_NEW and p[-1] != "</s>" for p in ours)  # ... some run to the limit


def test_export_refuses_what_it_cannot_do(tmp_path, capsys):
    model_dir = heedful_model_dir(tmp_path / "model", "paper")
    (tmp_path / "taken").mkdir()
    assert main(["export", "--to", "ctranslate2", str(model_dir), str(tmp_path / "taken")]) == 1
    assert "--force" in capsys.readouterr().err

    torch.manual_seed(0)
    windowed = Transformer(ModelConfig.tiny(tokenizer().vocab_size, attention_window=2))
    save_model_dir(tmp_path / "windowed", windowed, tokenizer())
    assert main(["export", "--to", "ctranslate2", str(tmp_path / "windowed"),
                 str(tmp_path / "out")]) == 1  # fmt: skip
    assert "windowed" in capsys.readouterr().err
    assert main(["export", "--to", "ctranslate2", str(tmp_path / "nowhere"),
                 str(tmp_path / "out")]) == 1  # fmt: skip
    assert "nowhere" in capsys.readouterr().err


# a model directory's alignment record -> the decoder layer and heads CTranslate2 should average
# (the tiny preset: 2 decoder layers, 4 heads; heedful's default is the penultimate layer's heads)
ALIGNMENT_RECORDS = [
    ({"method": "predict", "layer": 1, "heads": [3, 1]}, 1, [3, 1]),
    ({"method": "shift", "layer": 0, "heads": [2]}, 0, [2]),
    ({"method": "erase"}, 0, [0, 1, 2, 3]),
]


@pytest.mark.parametrize(("record", "layer", "heads"), ALIGNMENT_RECORDS)
def test_export_carries_the_tokenizer_and_the_alignment_heads(tmp_path, record, layer, heads):
    """The export's spm.model reads raw text as heedful does (normalisation included), and
    CTranslate2's attention (return_attention) is the mean cross-attention of the recorded layer
    and heads, row for row (row t: the step predicting token t; a shift record reads row t + 1),
    though CTranslate2 can only average a layer's first heads: the export moves them there."""
    model_dir = heedful_model_dir(tmp_path / "model", "paper")
    write_method(model_dir, AlignmentMethod.from_record(record))
    exported = export(model_dir, tmp_path / "ct2")
    translator = Translator.load(model_dir)
    tokenizer = translator.tokenizer

    carried = spm.SentencePieceProcessor(model_file=str(tmp_path / "ct2" / "spm.model"))
    texts = sources() + ["Qu'est-ce que c'est\u202f? «\u00a0Ｔｏｍ\u00a0»\tdijo  ﬁn. ", "e\u0301l"]
    assert [carried.encode(text) for text in texts] == [
        tokenizer.encode(text, add_eos=False) for text in texts
    ]
    assert sum(tokenizer.sp.encode(t) != tokenizer.encode(t, add_eos=False) for t in texts) >= 2

    ours = assert_same_greedy(translator, exported, tokenizer.pieces, sources())
    theirs = exported.translate_batch(
        [tokenizer.pieces(tokenizer.encode(text, add_eos=False)) for text in sources()],
        beam_size=1, max_decoding_length=MAX_NEW, min_decoding_length=0, return_end_token=True,
        return_attention=True,
    )  # fmt: skip
    for text, pieces, result in zip(sources(), ours, theirs, strict=True):
        target = [tokenizer.sp.piece_to_id(p) for p in pieces]
        cross = translator.attend_ids(tokenizer.encode(text), target).cross  # [L, H, T, S]
        expected = cross[layer, heads].mean(0)[:, :-1]  # CTranslate2 leaves out the source's </s>
        assert torch.allclose(torch.tensor(result.attention[0]), expected, atol=1e-4)
        others = cross[layer, [h for h in range(4) if h not in heads] or [0]].mean(0)[:, :-1]
        assert not torch.allclose(expected, others, atol=1e-3) or len(heads) == 4
