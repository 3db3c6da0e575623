"""DistributedDataParallel on CPU (gloo): one update by 2 processes equals the single-process
update on the same global batch."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from safetensors.torch import load_file, save_file

from heedful import ModelConfig, Transformer
from heedful.training import distributed
from heedful.training import trainer as trainer_module
from heedful.training.batching import Batch
from heedful.training.config import load_config
from heedful.training.step import build_optimizer, train_step

REPO = Path(__file__).resolve().parents[1]
LR = 1e-3


def random_batch(seed, b=3, s=6, t=5, vocab=50):
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(4, vocab, (b, s), generator=g)
    labels = torch.randint(4, vocab, (b, t), generator=g)
    src[0, -(seed % 3) - 1 :] = 0  # different padding in every batch
    labels[1, -(seed % 2) - 1 :] = 0
    tgt_in = torch.cat([torch.ones(b, 1, dtype=torch.long), labels[:, :-1]], dim=1)
    return Batch(src, tgt_in.masked_fill(labels == 0, 0), labels)


BATCHES = [random_batch(seed) for seed in range(4)]  # one update: 2 processes x 2 micro-batches
TOKENS = sum(b.target_tokens for b in BATCHES)


def fresh_model():
    torch.manual_seed(0)
    return Transformer(ModelConfig.tiny(50, dropout=0.0))


def update(model, batches, world_size):
    optimizer = build_optimizer(model, beta1=0.9, beta2=0.98, eps=1e-9)
    train_step(model, optimizer, batches, update_tokens=TOKENS, lr=LR, world_size=world_size)


def worker(rank, folder):
    torch.set_num_threads(1)
    dist.init_process_group(
        "gloo", init_method=f"file://{folder}/rendezvous", rank=rank, world_size=2
    )
    model = fresh_model()
    ddp = torch.nn.parallel.DistributedDataParallel(model, forward_sync_buffers=False)
    update(ddp, BATCHES[rank::2], world_size=2)  # as the trainer deals them out
    tensors = {f"grad/{n}": p.grad for n, p in model.named_parameters()}
    tensors.update({f"weight/{n}": p.detach() for n, p in model.named_parameters()})
    save_file({k: v.contiguous() for k, v in tensors.items()}, f"{folder}/rank{rank}.safetensors")
    dist.destroy_process_group()


def test_two_processes_make_the_single_process_update(tmp_path):
    mp.spawn(worker, args=(str(tmp_path),), nprocs=2, join=True)
    model = fresh_model()
    torch.set_num_threads(1)
    update(model, BATCHES, world_size=1)
    ranks = [load_file(tmp_path / f"rank{r}.safetensors") for r in range(2)]
    for name, p in model.named_parameters():
        # every process holds the same averaged gradient and applies the same update...
        assert torch.equal(ranks[0][f"grad/{name}"], ranks[1][f"grad/{name}"]), name
        assert torch.equal(ranks[0][f"weight/{name}"], ranks[1][f"weight/{name}"]), name
        # ...which is the gradient of the whole update in one process (summed in another order)
        torch.testing.assert_close(ranks[0][f"grad/{name}"], p.grad, rtol=1e-5, atol=1e-8)
        if name.endswith("k_proj.bias"):
            continue  # zero in exact arithmetic: Adam turns its float noise into steps of +-lr
        torch.testing.assert_close(ranks[0][f"weight/{name}"], p.detach(), rtol=1e-5, atol=1e-7)


def test_torchrun_trains_like_one_process_with_accumulation(tmp_path):
    """`torchrun --nproc_per_node 2 -m heedful train`: 2 x 1 batches per update give exactly the
    weights of 1 process x 2 accumulated batches."""
    settings = ["--config", "configs/tiny-smoke.yaml", "--set", "data.train_pairs=200",
                "data.dev_pairs=10", "train.batch_tokens=128", "train.max_steps=3",
                "train.log_every=1", "eval.bleu_sentences=0", "model.dropout=0.0"]  # fmt: skip
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HEEDFUL_KEEP_MALLOC": "1"}
    single = [sys.executable, "-m", "heedful", "train", *settings, "train.accumulation=2"]
    torchrun = [sys.executable, "-m", "torch.distributed.run", "--standalone",
                "--nproc_per_node", "2", "-m", "heedful", "train", *settings]  # fmt: skip
    for command, out in ((single, "single"), (torchrun, "ddp")):
        done = subprocess.run([*command, "--out", str(tmp_path / out)], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=600)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
    a = load_file(tmp_path / "single" / "model.safetensors")
    b = load_file(tmp_path / "ddp" / "model.safetensors")
    for name in a:
        assert torch.equal(a[name], b[name]), name
    state = load_file(tmp_path / "ddp" / "training_state.safetensors")
    assert {"rng/torch.rank0", "rng/torch.rank1"} <= set(state)


class _Trainer:
    """Stands in for Trainer in ``train``: a run that finishes."""

    def __init__(self, *args, **kwargs):
        pass

    def run(self):
        return {"stopped": "max_steps"}


class _FailingTrainer(_Trainer):
    def run(self):
        raise RuntimeError("this rank failed")


@pytest.mark.parametrize("stand_in", [_Trainer, _FailingTrainer])
def test_ranks_meet_before_leaving_only_when_they_finished(monkeypatch, tmp_path, stand_in):
    """A rank that finished waits in a barrier before leaving the process group (so gloo's
    threads let go of the last collective's tensors before the interpreter shuts down); a rank
    that failed leaves at once instead of waiting for ranks that will never come."""
    calls = []
    monkeypatch.setattr(trainer_module, "Trainer", stand_in)
    monkeypatch.setattr(distributed, "setup", lambda device_type: distributed.Distributed(0, 2))
    monkeypatch.setattr(distributed.dist, "barrier", lambda: calls.append("barrier"))
    monkeypatch.setattr(distributed.dist, "is_initialized", lambda: True)
    monkeypatch.setattr(distributed.dist, "destroy_process_group", lambda: calls.append("leave"))
    config = load_config(REPO / "configs" / "tiny-smoke.yaml")
    if stand_in is _FailingTrainer:
        with pytest.raises(RuntimeError, match="this rank failed"):
            trainer_module.train(config, tmp_path)
        assert calls == ["leave"]
    else:
        assert trainer_module.train(config, tmp_path) == {"stopped": "max_steps"}
        assert calls == ["barrier", "leave"]
