"""Decoding speed: heedful against HF ``MarianMTModel.generate`` and CTranslate2, same weights.

    python bench/decode.py [--sizes small base] [--rounds 3] [--json bench/results/decode.json]
    python bench/decode.py --sizes --bundled es-en en-fr --engines ct2 heedful --repeats 1
    python bench/decode.py --sizes --bundled es-en en-fr --engines ct2 heedful --repeats 1 \
        --text --long-tail --json bench/results/decode-bundled.json

One random Marian model per size (HF ``MarianConfig``'s defaults: GELU, concatenated sinusoids,
unscaled embeddings, final logits bias, decoder starting from pad; vocabulary 8,000) is saved as a
Marian directory and loaded three ways: by HF transformers, by heedful (``heedful.interop.marian``),
and by CTranslate2 (its ``TransformersConverter``, float32 and int8). Every engine translates the
same batch: 32 sentences of 20 source tokens (19 random pieces and end-of-sentence), exactly 20 new
tokens each (min = max length), greedy and beam 4. int8 is PyTorch dynamic quantisation of the
linear layers for heedful and HF, CTranslate2's own int8 for it. 2 threads everywhere (CTranslate2
in two configurations, see below) and the same glibc allocator settings for all engines (the
script re-executes itself with them).

Each engine runs in a process of its own: in one shared process the engines' thread pools (two
OpenMP runtimes, PyTorch's and CTranslate2's) slowed each other down, every engine by up to 2x.
A round starts one process per engine and precision in turn (the engines' order reversed every
other round); each times ``--repeats`` runs of each search after a warm-up run. A cell is the best
over all rounds, in sentences per second. Because this machine's speed drifts by 20-40% within an
hour, a second table pairs heedful with CTranslate2 within each round (their processes run back
to back) and gives the median of those per-round ratios, with the lowest and the highest.
heedful uses its native decoding kernels (``heedful.native``) unless ``HEEDFUL_NATIVE=0``; the JSON
says which.

``--bundled``: also real input, as it comes: a bundled model (models/NAME, a heedful model, so
not HF) translates its whole dev set with heedful and with CTranslate2 (the model exported by
``heedful export``), outputs as long as each search makes them (heedful: at most source + 50
tokens; CTranslate2: at most 256). Each engine batches as it does best:
- heedful: ``Translator``'s defaults, continuous batching (a finished sentence's rows go to a
  waiting one) of at most 128 sentences and 8,192 source tokens with padding
  (``heedful.decoding.BATCH_SIZE``, ``BATCH_TOKENS``; int8 goes batch by batch);
- CTranslate2: ``translate_batch(..., max_batch_size=N)``, which sorts the inputs by length and
  cuts them into batches of N, ``--ct2-batch N``. Default 128, the fastest of 32, 64 and 128 in
  a quick test (5 December 2026, 400 dev sentences of each model, fp32 and int8, greedy and beam
  4, best of 5 interleaved passes, other work on the machine): 128 ran at 0.94-1.19x 64's rate
  and 1.13-1.53x 32's (es-en int8 greedy 1,374 / 1,233 / 966 sentences per second, beam 4 535 /
  518 / 462; only es-en fp32 beam 4 favoured 64, 258 against 274); on 150 paragraphs of 2-6
  sentences the three were level (128: 0.97-1.09x 64, 0.88-1.19x 32), and 256 was no faster.
CTranslate2 on 2 threads runs in two configurations, and every table takes its faster one (per
cell; per round in the paired table; the last table shows both): one worker on both threads
(``inter_threads=1, intra_threads=2``) and two workers of one thread each (``inter_threads=2,
intra_threads=1``, what its documentation shows for throughput on a CPU; they share the batches
``translate_batch`` cuts, and a single batch, as in the fixed-batch rows, goes to one worker on
one thread). Until 6 December 2026 it ran only the first, which flattered heedful: on this
machine two workers ran the bundled models' inputs 1.05-1.3x faster in float32 and 1.45-4x in
int8, and its int8 ran the small model's fixed batch 1.4-2.3x faster on one thread than on two.
heedful runs in the same two configurations since 6 December 2026 (``heedful-workers``: a
``heedful.pool.TranslatorPool`` of ``THREADS`` processes of one thread each, which share every
call's inputs by length; ``--workers`` on the command line), and every table takes its faster one
the same way; the CPU seconds of that configuration count only the process that hands out the
work, not the workers'.
Both score |Y|^1 and stop a sentence's beam search once it holds 4 finished hypotheses
(CTranslate2's rule; heedful's ``early_stopping``). Rows "NAME dev": tokenising is left out of the
timing, detokenising is in; each engine's BLEU on the dev set shows they translate alike.

``--text``: also rows "NAME dev text" (and "NAME long-tail text"): text in, text out, as a user
waits for it, everything inside the timing. heedful: ``Translator.translate``, its whole
real-input path (sentence splitting, casing, protected spans, detokenising). CTranslate2 as its
documentation pairs it with sentencepiece: ``sp.encode(lines, out_type=str)``,
``translate_batch``, ``sp.decode_pieces`` (no sentence splitting: a paragraph is one input; no
NFKC normalisation, which heedful's tokenizer adds).

``--long-tail``: also rows "NAME long-tail": the dev sources mixed with 300 paragraphs of 2-6 dev
sentences and 300 sentences of 40-80 words (``bench/decode_workloads.py``, seeded; made by
``bench/robustness.py``'s makers). No references, so no BLEU. A cell counts inputs (lines) per
second, a paragraph as one. ``--limit N``: only the first N inputs of each bundled workload
(quick runs, not figures).
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

import decode_workloads
import torch

from heedful import native

ALLOCATOR_ENV = {"MALLOC_MMAP_MAX_": "0", "MALLOC_TRIM_THRESHOLD_": "100000000000"}
SIZES = {  # d_model, heads, d_ff, layers (encoder = decoder): heedful's presets
    "small": (256, 4, 1024, 3),
    "base": (512, 8, 2048, 6),
}
VOCAB, BATCH, SRC_LEN, NEW_TOKENS = 8000, 32, 20, 20
THREADS = 2  # --threads
CT2_BATCH = 128  # --ct2-batch: see the docstring
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


# heedful's options for the fixed batch: exactly NEW_TOKENS new tokens, one batch, |Y|^1
FIXED = dict(
    min_length=NEW_TOKENS, max_length=NEW_TOKENS, batch_size=BATCH, length_penalty=1.0,
    length_penalty_form="power", coverage_penalty=0,
)  # fmt: skip


def heedful_engine(directory: Path, int8: bool):
    from heedful.translator import Translator

    translator = Translator.load(directory, quantize="int8" if int8 else None)
    sources = [ids + [EOS] for ids in batch_ids()]

    def run(beam: int) -> list[int]:
        return [len(h[0].tokens) for h in translator.generate(sources, beam, **FIXED)]

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


def ct2_translator(directory: Path, int8: bool, workers: int = 1):
    """CTranslate2 on ``THREADS`` cores: ``workers`` batches translated at once
    (``inter_threads``), each on ``THREADS // workers`` threads (``intra_threads``)."""
    import ctranslate2

    compute_type = "int8" if int8 else "float32"
    return ctranslate2.Translator(
        str(ct2_directory(directory, int8)), device="cpu", compute_type=compute_type,
        inter_threads=workers, intra_threads=THREADS // workers,
    )  # fmt: skip


def ct2_engine(directory: Path, int8: bool, workers: int = 1):
    translator = ct2_translator(directory, int8, workers)
    pieces = [[f"\u2581w{i}" for i in ids] for ids in batch_ids()]  # CTranslate2 adds </s>

    def run(beam: int) -> list[int]:
        results = translator.translate_batch(
            pieces, beam_size=beam, min_decoding_length=NEW_TOKENS,
            max_decoding_length=NEW_TOKENS, length_penalty=1.0, max_batch_size=BATCH,
        )  # fmt: skip
        return [len(r.hypotheses[0]) for r in results]

    return run


ENGINES = {"hf": hf_engine, "ct2": ct2_engine, "heedful": heedful_engine}
# CTranslate2 and heedful run in two configurations on THREADS cores, and the tables take the
# faster one of each: "ct2" / "heedful" one worker on every thread, "ct2-workers" /
# "heedful-workers" one worker per thread, each on one thread: see the docstring.
CT2_CONFIGS = ("ct2", "ct2-workers")
HEEDFUL_CONFIGS = ("heedful", "heedful-workers")
CONFIGS = {"ct2": CT2_CONFIGS, "heedful": HEEDFUL_CONFIGS}


def workers(engine: str) -> int:
    """How many workers a configuration runs ("ct2-workers", "heedful-workers": one a thread)."""
    return THREADS if engine.endswith("-workers") else 1


def family(engine: str) -> str:
    """The engine a configuration belongs to ("ct2-workers" -> "ct2")."""
    return engine.removesuffix("-workers")


def heedful_pool(directory: Path, int8: bool):
    """``THREADS`` heedful processes of one thread each (heedful.pool)."""
    from heedful.pool import TranslatorPool

    return TranslatorPool(directory, THREADS, quantize="int8" if int8 else None, threads=1)


def heedful_pool_engine(directory: Path, int8: bool):
    """``heedful_engine`` in ``heedful_pool``: the batch shared by the workers."""
    pool = heedful_pool(directory, int8)
    sources = [ids + [EOS] for ids in batch_ids()]

    def run(beam: int) -> list[int]:
        return [len(tokens) for tokens in pool.generate_tokens(sources, beam, **FIXED)]

    return run


PENALTY = dict(  # CTranslate2's scoring and stopping rule, for heedful on the bundled models
    length_penalty=1.0, length_penalty_form="power",
    early_stopping=True,  # a sentence's beam search stops once it holds K finished hypotheses
    coverage_penalty=0,  # CTranslate2's default; the bundled models' own is 0.1 (heedful.coverage)
)  # fmt: skip


def bundled_engine(engine: str, directory: Path, int8: bool, workload: str, level: str, args):
    """A bundled model on one of its workloads (``decode_workloads``): (run(beam) ->
    translations, references or None). ``level`` "ids": tokenising left out of the timing,
    detokenising in; "text": text in, text out, everything in. CTranslate2's process does no
    PyTorch work: only the tokenizer and the data are read."""
    sources, references = decode_workloads.inputs(directory, workload, args.limit)
    if engine == "heedful":
        make = heedful_text if level == "text" else heedful_ids
        return make(directory, int8, sources), references
    if engine == "heedful-workers":
        make = heedful_pool_text if level == "text" else heedful_pool_ids
        return make(directory, int8, sources), references
    make = ct2_text if level == "text" else ct2_ids
    return make(directory, int8, sources, args.ct2_batch, workers(engine)), references


def heedful_ids(directory: Path, int8: bool, sources: list[str]):
    """``Translator.generate`` with its own batching (continuous, ``BATCH_SIZE`` sentences,
    ``BATCH_TOKENS`` tokens)."""
    from heedful.tokenizer import Tokenizer
    from heedful.translator import Translator

    tokenizer = Tokenizer.load(directory / "spm.model")
    ids = tokenizer.encode_batch(sources)
    translator = Translator.load(directory, quantize="int8" if int8 else None)

    def run(beam: int) -> list[str]:
        found = translator.generate(ids, beam, **PENALTY)
        return [tokenizer.decode(h[0].tokens) for h in found]  # special ids dropped

    return run


def heedful_text(directory: Path, int8: bool, sources: list[str]):
    """``Translator.translate``: sentence splitting, casing, protected spans, detokenising."""
    from heedful.translator import Translator

    translator = Translator.load(directory, quantize="int8" if int8 else None)
    return lambda beam: translator.translate(sources, beam, **PENALTY)


def heedful_pool_ids(directory: Path, int8: bool, sources: list[str]):
    """``heedful_ids`` in ``heedful_pool``: ``generate_tokens``, detokenised here."""
    from heedful.tokenizer import Tokenizer

    tokenizer = Tokenizer.load(directory / "spm.model")
    ids = tokenizer.encode_batch(sources)
    pool = heedful_pool(directory, int8)

    def run(beam: int) -> list[str]:
        return [tokenizer.decode(tokens) for tokens in pool.generate_tokens(ids, beam, **PENALTY)]

    return run


def heedful_pool_text(directory: Path, int8: bool, sources: list[str]):
    """``heedful_text`` in ``heedful_pool``."""
    pool = heedful_pool(directory, int8)
    return lambda beam: pool.translate(sources, beam, **PENALTY)


def ct2_ids(directory: Path, int8: bool, sources: list[str], ct2_batch: int, workers: int):
    """``translate_batch`` on heedful's pieces (CTranslate2 sorts by length, cuts batches of
    ``ct2_batch`` and hands them to its ``workers``)."""
    from heedful.tokenizer import Tokenizer

    tokenizer = Tokenizer.load(directory / "spm.model")
    ct2 = ct2_translator(directory, int8, workers)
    pieces = [tokenizer.pieces(ids[:-1]) for ids in tokenizer.encode_batch(sources)]  # +</s>

    def run(beam: int) -> list[str]:
        results = ct2.translate_batch(
            pieces, beam_size=beam, length_penalty=1.0, max_batch_size=ct2_batch
        )
        return [tokenizer.sp.decode_pieces(r.hypotheses[0]) for r in results]

    return run


def ct2_text(directory: Path, int8: bool, sources: list[str], ct2_batch: int, workers: int):
    """CTranslate2 as its documentation pairs it with sentencepiece: encode, translate, decode."""
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_file=str(directory / "spm.model"))
    ct2 = ct2_translator(directory, int8, workers)

    def run(beam: int) -> list[str]:
        pieces = sp.encode(sources, out_type=str)
        results = ct2.translate_batch(
            pieces, beam_size=beam, length_penalty=1.0, max_batch_size=ct2_batch
        )
        return [sp.decode_pieces(r.hypotheses[0]) for r in results]

    return run


def worker(engine: str, directory: Path, precision: str, workload: str, level: str, args) -> None:
    """In a process of its own: time one engine at one precision on one workload, greedy and
    beam 4; prints JSON {search: [inputs per second, CPU seconds of the fastest run(, BLEU where
    the workload has references)]}."""
    if engine not in CT2_CONFIGS:  # CTranslate2 has its own threads (intra_threads)
        torch.set_num_threads(1 if engine == "heedful-workers" else THREADS)
    warnings.filterwarnings("ignore")
    int8, references = precision == "int8", None
    if is_bundled(directory):
        run, references = bundled_engine(engine, directory, int8, workload, level, args)
    else:
        run = (ct2_engine(directory, int8, workers(engine)) if engine in CT2_CONFIGS
               else heedful_pool_engine(directory, int8) if engine == "heedful-workers"
               else ENGINES[engine](directory, int8))  # fmt: skip
    found = {}
    for beam in (1, 4):
        out = run(beam)  # warm-up
        if references is not None:
            import sacrebleu

            quality = [round(sacrebleu.corpus_bleu(out, [references]).score, 2)]
        elif not is_bundled(directory) and set(out) != {NEW_TOKENS}:
            raise SystemExit(f"{engine} generated {sorted(set(out))} tokens, not {NEW_TOKENS}")
        else:
            quality = []
        best = best_cpu = float("inf")
        for _ in range(args.repeats):
            start, start_cpu = time.perf_counter(), time.process_time()
            run(beam)
            best = min(best, time.perf_counter() - start)
            best_cpu = min(best_cpu, time.process_time() - start_cpu)
        found[_search(beam)] = [len(out) / best, best_cpu, *quality]
    print(json.dumps(found))


def measure(engine: str, directory: Path, precision: str, workload: str, level: str, args):
    command = [sys.executable, __file__, "--worker", engine, str(directory), precision, workload,
               level, "--repeats", str(args.repeats), "--threads", str(THREADS), "--limit",
               str(args.limit), "--ct2-batch", str(args.ct2_batch)]  # fmt: skip
    out = subprocess.run(command, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"{engine} {precision} {workload} {level} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _search(beam: int) -> str:
    return "greedy" if beam == 1 else f"beam {beam}"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add = parser.add_argument
    add("--sizes", nargs="*", default=list(SIZES), choices=list(SIZES))
    add("--bundled", nargs="*", default=[], metavar="NAME",
        help="also bundled models (models/NAME) on their dev sets")  # fmt: skip
    add("--text", action="store_true",
        help="bundled models: also text in, text out (rows 'NAME ... text')")  # fmt: skip
    add("--long-tail", action="store_true",
        help="bundled models: also the dev set with paragraphs and long sentences (rows "
        "'NAME long-tail')")  # fmt: skip
    add("--ct2-batch", type=int, default=CT2_BATCH, metavar="N",
        help=f"CTranslate2's max_batch_size, bundled models (default {CT2_BATCH})")  # fmt: skip
    add("--limit", type=int, default=0, metavar="N",
        help="bundled models: only the first N inputs of each workload (quick runs)")  # fmt: skip
    add("--engines", nargs="+", default=list(ENGINES), choices=list(ENGINES))
    add("--rounds", type=int, default=3)
    add("--repeats", type=int, default=3, help="timed runs per search per round")
    add("--threads", type=int, default=2)
    add("--json", metavar="FILE", help="also write the results here")
    add("--ct2-configs", nargs="+", default=list(CT2_CONFIGS), choices=CT2_CONFIGS,
        help="with engine ct2: CTranslate2's configurations to measure (the tables take the "
        "faster)")  # fmt: skip
    add("--heedful-configs", nargs="+", default=list(HEEDFUL_CONFIGS), choices=HEEDFUL_CONFIGS,
        help="with engine heedful: its configurations to measure (the tables take the "
        "faster)")  # fmt: skip
    add("--worker", nargs=5, metavar=("ENGINE", "DIR", "PRECISION", "WORKLOAD", "LEVEL"),
        help=argparse.SUPPRESS)  # fmt: skip
    return parser.parse_args()


def main() -> None:
    global THREADS
    args = parse_args()
    ensure_allocator_env()
    THREADS = args.threads
    if args.worker:
        engine, directory, precision, workload, level = args.worker
        return worker(engine, Path(directory), precision, workload, level, args)
    torch.set_num_threads(THREADS)
    warnings.filterwarnings("ignore")

    from heedful.bundled import model_dir

    rows, load_before = [], os.getloadavg()  # other work on the machine skews every engine
    workloads = ["dev"] + ["long-tail"] * args.long_tail
    levels = ["ids"] + ["text"] * args.text
    with tempfile.TemporaryDirectory() as tmp:
        models = [(size, Path(tmp) / size, "random", "ids") for size in args.sizes]
        for size, directory, _, _ in models:
            write_marian_dir(directory, size)
        for name in args.bundled:  # linked, so that CTranslate2's exports land beside it in tmp
            (Path(tmp) / name).symlink_to(model_dir(name).resolve())
            for workload in workloads:
                for level in levels:
                    label = f"{name} {workload}" + (" text" if level == "text" else "")
                    models.append((label, Path(tmp) / name, workload, level))
        if "ct2" in args.engines:
            for directory in dict.fromkeys(directory for _, directory, _, _ in models):
                convert_for_ct2(directory)
        for label, directory, workload, level in models:
            rows += measure_rounds(label, directory, workload, level, args)
    print_tables(rows)
    if args.json:
        write_json(args, rows, load_before)


def measure_rounds(label: str, directory: Path, workload: str, level: str, args) -> list[dict]:
    """One table label's rows: every engine and precision over the rounds, the engines taking
    turns (their order reversed every other round), so that noise hits them alike."""
    runs: dict[tuple, list[tuple]] = {}  # -> (rate, cpu[, BLEU]) per round
    for round_ in range(args.rounds):
        chosen = {"ct2": args.ct2_configs, "heedful": args.heedful_configs}
        engines = [c for e in args.engines for c in chosen.get(e, [e])]
        engines = engines if round_ % 2 == 0 else engines[::-1]
        if is_bundled(directory):  # a heedful model, which HF cannot load
            engines = [engine for engine in engines if engine != "hf"]
        for precision in ("fp32", "int8"):
            for engine in engines:
                found = measure(engine, directory, precision, workload, level, args)
                for search, result in found.items():
                    runs.setdefault((search, precision, engine), []).append(tuple(result))
    rows = []
    for (search, precision, engine), per_round in runs.items():
        rate, cpu, *quality = max(per_round)
        row = dict(
            size=label, search=search, precision=precision, engine=engine,
            sentences_per_second=round(rate, 1), cpu_seconds=round(cpu, 3),
            per_round=[round(r[0], 1) for r in per_round], workload=workload, level=level,
        )  # fmt: skip
        if quality:
            row["bleu"] = quality[0]
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    return rows


def print_tables(rows: list[dict]) -> None:
    print(table(rows))
    print()
    print(paired_table(rows))
    if any(r["engine"] in CT2_CONFIGS + HEEDFUL_CONFIGS for r in rows):
        print()
        print(configs_table(rows))
    if any("bleu" in row for row in rows):
        print()
        print(bleu_table(rows))


def write_json(args, rows: list[dict], load_before) -> None:
    from heedful.decoding import BATCH_SIZE, BATCH_TOKENS

    info = {
        "threads": THREADS, "batch": BATCH, "source_tokens": SRC_LEN, "new_tokens": NEW_TOKENS,
        "vocab": VOCAB, "torch": torch.__version__,
        "machine": platform.processor() or platform.machine(), "allocator": ALLOCATOR_ENV,
        "rounds": args.rounds, "repeats": args.repeats, "one_process_per_engine": True,
        "load_average_before": load_before, "load_average_after": os.getloadavg(),
        "heedful_native_kernels": native.available(),
        "bundled_batches": {"heedful": {"batch_size": BATCH_SIZE, "batch_tokens": BATCH_TOKENS,
                                        "continuous": True}, "ct2": args.ct2_batch},
        "ct2_configs": {c: {"inter_threads": workers(c), "intra_threads": THREADS // workers(c)}
                        for c in args.ct2_configs},
        "heedful_configs": {c: {"processes": workers(c), "threads": THREADS // workers(c)}
                            for c in args.heedful_configs},
        "long_tail": {"seed": decode_workloads.SEED, "paragraphs": decode_workloads.PARAGRAPHS,
                      "long": decode_workloads.LONG},
        "limit": args.limit,
    }  # fmt: skip
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)  # bench/results on a fresh clone
    Path(args.json).write_text(json.dumps({"setup": info, "rows": rows}, indent=2) + "\n")


def at_best(rows: list[dict]) -> list[dict]:
    """The rows with each engine's configurations merged into one ("ct2", "heedful"): per cell
    its faster configuration's rate (and in each round, the faster one in that round)."""
    out, best = [], {}
    for r in rows:
        if r["engine"] not in CT2_CONFIGS + HEEDFUL_CONFIGS:
            out.append(r)
            continue
        key = (r["size"], r["search"], r["precision"], family(r["engine"]))
        if key not in best:
            best[key] = {**r, "engine": family(r["engine"]), "config": r["engine"]}
            continue
        kept = best[key]
        if r["sentences_per_second"] > kept["sentences_per_second"]:
            kept.update(sentences_per_second=r["sentences_per_second"], config=r["engine"])
        rounds = zip(kept["per_round"], r["per_round"], strict=True)
        kept["per_round"] = [max(a, b) for a, b in rounds]
    return out + list(best.values())


def configs_table(rows: list[dict]) -> str:
    """CTranslate2's and heedful's configurations side by side (sentences per second, fastest
    run)."""
    cell = {(r["size"], r["search"], r["precision"], r["engine"]): r["sentences_per_second"]
            for r in rows if r["engine"] in CT2_CONFIGS + HEEDFUL_CONFIGS}  # fmt: skip
    one, several = f"1 worker x {THREADS} threads", f"{THREADS} workers x 1 thread"
    names = {"ct2": f"CT2 {one}", "ct2-workers": f"CT2 {several}",
             "heedful": f"heedful {one}", "heedful-workers": f"heedful {several}"}  # fmt: skip
    configs = [c for c in CT2_CONFIGS + HEEDFUL_CONFIGS if any(k[3] == c for k in cell)]
    head = [f"{names[c]} {p}" for p in ("fp32", "int8") for c in configs]
    lines = ["| model | search | " + " | ".join(head) + " |",
             "| --- | --- |" + " ---: |" * len(head)]  # fmt: skip
    for size, search in sorted({k[:2] for k in cell}, key=_order):
        values = [_fmt(cell.get((size, search, p, c))) for p in ("fp32", "int8") for c in configs]
        lines.append(f"| {size} | {search} | " + " | ".join(values) + " |")
    return "\n".join(lines)


def table(rows: list[dict]) -> str:
    rows = at_best(rows)
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
    rates = {(r["size"], r["search"], r["precision"], r["engine"]): r["per_round"]
             for r in at_best(rows)}  # fmt: skip
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
            for r in at_best(rows) if "bleu" in r}  # fmt: skip
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
