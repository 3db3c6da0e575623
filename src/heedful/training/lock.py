"""One trainer per run directory: ``DIR/train.lock``, locked (flock) by the process that trains.

The kernel drops an flock when its process ends, however it ends, so a lock file a crash left
behind (kill -9, a power cut) is free: the next trainer takes it over and says whose it was. The
file records who holds it (process, host, start, command), for the message that refuses a
second trainer, and is emptied when a run ends on its own. A run directory without the file (made
before there were locks) is locked the same way on its next ``--resume``.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_FILE = "train.lock"


class RunLocked(ValueError):
    """Another process is training in the run directory."""


@contextmanager
def run_lock(directory: Path) -> Iterator[str | None]:
    """Hold ``directory``'s lock while the block runs; yields a note to say when a stale lock
    was taken over (else None). Raises RunLocked, naming the holder, if another process has it."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / LOCK_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunLocked(
                f"{directory} is in use by another training ({describe(_read(fd))}); wait for it "
                f"to end or stop it, then `heedful train --resume {directory}`"
            ) from None
        left = _read(fd)
        note = None
        if left:
            note = (
                f"note: taking over {path}, left by {describe(left)}, which ended without "
                "releasing it (killed or crashed)"
            )
        _write(fd, holder())
        try:
            yield note
        finally:
            os.ftruncate(fd, 0)  # ended here: nothing stale is left for the next trainer
    finally:
        os.close(fd)  # releases the flock


def holder() -> dict:
    """Who this process is, as the lock file records it."""
    return {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
        "command": " ".join(["heedful", *sys.argv[1:]]),
    }


def describe(record: dict | None) -> str:
    if not record:
        return "a process that left no record"
    return (
        f"process {record.get('pid')} on {record.get('host')}, started {record.get('started')}: "
        f"`{record.get('command')}`"
    )


def _read(fd: int) -> dict | None:
    os.lseek(fd, 0, os.SEEK_SET)
    text = b""
    while chunk := os.read(fd, 65536):
        text += chunk
    try:
        record = json.loads(text) if text.strip() else None
    except (ValueError, UnicodeDecodeError):
        return {
            "pid": "?",
            "host": "?",
            "started": "?",
            "command": text[:80].decode(errors="replace"),
        }
    return record if isinstance(record, dict) else None


def _write(fd: int, record: dict) -> None:
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, (json.dumps(record) + "\n").encode())
    os.fsync(fd)
