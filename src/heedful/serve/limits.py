"""Small ASGI middlewares: a limit on request bodies, the page's security headers, and paths
with doubled slashes made single."""

from __future__ import annotations

import re

from fastapi import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from heedful.serve.access import error_body

# The page loads only its own files: no CDN, no inline script, nothing sent elsewhere.
PAGE_POLICY = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)


class BodyLimit:
    """413 for a body over ``max_bytes``: at once when Content-Length says so, else as soon as
    the bytes received pass the limit (a chunked upload), before the app has read them all."""

    def __init__(self, app: ASGIApp, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(scope, send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:  # FastAPI turns this into the JSON answer
                    raise HTTPException(413, self._too_large)
            return message

        await self.app(scope, counted, send)

    @property
    def _too_large(self) -> str:
        return f"the request body is larger than {self.max_bytes} bytes"

    async def _refuse(self, scope: Scope, send: Send) -> None:
        body = error_body(scope["path"], self._too_large)
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


class PageHeaders:
    """A Content-Security-Policy on every answer that is not under /docs or /redoc (FastAPI's
    API pages, which load Swagger UI and ReDoc from their CDN), and no MIME sniffing."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        docs = scope["path"].startswith(("/docs", "/redoc"))

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.append((b"x-content-type-options", b"nosniff"))
                if not docs:
                    headers.append((b"content-security-policy", PAGE_POLICY.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


class MergeSlashes:
    """/libretranslate//translate is /libretranslate/translate: a client that joins a base URL
    ending in / with a path starting with / (Mastodon does) still finds the route."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and "//" in scope["path"]:
            scope = {**scope, "path": re.sub("/{2,}", "/", scope["path"])}
        await self.app(scope, receive, send)
