"""The package's modules import one another without a circle (issue 32).

Every import counts, at module level or inside a function (a deferred import, run when the
function is): a circle either way means two modules that cannot be read, or changed, apart.
Only imports under ``if TYPE_CHECKING:`` are left out, since they never run."""

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def modules() -> dict[str, Path]:
    found = {}
    for path in (SRC / "heedful").rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the nodes under an ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``)."""
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            skipped.update(id(inner) for statement in node.body for inner in ast.walk(statement))
    return skipped


def imports(name: str, source: str, package: list[str], known: set[str]) -> set[str]:
    """The package's modules that module ``name`` (whose code is ``source``) imports anywhere
    in it; ``package``: the package its relative imports start from."""
    out = set()
    tree = ast.parse(source)
    skipped = _type_checking_only(tree)
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + [base] * bool(base))
            for alias in node.names:
                out.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return {m for m in out if m in known and m != name}


def import_graph() -> dict[str, set[str]]:
    known = modules()
    graph = {}
    for name, path in known.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        graph[name] = imports(name, path.read_text(encoding="utf-8"), package, set(known))
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    found, state = [], {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                found.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return found


def test_no_import_circle_at_any_level():
    graph = import_graph()
    assert sum(map(len, graph.values())) > 50  # the parser sees the imports
    assert cycles(graph) == []


def test_imports_inside_functions_count_and_type_checking_ones_do_not():
    source = """
from typing import TYPE_CHECKING

import heedful.a
if TYPE_CHECKING:
    from heedful import c

def f():
    from heedful.b import something
    from . import d
"""
    known = {"heedful.a", "heedful.b", "heedful.c", "heedful.d", "heedful.x"}
    assert imports("heedful.x", source, ["heedful"], known) == {
        "heedful.a",
        "heedful.b",
        "heedful.d",
    }


def test_the_cycle_finder_finds_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c", "a"]]
