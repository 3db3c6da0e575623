"""`heedful export --to FORMAT MODEL_DIR OUT`: a model in another engine's format.

    heedful export --to ctranslate2 MODEL_DIR OUT_DIR    a CTranslate2 model directory
    heedful export --to argos MODEL_DIR OUT.argosmodel   an Argos Translate package

MODEL_DIR is a heedful model directory, or (CTranslate2 only) a Marian (OPUS-MT) one saved by HF
transformers.
"""

from __future__ import annotations

import argparse
import sys

FORMATS = ("ctranslate2", "argos")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--to", required=True, choices=FORMATS, help="the target format")
    parser.add_argument("model_dir", help="a heedful or Marian model directory")
    parser.add_argument(
        "out", help="where to write the exported model (argos: the .argosmodel file)"
    )
    parser.add_argument(
        "--quantization",
        default=None,
        help="CTranslate2 weight type: int8, int8_float32, int16, float16, bfloat16 "
        "(default: float32)",
    )
    parser.add_argument("--force", action="store_true", help="replace OUT if it exists")
    argos = parser.add_argument_group("argos")
    argos.add_argument(
        "--source-language", help="the package's from_code (default: the model's data.src)"
    )
    argos.add_argument(
        "--target-language", help="the package's to_code (default: the model's data.tgt)"
    )
    argos.add_argument("--package-version", default="1.0", help="default: %(default)s")


def run(args: argparse.Namespace) -> int:
    try:
        if args.to == "argos":
            from heedful.interop.argos import export_argos

            out = export_argos(
                args.model_dir, args.out, source_language=args.source_language,
                target_language=args.target_language, package_version=args.package_version,
                quantization=args.quantization, force=args.force,
            )  # fmt: skip
            what = "an Argos Translate package"
        else:
            from heedful.interop.ctranslate2 import export_ctranslate2

            out = export_ctranslate2(
                args.model_dir, args.out, quantization=args.quantization, force=args.force
            )
            what = "a CTranslate2 model"
    except (ImportError, FileExistsError) as e:
        print(f"heedful export: error: {e}", file=sys.stderr)
        return 1
    print(f"wrote {what} to {out}")
    return 0
