"""Text <-> token ids: Unicode normalisation and a sentencepiece BPE model (one joint vocabulary).

The same ``normalize`` runs at training and at translation time; its name is recorded in the
model directory's config.json.
"""

from __future__ import annotations

import io
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path

import sentencepiece as spm

from heedful.files import atomic_write_bytes

PAD_ID, BOS_ID, EOS_ID, UNK_ID = 0, 1, 2, 3
NORMALIZATION = "nfkc+spaces"
BATCH_ENCODE_MIN = 128  # texts; measured on the Tatoeba dev sentences, 2 cores

# NFKC turns U+00A0, U+2009 and U+202F (the narrow no-break space the Tatoeba French side puts
# before ? ! : ;) into a plain space, but keeps U+2060 and U+FEFF; every run of any of them
# becomes one plain space.
_SPACES = re.compile(r"[\s\u00a0\u2009\u202f\u2007\u2060\ufeff]+")


def normalize(text: str) -> str:
    """NFKC, every kind of space run -> one plain space, trimmed."""
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text)).strip()


class Tokenizer:
    """A sentencepiece model with heedful's special ids: pad 0, bos 1, eos 2, unk 3."""

    unk_id = UNK_ID

    def __init__(self, model_proto: bytes):
        self.proto = model_proto
        self.sp = spm.SentencePieceProcessor(model_proto=model_proto)
        if (self.sp.pad_id(), self.sp.bos_id(), self.sp.eos_id()) != (PAD_ID, BOS_ID, EOS_ID):
            raise ValueError(
                "sentencepiece model must use pad=0, bos=1, eos=2 (train it with Tokenizer.train)"
            )

    @classmethod
    def load(cls, path: str | Path) -> Tokenizer:
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"sentencepiece model not found: {path}")
        try:
            return cls(path.read_bytes())
        except (RuntimeError, ValueError) as e:
            raise ValueError(f"{path}: not a usable sentencepiece model ({e})") from e

    def save(self, path: str | Path) -> None:
        atomic_write_bytes(Path(path), self.proto)

    @classmethod
    def train(
        cls,
        texts: Iterable[str],
        vocab_size: int,
        *,
        character_coverage: float = 1.0,
        max_sentences: int = 2_000_000,
        seed_sentencepiece_size: int = 1_000_000,
        split_digits: bool = False,
    ) -> Tokenizer:
        """Train a BPE model on already normalised texts, in memory. ``split_digits``: no piece
        holds two digits, so a number is read and written digit by digit (easy to copy)."""
        model = io.BytesIO()
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(texts),
            model_writer=model,
            model_type="bpe",
            vocab_size=vocab_size,
            character_coverage=character_coverage,
            input_sentence_size=max_sentences,
            shuffle_input_sentence=True,
            seed_sentencepiece_size=seed_sentencepiece_size,
            pad_id=PAD_ID,
            bos_id=BOS_ID,
            eos_id=EOS_ID,
            unk_id=UNK_ID,
            normalization_rule_name="identity",  # we normalise ourselves, the same way everywhere
            hard_vocab_limit=False,
            split_digits=split_digits,
            minloglevel=2,
        )
        return cls(model.getvalue())

    def with_digits_split(self) -> Tokenizer:
        """The same vocabulary (every id keeps its piece), but pieces holding a digit and any
        other character ("00", "▁100", ":30", "0.") are never produced: a trained model's
        tokenizer made to read and write numbers digit by digit, as ``split_digits`` does."""
        from sentencepiece import sentencepiece_model_pb2  # needs protobuf; only here

        model = sentencepiece_model_pb2.ModelProto()
        model.ParseFromString(self.proto)
        normal = sentencepiece_model_pb2.ModelProto.SentencePiece.NORMAL
        unused = sentencepiece_model_pb2.ModelProto.SentencePiece.UNUSED
        for piece in model.pieces:
            text = piece.piece.replace("\u2581", "")
            if piece.type == normal and len(text) > 1 and any(c.isdigit() for c in text):
                piece.type = unused
        model.trainer_spec.split_digits = True
        return Tokenizer(model.SerializeToString())

    def encode_with_spans(self, text: str) -> tuple[list[int], list[str]]:
        """The ids of normalised ``text`` (no EOS) and each piece's surface: the characters of
        the text it covers, its leading space included (they add up to the text)."""
        proto = self.sp.encode(text, out_type="proto")
        return [p.id for p in proto.pieces], [p.surface for p in proto.pieces]

    @property
    def vocab_size(self) -> int:
        return self.sp.get_piece_size()

    def encode(self, text: str, *, add_eos: bool = True) -> list[int]:
        ids = self.sp.encode(normalize(text))
        return ids + [EOS_ID] if add_eos else ids

    def encode_batch(self, texts: list[str], *, add_eos: bool = True) -> list[list[int]]:
        """``encode`` of each text. sentencepiece's batch call encodes on several threads, but
        costs about 0.1 ms to start (124 us for one sentence, against 2 us one by one): below
        ``BATCH_ENCODE_MIN`` texts, one by one is faster."""
        if len(texts) < BATCH_ENCODE_MIN:
            return [self.encode(t, add_eos=add_eos) for t in texts]
        batch = self.sp.encode([normalize(t) for t in texts])
        return [ids + [EOS_ID] for ids in batch] if add_eos else batch

    def pieces(self, ids: list[int]) -> list[str]:
        return [self.sp.id_to_piece(i) for i in ids]

    def decode(self, ids: list[int]) -> str:
        """Ids -> text; special tokens are dropped."""
        return self.sp.decode([i for i in ids if i >= UNK_ID])
