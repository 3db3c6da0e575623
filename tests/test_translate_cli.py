"""`heedful translate` and `heedful evaluate` on a tiny random model directory."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import torch

from heedful.checkpoint import save_model_dir
from heedful.cli import main
from heedful.config import ModelConfig
from heedful.model import Transformer
from heedful.tokenizer import Tokenizer
from heedful.translator import Translator

PAIRS = [
    ("the cat eats fish", "el gato come pescado"),
    ("hello world", "hola mundo"),
    ("the house is big", "la casa es grande"),
    ("a dog", "un perro"),
]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    tokenizer = Tokenizer.train([t for pair in PAIRS for t in pair] * 20, vocab_size=70)
    torch.manual_seed(0)
    model = Transformer(ModelConfig.tiny(tokenizer.vocab_size, dropout=0.0, max_positions=40))
    directory = tmp_path_factory.mktemp("model")
    data = {"src": "es", "tgt": "en", "columns": ["en", "es"]}
    save_model_dir(directory, model.eval(), tokenizer, data=data)
    return directory


@pytest.fixture(scope="module")
def expected(model_dir):
    translator = Translator.load(model_dir)
    return {es: translator.translate([es], beam_size=2)[0] for _, es in PAIRS}


def heedful(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_translate_texts(capsys, model_dir, expected):
    sources = [es for _, es in PAIRS[:2]]
    code, out, _ = heedful(capsys, "translate", "--model", model_dir, "--beam", 2, *sources)
    assert code == 0 and out.splitlines() == [expected[s] for s in sources]


def test_translate_file_to_file(capsys, model_dir, expected, tmp_path):
    src, hyp = tmp_path / "in.es", tmp_path / "out.en"
    lines = ([es for _, es in PAIRS] + ["", PAIRS[0][1]]) * 3  # 18 lines: chunks of 16, then 2
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, _ = heedful(capsys, "translate", "--model", model_dir, "--beam", 2, "-i", src,
                           "-o", hyp, "--batch-size", 2)  # fmt: skip
    assert code == 0 and out == ""
    got = hyp.read_text(encoding="utf-8").splitlines()
    assert got == [expected[s] if s else "" for s in lines]


def test_a_dash_is_standard_input_and_output(capsys, model_dir, expected, monkeypatch, tmp_path):
    """Before, "-o -" wrote a file named "-"."""
    sources = [es for _, es in PAIRS[:2]]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(sources) + "\n"))
    monkeypatch.chdir(tmp_path)
    code, out, _ = heedful(capsys, "translate", "--model", model_dir, "--beam", 2, "-i", "-",
                           "-o", "-")  # fmt: skip
    assert code == 0 and out.splitlines() == [expected[s] for s in sources]
    assert list(tmp_path.iterdir()) == []


def test_translate_stdin_line_by_line_as_json_with_n_best(capsys, model_dir, expected, monkeypatch):
    sources = [es for _, es in PAIRS[:3]]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(sources) + "\n"))
    code, out, _ = heedful(capsys, "translate", "--model", model_dir, "--beam", 2, "--n-best", 2,
                           "--json")  # fmt: skip
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [r["source"] for r in records] == sources
    for r in records:
        assert r["translation"] == expected[r["source"]] == r["n_best"][0]["translation"]
        assert len(r["n_best"]) == 2 and r["n_best"][0]["score"] >= r["n_best"][1]["score"]


def test_translate_a_paragraph_as_json(capsys, model_dir):
    """A line of several sentences is translated sentence by sentence (Translator.translate):
    the record keeps its shape, the translation is theirs joined, the score the sum of theirs."""
    sentences = [f"{es}." for _, es in PAIRS[:2]]
    parts = Translator.load(model_dir).translate_n_best(sentences, beam_size=2)
    code, out, _ = heedful(capsys, "translate", "--model", model_dir, "--beam", 2, "--json",
                           "  ".join(sentences))  # fmt: skip
    (record,) = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and set(record) == {"source", "translation", "score", "warnings"}
    assert record["translation"] == "  ".join(p[0].text for p in parts)
    assert record["warnings"] == [w for p in parts for w in p[0].warnings]  # cut at the limit
    assert record["score"] == pytest.approx(sum(p[0].score for p in parts))


def test_translate_n_best_moses_format(capsys, model_dir):
    code, out, _ = heedful(capsys, "translate", "--model", model_dir, "--beam", 3, "--n-best", 3,
                           "hola mundo", "un perro")  # fmt: skip
    lines = [line.split(" ||| ") for line in out.splitlines()]
    assert code == 0 and [int(i) for i, _, _ in lines] == [0, 0, 0, 1, 1, 1]
    scores = [float(s) for _, _, s in lines[:3]]
    assert scores == sorted(scores, reverse=True)


def test_translate_sampling(capsys, model_dir):
    args = ["translate", "--model", model_dir, "--sample", "--temperature", 3, "--top-k", 20,
            "--beam", 4, "--n-best", 4, "--json", "hola mundo", "un perro"]  # fmt: skip
    code, out, _ = heedful(capsys, *args, "--seed", 1)
    again = heedful(capsys, *args, "--seed", 1)[1]
    other = heedful(capsys, *args, "--seed", 2)[1]
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and out == again != other and len(records) == 2
    for r in records:
        scores = [o["score"] for o in r["n_best"]]
        assert len(scores) == 4 and scores == sorted(scores, reverse=True)
    code, _, err = heedful(capsys, "translate", "--model", model_dir, "--top-p", 0.9, "hola")
    assert code == 1 and "--top-p needs --sample" in err
    code, _, err = heedful(capsys, "translate", "--model", model_dir, "--sample",
                           "--temperature", 0, "hola")  # fmt: skip
    assert code == 1 and "temperature must be > 0" in err
    code, _, err = heedful(capsys, "translate", "--model", model_dir, "--sample", "--top-k", -2,
                           "hola")  # fmt: skip
    assert code == 1 and "top_k must be >= 0" in err


def test_translate_bad_input(capsys, model_dir, tmp_path):
    long_line = " ".join(["gato"] * 10_000)
    with (
        pytest.warns(UserWarning, match="outside the model's vocabulary"),
        pytest.warns(UserWarning, match="max_positions=40"),
    ):
        code, out, err = heedful(capsys, "translate", "--model", model_dir, "--beam", 1, "   ",
                                 "😀 中文", long_line)  # fmt: skip
    lines = out.split("\n")
    assert code == 0 and len(lines) == 4 and lines[0] == lines[1] == lines[3] == ""
    code, out, err = heedful(capsys, "translate", "--model", tmp_path / "missing", "hola")
    assert code == 1 and "missing" in err and out == ""
    bad, out_file = tmp_path / "bad.es", tmp_path / "bad.en"
    bad.write_bytes(b"hola\n" * 40 + b"\xff\xfe mundo\n")
    code, _, err = heedful(capsys, "translate", "--model", model_dir, "-i", bad, "-o", out_file,
                           "--batch-size", 2)  # fmt: skip
    # every line is checked before any is translated: no chunk of output, then an error
    assert code == 1 and "bad.es, line 41" in err and out_file.read_text() == ""
    same = tmp_path / "same.es"
    same.write_text("hola\n", encoding="utf-8")
    code, _, err = heedful(capsys, "translate", "--model", model_dir, "-i", same, "-o",
                           tmp_path / "." / "same.es")  # fmt: skip
    assert code == 1 and "is the input file" in err and same.read_text() == "hola\n"
    code, _, err = heedful(capsys, "translate", "--model", model_dir, "--n-best", 5, "hola")
    assert code == 1 and "--n-best" in err
    code, out, err = heedful(capsys, "translate", "--model", model_dir, "--max-length", 0, "hola")
    assert code == 1 and "--max-length must be at least 1" in err and out == ""


def test_cli_warnings_are_one_line(model_dir):
    # a real process: pytest records warnings itself, so they never reach stderr in-process
    long_line = " ".join(["gato"] * 100)
    env = {**os.environ, "HEEDFUL_KEEP_MALLOC": "1"}
    out = subprocess.run(
        [sys.executable, "-m", "heedful", "translate", "--model", str(model_dir), "--beam", "1",
         long_line],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0 and out.stdout.count("\n") == 1
    lines = out.stderr.splitlines()
    assert lines[0].startswith("heedful translate: warning: a source of "), out.stderr
    assert "max_positions=40" in lines[0], out.stderr
    # the tiny model's translation is cut at its positions too, and scored low: each warning is
    # one line of its own, once
    assert all(line.startswith("heedful translate: warning: ") for line in lines), out.stderr
    assert len(lines) == len(set(lines)) and "max_positions" not in " ".join(lines[1:])


def test_evaluate_tsv_and_aligned_files_as_json(capsys, model_dir, expected, tmp_path):
    import sacrebleu

    tsv = tmp_path / "dev.tsv"
    tsv.write_text("".join(f"{en}\t{es}\n" for en, es in PAIRS), encoding="utf-8")
    code, out, _ = heedful(capsys, "evaluate", "--model", model_dir, "--data", tsv, "--src", "es",
                           "--tgt", "en", "--beam", 2, "--json")  # fmt: skip
    result = json.loads(out)
    hypotheses = [expected[es] for _, es in PAIRS]
    references = [en for en, _ in PAIRS]
    assert code == 0 and result["sentences"] == 4 and result["seconds"] >= 0
    assert result["bleu"] == round(sacrebleu.corpus_bleu(hypotheses, [references]).score, 2)
    assert result["chrf"] == round(sacrebleu.corpus_chrf(hypotheses, [references]).score, 2)
    assert "tok:13a" in result["signature"]["bleu"] and "nc:6" in result["signature"]["chrf"]

    (tmp_path / "src.es").write_text("".join(es + "\n" for _, es in PAIRS), encoding="utf-8")
    (tmp_path / "ref.en").write_text("".join(en + "\n" for en, _ in PAIRS), encoding="utf-8")
    code, out, _ = heedful(capsys, "evaluate", "--model", model_dir, "--src-file",
                           tmp_path / "src.es", "--ref-file", tmp_path / "ref.en", "--beam", 2,
                           "--json", "--quantize", "int8")  # fmt: skip
    assert code == 0 and json.loads(out)["sentences"] == 4
    code, out, _ = heedful(capsys, "evaluate", "--model", model_dir, "--data", tsv, "--beam", 2)
    assert code == 0 and out.startswith("BLEU") and "chrF2" in out


def test_evaluate_errors(capsys, model_dir, tmp_path):
    code, _, err = heedful(capsys, "evaluate", "--model", model_dir)
    assert code == 1 and "--data" in err
    (tmp_path / "one.es").write_text("hola\nmundo\n", encoding="utf-8")
    (tmp_path / "one.en").write_text("hello\n", encoding="utf-8")
    code, _, err = heedful(capsys, "evaluate", "--model", model_dir, "--src-file",
                           tmp_path / "one.es", "--ref-file", tmp_path / "one.en")  # fmt: skip
    assert code == 1 and "line-aligned" in err


@pytest.mark.parametrize("command", ["translate", "evaluate"])
def test_early_stopping_reaches_the_search(capsys, model_dir, tmp_path, monkeypatch, command):
    from heedful import translator as translator_module

    seen = []

    def spy(*args, **kwargs):
        seen.append(kwargs["early_stopping"])
        return search(*args, **kwargs)

    search = translator_module.beam_search
    monkeypatch.setattr(translator_module, "beam_search", spy)
    tsv = tmp_path / "dev.tsv"
    tsv.write_text("".join(f"{en}\t{es}\n" for en, es in PAIRS), encoding="utf-8")
    argv = [PAIRS[0][1]] if command == "translate" else ["--data", tsv]
    for flag in ([], ["--early-stopping"]):
        code, _, _ = heedful(capsys, command, "--model", model_dir, "--beam", 2, *flag, *argv)
        assert code == 0
    assert seen and set(seen[: len(seen) // 2]) == {False} and set(seen[len(seen) // 2 :]) == {True}


def test_version_is_the_projects(capsys):
    """`heedful --version`: pyproject.toml's version and the torch it runs on."""
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    expected = tomllib.loads(pyproject.read_text())["project"]["version"]
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"heedful {expected} (torch {torch.__version__})\n"


# the untrained model never ends a translation, which heedful warns about ("1 translation was
# cut at the length limit ..."): the processes below are about other things
QUIET = {"PYTHONWARNINGS": "ignore:1 translation was cut"}


def _process(model_dir, *argv, stdin: bytes = b"", **kwargs):
    env = {**os.environ, "HEEDFUL_KEEP_MALLOC": "1", **QUIET}
    command = [sys.executable, "-m", "heedful", "translate", "--model", str(model_dir), *argv]
    return subprocess.run(command, input=stdin, capture_output=True, env=env, timeout=120, **kwargs)


def test_stdin_that_is_not_utf8_is_one_error_naming_line_and_column(model_dir):
    out = _process(model_dir, stdin=b"hola\nel gato\xff\n")
    assert out.returncode == 1
    assert out.stderr.decode() == (
        "heedful translate: error: stdin, line 2: invalid UTF-8 (byte 0xff at column 8); "
        "re-encode it as UTF-8\n"
    )


def test_stdin_loses_its_byte_order_mark_and_carriage_returns(model_dir):
    out = _process(model_dir, "--json", stdin="\ufeffhola\r\nel gato\r\n".encode())
    assert out.returncode == 0, out.stderr
    sources = [json.loads(line)["source"] for line in out.stdout.decode().splitlines()]
    assert sources == ["hola", "el gato"]


def test_a_closed_pipe_ends_quietly(model_dir):
    lines = "".join(f"{es}\n" for _, es in PAIRS * 40).encode()
    env = {**os.environ, "HEEDFUL_KEEP_MALLOC": "1", "PYTHONWARNINGS": "ignore::UserWarning"}
    command = [sys.executable, "-m", "heedful", "translate", "--model", str(model_dir)]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=env)  # fmt: skip
    process.stdin.write(lines)
    process.stdin.close()
    process.stdout.readline()
    process.stdout.close()  # what `| head -1` does
    assert process.wait(timeout=120) == 141
    assert process.stderr.read() == b""


def test_output_into_a_missing_folder_creates_it(capsys, model_dir, expected, tmp_path):
    hyp = tmp_path / "new" / "folder" / "out.en"
    source = PAIRS[0][1]
    code, _, _ = heedful(capsys, "translate", "--model", model_dir, "--beam", 2, "-o", hyp, source)
    assert code == 0 and hyp.read_text(encoding="utf-8").splitlines() == [expected[source]]


def test_translate_and_evaluate_with_workers_answer_as_one_process(capsys, model_dir, tmp_path):
    """--workers 2 (heedful.pool): every line's translation, links and score as without, in
    order, from a file and from stdin; evaluate's scores the same."""
    lines = [es for _, es in PAIRS] * 5 + ["", "hola mundo. un perro."]
    src = tmp_path / "in.es"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    runs = {}
    for workers in (1, 2):
        out = tmp_path / f"out-{workers}.jsonl"
        code, _, _ = heedful(capsys, "translate", "--model", model_dir, "--beam", 2, "-i", src,
                             "-o", out, "--json", "--alignments", "--workers", workers,
                             "--batch-size", 2)  # fmt: skip
        assert code == 0
        runs[workers] = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["source"] for r in runs[2]] == lines
    html = [f"<p>{es} <b>{es}</b></p>" for _, es in PAIRS]
    pages = []
    for workers in (1, 2):
        code, out, _ = heedful(capsys, "translate", "--model", model_dir, "--beam", 2,
                               "--format", "html", "--workers", workers, *html)  # fmt: skip
        pages.append(out)
    assert code == 0 and pages[0] == pages[1] and pages[0].count("<b>") == len(html)
    for one, two in zip(runs[1], runs[2], strict=True):  # scores: to float rounding
        assert two.pop("score") == pytest.approx(one.pop("score"), abs=1e-4) and two == one
    tsv = tmp_path / "dev.tsv"
    tsv.write_text("".join(f"{en}\t{es}\n" for en, es in PAIRS * 5), encoding="utf-8")
    scores = []
    for workers in (1, 2):
        code, out, _ = heedful(capsys, "evaluate", "--model", model_dir, "--data", tsv, "--beam",
                               2, "--json", "--workers", workers)  # fmt: skip
        scores.append({k: v for k, v in json.loads(out).items() if k != "seconds"})
    assert code == 0 and scores[0] == scores[1] and scores[0]["sentences"] == 20


def test_workers_errors(capsys, model_dir, tmp_path):
    code, _, err = heedful(capsys, "translate", "--model", model_dir, "--workers", 0, "hola")
    assert code != 0 and "--workers must be at least 1" in err, err
    code, _, err = heedful(capsys, "evaluate", "--model", model_dir, "--workers", -1)
    assert code != 0 and "--workers must be at least 1" in err, err
    from heedful.pool import TranslatorPool

    with pytest.raises(FileNotFoundError, match=str(tmp_path)):  # in a worker, raised here
        TranslatorPool(tmp_path, 2)
