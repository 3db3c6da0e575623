"""The LibreTranslate API, mounted under /libretranslate/: clients of LibreTranslate (Mastodon,
Weblate, libretranslatepy, deep-translator, browser extensions) take it as their base URL.

    POST /libretranslate/translate   q (a text or a list), source (a code or "auto"), target,
                                     format ("text" or "html"), alternatives, api_key;
                                     heedful's own: alignments (true: word links)
    POST /libretranslate/detect      q: [{"language": "es", "confidence": 97.2}, ...]
    GET  /libretranslate/languages   [{"code": "es", "name": "Spanish", "targets": ["en"]}, ...]

As LibreTranslate reads them, fields come from a JSON object, a form (urlencoded or multipart) or
the query string alike, and errors answer {"error": "..."}: 400 a missing or invalid field or a
language pair no model translates, 403 a missing or unknown API key (when the server has keys),
429 a client over the rate limit; and, as heedful's own API, 413 a body too large, 503 a model
with too many requests waiting, 504 no progress in time. /languages needs no key and is not
limited, as in LibreTranslate.

Translation is heedful's: each (source, target) pair is the first model that translates it,
through its ``ModelWorker`` (so requests of both APIs are batched together), at beam 4, or more
when more ``alternatives`` (the n-best list) are asked for. ``format=html`` translates each
block's sentences whole and puts the tags back around the words aligned to theirs
(``heedful.markup``). A source equal to the target comes back as it was. ``alignments=true``
(format text; a field clients of LibreTranslate ignore) adds ``alignments``: each translation's
word links as heedful's /translate gives them (code point offsets). An answer where a
translation may be wrong carries heedful's ``warnings`` as its /translate does:
each names its sentence and what ("'We need to buy milk, eggs and bread.': may leave out
'eggs'"); LibreTranslate's clients ignore it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any
from urllib.parse import parse_qsl

from fastapi import APIRouter, HTTPException, Request
from fastapi.concurrency import run_in_threadpool

from heedful.explain.alignment_spans import copied
from heedful.languages import Detector, language_name
from heedful.serve.access import ApiKeys, RateLimit
from heedful.serve.markup import parse, translate_markups
from heedful.serve.schemas import MAX_TEXT_CHARS, MAX_TEXTS
from heedful.serve.worker import ModelWorker

BEAM_SIZE = 4
MAX_ALTERNATIVES = 7  # beam 8, heedful's largest


class LibreTranslate:
    """The routes' state: which worker translates each pair, keys, limits, the detector."""

    def __init__(
        self,
        workers: Mapping[str, ModelWorker],
        in_time: Callable[[Awaitable], Awaitable],
        api_keys: ApiKeys | None = None,
        rate_limit: RateLimit | None = None,
    ):
        self.in_time = in_time
        self.api_keys = api_keys
        self.rate_limit = rate_limit
        self.pairs: dict[tuple[str, str], ModelWorker] = {}
        codes: list[str] = []
        for worker in workers.values():
            src, tgt = worker.translator.source_language, worker.translator.target_language
            if src and tgt:
                self.pairs.setdefault((src, tgt), worker)
                codes += [c for c in (src, tgt) if c not in codes]
        self.codes = codes
        self.detector = Detector(codes)

    def languages(self) -> list[dict[str, Any]]:
        return [
            {"code": code, "name": language_name(code),
             "targets": [t for s, t in self.pairs if s == code]}
            for code in self.codes
        ]  # fmt: skip

    def admit(self, request: Request, fields: dict[str, Any]) -> None:
        """403 without a valid key when there are keys; 429 over the rate limit."""
        key = fields.get("api_key")
        if self.api_keys is not None and key not in self.api_keys:
            missing = key is None or key == ""
            raise HTTPException(
                403,
                "this server needs an API key (api_key): ask its operator for one"
                if missing
                else "Invalid API key",
            )
        if self.rate_limit is not None:
            client = f"key {key}" if self.api_keys is not None else _client(request)
            wait = self.rate_limit.wait_s(client)
            if wait > 0:
                raise HTTPException(
                    429,
                    f"Slowdown: at most {self.rate_limit.per_minute} requests a minute; "
                    f"try again in {wait:.0f} s",
                    headers={"Retry-After": str(max(1, round(wait)))},
                )

    async def detect(self, text: str) -> list[dict[str, Any]]:
        return await run_in_threadpool(self.detector.detect, text)

    async def translate(self, fields: dict[str, Any]) -> dict[str, Any]:
        q = fields.get("q")
        texts = _texts(q)
        source, target = _required(fields, "source"), _required(fields, "target")
        text_format = fields.get("format") or "text"
        if text_format not in ("text", "html"):
            raise HTTPException(400, f"{text_format} format is not supported")
        alternatives = _count(fields.get("alternatives", 0))
        alignments = _flag(fields.get("alignments", False), "alignments")
        if alignments and text_format == "html":
            raise HTTPException(400, "Invalid request: alignments are given for format text only")
        markups = await parse(texts) if text_format == "html" else None
        plain = texts if markups is None else [m.text() for m in markups]
        for text in plain:
            if len(text) > MAX_TEXT_CHARS:
                raise HTTPException(
                    400,
                    f"Invalid request: request ({len(text)}) exceeds text limit ({MAX_TEXT_CHARS})",
                )
        detected = None
        if source == "auto":
            found = await self.detect("\n".join(plain))
            if not found:
                raise HTTPException(400, "cannot detect the language of q: give source")
            detected, source = found[0], found[0]["language"]
        for code in (source, target):
            if code not in self.codes:
                raise HTTPException(400, f"{code} is not supported")

        links, notes = None, [[] for _ in texts]
        if source == target:
            best, others = list(texts), [[] for _ in texts]
            links = [[link.record() for link in copied(t)] for t in texts]
        elif (source, target) not in self.pairs:
            raise HTTPException(
                400,
                f"{language_name(target)} ({target}) is not available as a target language "
                f"from {language_name(source)} ({source})",
            )
        elif markups is not None:
            worker = self.pairs[source, target]
            best, notes = await translate_markups(worker, self.in_time, markups, BEAM_SIZE)
            others = [[] for _ in texts]  # as LibreTranslate: no alternatives for HTML
        else:
            worker = self.pairs[source, target]
            beam = max(BEAM_SIZE, alternatives + 1)
            work = worker.translate(texts, beam, n_best=alternatives + 1, alignments=alignments)
            found = await self.in_time(work)
            best = [options[0].text for options in found]
            others = [_unique([o.text for o in options[1:]], options[0].text) for options in found]
            links = [[link.record() for link in options[0].alignment or []] for options in found]
            notes = [options[0].warnings for options in found]

        one = isinstance(q, str)
        answer: dict[str, Any] = {"translatedText": best[0] if one else best}
        if detected is not None:
            answer["detectedLanguage"] = detected if one else [detected] * len(texts)
        if alternatives > 0:
            answer["alternatives"] = others[0] if one else others
        if alignments:
            answer["alignments"] = links[0] if one else links
        if any(notes):  # heedful's own, which LibreTranslate's clients ignore as "alignments"
            answer["warnings"] = notes[0] if one else notes
        return answer


def libretranslate_router(api: LibreTranslate) -> APIRouter:
    router = APIRouter(prefix="/libretranslate", tags=["LibreTranslate"])
    body = {"requestBody": {"content": {
        "application/json": {"schema": {"type": "object"}},
        "application/x-www-form-urlencoded": {"schema": {"type": "object"}},
    }}}  # fmt: skip

    @router.post("/translate", openapi_extra=body)
    async def translate(request: Request) -> dict[str, Any]:
        """Translate ``q`` (a text or a list of texts) from ``source`` (or ``auto``) to
        ``target``; ``format``: text or html; ``alternatives``: how many other translations."""
        fields = await read_fields(request)
        api.admit(request, fields)
        return await api.translate(fields)

    @router.post("/detect", openapi_extra=body)
    async def detect(request: Request) -> list[dict[str, Any]]:
        """The languages ``q`` may be in, likeliest first, with confidences from 0 to 100."""
        fields = await read_fields(request)
        api.admit(request, fields)
        texts = _texts(fields.get("q"))
        return await api.detect("\n".join(texts))

    @router.get("/languages")
    async def languages() -> list[dict[str, Any]]:
        """Each language a model reads or writes, and the targets it translates to."""
        return api.languages()

    return router


async def read_fields(request: Request) -> dict[str, Any]:
    """The request's fields: the query string's, then the body's (a JSON object, or a form)."""
    fields: dict[str, Any] = {}
    for name, value in request.query_params.multi_items():
        fields.setdefault(name, value)
    body = await request.body()
    if not body.strip():
        return fields
    kind = request.headers.get("content-type", "")
    media = kind.split(";")[0].strip().lower()
    try:
        if media == "application/json" or media.endswith("+json"):
            data = json.loads(body)
            if not isinstance(data, dict):
                raise HTTPException(400, "Invalid JSON format: give an object of fields")
            return fields | data
        if media == "multipart/form-data":
            form = _multipart(kind, body)
        else:  # urlencoded, or a client that says nothing
            form = parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
    except (UnicodeDecodeError, ValueError):
        raise HTTPException(
            400, f"Invalid request: the body is not valid {media or 'form'}"
        ) from None
    form_fields: dict[str, Any] = {}
    for name, value in form:
        # a form's line ends made Unix ones, as LibreTranslate does
        form_fields.setdefault(name, "\n".join(value.splitlines()))
    return fields | form_fields


def _multipart(content_type: str, body: bytes) -> list[tuple[str, str]]:
    message = BytesParser(policy=HTTP).parsebytes(
        b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + body
    )
    if not message.is_multipart():
        raise ValueError("not multipart")
    out = []
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if name and part.get_filename() is None:
            out.append((str(name), part.get_payload(decode=True).decode("utf-8")))
    return out


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _texts(q: Any) -> list[str]:
    if q is None or q == "" or q == []:
        raise HTTPException(400, "Invalid request: missing q parameter")
    texts = [q] if isinstance(q, str) else q
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise HTTPException(400, "Invalid request: q must be a string or a list of strings")
    if len(texts) > MAX_TEXTS:
        raise HTTPException(
            400, f"Invalid request: request ({len(texts)}) exceeds text limit ({MAX_TEXTS})"
        )
    return texts


def _required(fields: dict[str, Any], name: str) -> str:
    value = fields.get(name)
    if value is None or value == "":
        raise HTTPException(400, f"Invalid request: missing {name} parameter")
    if not isinstance(value, str):
        raise HTTPException(400, f"Invalid request: {name} must be a language code (a string)")
    return value


def _count(value: Any) -> int:
    """The number of alternatives: an integer, or its digits (from a form)."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise HTTPException(
            400, "Invalid request: alternatives parameter is not a number (0 or more)"
        )
    if value > MAX_ALTERNATIVES:
        raise HTTPException(
            400, f"Invalid request: alternatives parameter must be <= {MAX_ALTERNATIVES}"
        )
    return value


def _flag(value: Any, name: str) -> bool:
    """A yes or no: true or false, or from a form "true", "false", "1", "0"."""
    if isinstance(value, str) and value.strip().lower() in ("true", "1", "false", "0", ""):
        return value.strip().lower() in ("true", "1")
    if not isinstance(value, bool):
        raise HTTPException(400, f"Invalid request: {name} must be true or false")
    return value


def _unique(texts: list[str], best: str) -> list[str]:
    """The alternatives: each once, none blank or equal to the best translation."""
    seen = {best, ""}
    return [t for t in texts if not (t in seen or seen.add(t))]
