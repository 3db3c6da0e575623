"""Text <-> ids for Marian / OPUS-MT models, exactly as HF's ``MarianTokenizer`` cuts them.

Two sentencepiece models (source.spm, target.spm) cut text into pieces; vocab.json maps pieces to
the model's ids (target_vocab.json too when the two sides have separate vocabularies). Nothing
here imports transformers.
"""

from __future__ import annotations

import re
from pathlib import Path

import sentencepiece as spm

from heedful.files import read_json


class MarianTokenizer:
    """Text <-> ids exactly as HF's ``MarianTokenizer`` (without its optional Moses punctuation
    normalisation, which it skips too unless sacremoses is installed).

    Source text: a leading ``>>lang<<`` code is kept whole, the rest is cut by source.spm into
    pieces, each looked up in vocab.json (``<unk>`` if absent), then ``</s>`` is appended. The
    literal strings ``</s>``, ``<unk>``, ``<pad>`` in the text stand for themselves.
    Target ids map back through the target vocabulary to pieces that target.spm joins.
    """

    def __init__(
        self,
        source_spm: bytes,
        target_spm: bytes,
        vocab: dict[str, int],
        target_vocab: dict[str, int] | None = None,
        *,
        unk_token: str = "<unk>",
        eos_token: str = "</s>",
        pad_token: str = "<pad>",
    ):
        self.source_proto, self.target_proto = source_spm, target_spm
        self.source_sp = spm.SentencePieceProcessor(model_proto=source_spm)
        self.target_sp = spm.SentencePieceProcessor(model_proto=target_spm)
        self.source_vocab = vocab
        self.target_vocab = vocab if target_vocab is None else target_vocab
        self.separate_vocabs = target_vocab is not None
        self.target_pieces = {i: p for p, i in self.target_vocab.items()}
        self.source_pieces_by_id = {i: p for p, i in vocab.items()}
        for name, token in [("unk", unk_token), ("eos", eos_token), ("pad", pad_token)]:
            if token not in vocab:
                raise ValueError(f"vocabulary has no {name} token {token!r}")
        self.unk_id, self.eos_id, self.pad_id = vocab[unk_token], vocab[eos_token], vocab[pad_token]
        self.special = {unk_token, eos_token, pad_token}
        pattern = "|".join(re.escape(t) for t in sorted(self.special, key=len, reverse=True))
        self._special_split = re.compile(f"({pattern})")

    @classmethod
    def load(cls, directory: str | Path) -> MarianTokenizer:
        """Read source.spm, target.spm, vocab.json (target_vocab.json, tokenizer_config.json)."""
        directory = Path(directory)
        options = {}
        if (directory / "tokenizer_config.json").is_file():
            options = read_json(directory / "tokenizer_config.json")
        files = ["source.spm", "target.spm", "vocab.json"]
        if options.get("separate_vocabs"):
            files.append("target_vocab.json")
        for name in files:
            if not (directory / name).is_file():
                raise FileNotFoundError(f"missing file: {directory / name}")
        protos = {}
        for name in ("source.spm", "target.spm"):
            protos[name] = (directory / name).read_bytes()
            try:
                spm.SentencePieceProcessor(model_proto=protos[name])
            except RuntimeError as e:
                raise ValueError(f"{directory / name}: not a sentencepiece model ({e})") from e
        vocabs = [read_json(directory / n) for n in files[2:]]
        for name, vocab in zip(files[2:], vocabs, strict=True):
            if not isinstance(vocab, dict):
                raise ValueError(f"{directory / name}: expected a JSON object piece -> id")
        specials = {k: options[k] for k in ("unk_token", "eos_token", "pad_token")
                    if isinstance(options.get(k), str)}  # fmt: skip
        return cls(protos["source.spm"], protos["target.spm"], *vocabs, **specials)

    @property
    def vocab_size(self) -> int:
        """Entries of the source vocabulary (the joint one unless separate)."""
        return len(self.source_vocab)

    @property
    def target_vocab_size(self) -> int:
        return len(self.target_vocab)

    def _ids(self, text: str, sp: spm.SentencePieceProcessor, vocab: dict[str, int]) -> list[int]:
        ids = []
        for part in self._special_split.split(text):
            if not part:
                continue
            if part in self.special:
                ids.append(self.source_vocab[part])
                continue
            code = []
            if part.startswith(">>") and (end := part.find("<<")) != -1:
                code, part = [part[: end + 2]], part[end + 2 :]
            pieces = code + sp.encode(part, out_type=str)
            ids.extend(vocab.get(p, self.unk_id) for p in pieces)
        return ids

    def encode(self, text: str, *, add_eos: bool = True) -> list[int]:
        """Source text -> ids (ending with eos)."""
        ids = self._ids(text, self.source_sp, self.source_vocab)
        return ids + [self.eos_id] if add_eos else ids

    def encode_batch(self, texts: list[str], *, add_eos: bool = True) -> list[list[int]]:
        return [self.encode(t, add_eos=add_eos) for t in texts]

    def encode_target(self, text: str, *, add_eos: bool = True) -> list[int]:
        """Target text -> target ids (what HF's ``text_target=`` gives)."""
        ids = self._ids(text, self.target_sp, self.target_vocab)
        return ids + [self.eos_id] if add_eos else ids  # HF appends the source vocabulary's eos

    def pieces(self, ids: list[int]) -> list[str]:
        """Target ids -> pieces."""
        return [self._piece(i, self.target_pieces, self.target_sp) for i in ids]

    def source_pieces(self, ids: list[int]) -> list[str]:
        return [self._piece(i, self.source_pieces_by_id, self.source_sp) for i in ids]

    def _piece(self, i: int, pieces: dict[int, str], sp: spm.SentencePieceProcessor) -> str:
        if i in pieces:
            return pieces[i]
        piece = sp.id_to_piece(i) if 0 <= i < sp.get_piece_size() else ""
        return piece or self.source_pieces_by_id[self.unk_id]

    def decode(self, ids: list[int]) -> str:
        """Target ids -> text; eos, pad and unk are dropped (HF's skip_special_tokens=True)."""
        skip = {self.source_vocab[t] for t in self.special}
        pieces = self.pieces([i for i in ids if i not in skip])
        return self.target_sp.decode_pieces(pieces).replace("\u2581", " ").strip()
