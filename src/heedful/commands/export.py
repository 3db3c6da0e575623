"""`heedful export --to ctranslate2 MODEL_DIR OUT_DIR`: a model in another engine's format.

MODEL_DIR is a heedful model directory or a Marian (OPUS-MT) one saved by HF transformers.
"""

from __future__ import annotations

import argparse
import sys

FORMATS = ("ctranslate2",)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--to", required=True, choices=FORMATS, help="the target format")
    parser.add_argument("model_dir", help="a heedful or Marian model directory")
    parser.add_argument("out_dir", help="where to write the exported model")
    parser.add_argument(
        "--quantization",
        default=None,
        help="CTranslate2 weight type: int8, int8_float32, int16, float16, bfloat16 "
        "(default: float32)",
    )
    parser.add_argument("--force", action="store_true", help="replace OUT_DIR if it exists")


def run(args: argparse.Namespace) -> int:
    from heedful.interop.ctranslate2 import export_ctranslate2

    try:
        out = export_ctranslate2(
            args.model_dir, args.out_dir, quantization=args.quantization, force=args.force
        )
    except (ImportError, FileExistsError) as e:
        print(f"heedful export: error: {e}", file=sys.stderr)
        return 1
    print(f"wrote a CTranslate2 model to {out}")
    return 0
