"""Decoding speed: heedful against HF ``MarianMTModel.generate`` and CTranslate2, same weights.

    python bench/decode.py [--sizes small base] [--rounds 3] [--json bench/results/decode.json]
    python bench/decode.py --sizes --bundled es-en en-fr --engines ct2 heedful --repeats 1

One random Marian model per size (HF ``MarianConfig``'s defaults: GELU, concatenated sinusoids,
unscaled embeddings, final logits bias, decoder starting from pad; vocabulary 8,000) is saved as a
Marian directory and loaded three ways: by HF transformers, by heedful (``heedful.interop.marian``),
and by CTranslate2 (its ``TransformersConverter``, float32 and int8). Every engine translates the
same batch: 32 sentences of 20 source tokens (19 random pieces and end-of-sentence), exactly 20 new
tokens each (min = max length), greedy and beam 4. int8 is PyTorch dynamic quantisation of the
linear layers for heedful and HF, CTranslate2's own int8 for it. 2 threads everywhere and the same
glibc allocator settings for all engines (the script re-executes itself with them).

Each engine runs in a process of its own: in one shared process the engines' thread pools (two
OpenMP runtimes, PyTorch's and CTranslate2's) slowed each other down, every engine by up to 2x.
A round starts one process per engine and precision in turn (the engines' order reversed every
other round); each times ``--repeats`` runs of each search after a warm-up run. A cell is the best
over all rounds, in sentences per second. Because this machine's speed drifts by 20-40% within an
hour, a second table pairs heedful with CTranslate2 within each round (their processes run back
to back) and gives the median of those per-round ratios, with the lowest and the highest.
heedful uses its native decoding kernels (``heedful.native``) unless ``HEEDFUL_NATIVE=0``; the JSON
says which.

``--bundled``: also real sentences, as they come: a bundled model (models/NAME, a heedful model,
so not HF) translates its whole dev set with heedful and with CTranslate2 (the model exported by
``heedful export``), batches of 32 sorted by length, outputs as long as each search makes them
(heedful: at most source + 50 tokens; CTranslate2: at most 256). Both stop a sentence's beam
search once it holds 4 finished hypotheses (CTranslate2's rule; heedful's ``early_stopping``).
Tokenising is left out of the timing, detokenising is in; each engine's BLEU on the dev set shows
they translate alike.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import torch

from heedful import native

ALLOCATOR_ENV = {"MALLOC_MMAP_MAX_": "0", "MALLOC_TRIM_THRESHOLD_": "100000000000"}
SIZES = {  # d_model, heads, d_ff, layers (encoder = decoder): heedful's presets
    "small": (256, 4, 1024, 3),
    "base": (512, 8, 2048, 6),
}
VOCAB, BATCH, SRC_LEN, NEW_TOKENS = 8000, 32, 20, 20
THREADS = 2  # --threads
EOS, UNK, PAD = 0, 1, VOCAB - 1  # Marian's special ids (the decoder starts from pad, the last)


def ensure_allocator_env() -> None:
    if any(os.environ.get(k) != v for k, v in ALLOCATOR_ENV.items()):
        env = {**os.environ, **ALLOCATOR_ENV}
        os.execve(sys.executable, [sys.executable, *sys.argv], env)


def write_marian_dir(directory: Path, size: str) -> None:
    """A random MarianMTModel of the given size, with a tokenizer HF and CTranslate2 accept."""
    import sentencepiece as spm
    from transformers import MarianConfig, MarianMTModel

    d_model, heads, d_ff, layers = SIZES[size]
    config = MarianConfig(
        vocab_size=VOCAB, d_model=d_model, encoder_layers=layers, decoder_layers=layers,
        encoder_attention_heads=heads, decoder_attention_heads=heads, encoder_ffn_dim=d_ff,
        decoder_ffn_dim=d_ff, max_position_embeddings=512, pad_token_id=PAD, eos_token_id=EOS,
        decoder_start_token_id=PAD, forced_eos_token_id=None, bad_words_ids=[[PAD]],
    )  # fmt: skip
    torch.manual_seed(0)
    MarianMTModel(config).eval().save_pretrained(directory)
    # vocab.json defines the ids; the sentencepiece model only has to exist for the tokenizers
    vocab = {"</s>": EOS, "<unk>": UNK, "<pad>": PAD}
    vocab.update({f"\u2581w{i}": i for i in range(2, VOCAB - 1)})
    (directory / "vocab.json").write_text(json.dumps(vocab))
    words = [f"w{i}" for i in range(300)]
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(" ".join(words[i::7]) for i in range(700)),
        model_prefix=str(directory / "spm"), vocab_size=30, minloglevel=2,
    )  # fmt: skip
    for name in ("source.spm", "target.spm"):
        (directory / name).write_bytes((directory / "spm.model").read_bytes())
    (directory / "tokenizer_config.json").write_text(
        json.dumps({"source_lang": "xx", "target_lang": "yy", "model_max_length": 512})
    )


def batch_ids() -> list[list[int]]:
    g = torch.Generator().manual_seed(1)
    return torch.randint(2, VOCAB - 1, (BATCH, SRC_LEN - 1), generator=g).tolist()


def quantize(model):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)


def heedful_engine(directory: Path, int8: bool):
    from heedful.translator import Translator

    translator = Translator.load(directory, quantize="int8" if int8 else None)
    sources = [ids + [EOS] for ids in batch_ids()]

    def run(beam: int) -> list[int]:
        found = translator.generate(
            sources, beam, min_length=NEW_TOKENS, max_length=NEW_TOKENS, batch_size=BATCH,
            length_penalty=1.0, length_penalty_form="power",
        )  # fmt: skip
        return [len(h[0].tokens) for h in found]

    return run


def hf_engine(directory: Path, int8: bool):
    from transformers import MarianMTModel

    model = MarianMTModel.from_pretrained(directory).eval()
    model = quantize(model) if int8 else model
    input_ids = torch.tensor([ids + [EOS] for ids in batch_ids()])

    def run(beam: int) -> list[int]:
        with torch.inference_mode():
            out = model.generate(
                input_ids, attention_mask=torch.ones_like(input_ids), num_beams=beam,
                do_sample=False, min_new_tokens=NEW_TOKENS, max_new_tokens=NEW_TOKENS,
                length_penalty=1.0, early_stopping=False,
            )  # fmt: skip
        return [int((row[1:] != PAD).sum()) for row in out]

    return run


def ct2_directory(directory: Path, int8: bool) -> Path:
    return directory.parent / f"{directory.name}-ct2-{'int8' if int8 else 'fp32'}"


def is_bundled(directory: Path) -> bool:
    """A heedful model directory (a bundled model), not a Marian one made by this script."""
    return json.loads((directory / "config.json").read_text()).get("format") == "heedful"


def convert_for_ct2(directory: Path) -> None:
    """CTranslate2's models, made in the main process: in a worker, PyTorch work before
    CTranslate2 (a conversion, loading a PyTorch model) made CTranslate2 1.4-2x slower for the
    whole process, which once made the first round's CTranslate2 look slow."""
    import ctranslate2

    from heedful.interop.ctranslate2 import export_ctranslate2

    for int8 in (False, True):
        out, quantization = ct2_directory(directory, int8), "int8" if int8 else None
        if is_bundled(directory):
            export_ctranslate2(directory, out, quantization=quantization, force=True)
        else:
            converter = ctranslate2.converters.TransformersConverter(str(directory))
            converter.convert(str(out), quantization=quantization, force=True)


def ct2_translator(directory: Path, int8: bool):
    import ctranslate2

    compute_type = "int8" if int8 else "float32"
    return ctranslate2.Translator(
        str(ct2_directory(directory, int8)), device="cpu", compute_type=compute_type,
        inter_threads=1, intra_threads=THREADS,
    )  # fmt: skip


def ct2_engine(directory: Path, int8: bool):
    translator = ct2_translator(directory, int8)
    pieces = [[f"\u2581w{i}" for i in ids] for ids in batch_ids()]  # CTranslate2 adds </s>

    def run(beam: int) -> list[int]:
        results = translator.translate_batch(
            pieces, beam_size=beam, min_decoding_length=NEW_TOKENS,
            max_decoding_length=NEW_TOKENS, length_penalty=1.0, max_batch_size=BATCH,
        )  # fmt: skip
        return [len(r.hypotheses[0]) for r in results]

    return run


ENGINES = {"hf": hf_engine, "ct2": ct2_engine, "heedful": heedful_engine}


def bundled_engine(engine: str, directory: Path, int8: bool):
    """A bundled model on its dev set: (run(beam) -> translations, references). CTranslate2's
    process does no PyTorch work: only the tokenizer and the data are read."""
    from heedful.data.readers import read_split
    from heedful.tokenizer import Tokenizer

    data = json.loads((directory / "config.json").read_text())["data"]
    root = data.get("root") or Path(__file__).resolve().parents[2] / "shared" / "data"
    dev = read_split(root, data["dev"], data["src"], data["tgt"], tuple(data["columns"]))
    tokenizer = Tokenizer.load(directory / "spm.model")
    ids = tokenizer.encode_batch(dev.sources)
    if engine == "heedful":
        from heedful.translator import Translator

        translator = Translator.load(directory, quantize="int8" if int8 else None)

        def run(beam: int) -> list[str]:
            found = translator.generate(
                ids, beam, length_penalty=1.0, length_penalty_form="power", batch_size=BATCH,
                early_stopping=True,  # CTranslate2's rule: a sentence stops at K finished
            )  # fmt: skip
            return [tokenizer.decode(h[0].tokens) for h in found]  # special ids dropped

        return run, dev.targets
    ct2 = ct2_translator(directory, int8)
    pieces = [tokenizer.pieces(source[:-1]) for source in ids]  # CTranslate2 adds </s>

    def run(beam: int) -> list[str]:
        results = ct2.translate_batch(
            pieces, beam_size=beam, length_penalty=1.0, max_batch_size=BATCH
        )
        return [tokenizer.sp.decode_pieces(r.hypotheses[0]) for r in results]

    return run, dev.targets


def worker(engine: str, directory: Path, precision: str, repeats: int) -> None:
    """In a process of its own: time one engine at one precision, greedy and beam 4; prints JSON
    {search: [sentences per second, CPU seconds of the fastest run(, BLEU of a bundled model)]}."""
    if engine != "ct2":  # CTranslate2 has its own threads (intra_threads)
        torch.set_num_threads(THREADS)
    warnings.filterwarnings("ignore")
    bundled = is_bundled(directory)
    if bundled:
        run, references = bundled_engine(engine, directory, precision == "int8")
    else:
        run = ENGINES[engine](directory, precision == "int8")
    found = {}
    for beam in (1, 4):
        out = run(beam)  # warm-up
        if bundled:
            import sacrebleu

            quality = [round(sacrebleu.corpus_bleu(out, [references]).score, 2)]
        elif set(out) != {NEW_TOKENS}:
            raise SystemExit(f"{engine} generated {sorted(set(out))} tokens, not {NEW_TOKENS}")
        else:
            quality = []
        best = best_cpu = float("inf")
        for _ in range(repeats):
            start, start_cpu = time.perf_counter(), time.process_time()
            run(beam)
            best = min(best, time.perf_counter() - start)
            best_cpu = min(best_cpu, time.process_time() - start_cpu)
        found[_search(beam)] = [len(out) / best, best_cpu, *quality]
    print(json.dumps(found))


def measure(engine: str, directory: Path, precision: str, repeats: int) -> dict[str, list]:
    command = [sys.executable, __file__, "--worker", engine, str(directory), precision,
               "--repeats", str(repeats), "--threads", str(THREADS)]  # fmt: skip
    out = subprocess.run(command, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"{engine} {precision} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _search(beam: int) -> str:
    return "greedy" if beam == 1 else f"beam {beam}"


def main() -> None:
    global THREADS
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", nargs="*", default=list(SIZES), choices=list(SIZES))
    parser.add_argument("--bundled", nargs="*", default=[], metavar="NAME",
                        help="also bundled models (models/NAME) on their dev sets")  # fmt: skip
    parser.add_argument("--engines", nargs="+", default=list(ENGINES), choices=list(ENGINES))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per search per round")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", metavar="FILE", help="also write the results here")
    parser.add_argument("--worker", nargs=3, metavar=("ENGINE", "DIR", "PRECISION"),
                        help=argparse.SUPPRESS)  # fmt: skip
    args = parser.parse_args()
    ensure_allocator_env()
    THREADS = args.threads
    if args.worker:
        engine, directory, precision = args.worker
        return worker(engine, Path(directory), precision, args.repeats)
    torch.set_num_threads(THREADS)
    warnings.filterwarnings("ignore")

    from heedful.bundled import model_dir

    rows, load_before = [], os.getloadavg()  # other work on the machine skews every engine
    with tempfile.TemporaryDirectory() as tmp:
        models = [(size, Path(tmp) / size) for size in args.sizes]
        for size, directory in models:
            write_marian_dir(directory, size)
        for name in args.bundled:  # linked, so that CTranslate2's exports land beside it in tmp
            (Path(tmp) / name).symlink_to(model_dir(name).resolve())
            models.append((f"{name} dev", Path(tmp) / name))
        if "ct2" in args.engines:
            for _, directory in models:
                convert_for_ct2(directory)
        for size, directory in models:
            runs: dict[tuple, list[tuple]] = {}  # -> (rate, cpu[, BLEU]) per round
            for round_ in range(args.rounds):  # engines take turns: noise hits them alike
                engines = args.engines if round_ % 2 == 0 else args.engines[::-1]
                if is_bundled(directory):  # a heedful model, which HF cannot load
                    engines = [engine for engine in engines if engine != "hf"]
                for precision in ("fp32", "int8"):
                    for engine in engines:
                        found = measure(engine, directory, precision, args.repeats)
                        for search, result in found.items():
                            runs.setdefault((search, precision, engine), []).append(tuple(result))
            for (search, precision, engine), per_round in runs.items():
                rate, cpu, *quality = max(per_round)
                row = dict(
                    size=size, search=search, precision=precision, engine=engine,
                    sentences_per_second=round(rate, 1), cpu_seconds=round(cpu, 3),
                    per_round=[round(r[0], 1) for r in per_round],
                )  # fmt: skip
                if quality:
                    row["bleu"] = quality[0]
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
    print(table(rows))
    print()
    print(paired_table(rows))
    if any("bleu" in row for row in rows):
        print()
        print(bleu_table(rows))
    if args.json:
        info = {
            "threads": THREADS, "batch": BATCH, "source_tokens": SRC_LEN,
            "new_tokens": NEW_TOKENS, "vocab": VOCAB, "torch": torch.__version__,
            "machine": platform.processor() or platform.machine(), "allocator": ALLOCATOR_ENV,
            "rounds": args.rounds, "repeats": args.repeats, "one_process_per_engine": True,
            "load_average_before": load_before, "load_average_after": os.getloadavg(),
            "heedful_native_kernels": native.available(),
        }  # fmt: skip
        Path(args.json).write_text(json.dumps({"setup": info, "rows": rows}, indent=2) + "\n")


def table(rows: list[dict]) -> str:
    cell = {(r["size"], r["search"], r["precision"], r["engine"]): r["sentences_per_second"]
            for r in rows}  # fmt: skip
    lines = [
        "| model | search | HF fp32 | CT2 fp32 | heedful fp32 | heedful / CT2 fp32 | HF int8 "
        "| CT2 int8 | heedful int8 | heedful / CT2 int8 |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for size, search in sorted({(r["size"], r["search"]) for r in rows}, key=_order):
        values = []
        for precision in ("fp32", "int8"):
            get = {e: cell.get((size, search, precision, e)) for e in ENGINES}
            ratio = get["heedful"] / get["ct2"] if get["heedful"] and get["ct2"] else None
            values += [_fmt(get["hf"]), _fmt(get["ct2"]), _fmt(get["heedful"])]
            values.append("" if ratio is None else f"{ratio:.2f}x")
        lines.append(f"| {size} | {search} | " + " | ".join(values) + " |")
    return "\n".join(lines)


def paired_ratios(rows: list[dict]) -> dict[tuple, list[float]]:
    """(size, search, precision) -> heedful / CTranslate2 in each round (with the default
    engine order, the two processes ran back to back)."""
    rates = {(r["size"], r["search"], r["precision"], r["engine"]): r["per_round"] for r in rows}
    ratios = {}
    for (size, search, precision, engine), ours in rates.items():
        theirs = rates.get((size, search, precision, "ct2"))
        if engine == "heedful" and theirs:
            ratios[size, search, precision] = [a / b for a, b in zip(ours, theirs, strict=True)]
    return ratios


def paired_table(rows: list[dict]) -> str:
    """The per-round ratios heedful / CTranslate2: median (lowest-highest) over the rounds."""
    ratios = paired_ratios(rows)
    lines = [
        "| model | search | heedful / CT2 fp32, per round | heedful / CT2 int8, per round |",
        "| --- | --- | --- | --- |",
    ]
    for size, search in sorted({k[:2] for k in ratios}, key=_order):
        cells = [_spread(ratios.get((size, search, p), [])) for p in ("fp32", "int8")]
        lines.append(f"| {size} | {search} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def bleu_table(rows: list[dict]) -> str:
    """The bundled models' dev BLEU with each engine: the same weights should translate alike."""
    bleu = {(r["size"], r["search"], r["precision"], r["engine"]): r["bleu"]
            for r in rows if "bleu" in r}  # fmt: skip
    lines = [
        "| model | search | precision | CT2 BLEU | heedful BLEU |",
        "| --- | --- | --- | ---: | ---: |",
    ]
    for size, search, precision in sorted({k[:3] for k in bleu}, key=_order):
        cells = [str(bleu.get((size, search, precision, e), "")) for e in ("ct2", "heedful")]
        lines.append(f"| {size} | {search} | {precision} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _spread(ratios: list[float]) -> str:
    if not ratios:
        return ""
    low, high, n = min(ratios), max(ratios), len(ratios)
    return f"{statistics.median(ratios):.2f}x ({low:.2f}-{high:.2f}, {n} rounds)"


def _order(key):
    return (key[0] not in SIZES, list(SIZES).index(key[0]) if key[0] in SIZES else key[0],
            key[1] != "greedy", *key[2:])  # fmt: skip


def _fmt(value) -> str:
    return "" if value is None else f"{value:.1f}"


if __name__ == "__main__":
    main()
