"""Memory of a long-lived `heedful serve` under many requests: the server's resident memory
(RSS) after each quarter of N single-sentence requests from concurrent clients, loopback only.

    python bench/serve_memory.py --model models/es-en --requests 10000 --clients 64

Goal (issue 33): flat, i.e. the last quarter's RSS within a few percent of the first's.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=str(REPO / "models" / "es-en"))
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--clients", type=int, default=64)
    args = parser.parse_args()
    data = json.loads((Path(args.model) / "config.json").read_text())["data"]
    root = Path(data.get("root") or REPO.parent / "shared" / "data")
    column = data["columns"].index(data["src"])
    dev = [line.split("\t")[column] for line in (root / data["dev"]).read_text().splitlines()]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, "-m", "heedful", "serve", "--model", args.model, "--port", str(port)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                connection.request("GET", "/health")
                if connection.getresponse().status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                sys.exit("the server did not start")
            time.sleep(0.5)

        def send(i: int) -> int:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            body = json.dumps({"text": dev[i % len(dev)], "beam_size": 4})
            connection.request("POST", "/translate", body, {"Content-Type": "application/json"})
            status = connection.getresponse().status
            connection.close()
            return status

        print(f"idle: RSS {rss_mb(server.pid):.0f} MB")
        quarter = args.requests // 4
        errors = 0
        with ThreadPoolExecutor(args.clients) as pool:
            for q in range(4):
                start = time.perf_counter()
                statuses = list(pool.map(send, range(q * quarter, (q + 1) * quarter)))
                errors += sum(s != 200 for s in statuses)
                print(f"after {(q + 1) * quarter:,} requests: RSS {rss_mb(server.pid):.0f} MB "
                      f"({quarter / (time.perf_counter() - start):.0f} requests/s), "
                      f"{errors} errors so far")  # fmt: skip
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
