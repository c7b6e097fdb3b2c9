"""The shape of the code: small modules, no import cycles, and the layers of pyproject.toml kept."""

from __future__ import annotations

import subprocess
import sys
from functools import cache
from pathlib import Path

import grimp

from voice_earl.paths import REPO_ROOT

PACKAGE = "voice_earl"
MAX_LINES = 450


def test_no_module_is_longer_than_the_limit() -> None:
    too_long = {
        str(path.relative_to(REPO_ROOT)): lines
        for path in sorted((REPO_ROOT / PACKAGE).rglob("*.py"))
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not too_long, f"modules above {MAX_LINES} lines (split them along a natural seam): {too_long}"


def import_cycles(graph: grimp.ImportGraph) -> list[tuple[str, ...]]:
    """Each cycle once, as the chain of imports that closes it (``a -> b -> ... -> a``)."""
    cycles: dict[frozenset[str], tuple[str, ...]] = {}
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is not None:
                cycles.setdefault(frozenset(back), (importer, *back))
    return list(cycles.values())


def test_import_cycles_are_found() -> None:
    graph = grimp.ImportGraph()
    for module in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        graph.add_module(module)
    graph.add_import(importer="pkg.a", imported="pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.c")
    assert import_cycles(graph) == []
    graph.add_import(importer="pkg.c", imported="pkg.a")
    assert import_cycles(graph) == [("pkg.a", "pkg.b", "pkg.c", "pkg.a")]


@cache
def package_graph() -> grimp.ImportGraph:
    return grimp.build_graph(PACKAGE)


def test_no_module_imports_itself_through_others() -> None:
    # Imports inside functions and under TYPE_CHECKING count too: a cycle is a knot in the design.
    cycles = import_cycles(package_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in cycles)


def test_the_layer_contracts_hold() -> None:
    lint_imports = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint_imports), "--no-logo"], cwd=REPO_ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def import_path(graph: grimp.ImportGraph, importer: str, imported: str) -> tuple[str, ...] | None:
    """The shortest chain of imports from any module of package ``importer`` to any of ``imported``."""
    return graph.find_shortest_chain(importer=importer, imported=imported, as_packages=True)


def test_an_import_through_another_package_is_found() -> None:
    graph = grimp.ImportGraph()
    for module in (
        "pkg",
        "pkg.keep",
        "pkg.keep.stats",
        "pkg.words",
        "pkg.words.text",
        "pkg.listening",
        "pkg.listening.audio",
    ):
        graph.add_module(module)
    graph.add_import(importer="pkg.keep.stats", imported="pkg.words.text")
    assert import_path(graph, "pkg.keep", "pkg.listening") is None
    graph.add_import(importer="pkg.words.text", imported="pkg.listening.audio")
    chain = ("pkg.keep.stats", "pkg.words.text", "pkg.listening.audio")
    assert import_path(graph, "pkg.keep", "pkg.listening") == chain


def test_what_is_kept_does_not_import_listening() -> None:
    # keep compares words (voice_earl.words); the microphone, the recognizers and the models stay out of it,
    # so that stats and chant files load without them. Imports inside functions count too.
    chain = import_path(package_graph(), f"{PACKAGE}.keep", f"{PACKAGE}.listening")
    assert chain is None, "keep imports listening: " + " -> ".join(chain or ())
