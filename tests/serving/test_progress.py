"""A running step's output is stored while it runs (what the page shows
live), from the thread remote's event loop calls back on, at most every
PROGRESS_EVERY_S; a store that fails never ends the step."""

from __future__ import annotations

import threading

import pytest

from serving import runner
from serving.models import Serving
from telemetry.remote import Outcome
from tests.serving.conftest import SMALL

pytestmark = pytest.mark.django_db(transaction=True)
ENGINE = 2  # a one-node plan: image, weights, engine, wait (the engine step runs through _run_step)


def test_output_so_far_is_stored_while_the_step_runs(api_member, booked_pair, monkeypatch):
    monkeypatch.setattr("serving.services.queue", lambda serving, stop=False: None)
    response = api_member.post("/api/serving", {"group": booked_pair.pk, "model": SMALL, "plan": 0})
    serving = Serving.objects.get(pk=response.json()["id"])
    seen: list[str] = []

    def fake_node(name, script, *, on_output=None, timeout=None):
        def callback(text):  # as remote calls it: from another thread
            on_output(text)
            seen.append(Serving.objects.get(pk=serving.pk).steps[ENGINE]["output"])

        for text in ("Unable to find image locally\n", "Unable to find image locally\nPulling fs layer\n"):
            worker = threading.Thread(target=callback, args=(text,))
            worker.start()
            worker.join()
        return Outcome("Unable to find image locally\nPulling fs layer\nabc123\n", "")

    monkeypatch.setattr(runner, "on_node", fake_node)
    monkeypatch.setattr(runner, "PROGRESS_EVERY_S", 0.0)
    steps = [dict(s) for s in serving.steps]
    assert steps[ENGINE]["label"] == "engine"
    assert runner._run_step(serving, steps, ENGINE) == ""
    assert seen == ["Unable to find image locally\n", "Unable to find image locally\nPulling fs layer\n"]
    stored = Serving.objects.get(pk=serving.pk).steps[ENGINE]
    assert stored["status"] == "done" and stored["output"].endswith("abc123\n")


def test_a_failing_store_never_ends_the_step(api_member, booked_pair, monkeypatch):
    monkeypatch.setattr("serving.services.queue", lambda serving, stop=False: None)
    response = api_member.post("/api/serving", {"group": booked_pair.pk, "model": SMALL, "plan": 0})
    serving = Serving.objects.get(pk=response.json()["id"])

    def broken(pk, steps):
        raise RuntimeError("the database is restarting")

    def fake_node(name, script, *, on_output=None, timeout=None):
        on_output("half")
        return Outcome("whole", "")

    monkeypatch.setattr(runner, "on_node", fake_node)
    monkeypatch.setattr(runner, "PROGRESS_EVERY_S", 0.0)
    real = runner._save_steps
    calls = []

    def save(pk, steps):
        calls.append(len(calls))
        return broken(pk, steps) if len(calls) == 2 else real(pk, steps)

    monkeypatch.setattr(runner, "_save_steps", save)
    steps = [dict(s) for s in serving.steps]
    assert runner._run_step(serving, steps, ENGINE) == ""  # the second store (the progress) failed; the step did not
    assert steps[ENGINE]["status"] == "done" and steps[ENGINE]["output"] == "whole"
