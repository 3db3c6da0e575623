"""Text for training: readers with clear errors, normalisation, filtering, encoding."""

from heedful.data.corpus import (
    Corpus,
    FilterCounts,
    encode_pairs,
    normalize_pairs,
    train_tokenizer,
)
from heedful.data.readers import (
    DataError,
    ParallelText,
    read_aligned,
    read_lines,
    read_split,
    read_text,
    read_tsv,
)

__all__ = [
    "Corpus",
    "DataError",
    "FilterCounts",
    "ParallelText",
    "encode_pairs",
    "normalize_pairs",
    "read_aligned",
    "read_lines",
    "read_split",
    "read_text",
    "read_tsv",
    "train_tokenizer",
]
