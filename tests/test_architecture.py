"""The architecture as tests, next to the import-linter contracts in
pyproject.toml (`lint-imports`, run by `./run test` before pytest):

- no import cycle between the project's modules, but the ones Celery needs:
  a service fires a task whose body calls back into the service module
  (``benchmarks.runs`` and ``benchmarks.tasks``, ``fabric.services`` and
  ``fabric.tasks``); the service imports its task lazily, inside the function;
- the benchmarks in ``bench/`` import nothing from ``tests/``.

The import graph is grimp's, the library import-linter itself builds on.
"""

from __future__ import annotations

import ast
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = sorted(p.parent.name for p in ROOT.glob("*/__init__.py") if p.parent.name != "tests")
ALLOWED_CYCLES = [{"benchmarks.runs", "benchmarks.tasks"}, {"fabric.services", "fabric.tasks"}]


def import_cycles(graph: grimp.ImportGraph) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[set[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(component)
    return cycles


def test_the_cycle_finder_finds_a_cycle_and_only_cycles():
    graph = grimp.ImportGraph()
    for importer, imported in [("a.x", "a.y"), ("a.y", "a.z"), ("a.z", "a.x"), ("a.z", "a.w"), ("b.p", "b.q")]:
        graph.add_import(importer=importer, imported=imported)
    assert import_cycles(graph) == [{"a.x", "a.y", "a.z"}]


def test_no_import_cycles_but_the_celery_ones():
    graph = grimp.build_graph(*PACKAGES)
    assert "benchmarks" in PACKAGES and "placement" in PACKAGES and "tests" not in PACKAGES
    unexpected = [sorted(c) for c in import_cycles(graph) if c not in ALLOWED_CYCLES]
    assert unexpected == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in unexpected)


def test_bench_imports_nothing_from_tests():
    offenders = []
    for script in sorted((ROOT / "bench").glob("*.py")):
        for node in ast.walk(ast.parse(script.read_text(), str(script))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and node.level == 0
                else []
            )
            offenders += [f"{script.name}:{node.lineno} {n}" for n in names if n == "tests" or n.startswith("tests.")]
    assert offenders == []


def floors() -> dict[str, tuple[int, str]]:
    """Each app's floor (0 = top) and how it shares it ('|' side by side, ':' importing each other)."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in config if c["type"] == "layers"]
    found = {}
    for index, layer in enumerate(layers):
        sep = ":" if ":" in layer else "|"
        for app in layer.split(sep):
            found[app.strip()] = (index, sep)
    return found


@pytest.mark.django_db
def test_no_model_field_points_up_a_floor():
    """A foreign key (or one-to-one, many-to-many) goes to its own app, a floor
    below, or an app on the same floor that it may import (':'); Django's and
    the libraries' models are below every floor."""
    from django.apps import apps

    floor = floors()
    assert floor["bookings"][0] < floor["placement"][0]  # a booking names a saved plan
    upward = []
    for model in apps.get_models():
        here = model._meta.app_label
        if here not in floor:
            continue
        for field in model._meta.get_fields():
            if not field.is_relation or field.auto_created or field.related_model is None:
                continue
            there = field.related_model._meta.app_label
            if there == here or there not in floor:
                continue
            (mine, _), (theirs, sep) = floor[here], floor[there]
            if theirs < mine or (theirs == mine and sep == "|"):
                upward.append(f"{model.__name__}.{field.name} -> {there}.{field.related_model.__name__}")
    assert upward == []
