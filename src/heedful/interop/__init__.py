"""Other engines' models in heedful, and heedful's models in other engines.

- ``heedful.interop.marian``: read Marian / OPUS-MT checkpoints saved by HF transformers
  (``heedful.loading.load_model`` and ``Translator.load`` recognise them).
- ``heedful.interop.ctranslate2``: export a model to CTranslate2 (optional dependency).
"""

from heedful.interop.marian import MarianTokenizer, is_marian_dir, load_marian_model

__all__ = ["MarianTokenizer", "is_marian_dir", "load_marian_model"]
