"""The role matrix of placement, pages and API: admins add and delete models;
members and admins record benchmarks; everyone signed in reads and plans;
strangers get 401 (API) or the sign-in page."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from core.roles import ADMIN, MEMBER, VIEWER
from tests.conftest import ApiClient
from tests.placement.conftest import placement_state

pytestmark = pytest.mark.django_db

ROLES = [ADMIN, MEMBER, VIEWER, None]
MODEL = {
    "slug": "tiny-1b",
    "name": "Tiny 1B",
    "params_b": 1.0,
    "layers": 16,
    "hidden_size": 2048,
    "heads": 16,
    "kv_heads": 4,
    "head_dim": 128,
    "quantization": "bf16",
    "max_context": 8192,
}
RESULT = {"model": "llama-3.3-70b", "group": "{direct}", "decode_tps": 20.5, "backend": "nccl"}
VLLM_JSON = json.dumps(
    {
        "output_throughput": 18.3,
        "mean_ttft_ms": 200.0,
        "mean_tpot_ms": 54.0,
        "max_concurrency": 1,
        "completed": 10,
        "random_input_len": 128,
        "random_output_len": 128,
    }
)

# (name, method, path, body, who may: "read" | "book" | "admin")
API = [
    ("list models", "get", "/api/models", None, "read"),
    ("add model", "post", "/api/models", MODEL, "admin"),
    (
        "add model from config",
        "post",
        "/api/models/config",
        {
            "slug": "cfg-1b",
            "quantization": "bf16",
            "config": {
                "num_hidden_layers": 16,
                "hidden_size": 2048,
                "num_attention_heads": 16,
                "vocab_size": 32000,
                "intermediate_size": 5632,
                "max_position_embeddings": 4096,
            },
        },
        "admin",
    ),
    ("delete model", "delete", "/api/models/minicpm5-2b", None, "admin"),
    ("plan", "post", "/api/plans", {"model": "llama-3.3-70b", "group": "{switched}"}, "read"),
    ("list benchmarks", "get", "/api/benchmarks?model=qwen3.8-27b", None, "read"),
    ("record benchmark", "post", "/api/benchmarks", RESULT, "book"),
    (
        "upload benchmark",
        "post",
        "/api/benchmarks/upload",
        {"model": "llama-3.3-70b", "group": "{direct}", "content": VLLM_JSON},
        "book",
    ),
]


def _fill(body, demo):
    if body is None:
        return None
    text = json.dumps(body)
    for kind, group in demo.items():
        text = text.replace(f'"{{{kind}}}"', str(group.pk))
    return json.loads(text)


def allowed(role, who):
    return {"read": role is not None, "book": role in (ADMIN, MEMBER), "admin": role == ADMIN}[who]


@pytest.mark.parametrize("role", ROLES, ids=lambda r: r or "anonymous")
@pytest.mark.parametrize("action", API, ids=lambda a: a[0])
def test_api_role_matrix(role, action, users, demo):
    name, method, path, body, who = action
    client = ApiClient(users[role] if role else None)
    before = placement_state()
    call = getattr(client, method)
    response = call(path, _fill(body, demo)) if body is not None else call(path)
    if role is None:
        assert response.status_code == 401
    elif not allowed(role, who):
        assert response.status_code == 403, response.content
    else:
        created = name in ("add model", "add model from config", "record benchmark", "upload benchmark")
        assert response.status_code == (204 if method == "delete" else 201 if created else 200), response.content
        if method != "get" and name != "plan":
            assert placement_state() != before
        return
    assert placement_state() == before


# (name, method, path, form, who, success status)
PAGES = [
    ("plan page", "get", "/plans/", None, "read", 200),
    ("model list", "get", "/models/", None, "read", 200),
    ("new model form", "get", "/models/new/", None, "admin", 200),
    ("add model", "post", "/models/new/", {**MODEL, "experts": 0, "experts_per_token": 0}, "admin", 302),
    ("config form", "get", "/models/upload/", None, "admin", 200),
    ("delete model", "post", "/models/minicpm5-2b/delete/", {}, "admin", 302),
    ("leaderboard", "get", "/benchmarks/", None, "read", 200),
    ("group benchmarks", "get", "/benchmarks/groups/{switched}/", None, "read", 200),
    ("record form", "get", "/benchmarks/new/", None, "book", 200),
    (
        "record",
        "post",
        "/benchmarks/new/",
        {
            "source": "measured",
            "group": "{direct}",
            "model": "llama-3.3-70b",
            "engine": "vllm",
            "backend": "nccl",
            "concurrency": 1,
            "decode_tps": "20.5",
        },
        "book",
        302,
    ),
    ("upload form", "get", "/benchmarks/upload/", None, "book", 200),
]


@pytest.mark.parametrize("role", ROLES, ids=lambda r: r or "anonymous")
@pytest.mark.parametrize("action", PAGES, ids=lambda a: a[0])
def test_page_role_matrix(role, action, users, demo):
    name, method, path, form, who, success = action
    for kind, group in demo.items():
        path = path.replace(f"{{{kind}}}", str(group.pk))
    form = {
        k: (str(demo[v[1:-1]].pk) if isinstance(v, str) and v.startswith("{") else v) for k, v in (form or {}).items()
    }
    client = Client()
    if role:
        client.force_login(users[role])
    before = placement_state()
    response = client.get(path) if method == "get" else client.post(path, form)
    if role is None:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    elif not allowed(role, who):
        assert response.status_code == 403
    else:
        assert response.status_code == success, response.content.decode()[:3000]
        if method == "post":
            assert placement_state() != before
        return
    assert placement_state() == before


def test_the_run_form_shows_only_to_those_who_may_start(client, users, demo):
    group = demo["switched"]
    client.force_login(users[VIEWER])
    page = client.get(f"/benchmarks/groups/{group.pk}/").content.decode()
    assert "Start the run" not in page and "member or lab admin" in page
    client.force_login(users[ADMIN])
    assert "Start the run" in client.get(f"/benchmarks/groups/{group.pk}/").content.decode()
    client.force_login(users[MEMBER])
    before = placement_state()
    refused = client.post(
        f"/benchmarks/groups/{group.pk}/run/",
        {"model": "llama-3.3-70b", "concurrency": 1, "input_len": 128, "output_len": 128, "num_prompts": 10},
    )
    assert refused.status_code == 403 and placement_state() == before
