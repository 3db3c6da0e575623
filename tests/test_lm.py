"""`heedful lm`: the decoder-only language model trained, sampled, evaluated and inspected.

One tiny model is trained through the CLI on 2,000 English Tatoeba lines (configs/lm-tiny-smoke)
and shared by the tests that need a trained model.
"""

import json
import math
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import torch

from heedful import cli
from heedful.checkpoint import load_model_dir, load_tensors, save_model_dir
from heedful.config import ModelConfig
from heedful.data import Corpus, DataError, read_text
from heedful.explain.capture import attend_lm
from heedful.generate import generate, lm_step
from heedful.lm import DecoderOnlyLM
from heedful.model import Transformer
from heedful.search import Stepped, sample
from heedful.training.batching import collate
from heedful.training.config import ConfigError, load_config
from heedful.training.distributed import Distributed
from heedful.training.progress import read_log
from heedful.training.state import read_info
from heedful.training.text import clean, fold, prepare_text, text_perplexity, unigram_perplexity
from heedful.training.trainer import load_run_config, train

REPO = Path(__file__).resolve().parents[1]
SMOKE = REPO / "configs" / "lm-tiny-smoke.yaml"
DEV_TSV = REPO / ".." / "shared" / "data" / "tatoeba" / "spa-eng" / "dev.tsv"
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "HEEDFUL_KEEP_MALLOC": "1"}


def heedful(*args, timeout=600):
    done = subprocess.run([sys.executable, "-m", "heedful", *args], cwd=REPO, env=ENV,
                          capture_output=True, text=True, timeout=timeout)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """`heedful lm train` on the smoke config: 200 steps of the tiny model."""
    out = tmp_path_factory.mktemp("lm") / "run"
    done = heedful("lm", "train", "--config", str(SMOKE), "--out", str(out))
    return out, done.stdout


@pytest.fixture(scope="module")
def model(trained):
    return load_model_dir(trained[0])


# --- training ---------------------------------------------------------------------------------


def test_cli_train_leaves_a_language_model_directory(trained):
    out, stdout = trained
    assert re.search(r"done at step 200; best dev perplexity [\d.]+ per token at step 200", stdout)
    meta = json.loads((out / "config.json").read_text())
    assert meta["architecture"] == "DecoderOnlyLM" and meta["data"]["language"] == "en"
    assert meta["training"]["best_dev"]["step"] == 200
    for name in ("model.safetensors", "spm.model", "training_state.safetensors", "curves.png",
                 "best/config.json", "train_config.json"):  # fmt: skip
        assert (out / name).is_file(), name
    records = read_log(out / "log.jsonl")
    assert [r["step"] for r in records if r["kind"] == "train"] == list(range(20, 201, 20))
    assert [r["step"] for r in records if r["kind"] == "dev"] == [100, 200]
    assert "dev perplexity of a unigram model" in stdout


def test_validation_perplexity_falls_well_below_the_unigram_baseline(trained, model):
    out, _ = trained
    lm, tokenizer, meta = model
    config = load_config(None, base=load_run_config(out), task="lm")
    data = prepare_text(config.data, out, dist=Distributed(), say=lambda _: None,
                        tokenizer=tokenizer)  # fmt: skip
    # The baseline, counted here: unigram frequencies of train's y + [eos], add-one smoothed.
    counts = Counter(t for y in data.train.tgt for t in y + [2])
    total = sum(counts.values()) + tokenizer.vocab_size
    dev_tokens = [t for y in data.dev.tgt for t in y + [2]]
    unigram = math.exp(-sum(math.log((counts[t] + 1) / total) for t in dev_tokens)
                       / len(dev_tokens))  # fmt: skip
    assert meta["data"]["unigram_dev_ppl"] == pytest.approx(unigram, rel=1e-9)

    dev = [r for r in read_log(out / "log.jsonl") if r["kind"] == "dev"]
    first, last = dev[0]["ppl"], dev[-1]["ppl"]
    assert last < first < unigram
    assert last < 0.5 * unigram, (last, unigram)
    # What validation logged is what `lm evaluate` computes on the same lines.
    assert len(data.dev_references) == len(data.dev) == 200
    assert text_perplexity(lm, tokenizer, data.dev_references)["ppl"] == pytest.approx(last, 1e-4)


def test_unigram_perplexity_by_hand():
    train = Corpus(src=None, tgt=[[5, 5, 6]])  # with eos: 5 twice, 6 once, 2 once; N = 4
    dev = Corpus(src=None, tgt=[[5, 7]])  # scored: 5, 7, eos; V = 10 -> (N + V) = 14
    expected = math.exp(-(math.log(3 / 14) + math.log(1 / 14) + math.log(2 / 14)) / 3)
    assert unigram_perplexity(train, dev, vocab_size=10) == pytest.approx(expected)


def test_exact_resume_is_bit_identical(tmp_path):
    """N steps straight, and N/2 then a resumed N/2, give the same weights and Adam state."""
    n = 12
    settings = ["data.train_lines=300", "data.dev_lines=20", "train.batch_tokens=256",
                "train.log_every=2", "eval.every=0", f"train.save_every={n // 2}",
                "optim.warmup_steps=10"]  # fmt: skip
    straight, split = tmp_path / "straight", tmp_path / "split"
    train(load_config(SMOKE, [*settings, f"train.max_steps={n}"], task="lm"), straight)
    train(load_config(SMOKE, [*settings, f"train.max_steps={n // 2}"], task="lm"), split)
    assert read_info(split)["step"] == n // 2
    resumed = load_config(None, [f"train.max_steps={n}"], base=load_run_config(split), task="lm")
    train(resumed, split, resume=True)
    for name in ("model.safetensors", "training_state.safetensors"):
        a, b = load_tensors(straight / name), load_tensors(split / name)
        assert set(a) == set(b)
        for key in a:
            assert torch.equal(a[key], b[key]), f"{name}: {key}"
    logs = [[(r["step"], r["loss"]) for r in read_log(d / "log.jsonl") if r["kind"] == "train"]
            for d in (straight, split)]  # fmt: skip
    assert logs[0] == logs[1] and [s for s, _ in logs[0]] == list(range(2, n + 1, 2))


# --- data and configuration -------------------------------------------------------------------


def test_shipped_lm_configs_load_and_name_existing_files():
    for name in ("lm-tatoeba-en", "lm-tiny-smoke"):
        config = load_config(REPO / "configs" / f"{name}.yaml", task="lm")
        assert config.task == "lm" and config.data.column == 0
        for path in config.data.train + config.data.dev:
            assert (Path(config.data.root) / path).is_file(), path
        config.model_config(config.data.vocab_size)  # a valid model
    assert load_config(SMOKE).task == "lm"  # `heedful train` reads the task from the file


def test_the_task_and_the_data_section_must_agree():
    with pytest.raises(ConfigError, match="says task: lm; train it with `heedful lm train`"):
        load_config(SMOKE, task="translation")
    with pytest.raises(ConfigError, match="data.columns is a setting of task translation"):
        load_config(REPO / "configs" / "tiny-smoke.yaml", task="lm")
    one = load_config(SMOKE, ["data.train=tatoeba/spa-eng/train.tsv"])
    assert one.data.train == ("tatoeba/spa-eng/train.tsv",)  # one file need not be a list


def test_clean_drops_repeats_dev_lines_and_counts_them():
    lines = ["Hello!", "", "Hello!", "hello", "I'm here.", "Good  night.", "Bye."]
    kept, counts = clean(lines, exclude={fold("Good night!")})
    assert kept == ["Hello!", "hello", "I'm here.", "Bye."]  # case differs: not a repeat
    assert (counts.empty, counts.repeated, counts.in_dev, counts.kept) == (1, 1, 1, 4)
    sampled, counts = clean(lines, sample=2)
    assert len(sampled) == 2 and counts.not_sampled == 3
    assert clean(lines, sample=2)[0] == sampled  # seeded
    assert "dropped 3 lines not sampled; kept 2" in counts.describe("train")


def test_read_text_names_the_file_and_line(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text("Hi.\tHola.\nBye.\tAdiós.\n")
    assert read_text(path, 1) == ["Hola.", "Adiós."]
    path.write_text("Hi.\tHola.\nBye.\n")
    assert read_text(path) == ["Hi.\tHola.", "Bye."]
    with pytest.raises(DataError, match=r"pairs.tsv, line 2: expected at least 2 .* found 1"):
        read_text(path, 1)


def test_training_batches_read_what_attend_shows(model):
    """The LM reads [bos] + tokens and predicts tokens + [eos], as `heedful attend` shows it."""
    lm, tokenizer, _ = model
    ids = tokenizer.encode("The black cat sleeps.", add_eos=False)
    batch = collate(Corpus(src=None, tgt=[ids]), [0], start_id=1, eos_id=2)
    assert batch.src is None
    assert batch.tgt_in[0].tolist() == [lm.config.start_id, *ids]
    attended = attend_lm(lm, tokenizer, "The black cat sleeps.")
    assert attended.target_pieces == tokenizer.pieces(batch.labels[0].tolist())
    assert attended.decoder_self.shape[-1] == batch.tgt_in.shape[1]


# --- sampling ---------------------------------------------------------------------------------


def test_cli_sample_and_evaluate(trained, model, tmp_path):
    out, _ = trained
    lm, tokenizer, _ = model
    args = ["--prompt", "The black cat", "--max-length", "50", "--temperature", "0.8",
            "--top-k", "50", "--top-p", "0.95", "--seed", "7"]  # fmt: skip
    printed = heedful("lm", "sample", "--model", str(out), *args).stdout
    expected = generate(lm, tokenizer, "The black cat", max_new_tokens=50, temperature=0.8,
                        top_k=50, top_p=0.95, seed=7)  # fmt: skip
    assert printed == expected.text + "\n" and printed.startswith("The black cat")

    evaluated = heedful("lm", "evaluate", "--model", str(out), "--data", str(DEV_TSV),
                        "--column", "en").stdout  # fmt: skip
    match = re.search(r"perplexity ([\d.]+) per token .* over ([\d,]+) tokens in 2,400 lines",
                      evaluated)  # fmt: skip
    assert match, evaluated
    english = read_text(DEV_TSV, 0)
    assert float(match[1]) == pytest.approx(text_perplexity(lm, tokenizer, english)["ppl"], 1e-3)

    # A plain text file of the same lines gives the same number.
    (tmp_path / "dev.en").write_text("\n".join(english) + "\n")
    assert (
        cli.main(["lm", "evaluate", "--model", str(out), "--data", str(tmp_path / "dev.en")]) == 0
    )


def test_sampling_with_a_seed_is_reproducible_and_streams(model):
    lm, tokenizer, _ = model
    kw = dict(max_new_tokens=30, temperature=0.8, top_k=50, top_p=0.95)
    runs = [generate(lm, tokenizer, "The black cat", seed=s, **kw).tokens for s in (1, 1, 2, 3)]
    assert runs[0] == runs[1]
    assert runs[0] != runs[2] or runs[0] != runs[3]

    # Streaming: each piece of text is shown before the model computes the next token. (The
    # first seed whose sample is long enough to show that: the tiny model may stop early.)
    samples = (generate(lm, tokenizer, "The black cat", seed=s, **kw) for s in range(1, 100))
    seed, expected = next((s, r.tokens) for s, r in enumerate(samples, 1) if len(r.tokens) >= 6)
    events, pieces = [], []
    inner = lm.decode_step
    lm.decode_step = lambda *a, **k: events.append("step") or inner(*a, **k)
    try:
        result = generate(lm, tokenizer, "The black cat", seed=seed, on_text=lambda s: (
            pieces.append(s), events.append("text")), **kw)  # fmt: skip
    finally:
        del lm.decode_step
    assert result.tokens == expected and "".join(pieces) == result.text
    assert pieces[0] == "The black cat" and len(pieces) > 3
    steps = [i for i, e in enumerate(events) if e == "step"]
    assert events[steps[1] - 1] == "text"  # the first chosen token shown before the next step
    assert events.count("step") == len(result.tokens)  # the prompt, then every token but the last


def test_cached_sampling_equals_uncached(model):
    lm, tokenizer, _ = model
    prompt = torch.tensor([[1, *tokenizer.encode("The black cat", add_eos=False)]] * 6)
    results = []
    for cached in (True, False):
        step, cache = lm_step(lm, cached=cached)
        generator = torch.Generator().manual_seed(3)
        with torch.no_grad():
            results.append(sample(step, cache, prompt, eos_id=2, max_length=25, temperature=1.2,
                                  top_k=100, generator=generator))  # fmt: skip
    cached, uncached = results
    assert [h.tokens for h in cached] == [h.tokens for h in uncached]
    assert len({len(h.tokens) for h in cached}) > 1  # rows finished at different steps
    for a, b in zip(cached, uncached, strict=True):
        assert a.log_prob == pytest.approx(b.log_prob, abs=1e-4)
    one = [generate(lm, tokenizer, "I", max_new_tokens=20, seed=5, cached=c).tokens
           for c in (True, False)]  # fmt: skip
    assert one[0] == one[1]


@pytest.mark.parametrize(
    "top_k, top_p, allowed",
    [(3, 1.0, {0, 1, 2}), (0, 0.65, {0, 1}), (0, 0.35, {0}), (3, 0.85, {0, 1, 2}),
     (2, 0.95, {0, 1}), (0, 1.0, set(range(8)))],
)  # fmt: skip
def test_top_k_and_top_p_never_leave_the_allowed_set(top_k, top_p, allowed):
    """Hand-made probabilities 0.4, 0.3, 0.2, 0.04, 0.03, 0.02, 0.005, 0.005 (rank r is token r
    in row 0, and a different token in each other row); 4,000 draws per row."""
    probs = torch.tensor([0.4, 0.3, 0.2, 0.04, 0.03, 0.02, 0.005, 0.005])
    orders = torch.stack([torch.roll(torch.arange(8), r) for r in range(3)])  # rank -> token
    logits = torch.empty(3, 8).scatter_(1, orders, probs.log().expand(3, 8))
    rows = 4000

    def step(tokens, cache):
        return Stepped(logits.repeat_interleave(rows, dim=0), cache)

    out = sample(step, None, torch.zeros(3 * rows, 1, dtype=torch.long), eos_id=99,
                 max_length=1, top_k=top_k, top_p=top_p, temperature=1.0,
                 generator=torch.Generator().manual_seed(0))  # fmt: skip
    for r in range(3):
        drawn = Counter(h.tokens[0] for h in out[r * rows : (r + 1) * rows])
        expected = {int(orders[r, rank]) for rank in allowed}
        assert set(drawn) <= expected  # never outside the allowed set
        assert set(drawn) >= {int(orders[r, rank]) for rank in allowed if rank < 3}  # nor empty


def test_temperature_does_not_widen_top_k():
    logits = torch.tensor([[3.0, 2.0, 1.0, 0.0, -1.0]])

    def step(tokens, cache):
        return Stepped(logits.expand(tokens.shape[0], 5), cache)

    out = sample(step, None, torch.zeros(5000, 1, dtype=torch.long), eos_id=99, max_length=1,
                 top_k=2, temperature=50.0, generator=torch.Generator().manual_seed(0))  # fmt: skip
    assert {h.tokens[0] for h in out} == {0, 1}


# --- inspecting and errors --------------------------------------------------------------------


def test_attend_shows_a_language_models_self_attention(trained, tmp_path, capsys):
    out, _ = trained
    png, html = tmp_path / "map.png", tmp_path / "page.html"
    code = cli.main(["attend", "--model", str(out), "The black cat sleeps.", "--png", str(png),
                     "--html", str(html)])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0 and "decoder self-attention, layer 2 of 2" in printed
    assert re.search(r"^cat +→ ", printed, re.M) and "</s>" in printed
    assert png.read_bytes()[:4] == b"\x89PNG" and "<html" in html.read_text().lower()


def test_errors_speak_the_users_language(trained, model, tmp_path, capsys):
    out, _ = trained
    _, tokenizer, _ = model
    translator = tmp_path / "translator"
    save_model_dir(translator, Transformer(ModelConfig.tiny(tokenizer.vocab_size)), tokenizer)
    assert cli.main(["lm", "sample", "--model", str(translator)]) == 1
    assert "a Transformer is not a language model" in capsys.readouterr().err
    assert cli.main(["lm", "evaluate", "--model", str(out), "--data", str(DEV_TSV),
                     "--column", "es"]) == 1  # fmt: skip
    assert "its training column is 0 (en)" in capsys.readouterr().err
    assert cli.main(["lm", "sample", "--model", str(out), "--max-length", "2000"]) == 1
    assert "exceed the model's 1024 positions" in capsys.readouterr().err
    assert cli.main(["lm", "sample", "--model", str(out), "--max-length", "0"]) == 1
    assert "heedful lm: error: --max-length must be at least 1, not 0" in capsys.readouterr().err
    assert cli.main(["lm", "train", "--config", str(REPO / "configs" / "tiny-smoke.yaml"), "--out",
                     str(tmp_path / "x")]) == 1  # fmt: skip
    assert "data.columns is a setting of task translation" in capsys.readouterr().err
    lm = DecoderOnlyLM(ModelConfig.tiny(tokenizer.vocab_size))
    with pytest.raises(ValueError, match="no line to evaluate"):
        text_perplexity(lm, tokenizer, ["", " "])
