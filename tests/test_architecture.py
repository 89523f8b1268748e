"""The architecture as tests, next to the import-linter contracts in
pyproject.toml (`lint-imports`, run by `./run test` before pytest):

- no import cycle across apps (inside an app, the contract "No import cycle
  inside an app but the Celery ones" says so, with import-linter's own
  ``acyclic_siblings``); the floors leave only placement and fabric, which
  import each other, able to close one;
- the benchmarks in ``bench/`` import nothing from ``tests/``;
- no model field points up a floor.

The import graph is grimp's, the library import-linter itself builds on.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import grimp
import pytest
from importlinter.configuration import configure
from importlinter.contracts.acyclic_siblings import AcyclicSiblingsContract

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = sorted(p.parent.name for p in ROOT.glob("*/__init__.py") if p.parent.name != "tests")


def contracts() -> list[dict]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def cycles_across_apps(graph: grimp.ImportGraph) -> list[tuple[str, str]]:
    """Each import from one app into another that leads back to the importer by
    a chain of imports: an import that closes a cycle."""
    return [
        (importer, imported)
        for importer in sorted(graph.modules)
        for imported in sorted(graph.find_modules_directly_imported_by(importer))
        if importer.split(".")[0] != imported.split(".")[0] and graph.chain_exists(importer=imported, imported=importer)
    ]


def a_graph(*imports: tuple[str, str]) -> grimp.ImportGraph:
    """A made-up graph of these imports, with every package above their modules."""
    graph = grimp.ImportGraph()
    for importer, imported in imports:
        for module in (importer, imported):
            parts = module.split(".")
            for depth in range(1, len(parts)):
                graph.add_module(".".join(parts[:depth]))
        graph.add_import(importer=importer, imported=imported)
    return graph


def test_the_cycle_checks_find_a_cycle_and_only_cycles():
    across = a_graph(("a.x", "b.y"), ("b.y", "a.z"), ("a.z", "a.x"), ("a.w", "b.q"), ("b.q", "b.r"))
    assert cycles_across_apps(across) == [("a.x", "b.y"), ("b.y", "a.z")]
    (config,) = [c for c in contracts() if c["type"] == "acyclic_siblings"]
    configure()  # import-linter's own settings, as lint-imports sets them
    within = AcyclicSiblingsContract(
        name=config["name"], session_options={}, contract_options={"ancestors": ["a"], "depth": "10"}
    )
    assert within.check(a_graph(("a.x", "a.y"), ("a.y", "a.z"), ("a.w", "a.x")), verbose=False).kept
    assert not within.check(a_graph(("a.x", "a.y"), ("a.y", "a.z"), ("a.z", "a.x")), verbose=False).kept
    assert not within.check(a_graph(("a.p.x", "a.q"), ("a.q", "a.p.y")), verbose=False).kept  # a subpackage too


def test_the_cycle_contract_covers_every_app():
    (config,) = [c for c in contracts() if c["type"] == "acyclic_siblings"]
    assert sorted(config["ancestors"]) == PACKAGES
    assert "benchmarks" in PACKAGES and "simfleet" in PACKAGES and "tests" not in PACKAGES


def test_no_import_cycle_across_apps():
    assert cycles_across_apps(grimp.build_graph(*PACKAGES)) == []


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
    (layers,) = [c["layers"] for c in contracts() if c["type"] == "layers"]
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
