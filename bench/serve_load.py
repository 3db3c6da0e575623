"""A bounded load test of `heedful serve`: the server in its own process, this one firing requests
at it over loopback, and /health polled all along.

    python bench/serve_load.py                        # a tiny random model made on the spot
    python bench/serve_load.py --model models/es-en --requests 200 --concurrency 200
    python bench/serve_load.py --endpoint attention --json bench/results/serve_load.json

Each request translates one Spanish sentence of Tatoeba's dev set (a different one each time).
All ``--concurrency`` requests go at once; the run stops after ``--requests`` requests or
``--deadline`` seconds, whichever comes first (requests still out then count as errors).
Meanwhile a third process asks for /health every 0.1 s. Reports latency (p50, p99, max),
throughput, errors by status, how /health answered, and how the server batched the work. Only
127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / ".." / "shared" / "data" / "tatoeba" / "spa-eng" / "dev.tsv"
HOST = "127.0.0.1"


def percentile(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) of the values."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]


def sentences(n: int) -> list[str]:
    with open(DEV, encoding="utf-8") as f:
        spanish = [line.rstrip("\n").split("\t")[1] for line in f]
    return [spanish[(i * 7) % len(spanish)] for i in range(n)]  # spread over short and long


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def start_server(model: Path, port: int, threads: int | None) -> subprocess.Popen:
    """`heedful serve` with its defaults (a 30 s timeout, 256 requests queued a model)."""
    command = [sys.executable, "-m", "heedful", "serve", "--model", str(model), "--host", HOST,
               "--port", str(port)]  # fmt: skip
    if threads is not None:
        command += ["--threads", str(threads)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


async def wait_until_up(base: str, server: subprocess.Popen, seconds: float = 120) -> None:
    async with httpx.AsyncClient() as client:
        for _ in range(int(seconds * 10)):
            if server.poll() is not None:
                raise SystemExit("the server stopped: " + server.stderr.read().decode()[-2000:])
            try:
                if (await client.get(base + "/health")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
    raise SystemExit(f"the server did not answer /health within {seconds:.0f} s")


def poll_health(base: str, stop, answers) -> None:
    """In a process of its own, so that its timings are the server's, not this one's: GET
    /health every 0.1 s until ``stop``; puts (latencies of the answers, failures)."""
    latencies, failures = [], 0
    while not stop.is_set():
        start = time.perf_counter()
        try:
            with urllib.request.urlopen(base + "/health", timeout=5) as response:
                response.read()
            latencies.append(time.perf_counter() - start)
        except OSError:
            failures += 1
        time.sleep(0.1)
    answers.put((latencies, failures))


async def load(base: str, args: argparse.Namespace) -> dict:
    texts = sentences(args.requests)
    load_before = os.getloadavg()[0]
    gate = asyncio.Semaphore(args.concurrency)
    limits = httpx.Limits(max_connections=args.concurrency + 1)
    latencies: list[float] = []
    errors: dict[str, int] = {}

    async with httpx.AsyncClient(limits=limits, timeout=args.deadline) as client:

        async def one(text: str) -> None:
            async with gate:
                body = {"text": text, "beam_size": args.beam}
                if args.endpoint == "attention":
                    body.update(kind="cross", layer=-1, head="mean")
                start = time.perf_counter()
                try:
                    r = await client.post(f"{base}/{args.endpoint}", json=body)
                    status = str(r.status_code)
                except httpx.HTTPError as e:
                    status = type(e).__name__
                if status == "200":
                    latencies.append(time.perf_counter() - start)
                else:
                    errors[status] = errors.get(status, 0) + 1

        stop = multiprocessing.Event()
        answers = multiprocessing.Queue()
        poller = multiprocessing.Process(target=poll_health, args=(base, stop, answers))
        poller.start()
        start = time.perf_counter()
        tasks = [asyncio.create_task(one(t)) for t in texts]
        finished, late = await asyncio.wait(tasks, timeout=args.deadline)
        elapsed = time.perf_counter() - start
        for task in late:
            task.cancel()
        if late:
            errors["not answered by the deadline"] = len(late)
        stop.set()
        health, health_errors = answers.get(timeout=30)
        poller.join(timeout=30)
        counters = (await client.get(base + "/health")).json()["models"]

    return {
        "requests": args.requests,
        "concurrency": args.concurrency,
        "endpoint": args.endpoint,
        "beam_size": args.beam,
        "server_threads": args.threads,
        "load_average_before": round(load_before, 2),  # other work on the machine
        "answered": len(latencies),
        "errors": errors,
        "seconds": round(elapsed, 2),
        "throughput_per_s": round(len(latencies) / elapsed, 1),
        "latency_s": {
            "p50": round(percentile(latencies, 50), 3) if latencies else None,
            "p99": round(percentile(latencies, 99), 3) if latencies else None,
            "max": round(max(latencies), 3) if latencies else None,
            "mean": round(statistics.fmean(latencies), 3) if latencies else None,
        },
        "health": {
            "answered": len(health),
            "failed": health_errors,
            "p50_s": round(percentile(health, 50), 4) if health else None,
            "p99_s": round(percentile(health, 99), 4) if health else None,
            "max_s": round(max(health), 4) if health else None,
        },
        "server": counters,
    }


def report(result: dict, model: str) -> str:
    lat, health = result["latency_s"], result["health"]
    errors = sum(result["errors"].values())
    (name, counters), *_ = result["server"].items()
    batches = counters["batches"]
    mean_batch = counters["texts"] / batches if batches else 0
    return "\n".join(
        [
            f"heedful serve under load: {model}, POST /{result['endpoint']}, beam "
            f"{result['beam_size']}, server --threads {result['server_threads'] or 'default'}, "
            f"{os.cpu_count()} CPUs, {platform.machine()}",
            f"  {result['requests']} requests, {result['concurrency']} at once: "
            f"{result['answered']} answered, {errors} errors {result['errors'] or ''}".rstrip(),
            f"  latency p50 {lat['p50']} s, p99 {lat['p99']} s, max {lat['max']} s",
            f"  throughput {result['throughput_per_s']} requests/s over {result['seconds']} s",
            f"  /health during the load: {health['answered']} answered (p50 {health['p50_s']} s, "
            f"p99 {health['p99_s']} s, max {health['max_s']} s), {health['failed']} failed",
            f"  server: {batches} batches for {counters['texts']} texts (mean {mean_batch:.1f}, "
            f"largest {counters['largest_batch']})"
            if result["endpoint"] == "translate"
            else "  server: one Translator.attend call a request (attention is not batched)",
            f"  machine load average before the run: {result['load_average_before']}",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, help="a model directory (default: a tiny one)")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=200, help="requests out at once")
    parser.add_argument("--deadline", type=float, default=60.0, help="seconds for the whole run")
    parser.add_argument("--endpoint", choices=("translate", "attention"), default="translate")
    parser.add_argument("--beam", type=int, default=4)
    parser.add_argument("--threads", type=int, help="the server's --threads (default: its own)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if not 1 <= args.concurrency <= 256:  # the server queues 256 requests a model
        parser.error("--concurrency must be between 1 and 256")

    with tempfile.TemporaryDirectory() as tmp:
        model = args.model
        if model is None:
            sys.path.insert(0, str(ROOT / "tests"))
            from serve_support import make_model_dir

            model = make_model_dir(Path(tmp) / "tiny-random-es-en")
        port = free_port()
        base = f"http://{HOST}:{port}"
        server = start_server(model, port, args.threads)
        try:
            asyncio.run(wait_until_up(base, server))
            result = asyncio.run(load(base, args))
        finally:
            server.terminate()
            server.wait(timeout=30)
    label = str(args.model) if args.model else "tiny random model (2+2 layers, d_model 64)"
    print(report(result, label))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"model": label, **result}, indent=2) + "\n")


if __name__ == "__main__":
    main()
