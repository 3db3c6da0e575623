"""More than one process: ``torchrun --nproc_per_node K -m heedful train ...``.

torchrun sets RANK, WORLD_SIZE and LOCAL_RANK; each process joins a process group (gloo on CPU,
nccl on GPU) and wraps the model in DistributedDataParallel. Every update's batches are dealt
out to the processes; DDP averages their gradients, so all of them apply the same update as one
process would on the whole update. Only rank 0 writes files and prints.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch
import torch.distributed as dist


@dataclass(frozen=True)
class Distributed:
    rank: int = 0
    world_size: int = 1
    local_rank: int = 0

    @property
    def enabled(self) -> bool:
        return self.world_size > 1

    @property
    def is_main(self) -> bool:
        return self.rank == 0


def setup(device_type: str) -> Distributed:
    """Join the process group torchrun described in the environment (a no-op without one)."""
    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    if world_size == 1:
        return Distributed()
    rank, local_rank = int(os.environ["RANK"]), int(os.environ.get("LOCAL_RANK", "0"))
    if device_type == "cuda":
        torch.cuda.set_device(local_rank)
    if not dist.is_initialized():
        dist.init_process_group(backend="nccl" if device_type == "cuda" else "gloo")
    return Distributed(rank, world_size, local_rank)


def teardown(info: Distributed) -> None:
    """Leave the process group. Call ``barrier`` first when every rank finished well.

    Why the barrier: a gloo worker thread frees each collective's tensors just after the
    collective returns, and freeing a tensor that has a Python object takes the GIL. A rank that
    had nothing left to do after its last collective could reach interpreter shutdown before
    that thread got the GIL, and the thread then aborts the process ("terminate called without
    an active exception"; pytorch/pytorch#190489; 5 of 141 two-process runs here). Waiting in a
    barrier releases the GIL until the slowest rank is done, so those threads finish first.
    """
    if info.enabled and dist.is_initialized():
        dist.destroy_process_group()


def barrier(info: Distributed) -> None:
    if info.enabled:
        dist.barrier()


def all_reduce_sum(values: list[float], info: Distributed, device: torch.device) -> list[float]:
    """Element-wise sums over the processes (float64)."""
    if not info.enabled:
        return values
    tensor = torch.tensor(values, dtype=torch.float64, device=device)
    dist.all_reduce(tensor)
    return tensor.tolist()


def broadcast_flag(flag: bool, info: Distributed, device: torch.device) -> bool:
    """Rank 0's decision (e.g. early stopping), on every process."""
    if not info.enabled:
        return flag
    tensor = torch.tensor([int(flag)], device=device)
    dist.broadcast(tensor, src=0)
    return bool(tensor.item())


def gather_rng_states(info: Distributed) -> list[torch.Tensor]:
    """Every process's CPU RNG state (the dropout masks), in rank order."""
    state = torch.get_rng_state()
    if not info.enabled:
        return [state]
    if dist.get_backend() == "nccl":  # nccl moves cuda tensors only
        moved = state.cuda()
        states = [torch.empty_like(moved) for _ in range(info.world_size)]
        dist.all_gather(states, moved)
        return [s.cpu() for s in states]
    states = [torch.empty_like(state) for _ in range(info.world_size)]
    dist.all_gather(states, state)
    return states
