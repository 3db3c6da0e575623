"""A bounded load test of `heedful serve` against `heedful translate` on the same sentences.

    python bench/serve_load.py                          # a tiny random model made on the spot
    python bench/serve_load.py --model models/es-en --json bench/results/serve_load.json

1. `heedful translate -i FILE` on ``--sentences`` Spanish sentences of Tatoeba's dev set (the
   process's start, timed on a one-line file, is taken off): sentences per second.
2. `heedful serve` in its own process, one sentence a request, from 1, 8 and 64 clients at once
   (``--clients``): sentences per second, latency p50 / p99, errors.
3. Fairness (issue 31): four maximal requests (32 texts of about 1,000 characters, beam 8) sent
   at once, while one client sends a short sentence every 0.2 s: the short requests' p50 / p99
   (goal: p99 <= 1 s, no 504), and how the maximal ones ended (the server's timeout counts
   time without progress: none of them should be 504 either; ``--timeout 5`` shows it on a
   fast machine, where the four take less than the default 30 s in all).
4. Memory: the server's resident set idle, at the peak of (3), and after it, polled for up to a
   minute (goal: back within 1.5x of idle).

Only 127.0.0.1 is contacted; every phase stops at ``--deadline`` seconds (requests still out then
count as errors).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / ".." / "shared" / "data" / "tatoeba" / "spa-eng" / "dev.tsv"
HOST = "127.0.0.1"
SHORT = "El gato negro duerme en el jardín."


def percentile(values: list[float], p: float) -> float | None:
    """The p-th percentile (nearest rank) of the values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]


def spanish() -> list[str]:
    with open(DEV, encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t")[1] for line in f]


def sentences(n: int) -> list[str]:
    lines = spanish()
    return [lines[(i * 7) % len(lines)] for i in range(n)]  # spread over short and long


def paragraphs(n: int, chars: int = 1000, lines: list[str] | None = None) -> list[str]:
    """n texts of dev sentences (``lines``, default the Spanish dev set), each as close to
    ``chars`` characters as they come."""
    lines, out, at = lines or spanish(), [], 0
    for _ in range(n):
        text = ""
        while len(text) + 1 + len(lines[at % len(lines)]) <= chars:
            text = f"{text} {lines[at % len(lines)]}".strip()
            at += 1
        out.append(text)
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def command_line(model: Path, texts: list[str], beam: int, folder: Path, threads: int) -> dict:
    """`heedful translate` on the texts as one file, with the server's torch threads
    (OMP_NUM_THREADS); its start (a one-line file) taken off."""
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}

    def timed(lines: list[str], name: str) -> float:
        source, target = folder / f"{name}.es", folder / f"{name}.en"
        source.write_text("\n".join(lines) + "\n", encoding="utf-8")
        command = [sys.executable, "-m", "heedful", "translate", "--model", str(model),
                   "--beam", str(beam), "-i", str(source), "-o", str(target)]  # fmt: skip
        start = time.perf_counter()
        subprocess.run(command, check=True, stderr=subprocess.DEVNULL, env=env)
        return time.perf_counter() - start

    timed(texts[:1], "warm")  # builds the native kernels, fills the page cache
    whole = timed(texts, "all")
    start = timed(texts[:1], "one")
    return {
        "sentences": len(texts),
        "threads": threads,
        "seconds": round(whole, 2),
        "start_seconds": round(start, 2),
        "sentences_per_s": round(len(texts) / max(whole - start, 1e-9), 1),
    }


class Connection:
    """One keep-alive HTTP/1.1 connection, as lean as a client gets: the load runs on the
    server's machine, and httpx's client took as much CPU per request as the server did."""

    def __init__(self, port: int):
        self.port = port
        self.streams = None

    async def post(self, path: str, body: dict, timeout: float) -> str:
        """POST a JSON body; the answer's status ("200") or what went wrong."""
        data = json.dumps(body).encode()
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {HOST}:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
        )
        try:
            return await asyncio.wait_for(self._exchange(head.encode() + data), timeout)
        except (OSError, asyncio.IncompleteReadError, TimeoutError) as e:
            self.close()
            return type(e).__name__

    async def _exchange(self, request: bytes) -> str:
        if self.streams is None:
            self.streams = await asyncio.open_connection(HOST, self.port)
        reader, writer = self.streams
        writer.write(request)
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").lower()
        length = int(head.split("content-length:")[1].split("\r\n")[0])
        await reader.readexactly(length)
        if "connection: close" in head:
            self.close()
        return head.split(" ", 2)[1]

    def close(self) -> None:
        if self.streams is not None:
            self.streams[1].close()
            self.streams = None


async def send(connection: Connection, body: dict, statuses: dict, deadline: float):
    """POST /translate; (seconds, status)."""
    start = time.perf_counter()
    status = await connection.post("/translate", body, deadline)
    statuses[status] = statuses.get(status, 0) + 1
    return time.perf_counter() - start, status


async def clients_at_once(port: int, texts: list[str], clients: int, beam: int, deadline: float):
    """``clients`` clients, each sending one sentence at a time until the texts run out."""
    todo = list(reversed(texts))
    latencies: list[float] = []
    statuses: dict[str, int] = {}

    async def one_client():
        connection = Connection(port)
        while todo:
            body = {"text": todo.pop(), "beam_size": beam}
            seconds, status = await send(connection, body, statuses, deadline)
            if status == "200":
                latencies.append(seconds)
        connection.close()

    start = time.perf_counter()
    tasks = [asyncio.create_task(one_client()) for _ in range(clients)]
    _, late = await asyncio.wait(tasks, timeout=deadline)
    elapsed = time.perf_counter() - start
    for task in late:
        task.cancel()
    if late or todo:
        statuses["not sent or answered by the deadline"] = len(todo) + len(late)
    return {
        "clients": clients,
        "requests": len(texts),
        "answered": len(latencies),
        "statuses": statuses,
        "seconds": round(elapsed, 2),
        "sentences_per_s": round(len(latencies) / elapsed, 1),
        "p50_s": _round(percentile(latencies, 50)),
        "p99_s": _round(percentile(latencies, 99)),
    }


async def fairness(port: int, pid: int, deadline: float) -> dict:
    """Four maximal requests at once, and short ones every 0.2 s while they run."""
    big = {"texts": paragraphs(32), "beam_size": 8}
    short_latencies: list[float] = []
    short_statuses: dict[str, int] = {}
    big_statuses: dict[str, int] = {}
    peak = rss_mb(pid)
    start = time.perf_counter()
    bigs = [asyncio.create_task(send(Connection(port), big, big_statuses, deadline))
            for _ in range(4)]  # fmt: skip
    await asyncio.sleep(0.5)  # the maximal ones are queued and running
    short = Connection(port)
    while not all(b.done() for b in bigs) and time.perf_counter() - start < deadline:
        body = {"text": SHORT, "beam_size": 4}
        seconds, status = await send(short, body, short_statuses, deadline)
        if status == "200":
            short_latencies.append(seconds)
        peak = max(peak, rss_mb(pid))
        await asyncio.sleep(0.2)
    short.close()
    left = max(1.0, deadline - (time.perf_counter() - start))
    done, late = await asyncio.wait(bigs, timeout=left)
    for task in late:
        task.cancel()
    return {
        "maximal_request": "32 texts of about 1,000 characters, beam 8",
        "maximal_statuses": {**big_statuses, **({"unanswered": len(late)} if late else {})},
        "maximal_seconds": sorted(round(t.result()[0], 1) for t in done),
        "short_requests": sum(short_statuses.values()),
        "short_statuses": short_statuses,
        "short_p50_s": _round(percentile(short_latencies, 50)),
        "short_p99_s": _round(percentile(short_latencies, 99)),
        "short_max_s": _round(max(short_latencies, default=None)),
        "rss_peak_mb": round(peak, 1),
    }


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


async def wait_until_up(base: str, server: subprocess.Popen, log: Path, seconds=120.0) -> None:
    async with httpx.AsyncClient() as client:
        for _ in range(int(seconds * 10)):
            if server.poll() is not None:
                raise SystemExit("the server stopped: " + log.read_text()[-2000:])
            try:
                if (await client.get(base + "/health")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
    raise SystemExit(f"the server did not answer /health within {seconds:.0f} s")


async def serve_phases(port: int, pid: int, args: argparse.Namespace) -> dict:
    texts = sentences(args.sentences)
    await clients_at_once(port, texts[:16], 8, args.beam, args.deadline)  # warm up
    idle = rss_mb(pid)
    levels = [await clients_at_once(port, texts, c, args.beam, args.deadline)
              for c in args.clients]  # fmt: skip
    result = {"levels": levels}
    if not args.skip_fairness:
        result["fairness"] = await fairness(port, pid, args.deadline)
        after, waited = rss_mb(pid), 0
        while after > 1.5 * idle and waited < 60:
            await asyncio.sleep(1)
            after, waited = rss_mb(pid), waited + 1
        result["memory"] = {"idle_mb": round(idle, 1), "peak_mb": result["fairness"]["rss_peak_mb"],
                            "after_mb": round(after, 1), "seconds_to_settle": waited}  # fmt: skip
    return result


def report(result: dict) -> str:
    cli = result["command_line"]
    lines = [
        f"heedful serve under load: {result['model']}, beam {result['beam_size']}, "
        f"{os.cpu_count()} CPUs ({platform.machine()}), load average before "
        f"{result['load_average_before']}, server timeout {result['server_timeout'] or 'default'}",
        f"  heedful translate ({cli['threads']} torch threads, as the server), "
        f"{cli['sentences']} sentences from a file: "
        f"{cli['sentences_per_s']} sentences/s ({cli['seconds']} s, {cli['start_seconds']} s of "
        "it starting)",
    ]
    for level in result["levels"]:
        ratio = level["sentences_per_s"] / cli["sentences_per_s"]
        lines.append(
            f"  {level['clients']:>2} clients, one sentence a request: {level['sentences_per_s']} "
            f"sentences/s ({ratio:.0%} of the command's), p50 {level['p50_s']} s, "
            f"p99 {level['p99_s']} s, statuses {level['statuses']}"
        )
    if "fairness" in result:
        f, m = result["fairness"], result["memory"]
        lines += [
            f"  four maximal requests ({f['maximal_request']}): {f['maximal_statuses']} after "
            f"{f['maximal_seconds']} s",
            f"  meanwhile {f['short_requests']} short requests: p50 {f['short_p50_s']} s, "
            f"p99 {f['short_p99_s']} s, max {f['short_max_s']} s, statuses {f['short_statuses']}",
            f"  server memory: {m['idle_mb']} MB idle, {m['peak_mb']} MB at the peak, "
            f"{m['after_mb']} MB {m['seconds_to_settle']} s after",
        ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, help="a model directory (default: a tiny one)")
    parser.add_argument("--sentences", type=int, default=256)
    parser.add_argument("--clients", type=lambda s: [int(x) for x in s.split(",")],
                        default=[1, 8, 64], help="client counts, comma-separated")  # fmt: skip
    parser.add_argument("--beam", type=int, default=4)
    parser.add_argument("--deadline", type=float, default=120.0, help="seconds for each phase")
    parser.add_argument("--threads", type=int, help="the server's --threads (default: its own)")
    parser.add_argument("--timeout", type=float, help="the server's --timeout (default: its own)")
    parser.add_argument("--skip-fairness", action="store_true")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if not all(1 <= c <= 256 for c in args.clients):  # the server queues 256 requests a model
        parser.error("--clients must be between 1 and 256")

    with tempfile.TemporaryDirectory() as tmp:
        model = args.model
        if model is None:
            sys.path.insert(0, str(ROOT / "tests"))
            from serve_support import make_model_dir

            model = make_model_dir(Path(tmp) / "tiny-random-es-en")
        load_before = os.getloadavg()[0]
        threads = args.threads or max(1, (os.cpu_count() or 2) // 2)  # the server's default
        cli = command_line(model, sentences(args.sentences), args.beam, Path(tmp), threads)
        port = free_port()
        base = f"http://{HOST}:{port}"
        command = [sys.executable, "-m", "heedful", "serve", "--model", str(model),
                   "--host", HOST, "--port", str(port)]  # fmt: skip
        if args.threads is not None:
            command += ["--threads", str(args.threads)]
        if args.timeout is not None:
            command += ["--timeout", str(args.timeout)]
        log = Path(tmp) / "server.log"
        with open(log, "w") as out:  # a file, not a pipe nobody reads: a full pipe blocks
            server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=out)
        try:
            asyncio.run(wait_until_up(base, server, log))
            served = asyncio.run(serve_phases(port, server.pid, args))
        finally:
            server.terminate()
            server.wait(timeout=30)
    label = str(args.model) if args.model else "tiny random model (2+2 layers, d_model 64)"
    result = {"model": label, "beam_size": args.beam, "load_average_before": round(load_before, 2),
              "server_threads": args.threads, "server_timeout": args.timeout,
              "command_line": cli, **served}  # fmt: skip
    print(report(result))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
