"""One spelling per concept across the commands (DEVELOPERS.md, "Names"): the new spellings
parse, each old one still does for one release, setting the same value with a one-line warning
on stderr, and --help shows only the new ones."""

from __future__ import annotations

import pytest

from heedful.cli import build_parser

# (the command's words, old spelling, new spelling, its value's attribute, a value)
RENAMED = [
    (["attend"], "--top", "--top-words", "top_words", "2"),
    (["heads", "--model", "M", "--data", "F"], "--top", "--top-heads", "top_heads", "5"),
    (["lm", "sample", "--model", "M"], "--max-new-tokens", "--max-length", "max_length", "7"),
]
IDS = [f"{words[0]} {old}" for words, old, *_ in RENAMED]


def parse(argv: list[str]):
    return build_parser(argv).parse_args(argv)


@pytest.mark.parametrize("words, old, new, attribute, value", RENAMED, ids=IDS)
def test_the_new_spelling_parses_quietly(capsys, words, old, new, attribute, value):
    assert getattr(parse([*words, new, value]), attribute) == int(value)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("words, old, new, attribute, value", RENAMED, ids=IDS)
def test_the_old_spelling_still_works_and_says_it_is_deprecated(
    capsys, words, old, new, attribute, value
):
    args = parse([*words, old, value])
    assert getattr(args, attribute) == int(value)
    prog = " ".join(["heedful", *words[: 2 if words[0] == "lm" else 1]])
    assert capsys.readouterr().err == f"{prog}: warning: {old} is deprecated, use {new}\n"


@pytest.mark.parametrize("words, old, new, attribute, value", RENAMED, ids=IDS)
def test_without_either_the_default_stays(capsys, words, old, new, attribute, value):
    defaults = {"top_words": 3, "top_heads": None, "max_length": 50}
    assert getattr(parse(words), attribute) == defaults[attribute]


@pytest.mark.parametrize("words, old, new, attribute, value", RENAMED, ids=IDS)
def test_help_shows_the_new_spelling_only(capsys, words, old, new, attribute, value):
    with pytest.raises(SystemExit):
        parse([*words[: 2 if words[0] == "lm" else 1], "--help"])
    shown = capsys.readouterr().out
    assert new in shown and f"{old} " not in shown


@pytest.mark.parametrize("command", ["translate", "evaluate", "attend", "align"])
def test_beam_size_is_beam_k_in_every_command(capsys, command):
    assert parse([command, "--beam", "2"]).beam == 2
    with pytest.raises(SystemExit):
        parse([command, "--help"])
    assert "--beam K " in capsys.readouterr().out


@pytest.mark.parametrize("words", [["translate"], ["evaluate"], ["lm", "sample", "--model", "M"]])
def test_generated_length_is_max_length_in_every_command(words):
    assert parse([*words, "--max-length", "9"]).max_length == 9
