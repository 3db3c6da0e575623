"""`heedful serve`: the HTTP API and the web page, on this machine only unless told otherwise.

heedful serve --model models/es-en                      # http://127.0.0.1:8000/
heedful serve --model models/es-en --model en=models/de-en --port 8080
heedful serve --host 0.0.0.0 --allowed-host translate.example.org --api-keys keys.txt

Each --model is a model directory, named by the directory's name (es-en) or by NAME=DIR; the
first is the default. The page is at /, the API's documentation at /docs, and the LibreTranslate
API at /libretranslate/ (the base URL to give its clients).
"""

from __future__ import annotations

import argparse
import ipaddress
import sys
from pathlib import Path

from heedful.bundled import model_dir

DEFAULT_MODEL = model_dir()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model",
        action="append",
        metavar="[NAME=]DIR",
        help=f"a model directory; repeat for more (default: {DEFAULT_MODEL} if it exists)",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="S",
        help="seconds a request may go without progress before it is answered 504: waiting "
        "for its model, at first or between batches of its texts; a long request whose texts "
        "keep being translated is answered however long it takes (default 30)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        metavar="N",
        help="torch threads for each model (default: half the cores)",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name clients may reach the server by, besides loopback names and --host; "
        "repeat for more; * for any (default: loopback names only, against DNS rebinding)",
    )
    parser.add_argument(
        "--api-keys",
        metavar="FILE",
        help="LibreTranslate API: a file of API keys, one a line; requests without one get 403",
    )
    parser.add_argument(
        "--rate-limit",
        type=int,
        metavar="N",
        help="LibreTranslate API: requests a minute per client (per key with --api-keys); "
        "more get 429 (default: no limit)",
    )


def model_dirs(specs: list[str] | None) -> dict[str, Path]:
    """--model arguments -> {name: directory}, in order."""
    if not specs:
        if not DEFAULT_MODEL.is_dir():
            raise ValueError(f"give a model directory with --model DIR ({DEFAULT_MODEL} not found)")
        specs = [str(DEFAULT_MODEL)]
    dirs: dict[str, Path] = {}
    for spec in specs:
        name, _, directory = spec.rpartition("=") if not Path(spec).exists() else ("", "", spec)
        path = Path(directory)
        name = name or path.resolve().name
        if not path.is_dir():
            raise FileNotFoundError(f"model directory not found: {path}")
        if name in dirs:
            raise ValueError(f"two models are named {name!r}: name one with --model NAME=DIR")
        dirs[name] = path
    return dirs


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from heedful.serve import create_app

    if args.timeout <= 0:
        raise ValueError(f"--timeout must be positive, not {args.timeout}")
    if not 0 <= args.port <= 65535:  # the socket's OverflowError was a traceback
        raise ValueError(f"--port must be 0 to 65535, not {args.port}")
    if args.threads is not None and args.threads < 1:
        raise ValueError(f"--threads must be at least 1, not {args.threads}")
    if not _is_loopback(args.host):
        print(
            f"heedful serve: listening on {args.host}: anyone who can reach it may use the models "
            "(only the LibreTranslate API can ask for keys, with --api-keys); it answers "
            "requests that name it by its address or a name given with --allowed-host",
            file=sys.stderr,
        )
    if args.rate_limit is not None and args.rate_limit < 1:
        raise ValueError(f"--rate-limit must be at least 1, not {args.rate_limit}")
    if args.api_keys is not None and not Path(args.api_keys).is_file():
        raise FileNotFoundError(f"API keys file not found: {args.api_keys}")
    allowed = list(args.allowed_host)
    if args.host not in ("0.0.0.0", "::", ""):
        allowed.append(args.host)  # reached by the address it listens on
    app = create_app(
        model_dirs(args.model),
        timeout_s=args.timeout,
        threads=args.threads,
        allowed_hosts=allowed,
        api_keys=args.api_keys,
        rate_limit=args.rate_limit,
    )
    uvicorn.run(app, host=args.host, port=args.port, log_level="info")
    return 0


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
