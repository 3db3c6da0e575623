"""A training run's configuration: frozen dataclasses read from YAML, overridden by name.

    task:  translation (the default) or lm (a decoder-only language model)
    data:  {train: tatoeba/spa-eng/train.tsv, columns: [en, es], src: es, tgt: en, ...}
           lm: {train: [a.tsv, b.tsv], dev: [...], column: 0, language: en, ...}
    model: {preset: small, dropout: 0.1, ...}        any ModelConfig field but the vocab sizes
    optim: {warmup_steps: 4000, lr_scale: 1.0, ...}  the paper's recipe (§5.3-5.4)
    train: {max_steps: 10000, batch_tokens: 4096, accumulation: 1, precision: bf16, ...}
    eval:  {every: 1000, patience: 5, ...}
    augment: {names: 0.15, numbers: 0.08, caps: 0.04, ...}  pairs added (heedful.data.augment)
    align: {weight: 0.1, layer: null, head: 0, position: shift}  guided alignment (eflomal's
           links; position shift, predict or full: AlignConfig)

``--set section.field=value`` reaches every field; values are YAML (``200``, ``bf16``,
``[en, es]``, ``null``) and are type-checked against the field. Unknown keys are errors.
"""

from __future__ import annotations

import dataclasses
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import yaml

from heedful.config import PRESETS, ModelConfig
from heedful.data.augment import Augmentation

Precision = Literal["fp32", "bf16"]
Task = Literal["translation", "lm"]


@dataclass(frozen=True)
class DataConfig:
    """Where the corpus is and how it becomes token ids."""

    root: str = "../shared/data"  # relative paths: from the repository holding the config file
    # "x/train.tsv" (with columns) or line-aligned "x/train.{lang}", or a list of these
    train: str | tuple[str, ...] = ""
    dev: str = ""
    columns: tuple[str, str] | None = None  # languages of a TSV file's two columns
    src: str = ""
    tgt: str = ""
    vocab_size: int = 8000  # one joint BPE vocabulary
    max_tokens: int = 256  # longer pairs (subwords, either side) are dropped and counted
    train_pairs: int | None = None  # read only the first N training pairs (smoke runs, tests)
    dev_pairs: int | None = None
    split_digits: bool = False  # no BPE piece holds two digits: numbers go digit by digit


@dataclass(frozen=True)
class TextDataConfig:
    """A language model's text (``task: lm``): files of one document (or sentence) a line, or a
    column of TSV files. Training lines that repeat, or that are also dev lines, are dropped."""

    root: str = "../shared/data"  # relative paths: from the repository holding the config file
    train: tuple[str, ...] = ()  # one or more files
    dev: tuple[str, ...] = ()
    column: int | None = None  # .tsv files: the column holding the text, from 0
    language: str = ""  # the text's language (recorded; `heedful lm evaluate --column en`)
    vocab_size: int = 8000
    max_tokens: int = 256  # longer lines (subwords) are dropped and counted
    train_lines: int | None = None  # a seeded random sample of N training lines (smoke runs)
    dev_lines: int | None = None


@dataclass(frozen=True)
class OptimConfig:
    """Adam and the learning-rate schedule of paper §5.3, and the regularisers of §5.4."""

    lr_scale: float = 1.0  # lr = lr_scale * d_model^-0.5 * min(step^-0.5, step * warmup^-1.5)
    warmup_steps: int = 4000
    cooldown_steps: int = 0  # take the rate linearly to 0 over the last K of train.max_steps
    beta1: float = 0.9
    beta2: float = 0.98
    eps: float = 1e-9
    label_smoothing: float = 0.1
    clip_norm: float | None = None  # clip the gradient's global L2 norm; None: no clipping


@dataclass(frozen=True)
class TrainConfig:
    """How long, how big an update, and how often to log and save."""

    seed: int = 1
    max_steps: int = 100_000
    batch_tokens: int = 4096  # padded tokens of the longer side, per micro-batch and process
    accumulation: int = 1  # micro-batches per process per update (the paper: ~25k tokens)
    precision: Precision = "fp32"
    device: str = "auto"  # auto: cuda if there is one, else cpu
    log_every: int = 100
    save_every: int = 1000
    keep_checkpoints: int = 0  # also keep the last K saves under DIR/checkpoints/ to average
    # start from a model directory's weights and tokenizer (fine-tuning) instead of at random;
    # the model section must then describe the same shape
    init_from: str | None = None


@dataclass(frozen=True)
class EvalConfig:
    """Validation on the dev split: loss, sacreBLEU and chrF; early stopping."""

    every: int = 1000  # steps between evaluations; 0: only at the end
    bleu_sentences: int | None = 500  # dev sentences decoded for BLEU; None: all
    beam_size: int = 1
    batch_sentences: int = 64
    patience: int | None = None  # evaluations without a better dev BLEU before stopping


AugmentConfig = Augmentation  # the ``augment:`` section: heedful.data.augment's settings


@dataclass(frozen=True)
class AlignConfig:
    """Guided alignment (Garg et al., 2019): one cross-attention head is trained, beside the
    translation loss, towards eflomal's word alignments of the training pairs (computed once per
    run and kept in DIR/alignments.txt). The loss is the cross-entropy between the head's
    attention for a target piece and the aligned source pieces (uniform over them), summed over
    aligned target pieces and scaled by ``weight``, divided by the update's target tokens like
    the translation loss. Target pieces eflomal left unaligned add nothing.

    ``position``: which decoder step's attention is supervised for target piece y_t: ``shift``,
    the step where y_t is the decoder's input (it has seen y_t, as Garg et al.'s full-context
    head and Chen et al.'s shift-attention), or ``predict``, the step that predicts y_t; ``full``:
    read as ``shift``, but in an extra pass where the decoder's layers up to the head's read the
    whole target, without the causal mask (Garg et al.'s full target context; the translation
    loss still comes from the causal pass). Costs that extra pass in every step; a model trained
    so is read the same way (alignment method ``full``).

    ``reverse``: the same head's scores are also trained the other way, normalised over the
    target pieces for each source piece (eflomal aligns both ways; the links both directions
    agree on are the precise ones that ``links: intersection`` reads), this weight times that
    loss added (relative to ``weight``'s loss)."""

    weight: float = 0.0  # 0: off. Marian's default for the same loss is 0.1
    layer: int | None = None  # decoder layer, from 0; None: the penultimate
    head: int = 0
    position: Literal["shift", "predict", "full"] = "shift"
    reverse: float = 0.0  # also the reverse direction, with this weight (not with predict)


@dataclass(frozen=True)
class RunConfig:
    task: Task = "translation"
    data: DataConfig | TextDataConfig = field(default_factory=DataConfig)
    model: dict[str, Any] = field(default_factory=lambda: {"preset": "base"})
    optim: OptimConfig = field(default_factory=OptimConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    augment: AugmentConfig = field(default_factory=AugmentConfig)
    align: AlignConfig = field(default_factory=AlignConfig)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def model_config(self, vocab_size: int) -> ModelConfig:
        """The ModelConfig for a joint vocabulary of ``vocab_size``."""
        overrides = {k: v for k, v in self.model.items() if k != "preset"}
        return ModelConfig.preset(self.model.get("preset", "base"), vocab_size, **overrides)


SECTIONS = {"data": DataConfig, "model": dict, "optim": OptimConfig, "train": TrainConfig,
            "eval": EvalConfig, "augment": AugmentConfig, "align": AlignConfig}  # fmt: skip
DATA_SECTIONS = {"translation": DataConfig, "lm": TextDataConfig}  # the data section, by task
TRAIN_COMMANDS = {"translation": "heedful train", "lm": "heedful lm train"}
_MODEL_FIELDS = {
    name: hint
    for name, hint in get_type_hints(ModelConfig).items()
    if name not in ("src_vocab_size", "tgt_vocab_size")
}


# the least value of each number that has one (None, where allowed, means "no limit" or "all")
MINIMUM = {
    "train.max_steps": 1, "train.batch_tokens": 1, "train.accumulation": 1,
    "train.log_every": 1, "train.save_every": 1, "train.keep_checkpoints": 0,
    "optim.warmup_steps": 1, "optim.lr_scale": 0, "optim.label_smoothing": 0,
    "optim.clip_norm": 0, "eval.every": 0, "eval.bleu_sentences": 0, "eval.beam_size": 1,
    "eval.batch_sentences": 1, "eval.patience": 1, "data.vocab_size": 8, "data.max_tokens": 1,
    "data.train_pairs": 1, "data.dev_pairs": 1, "data.train_lines": 1, "data.dev_lines": 1,
}  # fmt: skip


class ConfigError(ValueError):
    pass


def load_config(
    path: str | Path | None,
    overrides: list[str] = (),
    base: dict | None = None,
    *,
    task: str | None = None,
):
    """Read a YAML file (or start from ``base``, a saved ``to_dict()``), apply ``--set`` style
    overrides, and resolve ``data.root`` to an absolute path.

    ``task``: what the caller trains (``heedful lm train``: lm); the file or ``base`` may leave
    it out, but naming another task is an error."""
    tree: dict[str, Any] = {}
    for key, value in (base or {}).items():
        tree[key] = dict(value) if isinstance(value, dict) else value
    root_base = Path.cwd()
    if path is not None:
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"config file not found: {path}")
        try:
            loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError as e:
            raise ConfigError(f"{path}: not valid YAML: {_yaml_problem(e)}") from None
        if not isinstance(loaded, dict):
            raise ConfigError(f"{path}: expected sections (data, model, ...), not {loaded!r}")
        for section, values in loaded.items():
            if section == "task":
                tree["task"] = values
                continue
            if section not in SECTIONS:
                raise ConfigError(f"{path}: unknown section {section!r}; use {', '.join(SECTIONS)}")
            if not isinstance(values, dict):
                raise ConfigError(f"{path}: section {section!r} must be a mapping")
            tree.setdefault(section, {}).update(values)
        root_base = repository_root(path)
        init = tree.get("train", {}).get("init_from")
        if isinstance(init, str):
            tree["train"]["init_from"] = str((root_base / init).resolve())
    tree.setdefault("data", {})
    tree["data"]["root"] = str((root_base / tree["data"].get("root", DataConfig.root)).resolve())
    for item in overrides:
        key, value = parse_override(item)
        section, _, name = key.partition(".")
        if section not in SECTIONS or not name:
            raise ConfigError(f"--set {item}: unknown key {key!r}; keys look like train.max_steps")
        if key in ("data.root", "train.init_from") and isinstance(value, str):
            value = str((Path.cwd() / value).resolve())
        tree.setdefault(section, {})[name] = value
    if task is not None:
        named = tree.setdefault("task", task)
        if named != task:
            where = path or "the saved run"
            raise ConfigError(
                f"{where} says task: {named}; train it with `{TRAIN_COMMANDS.get(named, named)}`"
            )
    return build(tree)


def build(tree: dict[str, Any]) -> RunConfig:
    """Check every key and type, and build the frozen RunConfig."""
    task = check_type(tree.get("task", "translation"), Task, "task")
    sections: dict[str, Any] = {"task": task}
    for name, values in tree.items():
        if name == "task":
            continue
        if name not in SECTIONS:
            raise ConfigError(f"unknown section {name!r}; use {', '.join(SECTIONS)}")
        if name == "model":
            sections[name] = _check_model(values)
            continue
        cls = DATA_SECTIONS[task] if name == "data" else SECTIONS[name]
        hints = get_type_hints(cls)
        checked = {}
        for key, value in values.items():
            if key not in hints:
                raise ConfigError(
                    f"unknown key {name}.{key}; {name} has: {', '.join(hints)}"
                    + _other_task_hint(name, key, task)
                )
            checked[key] = check_type(value, hints[key], f"{name}.{key}")
        sections[name] = cls(**checked)
    run = RunConfig(**sections)
    for key, least in MINIMUM.items():
        section, _, name = key.partition(".")
        value = getattr(getattr(run, section), name, None)
        if value is not None and value < least:
            raise ConfigError(f"{key} must be at least {least}, not {value}")
    if not 0 <= run.optim.cooldown_steps <= run.train.max_steps:
        raise ConfigError(
            f"optim.cooldown_steps must be between 0 and train.max_steps ({run.train.max_steps}),"
            f" not {run.optim.cooldown_steps}"
        )
    for name in AugmentConfig.__dataclass_fields__:
        if getattr(run.augment, name) < 0:
            raise ConfigError(f"augment.{name} must be >= 0, not {getattr(run.augment, name)}")
    if run.align.weight < 0:
        raise ConfigError(f"align.weight must be >= 0, not {run.align.weight}")
    if run.align.reverse < 0:
        raise ConfigError(f"align.reverse must be >= 0, not {run.align.reverse}")
    if run.align.reverse and run.align.position == "predict":
        raise ConfigError(
            "align.reverse reads where each target word is the decoder's input: "
            "set align.position to shift or full, not predict"
        )
    if run.task == "lm" and (run.align.weight or any(dataclasses.astuple(run.augment))):
        raise ConfigError("augment and align are settings of task translation")
    return run


def _other_task_hint(section: str, key: str, task: str) -> str:
    """Why a data key may be unknown: it belongs to the other task's data section."""
    if section != "data":
        return ""
    for other, cls in DATA_SECTIONS.items():
        if other != task and key in get_type_hints(cls):
            return f" (data.{key} is a setting of task {other}; this run's task is {task})"
    return ""


def _check_model(values: dict[str, Any]) -> dict[str, Any]:
    out = {"preset": values.get("preset", "base")}
    if out["preset"] not in PRESETS:
        raise ConfigError(
            f"model.preset must be one of {', '.join(PRESETS)}, not {out['preset']!r}"
        )
    for key, value in values.items():
        if key == "preset":
            continue
        if key not in _MODEL_FIELDS:
            raise ConfigError(
                f"unknown key model.{key}; model has: preset, {', '.join(_MODEL_FIELDS)}"
            )
        out[key] = check_type(value, _MODEL_FIELDS[key], f"model.{key}")
    return out


def check_type(value: Any, hint: Any, key: str) -> Any:
    """``value`` converted to ``hint`` (int, float, bool, str, Literal, Optional, tuple), or a
    ConfigError naming the key."""
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        for option in get_args(hint):
            try:
                return check_type(value, option, key)
            except ConfigError:
                pass
        raise ConfigError(f"{key}: {value!r} is none of {_describe(hint)}")
    if origin is Literal:
        if value not in get_args(hint):
            raise ConfigError(f"{key} must be one of {', '.join(map(str, get_args(hint)))}")
        return value
    if origin is tuple and get_args(hint)[1:] == (Ellipsis,):  # any length; "a" means ["a"]
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list | tuple):
            raise ConfigError(f"{key} must be a list, not {value!r}")
        return tuple(check_type(v, get_args(hint)[0], key) for v in items)
    if origin is tuple:
        args = get_args(hint)
        if not isinstance(value, list | tuple) or len(value) != len(args):
            raise ConfigError(f"{key} must be a list of {len(args)}, not {value!r}")
        return tuple(check_type(v, a, key) for v, a in zip(value, args, strict=True))
    if hint is type(None):
        if value is not None:
            raise ConfigError(f"{key} must be null, not {value!r}")
        return None
    if hint is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{key} must be true or false, not {value!r}")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{key} must be an integer, not {value!r}")
        return value
    if hint is float:
        if isinstance(value, str):  # YAML 1.1 reads "1e-9" as a string
            try:
                return float(value)
            except ValueError:
                pass
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{key} must be a number, not {value!r}")
        return float(value)
    if hint is str:
        if not isinstance(value, str):
            raise ConfigError(f"{key} must be a string, not {value!r}")
        return value
    if hint is Any:
        return value
    raise ConfigError(f"{key}: cannot check values of type {hint}")


def _describe(hint: Any) -> str:
    return " or ".join("null" if a is type(None) else getattr(a, "__name__", str(a)) for a in
                       get_args(hint))  # fmt: skip


def _yaml_problem(error: yaml.YAMLError) -> str:
    """What YAML could not read, and where (line and column from 1), in one line; braces in a
    flow list (``[a.tsv, x/train.{lang}]``) get the fix: quote that item."""
    mark = getattr(error, "problem_mark", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    hint = ""
    lines = (getattr(mark, "buffer", None) or "").splitlines()
    if mark is not None and mark.line < len(lines) and "{" in lines[mark.line]:
        hint = " (a value with braces, as x/train.{lang}, needs quotes: 'x/train.{lang}')"
    return f"{where}{problem}{hint}"


def parse_override(item: str) -> tuple[str, Any]:
    """``"train.max_steps=200"`` -> ("train.max_steps", 200); the value is read as YAML."""
    key, sep, text = item.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"--set {item!r}: expected section.field=value")
    try:
        value = yaml.safe_load(text) if text.strip() else ""
    except yaml.YAMLError as e:
        raise ConfigError(f"--set {item!r}: the value is not valid YAML ({e})") from None
    return key.strip(), value


def repository_root(config_path: Path) -> Path:
    """The nearest directory above the config file holding pyproject.toml (or .git); data paths
    in a repository's configs are relative to it. Falls back to the config file's directory."""
    start = config_path.resolve().parent
    for directory in (start, *start.parents):
        if (directory / "pyproject.toml").is_file() or (directory / ".git").exists():
            return directory
    return start
