"""Memory of a long-lived `heedful serve`: the server's resident memory (RSS) under many small
requests, or after one maximal request (loopback only).

    python bench/serve_memory.py --model models/es-en --requests 10000 --clients 64
    python bench/serve_memory.py --model models/es-en --peak [--maximal 4]

Default mode: RSS after each quarter of N single-sentence requests from concurrent clients. Goal
(issue 33): flat, i.e. the last quarter's RSS within a few percent of the first's.

``--peak`` (issue 31): RSS idle (after a few warm-up requests), at the peak of ``--maximal``
maximal requests sent at once (32 texts of about 1,000 characters, beam 8; default one), and 10,
30 and 60 s after the last answer, with
where the resident memory lies (/proc/PID/smaps: the brk heap, other anonymous mappings such as
threads' malloc arenas, files). Goal: back within 1.5x of idle within a minute.
"""

from __future__ import annotations

import argparse
import http.client
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from serve_load import free_port, paragraphs, rss_mb  # bench/serve_load.py, beside this one

REPO = Path(__file__).resolve().parents[1]
AFTER_S = (10, 30, 60)


def rss_by_kind(pid: int) -> dict[str, float]:
    """Resident MB by kind of mapping: the brk heap, anonymous mappings (threads' malloc arenas,
    large blocks, stacks), and files (libraries, the model's weights if mapped)."""
    kinds = {"heap": 0.0, "anonymous": 0.0, "files": 0.0}
    kind = "anonymous"
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        first = line.split(maxsplit=1)[0]
        if not first.endswith(":"):  # a mapping's header: address perms offset dev inode [path]
            fields = line.split(maxsplit=5)
            path = fields[5] if len(fields) > 5 else ""
            kind = "heap" if path == "[heap]" else "files" if path.startswith("/") else "anonymous"
        elif first == "Rss:":
            kinds[kind] += int(line.split()[1]) / 1024
    return {k: round(v) for k, v in kinds.items()}


def post(port: int, body: dict, timeout: float = 600) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    connection.request("POST", "/translate", json.dumps(body), {"Content-Type": "application/json"})
    status = connection.getresponse().status
    connection.close()
    return status


def start_server(model: str, extra: list[str]) -> tuple[subprocess.Popen, int]:
    port = free_port()
    command = [sys.executable, "-m", "heedful", "serve", "--model", model, "--port", str(port),
               *extra]  # fmt: skip
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while True:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/health")
            if connection.getresponse().status == 200:
                return server, port
        except OSError:
            pass
        if time.monotonic() > deadline or server.poll() is not None:
            server.kill()
            sys.exit("the server did not start")
        time.sleep(0.5)


def many_requests(pid: int, port: int, dev: list[str], args: argparse.Namespace) -> None:
    def send(i: int) -> int:
        return post(port, {"text": dev[i % len(dev)], "beam_size": 4}, timeout=60)

    print(f"idle: RSS {rss_mb(pid):.0f} MB")
    quarter = args.requests // 4
    errors = 0
    with ThreadPoolExecutor(args.clients) as pool:
        for q in range(4):
            start = time.perf_counter()
            statuses = list(pool.map(send, range(q * quarter, (q + 1) * quarter)))
            errors += sum(s != 200 for s in statuses)
            print(f"after {(q + 1) * quarter:,} requests: RSS {rss_mb(pid):.0f} MB "
                  f"({quarter / (time.perf_counter() - start):.0f} requests/s), "
                  f"{errors} errors so far")  # fmt: skip


def peak_then_idle(pid: int, port: int, dev: list[str], maximal: int) -> None:
    for i in range(16):  # warm up: the kernels built, the first batches' allocations made
        post(port, {"text": dev[i], "beam_size": 4})
    time.sleep(2)
    idle = rss_mb(pid)
    print(f"idle: RSS {idle:.0f} MB {rss_by_kind(pid)}")
    peak = idle
    body = {"texts": paragraphs(32, lines=dev), "beam_size": 8}
    start = time.perf_counter()
    with ThreadPoolExecutor(maximal) as pool:
        asks = [pool.submit(post, port, body) for _ in range(maximal)]
        while not all(a.done() for a in asks):
            peak = max(peak, rss_mb(pid))
            time.sleep(0.2)
    done = time.perf_counter()
    statuses = sorted(a.result() for a in asks)
    print(f"{maximal} maximal request(s) at once (32 texts of about 1,000 characters, beam 8): "
          f"{statuses} after {done - start:.1f} s; peak RSS {peak:.0f} MB "
          f"({peak / idle:.2f}x idle)")  # fmt: skip
    for after in AFTER_S:
        time.sleep(max(0.0, done + after - time.perf_counter()))
        rss = rss_mb(pid)
        print(f"{after} s after: RSS {rss:.0f} MB ({rss / idle:.2f}x idle) {rss_by_kind(pid)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=str(REPO / "models" / "es-en"))
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--peak", action="store_true", help="idle, maximal requests, idle")
    parser.add_argument("--maximal", type=int, default=1, help="--peak: requests sent at once")
    parser.add_argument("--server-args", default="", help="more arguments for `heedful serve`")
    args = parser.parse_args()
    data = json.loads((Path(args.model) / "config.json").read_text())["data"]
    root = Path(data.get("root") or REPO.parent / "shared" / "data")
    column = data["columns"].index(data["src"])
    dev = [line.split("\t")[column] for line in (root / data["dev"]).read_text().splitlines()]
    server, port = start_server(args.model, args.server_args.split())
    try:
        if args.peak:
            peak_then_idle(server.pid, port, dev, args.maximal)
        else:
            many_requests(server.pid, port, dev, args)
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
