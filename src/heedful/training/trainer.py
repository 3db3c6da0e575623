"""The training loop: the paper's recipe on a RunConfig, with checkpoints one can resume exactly.

    prepare data -> build model and Adam -> (restore state) -> repeat:
        take the next update's batches -> train_step -> log -> evaluate -> save

``DIR`` always holds the latest complete model directory plus its training state; ``DIR/best/``
the model with the best dev BLEU so far (the lowest dev loss for a language model). Ctrl-C (or
SIGTERM) finishes the current update, saves, and stops: ``--resume DIR`` goes on from there as if
nothing had happened; a second Ctrl-C stops at once.

The task (``config.task``) picks the model, the data and what validation reports: a translation
``Transformer`` on sentence pairs (dev loss, BLEU, chrF), or a ``DecoderOnlyLM`` on text (dev
loss and perplexity); everything else is shared.
"""

from __future__ import annotations

import signal
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch
from torch import nn

from heedful.checkpoint import (
    WEIGHTS_FILE,
    atomic_write_json,
    load_model_dir,
    load_tensors,
    load_weights,
    read_json,
    save_model_dir,
)
from heedful.devices import pick_device
from heedful.lm import DecoderOnlyLM
from heedful.model import Transformer
from heedful.tokenizer import Tokenizer
from heedful.training import distributed
from heedful.training.alignment import AlignmentHead
from heedful.training.batching import BatchStream, collate
from heedful.training.checkpoints import best_record, keep_last, model_dir_extra, saved_models
from heedful.training.config import RunConfig
from heedful.training.evaluation import dev_loss, translate, translation_scores
from heedful.training.lock import run_lock
from heedful.training.prepare import RunData, prepare_data
from heedful.training.progress import CURVES_FILE, Progress, RunLog, plot_curves
from heedful.training.schedule import cooldown_factor, learning_rate
from heedful.training.state import (
    DamagedState,
    load_training_state,
    read_info,
    save_training_state,
)
from heedful.training.step import autocast, build_optimizer, train_step
from heedful.training.text import prepare_text

RUN_CONFIG_FILE = "train_config.json"
MODELS = {"translation": Transformer, "lm": DecoderOnlyLM}  # by config.task
PREPARE = {"translation": prepare_data, "lm": prepare_text}


def train(config: RunConfig, out: str | Path, *, resume: bool = False) -> dict[str, Any]:
    """Train (or, with ``resume``, continue training) into the model directory ``out``, holding
    its lock (``heedful.training.lock``) throughout."""
    out = Path(out)
    if resume and not out.is_dir():
        raise FileNotFoundError(f"nothing to resume in {out}: no such directory")
    device = pick_device(config.train.device, "train.device")
    dist = distributed.setup(device.type)
    if dist.enabled and device.type == "cuda":
        device = torch.device("cuda", dist.local_rank)
    try:
        with _locked(out, dist):
            info = Trainer(config, out, device, dist, resume=resume).run()
        # why: distributed.teardown. Not on failure: the other ranks would never get here.
        distributed.barrier(dist)
        return info
    finally:
        distributed.teardown(dist)


@contextmanager
def _locked(out: Path, dist) -> Iterator[None]:
    """Rank 0 holds the run directory's lock (the other ranks write nothing there); if it is
    refused, rank 0 fails, and torchrun stops the other ranks."""
    if not dist.is_main:
        yield
        return
    with run_lock(out) as note:
        if note:
            print(note, flush=True)
        yield


def _dropout(model_section: dict[str, Any]) -> dict[str, Any]:
    """The settings a fine-tuning run may change in its start model's shape: dropout."""
    return {k: v for k, v in model_section.items() if k == "dropout"}


class Trainer:
    def __init__(self, config, out: Path, device, dist, *, resume: bool):
        self.config: RunConfig = config
        self.out, self.device, self.dist = out, device, dist
        self.progress = Progress(config.train.max_steps, enabled=dist.is_main)
        self.log = RunLog(out, enabled=dist.is_main)
        try:
            info, damaged = read_info(out), None
        except DamagedState as e:  # resuming falls back to an older checkpoint (_restore)
            info, damaged = None, e
        if resume and info is None and damaged is None:
            raise FileNotFoundError(f"nothing to resume in {out}: no training_state.safetensors")
        if not resume and (info is not None or damaged is not None):
            at = f"step {info['step']}" if info is not None else "its training state is damaged"
            raise ValueError(
                f"{out} already holds a training run ({at}); continue it with "
                f"--resume {out}, or choose another --out"
            )
        if dist.is_main:
            out.mkdir(parents=True, exist_ok=True)
            atomic_write_json(out / RUN_CONFIG_FILE, config.to_dict())
        init = load_model_dir(config.train.init_from) if config.train.init_from else None
        if resume:
            tokenizer = Tokenizer.load(out / "spm.model")
        elif init is not None:
            tokenizer = init[1].with_digits_split() if config.data.split_digits else init[1]
            if dist.is_main:
                tokenizer.save(out / "spm.model")
        else:
            tokenizer = None
        extra = {}
        if config.task == "translation":
            extra = {"augmentation": config.augment, "seed": config.train.seed,
                     "align": config.align.weight > 0}  # fmt: skip
        self.data: RunData = PREPARE[config.task](
            config.data, out, dist=dist, say=self.progress.say, tokenizer=tokenizer, **extra
        )
        torch.manual_seed(config.train.seed)  # the same initial weights on every process
        if init is not None:  # fine-tuning: the shape and weights of init_from
            model_config = replace(init[0].config, **_dropout(config.model))
        else:
            model_config = config.model_config(self.data.tokenizer.vocab_size)
        self.model = MODELS[config.task](model_config).to(device)
        if init is not None and not resume:
            self.model.load_state_dict(init[0].state_dict())
        del init
        self.align_head = None
        if config.align.weight > 0:
            layer = config.align.layer
            if layer is None:
                layer = max(0, model_config.n_decoder_layers - 2)
            self.align_head = AlignmentHead(self.model, layer, config.align.head)
            self.alignment_record = {"method": config.align.position, "layer": layer,
                                     "heads": [config.align.head],
                                     "chosen_on": "guided training (eflomal)"}  # fmt: skip
        self.model.train()
        self.optimizer = build_optimizer(
            self.model, beta1=config.optim.beta1, beta2=config.optim.beta2, eps=config.optim.eps
        )
        self.info = {"step": 0, "epoch": 0, "batch_index": 0, "best": None,
                     "evals_since_best": 0, "stopped": None, "target_tokens": 0}  # fmt: skip
        torch.manual_seed(config.train.seed + dist.rank)  # dropout differs between processes
        if resume:
            self._restore(damaged)
        self.stream = BatchStream(
            self.data.train, config.train.batch_tokens, seed=config.train.seed,
            epoch=self.info["epoch"], index=self.info["batch_index"],
        )  # fmt: skip
        self.ddp = self._wrap(self.model)
        self.saved_step: int | None = None
        # sums since the last log line; saved with the state, so a resumed run logs the same
        self.window = {"loss": 0.0, "nll": 0.0, "tokens": 0, "time": time.perf_counter()}

    def _wrap(self, model: nn.Module) -> nn.Module:
        if not self.dist.enabled:
            return model
        ids = [self.device.index] if self.device.type == "cuda" else None
        # the only buffers are the fixed sinusoidal positions: nothing to sync before a forward
        return nn.parallel.DistributedDataParallel(
            model, device_ids=ids, forward_sync_buffers=False
        )

    def _restore(self, damaged: DamagedState | None = None) -> None:
        """Continue exactly from DIR's training state; if it is damaged, from the newest intact
        checkpoint (``_restore_from_checkpoint``)."""
        if damaged is None:
            try:
                info, rng = load_training_state(self.out, self.model, self.optimizer)
            except DamagedState as e:
                damaged = e
        if damaged is not None:
            self._restore_from_checkpoint(damaged)
            return
        self.info.update(info)
        key = f"torch.rank{self.dist.rank}"
        if info.get("world_size", 1) == self.dist.world_size and key in rng:
            torch.set_rng_state(rng[key])
            if self.device.type == "cuda" and f"cuda.rank{self.dist.rank}" in rng:
                torch.cuda.set_rng_state(rng[f"cuda.rank{self.dist.rank}"])
        else:
            self.progress.say("note: a different number of processes; dropout is reseeded")
            torch.manual_seed(self.config.train.seed + 1_000_003 * info["step"] + self.dist.rank)
        self.log.truncate_after(info["step"])
        self.progress.say(f"resuming {self.out} at step {info['step']}")

    def _restore_from_checkpoint(self, damaged: DamagedState) -> None:
        """The newest model directory of the run whose weights load (DIR itself, DIR/checkpoints/
        step-*, DIR/best), with the step, data position and best scores its config.json records.
        Adam's moments and the dropout RNG were not kept there: they start afresh, said aloud."""
        found = self._load_newest_intact()
        if found is None:
            raise ValueError(
                f"{damaged}; and no intact checkpoint in {self.out} to resume from instead "
                "(keep some with train.keep_checkpoints)"
            )
        directory, training = found
        step = training["step"]
        self.info.update(
            step=step, epoch=training.get("epoch") or 0,
            batch_index=training.get("batch_index") or 0,
            target_tokens=training.get("target_tokens") or 0, best=best_record(training),
        )  # fmt: skip
        torch.manual_seed(self.config.train.seed + 1_000_003 * step + self.dist.rank)
        self.log.truncate_after(step)
        if self.dist.is_main:
            epoch = self.info["epoch"]
            data = "" if "batch_index" in training else f", the data from epoch {epoch}'s start"
            warnings.warn(
                f"{damaged}; resuming from {directory} at step {step} instead (Adam's moments "
                f"and dropout's random state start afresh{data}: not bit-identical to a run "
                "never interrupted)",
                stacklevel=2,
            )

    def _load_newest_intact(self) -> tuple[Path, dict[str, Any]] | None:
        """Load the weights of the newest of the run's saved models that loads; returns it and
        its config.json's training section, or None."""
        for directory, training in saved_models(self.out):
            weights = directory / WEIGHTS_FILE
            try:
                load_weights(self.model, load_tensors(weights), weights)
            except (OSError, ValueError):  # missing, unreadable or damaged
                continue
            return directory, training
        return None

    # --- the loop ------------------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        train, world = self.config.train, self.dist.world_size
        self.progress.say(
            f"{self.model.num_parameters():,} parameters; {self.stream.batches_per_epoch:,} "
            f"batches per epoch, {self.stream.padding_fraction():.1%} of their tokens padding; "
            f"an update is {train.accumulation} x {world} batches of <= {train.batch_tokens:,} "
            "tokens"
        )
        self.progress.start(self.info["step"])
        window = self.window
        window["time"] = time.perf_counter()
        saved = self.info.pop("log_window", None)
        if saved and self.dist.is_main:  # the steps since the last log line, before a resume
            seconds = saved.pop("seconds", 0.0)
            window.update(saved, time=window["time"] - seconds)
        step = self.info["step"]
        with stop_signals() as stop:
            while step < train.max_steps and self.info["stopped"] is None:
                step = self._update(step, window)
                if distributed.broadcast_flag(bool(stop), self.dist, self.device):
                    if self.saved_step != step:
                        self.save(step, snapshot=False)
                    self.info["stopped"] = f"interrupted ({stop[0]})"
                    self.progress.say(
                        f"{stop[0]}: stopped and saved at step {step}; "
                        f"go on with `heedful train --resume {self.out}`"
                    )
        if self.info["stopped"] is None:
            self.info["stopped"] = "max_steps"
        if self.dist.is_main:
            plot_curves(self.log.path, self.out / CURVES_FILE)
        self.progress.close()
        return dict(self.info)

    def _update(self, step: int, window: dict) -> int:
        """One update (train_step), then logging, evaluation and saving as they fall due."""
        train, optim = self.config.train, self.config.optim
        world = self.dist.world_size
        batches = self.stream.take(train.accumulation * world)
        update_tokens = sum(self.stream.tgt_lengths[i] for b in batches for i in b)
        mine = [
            collate(self.data.train, b, start_id=self.model.config.start_id,
                    eos_id=self.model.config.eos_id,
                    align_shift=int(self.config.align.position != "predict"))
            for b in batches[self.dist.rank :: world]
        ]  # fmt: skip
        step += 1
        lr = learning_rate(
            step, d_model=self.model.config.d_model, warmup_steps=optim.warmup_steps,
            scale=optim.lr_scale,
        )  # fmt: skip
        lr *= cooldown_factor(step, max_steps=train.max_steps, cooldown_steps=optim.cooldown_steps)
        stats = train_step(
            self.ddp, self.optimizer, mine, update_tokens=update_tokens, lr=lr,
            epsilon=optim.label_smoothing, precision=train.precision,
            clip_norm=optim.clip_norm, world_size=world,
            align_head=self.align_head, align_weight=self.config.align.weight,
            full_context=self.config.align.position == "full",
            align_reverse=self.config.align.reverse,
        )  # fmt: skip
        self.info.update(step=step, **self._position())
        self.info["target_tokens"] += update_tokens
        window["loss"] += stats.loss
        window["nll"] += stats.nll
        window["tokens"] += stats.tokens
        window["align"] = window.get("align", 0.0) + stats.align
        record = None
        if step % train.log_every == 0 or step == train.max_steps:
            record = self._log_train(step, lr, stats.grad_norm, window)
        self.progress.update(step, record)
        evaluate = self.config.eval.every and step % self.config.eval.every == 0
        pause = time.perf_counter()
        if evaluate or step == train.max_steps:
            self.evaluate(step)
        if evaluate or step % train.save_every == 0 or step == train.max_steps:
            self.save(step)
            window["time"] += time.perf_counter() - pause  # tokens/s counts training only
        return step

    def _position(self) -> dict[str, int]:
        return {"epoch": self.stream.epoch, "batch_index": self.stream.index}

    def _log_train(self, step: int, lr: float, grad_norm, window: dict) -> dict[str, Any]:
        loss, nll, tokens = distributed.all_reduce_sum(
            [window["loss"], window["nll"], float(window["tokens"])], self.dist, self.device
        )
        elapsed = time.perf_counter() - window["time"]
        record = {
            "kind": "train", "step": step, "loss": loss / max(tokens, 1),
            "nll": nll / max(tokens, 1), "lr": lr, "tokens_per_s": tokens / max(elapsed, 1e-9),
            "epoch": self.stream.epoch, "padding": self.stream.padding_fraction(),
            "grad_norm": grad_norm,
        }  # fmt: skip
        if self.align_head is not None:  # this process's sum, per target token
            record["align_loss"] = window.get("align", 0.0) / max(window["tokens"], 1)
        self.log.write(record)
        window.update(loss=0.0, nll=0.0, tokens=0, align=0.0, time=time.perf_counter())
        return record

    # --- evaluation and checkpoints -------------------------------------------------------------

    def evaluate(self, step: int) -> None:
        """Dev loss, BLEU and chrF on rank 0; a better BLEU saves DIR/best; patience may stop."""
        stop = False
        if self.dist.is_main:
            record = {"kind": "dev", "step": step, **self._dev_scores()}
            self.log.write(record)
            metric = record["bleu"] if record.get("bleu") is not None else -record["loss"]
            best = self.info["best"]
            if best is None or metric > best["metric"]:
                self.info["best"] = {"step": step, "metric": metric, **record}
                self.info["evals_since_best"] = 0
                self._save_model(self.out / "best", step)
            else:
                self.info["evals_since_best"] += 1
            patience = self.config.eval.patience
            stop = patience is not None and self.info["evals_since_best"] >= patience
            unigram = self.data.meta.get("unigram_dev_ppl")
            self.progress.say(
                f"step {step}: dev loss {record['loss']:.3f}, perplexity {record['ppl']:.1f}"
                + (f" (unigram {unigram:.1f})" if unigram else "")
                + (f", BLEU {record['bleu']:.2f}, chrF {record['chrf']:.2f}" if "bleu" in record
                   else "")
                + f" (best at step {self.info['best']['step']})"
                + (f"; no better for {patience} evaluations: stopping" if stop else "")
            )  # fmt: skip
        if distributed.broadcast_flag(stop, self.dist, self.device):
            self.info["stopped"] = "early"

    def _dev_scores(self) -> dict[str, float]:
        cfg = self.config.eval
        scores = dev_loss(
            self.model, self.data.dev, batch_tokens=self.config.train.batch_tokens,
            epsilon=self.config.optim.label_smoothing,
            autocast=autocast(self.device, self.config.train.precision), device=self.device,
        )  # fmt: skip
        n = len(self.data.dev_sources) if cfg.bleu_sentences is None else cfg.bleu_sentences
        if n > 0 and self.config.task == "translation":
            hypotheses = translate(
                self.model, self.data.tokenizer, self._meta(), self.data.dev_sources[:n],
                beam_size=cfg.beam_size, batch_sentences=cfg.batch_sentences,
            )  # fmt: skip
            scores.update(translation_scores(hypotheses, self.data.dev_references[:n]))
        return scores

    def save(self, step: int, *, snapshot: bool = True) -> None:
        """The latest model directory and its training state (all ranks' RNG states); with
        ``snapshot``, also a copy in DIR/checkpoints/ (the last few are kept, for averaging)."""
        self.saved_step = step
        window = self.window
        loss, nll, tokens = distributed.all_reduce_sum(
            [window["loss"], window["nll"], float(window["tokens"])], self.dist, self.device
        )
        seconds = time.perf_counter() - window["time"]
        self.info["log_window"] = {
            "loss": loss,
            "nll": nll,
            "tokens": int(tokens),
            "seconds": seconds,
            **({"align": window.get("align", 0.0)} if self.align_head is not None else {}),
        }
        rng = {f"torch.rank{r}": s for r, s in enumerate(distributed.gather_rng_states(self.dist))}
        if self.device.type == "cuda" and not self.dist.enabled:
            rng["cuda.rank0"] = torch.cuda.get_rng_state()
        if not self.dist.is_main:
            return
        self._save_model(self.out, step)
        info = {**self.info, "world_size": self.dist.world_size}
        save_training_state(self.out, self.model, self.optimizer, info, rng)
        if snapshot and self.config.train.keep_checkpoints:
            keep_last(self.out / "checkpoints", step, self.config.train.keep_checkpoints,
                      lambda d: self._save_model(d, step))  # fmt: skip

    def _save_model(self, directory: Path, step: int) -> None:
        extra = model_dir_extra(step, self.info)
        if self.align_head is not None:
            extra["alignment"] = self.alignment_record
        save_model_dir(
            directory, self.model, self.data.tokenizer, data=self.data.meta, extra=extra
        )  # fmt: skip
        if self.data.lexicon is not None:  # names and accents at translation (heedful.lexicon)
            self.data.lexicon.write(directory)
        if self.data.linked_words is not None:  # for alignments (heedful.explain.linked_words)
            self.data.linked_words.write(directory)

    def _meta(self) -> dict[str, Any]:
        return {"data": self.data.meta, "model": self.model.config.to_dict()}


def load_run_config(directory: str | Path) -> dict[str, Any]:
    """The RunConfig a run in ``directory`` was started with, as a dict."""
    path = Path(directory) / RUN_CONFIG_FILE
    if not path.is_file():
        raise FileNotFoundError(f"nothing to resume in {directory}: no {RUN_CONFIG_FILE} there")
    return read_json(path)


@contextmanager
def stop_signals() -> Iterator[list[str]]:
    """Collect SIGINT and SIGTERM instead of dying mid-update: the list yielded gets the signal's
    name, and the loop stops at the end of the update. A second signal acts as usual."""
    received: list[str] = []
    if threading.current_thread() is not threading.main_thread():
        yield received  # only the main thread may set handlers
        return
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}

    def handler(number, frame):
        received.append(signal.Signals(number).name)
        for s, action in previous.items():  # the next one stops at once
            signal.signal(s, action)

    for s in previous:
        signal.signal(s, handler)
    try:
        yield received
    finally:
        for s, action in previous.items():
            signal.signal(s, action)
