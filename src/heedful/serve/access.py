"""Who may ask: the Host header check, API keys and a rate limit per client.

- ``HostCheck`` answers 400 to a request whose ``Host`` header names no allowed host. A server on
  127.0.0.1 is reached by name through DNS rebinding (a page of evil.example whose address turns
  into 127.0.0.1 is sent with ``Host: evil.example``), and that is what the check stops. Loopback
  names are always allowed; ``*`` allows any host (a server behind a proxy that checks it).
- ``ApiKeys``: the keys of a file, one a line (``#`` starts a comment).
- ``RateLimit``: at most ``per_minute`` requests per client in any sliding minute.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Iterable
from pathlib import Path

from starlette.types import ASGIApp, Receive, Scope, Send

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")


def host_of(header: str) -> str:
    """A Host header's name without its port, lower case: "[::1]:8000" -> "::1"."""
    header = header.strip().lower()
    if header.startswith("["):  # an IPv6 address
        return header[1 : header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def error_body(path: str, message: str) -> bytes:
    """The JSON of an error: {"error": ...} for the LibreTranslate API, {"detail": ...} else."""
    key = "error" if path.startswith("/libretranslate") else "detail"
    return json.dumps({key: message}).encode()


async def send_error(scope: Scope, send: Send, status: int, message: str, headers=()) -> None:
    body = error_body(scope.get("path", ""), message)
    start = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": start + [*headers]})
    await send({"type": "http.response.body", "body": body})


class HostCheck:
    """400 unless the request's Host header names an allowed host (or a loopback name)."""

    def __init__(self, app: ASGIApp, allowed: Iterable[str] = ()):
        self.app = app
        self.allowed = {host_of(h) for h in allowed} | set(LOOPBACK_HOSTS)
        self.any = "*" in self.allowed

    def allows(self, header: str | None) -> bool:
        if self.any:
            return True
        if not header:
            return False
        name = host_of(header)
        return name in self.allowed or name.endswith(".localhost")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        header = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
        if not self.allows(header):
            shown = header[:100] or "(none)"
            await send_error(
                scope, send, 400,
                f"this server does not answer to the host name {shown!r}; its operator may "
                "allow it with `heedful serve --allowed-host NAME`",
            )  # fmt: skip
            return
        await self.app(scope, receive, send)


class ApiKeys:
    """The API keys of a file, one per line; blank lines and text after ``#`` are ignored."""

    def __init__(self, keys: Iterable[str]):
        self.keys = frozenset(keys)
        if not self.keys:
            raise ValueError("the API keys file holds no key")

    @classmethod
    def load(cls, path: str | Path) -> ApiKeys:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        try:
            return cls(k for line in lines if (k := line.split("#", 1)[0].strip()))
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self.keys


class RateLimit:
    """At most ``per_minute`` requests of one client in any 60 seconds (a sliding window)."""

    def __init__(self, per_minute: int, window_s: float = 60.0, clock=time.monotonic):
        if per_minute < 1:
            raise ValueError(
                f"the rate limit must be at least 1 request a minute, not {per_minute}"
            )
        self.per_minute = per_minute
        self.window_s = window_s
        self.clock = clock
        self._seen: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def wait_s(self, client: str) -> float:
        """0 and counts the request if ``client`` may ask now; else seconds until it may."""
        now = self.clock()
        with self._lock:
            if len(self._seen) > 10_000:  # forget the clients gone quiet
                self._seen = {c: t for c, t in self._seen.items() if now - t[-1] < self.window_s}
            times = self._seen.setdefault(client, deque())
            while times and now - times[0] >= self.window_s:
                times.popleft()
            if len(times) >= self.per_minute:
                return times[0] + self.window_s - now
            times.append(now)
            return 0.0
