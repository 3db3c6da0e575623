"""What the HTTP API accepts and answers, with its limits: the OpenAPI schema at /docs is made
from these classes.

Layers and heads count from 1, as on the command line and in the paper (head_1 ... head_h); a
negative number counts from the end (layer -1 is the last).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    model_validator,
)

from heedful.serve.text import is_blank

MAX_TEXT_CHARS = 1000  # characters of one text: a long paragraph
MAX_TEXTS = 32  # texts in one /translate request: one Translator batch
MAX_BEAM_SIZE = 8
MAX_TOP = 20


def _not_blank(text: str) -> str:
    if is_blank(text):
        raise ValueError(
            "the text is empty or only invisible characters: give something to translate"
        )
    return text


MaybeBlank = Annotated[str, StringConstraints(max_length=MAX_TEXT_CHARS)]
Text = Annotated[MaybeBlank, AfterValidator(_not_blank)]
BeamSize = Annotated[int, Field(ge=1, le=MAX_BEAM_SIZE, description="1 is greedy search")]
ModelName = Annotated[
    str | None, Field(description="a name from GET /models (default: the first model)")
]


class _Request(BaseModel):
    # a misspelt field is an error, not ignored; and no conversions: true is not a beam size,
    # nor "4", nor 4.0
    model_config = ConfigDict(extra="forbid", strict=True)


class TranslateRequest(_Request):
    """``text`` (one) or ``texts`` (a list), not both. A blank text in ``texts`` (white space
    or invisible characters only) is translated as "", as the command line does."""

    text: Text | None = None
    texts: Annotated[list[MaybeBlank], Field(min_length=1, max_length=MAX_TEXTS)] | None = None
    model: ModelName = None
    beam_size: BeamSize = 4
    format: Literal["text", "html"] = Field(
        "text",
        description="html: each text an HTML fragment, its tags, attributes and entities kept, "
        "each inline tag around the words aligned to those it was around",
    )
    alignments: bool = Field(
        False,
        description="word links with each translation (format text only; translating takes about "
        "10% longer)",
    )
    offsets: Literal["code_points", "utf16"] = Field(
        "code_points",
        description="how the links' offsets count: Unicode code points (Python's str) or "
        "UTF-16 code units (JavaScript's strings: an emoji counts 2)",
    )

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"text": "El gato negro duerme en el jardín."},
                {"text": "El gato negro duerme en el jardín.", "alignments": True},
                {"text": '<p>Haz clic <a href="/x">aquí</a>.</p>', "format": "html"},
            ]
        }
    )

    @model_validator(mode="after")
    def _one_of_text_and_texts(self) -> TranslateRequest:
        if self.text is None and self.texts is None:
            raise ValueError('give "text" (a string) or "texts" (a list of strings)')
        if self.text is not None and self.texts is not None:
            raise ValueError('give "text" or "texts", not both')
        if self.alignments and self.format == "html":
            raise ValueError("alignments are given for format text only")
        return self


class WordLink(BaseModel):
    """A source word aligned to a target word: ``source`` and ``target`` are [start, end)
    offsets into the text given and into its translation, ``source_word`` and ``target_word``
    the words they hold (punctuation at either end left out). A URL, e-mail address, number or
    placeholder links to itself; a word carried as it is (an emoji) to where it was put back."""

    source: tuple[int, int]
    target: tuple[int, int]
    source_word: str
    target_word: str


class TranslateResponse(BaseModel):
    model: str
    beam_size: int
    translation: str | None = Field(None, description='for "text"')
    translations: list[str] | None = Field(None, description='for "texts", in their order')
    alignment: list[WordLink] | None = Field(
        None, description='with "alignments": the links of "translation", by source then target'
    )
    alignments: list[list[WordLink]] | None = Field(
        None, description='with "alignments": the links of each of "translations"'
    )
    warnings: list[str] | list[list[str]] | None = Field(
        None,
        description='what may be wrong with the translation (of each of "translations"), each '
        "naming its sentence: \"'We need to buy milk, eggs and bread.': may leave out 'eggs'\"; "
        "only when there is any",
    )


Kind = Literal["cross", "encoder", "decoder"]


class AttentionRequest(_Request):
    """Translate one text (or force ``target``) and return the attention weights asked for."""

    text: Text
    target: Text | None = Field(None, description="force this translation instead of searching")
    model: ModelName = None
    beam_size: BeamSize = 4
    kind: Kind | Literal["all"] = Field(
        "all", description="cross-attention, encoder or decoder self-attention, or all three"
    )
    layer: int | None = Field(None, description="from 1; -1 is the last; null: every layer")
    head: int | Literal["mean"] | None = Field(
        None, description='from 1; "mean": the mean of the layer\'s heads; null: every head'
    )
    level: Literal["words", "pieces"] = Field(
        "words", description="whitespace-separated words (pieces merged) or subword pieces"
    )
    top: Annotated[int, Field(ge=1, le=MAX_TOP, description="words per row of the table")] = 3

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "text": "El gato negro duerme en el jardín.",
                    "kind": "cross",
                    "layer": -1,
                    "head": "mean",
                }  # fmt: skip
            ]
        },
    )


class Table(BaseModel):
    """The explainer's table of one layer and head (or their mean): each word and the words it
    attends to most."""

    layer: int
    head: int | None = Field(description="null: the mean of the heads")
    describe: str
    text: str = Field(description="the table as `heedful attend` prints it")
    rows: list[dict[str, Any]]


class View(BaseModel):
    """One kind of attention: ``weights[l][h][q][k]`` is how much query ``queries[q]`` attends
    to key ``keys[k]`` in layer ``layers[l]``, head ``heads[h]``."""

    title: str
    queries: list[str]
    keys: list[str]
    n_layers: int
    n_heads: int
    layers: list[int]
    heads: list[int | Literal["mean"]]
    weights: list[list[list[list[float]]]]
    table: Table


class KindInfo(BaseModel):
    title: str
    n_layers: int
    n_heads: int


class AttentionResponse(BaseModel):
    model: str
    source: str
    translation: str
    score: float | None = Field(description="the beam's score; null when the target was forced")
    beam_size: int
    level: Literal["words", "pieces"]
    kinds: dict[Kind, KindInfo] = Field(description="every kind this model has")
    attention: dict[Kind, View]


class ModelInfo(BaseModel):
    name: str
    source_language: str | None
    target_language: str | None
    n_layers: int = Field(description="decoder layers (those of cross-attention)")
    n_heads: int


class Health(BaseModel):
    status: Literal["ok"]
    models: dict[str, dict[str, int]]


class Problem(BaseModel):
    """Every error answers {"detail": "what went wrong and what to do"}."""

    detail: str
    errors: list[dict[str, Any]] | None = None
