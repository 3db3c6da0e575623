"""The HTTP API and the page: ``create_app`` builds a FastAPI app around one or more Translators.

    POST /translate   {"text": "Hola."} or {"texts": [...]}, "model", "beam_size", "format"
                      (text or html), "alignments" (word links), "offsets"; the answer
                      has "warnings" where a translation may be wrong
    POST /attention   {"text": ..., "kind", "layer", "head", "level", "top"}: tokens and weights
    GET  /models      what each model translates
    GET  /health      liveness, and each model's queue
    GET  /            the page (static files, nothing from elsewhere); OpenAPI at /docs
    /libretranslate/  the LibreTranslate API (heedful.serve.libretranslate)

The routes only check and forward: translating is ``Translator.translate_n_best`` and attention
is ``Translator.attend``, each run on the model's own thread, which batches the requests of both
APIs fairly (``heedful.serve.worker``). Every error answers JSON ``{"detail": ...}`` (the
LibreTranslate API's ``{"error": ...}``): 400 a Host header naming another server (DNS
rebinding; ``allowed_hosts``), 404 an unknown model, 413 a body over ``max_body_bytes``, 422
invalid JSON, a field of the wrong type, an empty or too long text, or a layer that does not
exist, 503 a model with too many requests waiting, 504 a request that went ``timeout_s`` without
progress (waiting for its model, at first or between two batches of its texts: a long request
whose texts keep being translated is answered however long it takes in all; see
``heedful.serve.worker``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException as StarletteHTTPException

from heedful import native
from heedful.explain.alignment_spans import utf16_links
from heedful.explain.page import shared_script
from heedful.serve.access import ApiKeys, HostCheck, RateLimit, error_body
from heedful.serve.attention import attention_payload
from heedful.serve.libretranslate import LibreTranslate, libretranslate_router
from heedful.serve.limits import BodyLimit, MergeSlashes, PageHeaders
from heedful.serve.markup import parse, translate_markups
from heedful.serve.memory import bound_native_caches
from heedful.serve.schemas import (
    AttentionRequest,
    AttentionResponse,
    Health,
    ModelInfo,
    Problem,
    TranslateRequest,
    TranslateResponse,
)
from heedful.serve.worker import Busy, ModelWorker, Stalled
from heedful.translator import Translation, Translator

STATIC = Path(__file__).parent / "static"
TIMEOUT_S = 30.0
MAX_BODY_BYTES = 256 * 1024  # 32 texts of 1000 characters, each escaped as \uXXXX, fit
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": Problem} for code in (400, 404, 413, 422, 503, 504)
}


def load_translators(model_dirs: Sequence[str | Path]) -> dict[str, Translator]:
    """Model directories -> {name: Translator}; a name is the directory's own name (es-en)."""
    translators: dict[str, Translator] = {}
    for directory in model_dirs:
        name = Path(directory).resolve().name
        if name in translators:
            raise ValueError(
                f"two models are named {name!r} ({directory}); name them with NAME=DIR"
            )
        translators[name] = Translator.load(directory)
    return translators


def create_app(
    models: Mapping[str, Translator | str | Path] | Sequence[str | Path],
    *,
    timeout_s: float = TIMEOUT_S,
    max_body_bytes: int = MAX_BODY_BYTES,
    max_waiting: int = 256,
    threads: int | None = None,
    allowed_hosts: Sequence[str] = (),
    api_keys: ApiKeys | str | Path | None = None,
    rate_limit: int | None = None,
) -> FastAPI:
    """The app. ``models``: model directories, or {name: Translator or directory}; the first is
    the default. ``timeout_s``: the longest a request goes without progress (waiting for its
    model, at first or between batches of its texts) before it is answered 504;
    ``max_waiting``: requests queued per model before it answers 503; ``threads``: torch's
    threads for each model's calls (default: half the cores; the other half parse requests,
    tokenize and answer, and a torch thread waiting for a busy core stalls all the others).
    ``allowed_hosts``: host names the Host header may give besides loopback ones ("*": any).
    ``api_keys`` (keys or a file of them) and ``rate_limit`` (requests a minute per client) guard
    the LibreTranslate API."""
    bound_native_caches()  # before any model runs in this process
    if not isinstance(models, Mapping):
        models = load_translators(models)
    translators = {
        name: t if isinstance(t, Translator) else Translator.load(t) for name, t in models.items()
    }
    if not translators:
        raise ValueError("give at least one model")
    threads = threads or default_threads()
    workers = {
        name: ModelWorker(name, t, max_waiting=max_waiting, threads=threads, patience=timeout_s)
        for name, t in translators.items()
    }
    default = next(iter(workers))

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        await run_in_threadpool(native.build)  # compiled as the server starts, not in a request
        yield
        for worker in workers.values():
            worker.close()

    app = FastAPIOffline(  # FastAPI whose /docs serve Swagger UI's files locally, not from a CDN
        title="heedful",
        summary="Translate with a Transformer and see where its attention goes.",
        version="0.1.0",
        lifespan=lifespan,
    )
    app.state.workers = workers
    app.add_middleware(PageHeaders)
    app.add_middleware(BodyLimit, max_bytes=max_body_bytes)
    app.add_middleware(MergeSlashes)
    app.add_middleware(HostCheck, allowed=allowed_hosts)  # the outermost: first to answer
    add_error_handlers(app)

    def worker_for(name: str | None) -> ModelWorker:
        name = default if name is None else name
        if name not in workers:
            have = ", ".join(workers)
            raise HTTPException(404, f"unknown model {name!r}; this server has: {have}")
        return workers[name]

    async def in_time(work):
        """A worker's answer; 504 when it stalled (no progress in ``timeout_s``)."""
        try:
            return await work
        except Stalled:
            raise HTTPException(
                504,
                f"no progress on this request in {timeout_s:g} s (the model is busy); try again "
                "later, or a shorter text or a smaller beam",
            ) from None

    @app.post(
        "/translate",
        response_model=TranslateResponse,
        response_model_exclude_none=True,
        responses=ERRORS,
    )
    async def translate(request: TranslateRequest) -> dict[str, Any]:
        """Translate one text or a list of them (batched with other requests waiting); a blank
        text in a list is translated as "". ``format: html``: HTML fragments, tags kept around
        the words aligned to theirs. ``alignments``: each translation's word links. Where a
        translation may be wrong, ``warnings`` says so, naming the sentence."""
        worker = worker_for(request.model)
        texts = [request.text] if request.texts is None else request.texts
        out: dict[str, Any] = {"model": worker.name, "beam_size": request.beam_size}
        if request.format == "html":
            markups = await parse(texts)
            translations, notes = await translate_markups(
                worker, in_time, markups, request.beam_size
            )
            if any(notes):
                out["warnings"] = notes[0] if request.texts is None else notes
        else:
            work = worker.translate(texts, request.beam_size, alignments=request.alignments)
            found = [options[0] for options in await in_time(work)]
            translations = [t.text for t in found]
            if any(t.warnings for t in found):
                notes = [t.warnings for t in found]
                out["warnings"] = notes[0] if request.texts is None else notes
            if request.alignments:
                utf16 = request.offsets == "utf16"
                links = [link_records(text, t, utf16) for text, t in zip(texts, found, strict=True)]
                if request.texts is None:
                    out["alignment"] = links[0]
                else:
                    out["alignments"] = links
        if request.texts is None:
            return {**out, "translation": translations[0]}
        return {**out, "translations": translations}

    @app.post("/attention", response_model=AttentionResponse, responses=ERRORS)
    async def attention(request: AttentionRequest) -> JSONResponse:
        """Translate one text (or force ``target``): its tokens and attention weights, every
        kind, layer and head or those asked for, and the explainer's table."""
        worker = worker_for(request.model)
        try:
            attended = await in_time(worker.attend(request.text, request.target, request.beam_size))
            payload = await run_in_threadpool(attention_payload, attended, request)
        except ValueError as e:  # e.g. a text of unknown characters, a layer that is not there
            raise HTTPException(422, str(e)) from None
        return JSONResponse({"model": worker.name, "beam_size": request.beam_size, **payload})

    @app.get("/models", response_model=list[ModelInfo])
    async def models_() -> list[dict[str, Any]]:
        """The models, the default first."""
        return [model_info(name, w.translator) for name, w in workers.items()]

    @app.get("/health", response_model=Health)
    async def health() -> dict[str, Any]:
        """Answers at once, however busy the models are."""
        return {
            "status": "ok",
            "models": {name: vars(w.counters).copy() for name, w in workers.items()},
        }

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/static/shared.js", include_in_schema=False)
    async def shared() -> Response:  # the script the offline attention page inlines
        return Response(shared_script(), media_type="text/javascript")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    if isinstance(api_keys, str | Path):
        api_keys = ApiKeys.load(api_keys)
    limit = None if rate_limit is None else RateLimit(rate_limit)
    app.state.libretranslate = LibreTranslate(workers, in_time, api_keys, limit)
    app.include_router(libretranslate_router(app.state.libretranslate))
    return app


def link_records(source: str, translation: Translation, utf16: bool = False) -> list[dict]:
    """A translation's word links as the API writes them (``WordLink``), offsets in code points
    or in UTF-16 code units."""
    links = translation.alignment or []
    if utf16:
        links = utf16_links(links, source, translation.text)
    return [link.record() for link in links]


def default_threads() -> int:
    return max(1, (os.cpu_count() or 2) // 2)


def model_info(name: str, translator: Translator) -> dict[str, Any]:
    data = translator.meta.get("data", {})
    return {
        "name": name,
        "source_language": data.get("src"),
        "target_language": data.get("tgt"),
        "n_layers": translator.config.n_decoder_layers,
        "n_heads": translator.config.n_heads,
    }


def problem(request: Request, status: int, message: str, headers=None) -> Response:
    """An error as JSON: {"detail": message}, or the LibreTranslate API's {"error": message}."""
    body = error_body(request.url.path, message)
    return Response(body, status, headers=headers, media_type="application/json")


def add_error_handlers(app: FastAPI) -> None:
    """Every error as JSON {"detail": a sentence}; validation errors also list each problem,
    without echoing the input back."""

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [
            {"loc": list(e.get("loc", ())), "type": e.get("type"), "msg": e.get("msg")}
            for e in exc.errors()
        ]
        detail = "; ".join(_describe(e) for e in errors) or "invalid request"
        return JSONResponse({"detail": detail, "errors": errors}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return problem(request, exc.status_code, exc.detail, exc.headers)

    @app.exception_handler(Exception)
    async def failed(request: Request, exc: Exception) -> JSONResponse:
        return problem(request, 500, f"internal error: {type(exc).__name__}: {exc}")

    @app.exception_handler(Busy)
    async def busy(request: Request, exc: Busy) -> JSONResponse:
        return problem(request, 503, f"{exc}; try again in a moment", {"Retry-After": "1"})


def _describe(error: dict[str, Any]) -> str:
    loc = [str(x) for x in error["loc"] if x != "body"]
    msg = error["msg"]
    if error["type"] == "json_invalid":
        return "the body is not valid JSON"
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    return f"{'.'.join(loc)}: {msg}" if loc else msg
