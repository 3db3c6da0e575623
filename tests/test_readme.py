"""The README's Python examples run as written, its links lead somewhere, and its benchmark
summaries quote bench/README.md."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_readme_has_python_examples():
    assert python_blocks()


def test_readme_python_examples_run():
    for block in python_blocks():
        exec(compile(block, str(README), "exec"), {})


def anchor(heading: str) -> str:
    """GitHub's anchor for a Markdown heading: lower case, punctuation dropped, spaces to -."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_readme_links_lead_to_files_and_headings():
    links = re.findall(r"\]\(([^)\s]+)\)", README.read_text(encoding="utf-8"))
    local = [link for link in links if not re.match(r"[a-z]+:", link)]
    assert local
    for link in local:
        path, _, fragment = link.partition("#")
        target = ROOT / path
        assert target.exists(), f"README links to {path}, which does not exist"
        if fragment:
            headings = re.findall(r"^#+ (.+)$", target.read_text(encoding="utf-8"), flags=re.M)
            assert fragment in {anchor(h) for h in headings}, f"no heading #{fragment} in {path}"


def test_readme_benchmark_summaries_quote_bench_readme():
    """Every figure of the README's benchmark tables is one of bench/README.md's figures."""
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Benchmarks\n", 1)[1]
    bench = (ROOT / "bench" / "README.md").read_text(encoding="utf-8")
    detail = {f.rstrip(",.") for f in re.findall(r"\d[\d,.]*x?", bench)}
    rows = [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    figures = [f.rstrip(",.") for row in rows for f in re.findall(r"(?<![\w.])\d[\d,.]*x?", row)]
    assert len(figures) > 30
    missing = [f for f in figures if f not in detail]
    assert not missing, (
        f"figures in the README's benchmark tables but not in bench/README.md: {missing}"
    )
