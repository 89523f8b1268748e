"""Benchmark runs started from the page or the API: who may start one (admins;
members on a group they hold, asked of the reservations app), the Celery task
running the fixed command over real SSH against a small asyncssh server on
127.0.0.1 with a verified host key, and the failures a run records."""

from __future__ import annotations

import asyncssh
import pytest
from django.test import TestCase

from benchmarks import runs
from benchmarks.command import BenchSpec, bench_command, read_output
from benchmarks.models import BenchmarkRun
from inventory.models import Spark
from tests.benchmarks.sshbench import VLLM_VERSION, BenchServer
from tests.placement.conftest import placement_state

pytestmark = pytest.mark.django_db


@pytest.fixture
def fleet_key(tmp_path, settings):
    key = asyncssh.generate_private_key("ssh-ed25519")
    path = tmp_path / "fleet_key"
    path.write_bytes(key.export_private_key())
    path.chmod(0o600)
    settings.FLEET_SSH_KEY = str(path)
    return key.export_public_key("openssh").decode().strip()


@pytest.fixture
def server(fleet_key):
    running = BenchServer(fleet_key).start()
    yield running
    running.stop()


@pytest.fixture
def head(demo, server, monkeypatch):
    """spark-01 (head of the direct pair) answers SSH on the test server; its key is accepted."""
    Spark.objects.filter(name="spark-01").update(ssh_host="127.0.0.1", ssh_port=server.port)
    accept(monkeypatch, server.public_host_key)
    return demo["direct"]


def accept(monkeypatch, key):
    from telemetry.models import NodeState

    NodeState.objects.update_or_create(
        spark=Spark.objects.get(name="spark-01"), defaults={"host_key": key, "key_status": "ok"}
    )


@pytest.fixture
def tasks_inline(monkeypatch):
    """Run the Celery task in-process when it is sent (``committed`` fires the on_commit hooks)."""
    from benchmarks import tasks

    monkeypatch.setattr(tasks.run_benchmark, "delay", lambda run_id: tasks.run_benchmark(run_id))


def committed(call):
    """Run ``call`` and then its on_commit hooks, as a real commit would."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        return call()


def start(client, group, **fields):
    return committed(
        lambda: client.post("/api/benchmarks/runs", {"group": group.pk, "model": "llama-3.3-70b", **fields})
    )


def test_an_admin_runs_a_benchmark_over_ssh(api_admin, head, server, tasks_inline):
    response = start(api_admin, head, concurrency=2, input_len=256, output_len=64, num_prompts=10)
    assert response.status_code == 202, response.content
    run = BenchmarkRun.objects.get(pk=response.json()["id"])
    assert run.status == "done", run.error
    assert run.decode_tps == 55.43 and run.tpot_ms == 17.72 and run.ttft_ms == 61.27
    assert run.engine_version == VLLM_VERSION and run.concurrency == 2 and run.input_len == 256
    assert run.source == "measured" and run.topology_kind == "direct" and run.nodes == ["spark-01", "spark-02"]
    assert run.backend == "unknown" and "cannot see which collective backend" in run.notes
    assert len(server.commands) == 1 and server.commands[0] == run.command
    # the page's run list stops polling (htmx: 286) once nothing is queued or running
    from django.test import Client

    client = Client()
    client.force_login(run.created_by)
    polled = client.get(f"/benchmarks/groups/{head.pk}/", headers={"HX-Request": "true", "HX-Target": "runs"})
    assert polled.status_code == 286 and b"55.4" in polled.content and b"<html" not in polled.content
    assert "--max-concurrency 2 --num-prompts 10" in run.command
    assert "--model nvidia/Llama-3.3-70B-Instruct-NVFP4 --served-model-name llama-3.3-70b" in run.command


def test_a_run_on_a_group_whose_verification_saw_tcp_sockets_is_recorded_over_them(
    api_admin, head, server, tasks_inline
):
    """The pair's latest fabric verification saw NCCL on both nodes fall back
    to TCP sockets: a run started on it is recorded with that backend (its own
    server's NCCL log is not read), and the planner does not re-fit on it."""
    from benchmarks.lab_runs import lab_runs
    from tests.support.fabric_runs import verified

    verified(head, 5.6, "Socket", "failed")
    response = start(api_admin, head, concurrency=1, input_len=256, output_len=64, num_prompts=10)
    assert response.status_code == 202, response.content
    run = BenchmarkRun.objects.get(pk=response.json()["id"])
    assert run.status == "done", run.error
    assert run.backend == "socket" and run.get_backend_display() == "NCCL over TCP sockets"
    assert "saw NCCL on spark-01, spark-02 fall back to TCP sockets" in run.notes
    assert lab_runs() == []


def test_a_run_on_a_server_drafting_tokens_is_recorded_as_speculative(api_admin, head, server, tasks_inline):
    """The server the run measured drafts tokens (its summary has a
    Speculative Decoding section): the run is recorded done, as speculative
    decoding whose method the summary does not name, with its acceptance,
    and the planner does not re-fit on it."""
    from benchmarks.lab_runs import lab_runs

    server.answer = "drafting"
    response = start(api_admin, head, concurrency=1, input_len=256, output_len=64, num_prompts=10)
    assert response.status_code == 202, response.content
    run = BenchmarkRun.objects.get(pk=response.json()["id"])
    assert run.status == "done", run.error
    assert (run.speculative, run.acceptance_length, run.acceptance_rate) == ("unnamed", 2.75, 58.2)
    assert run.speculative_words() == "speculative decoding (2.75 tokens a step, 58% of drafts accepted)"
    assert [r.not_fitted for r in lab_runs()] == [
        "decoded with speculative decoding (2.75 tokens a step, 58% of drafts accepted); the performance model "
        "predicts plain decoding"
    ]


def test_a_changed_host_key_stops_the_run_before_any_command(api_admin, head, server, tasks_inline, monkeypatch):
    accept(monkeypatch, asyncssh.generate_private_key("ssh-ed25519").export_public_key("openssh").decode())
    run = BenchmarkRun.objects.get(pk=start(api_admin, head).json()["id"])
    assert run.status == "failed" and "host key mismatch" in run.error
    assert server.commands == []


def test_no_accepted_host_key_means_nothing_is_run(api_admin, head, server, tasks_inline, monkeypatch):
    monkeypatch.setattr(runs, "accepted_host_key", lambda spark: None)
    run = BenchmarkRun.objects.get(pk=start(api_admin, head).json()["id"])
    assert run.status == "failed" and "no accepted SSH host key" in run.error and server.commands == []


@pytest.mark.parametrize(
    "answer, words", [("garbage", "could not read the benchmark output"), ("fail", "exited with status 1")]
)
def test_a_failed_benchmark_is_recorded_as_failed(api_admin, head, server, tasks_inline, answer, words):
    server.answer = answer
    run = BenchmarkRun.objects.get(pk=start(api_admin, head).json()["id"])
    assert run.status == "failed" and words in run.error and run.decode_tps is None


def test_a_redelivered_task_does_not_run_twice(api_admin, head, server, tasks_inline):
    run_id = start(api_admin, head).json()["id"]
    assert runs.run_execute(run_id=run_id) is None
    assert len(server.commands) == 1


def test_members_need_a_booking(api_member, member_user, head, server, tasks_inline):
    from datetime import timedelta

    from django.utils import timezone

    from bookings.services import booking_create
    from core.actor import Actor

    before = placement_state()
    unbooked = start(api_member, head)
    assert unbooked.status_code == 403 and "book group-spark-01 first" in unbooked.json()["message"]
    assert placement_state() == before and server.commands == []
    now = timezone.now()
    booking_create(
        actor=Actor(user=member_user, source="api"),
        group=head.pk,
        start=now,
        end=now + timedelta(hours=2),
        purpose="decode sweep",
        confirm=True,
    )
    assert start(api_member, head).status_code == 202
    assert BenchmarkRun.objects.get(created_by_name="member1").status == "done"


def test_viewers_and_strangers_cannot_start_runs(api_viewer, head, server):
    from tests.conftest import ApiClient

    before = placement_state()
    assert start(api_viewer, head).status_code == 403
    assert start(ApiClient(None), head).status_code == 401
    assert placement_state() == before and server.commands == []


@pytest.mark.parametrize(
    "fields, path",
    [
        ({"concurrency": 0}, "concurrency"),
        ({"num_prompts": 5000}, "num_prompts"),
        ({"input_len": 131_000, "output_len": 1000}, "input_len"),  # beyond the model's context
        ({"model": "nope"}, "model"),
    ],
)
def test_bad_run_settings_are_refused(api_admin, head, server, fields, path):
    before = placement_state()
    response = start(api_admin, head, **fields)
    assert response.status_code == (422 if fields.get("concurrency") == 0 else 400), response.content  # schema bound
    assert path in [e["path"] for e in response.json()["errors"]]
    assert placement_state() == before


def test_the_page_starts_a_run(client, admin_user, head, server, tasks_inline):
    client.force_login(admin_user)
    page = client.get(f"/benchmarks/groups/{head.pk}/")
    assert b"Start the run" in page.content and b"spark-01" in page.content
    response = committed(
        lambda: client.post(
            f"/benchmarks/groups/{head.pk}/run/",
            {"model": "llama-3.3-70b", "concurrency": 1, "input_len": 128, "output_len": 128, "num_prompts": 10},
        )
    )
    assert response.status_code == 302
    assert BenchmarkRun.objects.get(source="measured").status == "done"
    bad = client.post(
        f"/benchmarks/groups/{head.pk}/run/",
        {"model": "llama-3.3-70b", "concurrency": 0, "input_len": 128, "output_len": 128, "num_prompts": 10},
    )
    assert bad.status_code == 400 and b"from 1 to 256" in bad.content


def test_the_command_is_fixed_and_quoted():
    command = bench_command(BenchSpec("qwen3-32b", "Qwen/Qwen3-32B-FP8", 4, 512, 256, 20))
    assert command.endswith("--random-input-len 512 --random-output-len 256 --max-concurrency 4 --num-prompts 20")
    with pytest.raises(ValueError, match="model"):
        bench_command(BenchSpec("x", "Qwen/x; rm -rf /", 1, 1, 1, 1))
    with pytest.raises(ValueError, match="concurrency"):
        bench_command(BenchSpec("x", "x", True, 1, 1, 1))
    with pytest.raises(ValueError, match="image: must be an image reference"):
        bench_command(BenchSpec("x", "x", 1, 1, 1, 1, image="nvcr.io/nvidia/vllm:1 && rm -rf /"))


def test_reading_output_without_markers_still_parses_the_summary():
    from tests.benchmarks.sshbench import CONSOLE

    result = read_output(CONSOLE.format(c=1, n=10, total_in=1280, total_out=1280), model="m")
    assert not isinstance(result, list) and result.decode_tps == 55.43 and result.engine_version is None


def test_the_launch_images_banner_before_the_clients_output_is_not_read_as_it():
    """The client in the launch image: each ``docker run`` prints the image's
    banner first. The version is still the client's own line, the summary
    still the benchmark's, and the banner's numbers ("NVIDIA Release 25.09",
    "vLLM Version ...") are neither."""
    from benchmarks.command import RESULT_MARK, VERSION_MARK
    from simfleet.software_answers import CONTAINER_BANNER as NGC_BANNER
    from tests.benchmarks.sshbench import CONSOLE

    console = CONSOLE.format(c=1, n=10, total_in=1280, total_out=1280)
    text = f"{VERSION_MARK}\n{NGC_BANNER}0.10.1.1+381074ae.nv25.09\n{RESULT_MARK}\n{NGC_BANNER}{console}"
    result = read_output(text, model="m")
    assert not isinstance(result, list)
    assert (result.engine_version, result.decode_tps) == ("0.10.1.1+381074ae.nv25.09", 55.43)
    # a client that printed no version of its own: the banner does not stand in for one
    bare = read_output(f"{VERSION_MARK}\n{NGC_BANNER}{RESULT_MARK}\n{NGC_BANNER}{console}", model="m")
    assert not isinstance(bare, list) and bare.engine_version is None


@pytest.mark.django_db(transaction=True)  # committed for real: the task is sent inside the request
def test_a_broker_that_is_down_fails_the_run_with_the_reason(api_admin, head, server, monkeypatch):
    from kombu.exceptions import OperationalError

    from benchmarks import tasks

    def refuse(run_id):
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(tasks.run_benchmark, "delay", refuse)
    response = api_admin.post("/api/benchmarks/runs", {"group": head.pk, "model": "llama-3.3-70b"})
    assert response.status_code == 503 and response["Retry-After"] == "10"
    assert response.json()["errors"][0]["path"] == "broker" and "could not be queued" in response.json()["message"]
    run = BenchmarkRun.objects.get(group=head)
    assert run.status == "failed" and run.error.startswith("not started: the task queue (broker) is unavailable")
    assert server.commands == []


@pytest.mark.parametrize(
    ("said", "engine", "version", "mode", "speculative", "note"),
    [
        (
            "vllm",
            "vllm",
            VLLM_VERSION,
            "",
            "",
            "named itself 'vllm' (GET /v1/models); the version is its own (GET /version); its layout is assumed to be "
            "the whole group's (tp 2 on 2 Sparks): vLLM does not report its own",
        ),
        (
            "sglang",
            "sglang",
            "0.5.6",
            "graphs",
            "",
            "named itself 'sglang' (GET /v1/models); GET /get_server_info: version 0.5.6, CUDA graphs on, tp 2, pp 1, "
            "dp 1",
        ),
        (
            "sglang-eagle",
            "sglang",
            "0.5.6",
            "eager",
            "eagle",
            "GET /get_server_info: version 0.5.6, CUDA graphs off, speculative algorithm EAGLE, tp 2",
        ),
        ("other", "other", "", "", "", "named itself 'litellm' (GET /v1/models): recorded as other, an engine"),
        (
            "silent",
            "vllm",
            VLLM_VERSION,
            "",
            "",
            "did not list its models (GET /v1/models), so it did not say which engine it is: recorded as vLLM, with "
            "the benchmark client's version; its layout is assumed to be the whole group's (tp 2 on 2 Sparks)",
        ),
    ],
)
def test_a_run_records_the_engine_the_server_says_it_is_not_the_clients(
    api_admin, head, server, tasks_inline, said, engine, version, mode, speculative, note
):
    """The benchmark client is vLLM's, whatever serves the head node's port: a
    group launched with the SGLang script is measured by it too. The run asks
    the server what it is before measuring, and records that engine, the
    server's own version and, from SGLang, its CUDA-graph mode and speculative
    algorithm; the calibration then fits each engine on its own runs (an
    SGLang run that drafts, or a server it does not know, on none)."""
    from benchmarks.lab_runs import lab_runs

    server.server = said
    response = start(api_admin, head, concurrency=1, input_len=256, output_len=64, num_prompts=10)
    assert response.status_code == 202, response.content
    run = BenchmarkRun.objects.get(pk=response.json()["id"])
    assert run.status == "done", run.error
    assert (run.engine, run.engine_version, run.mode, run.speculative) == (engine, version, mode, speculative)
    assert note in run.notes
    assert "curl -sf -m 5 http://127.0.0.1:8000/v1/models 2>/dev/null | head -c 65536" in run.command
    fitted = {r.layout.engine for r in lab_runs() if not r.not_fitted and not r.speculative}
    assert fitted == ({engine} if engine in ("vllm", "sglang") and not speculative else set())


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "not json",
        "[]",
        '{"data": "vllm"}',
        '{"data": []}',
        '{"data": [1, 2]}',
        '{"data": [{"owned_by": 7}]}',
        '{"data": [{"owned_by": "   "}]}',
        '{"data": [{"id": "m"}]}',
        '{"data": [{"owned_by": "vllm"}]' + "x" * 70000,
    ],
)
def test_a_server_answer_that_says_nothing_usable_is_read_as_silence(answer):
    """Whatever the port answers (a half-written body cut at 64 KiB, a list,
    a number for a name), the run reads it as a server that did not say what it is."""
    from benchmarks.command import RESULT_MARK, SERVER_MARK, VERSION_MARK, read_server

    said = read_server(f"{VERSION_MARK}\n0.11.1\n{SERVER_MARK}\n{answer}\n{RESULT_MARK}\nsummary\n")
    assert said.engine is None and said.named == ""


def test_a_server_that_answers_odd_server_information_is_still_named():
    """SGLang's model list is read even when its server information is not
    what this app expects: the engine and nothing else."""
    from benchmarks.command import RESULT_MARK, SERVER_INFO_MARK, SERVER_MARK, read_server

    models = '{"data": [{"id": "m", "owned_by": "sglang"}]}'
    for info in ("", "[]", '{"version": 5, "tp_size": true, "disable_cuda_graph": "no", "speculative_algorithm": 3}'):
        said = read_server(f"{SERVER_MARK}\n{models}\n{SERVER_INFO_MARK}\n{info}\n{RESULT_MARK}\n")
        assert (said.engine, said.version, said.mode, said.speculative, said.layout) == ("sglang", None, "", "", "")
    said = read_server(
        f"{SERVER_MARK}\n{models}\n{SERVER_INFO_MARK}\n" + '{"speculative_algorithm": "NONE"}\n' + RESULT_MARK
    )
    assert said.speculative == ""
    said = read_server(
        f"{SERVER_MARK}\n{models}\n{SERVER_INFO_MARK}\n" + '{"speculative_algorithm": "DSPARK"}\n' + RESULT_MARK
    )
    assert said.speculative == "unnamed"


@pytest.mark.parametrize(
    ("sizes", "layout", "note"),
    [
        (
            (1, 1, 1),
            (1, 1, 1, 1, ["spark-01"], "none"),
            "recorded with SGLang's layout, tp 1 and pp 1 on 1 Spark, not the whole group's 2",
        ),
        (
            (1, 1, 2),
            (1, 1, 2, 1, ["spark-01", "spark-02"], "none"),
            "recorded with SGLang's layout, tp 1 and pp 1 on 1 Spark in 2 copies, not the whole group's 2 (which "
            "Sparks after spark-01, the head, is not known)",
        ),
        (
            (4, 1, 1),
            (2, 1, 1, 2, ["spark-01", "spark-02"], "unknown"),
            "its sizes need 4 GPUs, more than the group's 2 Sparks: the group's layout is kept",
        ),
        ((2, 1, 1), (2, 1, 1, 2, ["spark-01", "spark-02"], "unknown"), ""),
    ],
)
def test_a_run_on_an_sglang_server_is_recorded_with_the_layout_it_reports(
    api_admin, head, server, tasks_inline, sizes, layout, note
):
    """A run on the head node's port is recorded with the whole group's
    layout, a guess the benchmark client cannot check; an SGLang server
    reports its tensor-, pipeline- and data-parallel sizes, and the record
    takes them (one copy's nodes; several copies are measured together and
    not fitted on), unless they need more Sparks than the group has."""
    server.server, server.sglang_sizes = "sglang", sizes
    response = start(api_admin, head, concurrency=1, input_len=256, output_len=64, num_prompts=10)
    assert response.status_code == 202, response.content
    run = BenchmarkRun.objects.get(pk=response.json()["id"])
    assert run.status == "done", run.error
    assert (run.tp, run.pp, run.copies, run.node_count, run.nodes, run.backend) == layout
    if note:
        assert note in run.notes
    else:
        assert "layout" not in run.notes


def _fake_tool(folder, name: str, body: str) -> None:
    path = folder / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)


@pytest.mark.parametrize("host_has_vllm", [True, False])
def test_the_client_runs_on_the_head_node_or_in_the_launch_image(tmp_path, host_has_vllm):
    """NVIDIA's playbooks and this app's launches run vLLM in a container, so
    a head node may have no ``vllm`` of its own: the command (run here by a
    real shell, with stand-ins for the tools on its PATH) then runs vLLM's
    client in the launch image, never pulling it, on the host's network,
    with the Hugging Face cache and the node's HF_TOKEN passed by name; a
    node with ``vllm`` runs it and never starts a container."""
    import shutil
    import subprocess

    from benchmarks.command import RESULT_MARK, VERSION_MARK

    bin_dir, log = tmp_path / "bin", tmp_path / "calls"
    bin_dir.mkdir()
    record = f'echo "$(basename "$0") $*" >> {log}\n'
    answer = 'case "$*" in *--version*) echo 0.11.1;; *) echo "Output token throughput (tok/s): 55.43";; esac\n'
    if host_has_vllm:
        _fake_tool(bin_dir, "vllm", record + answer)
    _fake_tool(bin_dir, "docker", record + answer)
    _fake_tool(bin_dir, "curl", "exit 7\n")  # no server answers the questions
    for tool in ("head", "basename", "cat"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    command = bench_command(BenchSpec("m", "org/M", 1, 64, 32, 5, image="registry.example/vllm:1.2"))
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path), "HF_TOKEN": "hf_not_a_real_token"}
    done = subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{VERSION_MARK}\n0.11.1\n") and f"{RESULT_MARK}\nOutput token" in done.stdout
    calls = log.read_text().splitlines()
    if host_has_vllm:
        assert [c.split()[0] for c in calls] == ["vllm", "vllm"]
    else:
        prefix = (
            f"docker run --rm --pull never --network host -e HF_TOKEN -v {tmp_path}/.cache/huggingface:"
            "/root/.cache/huggingface registry.example/vllm:1.2 vllm"
        )
        assert calls[0] == f"{prefix} --version"
        assert calls[1].startswith(f"{prefix} bench serve --backend vllm --base-url http://127.0.0.1:8000 ")
    assert "hf_not_a_real_token" not in command and "hf_not_a_real_token" not in log.read_text()


@pytest.mark.parametrize("shell", ["/bin/sh", "/bin/bash"])
def test_a_head_node_with_neither_vllm_nor_docker_fails_saying_so(tmp_path, shell):
    """The shell's own words (dash: ``docker: not found``, bash: ``docker:
    command not found``, status 127) read as the client that could not start,
    whichever login shell the fleet user has."""
    import shutil
    import subprocess

    from benchmarks.command import explain_failure

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _fake_tool(bin_dir, "curl", "exit 7\n")
    for tool in ("head", "cat"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    command = bench_command(BenchSpec("m", "org/M", 1, 64, 32, 5, image="registry.example/vllm:1.2"))
    done = subprocess.run(
        [shell, "-c", command], capture_output=True, text=True, env={"PATH": str(bin_dir)}, check=False
    )
    assert done.returncode == 127
    error = f"exited with status {done.returncode}: {done.stderr.strip()[-300:]}"  # as telemetry.remote says it
    assert explain_failure(error, head="spark-01", image="registry.example/vllm:1.2") == (
        "the benchmark client could not start: neither vllm nor docker is on the fleet user's PATH on spark-01; "
        f"install vLLM there, or Docker with the launch image registry.example/vllm:1.2 ({error})"
    )
    # another failure keeps its own words alone, a permission error inside the container included
    for other in (
        "exited with status 1: Error: model not found",
        "exited with status 1: PermissionError: [Errno 13] Permission denied: '/root/.cache/huggingface/hub' "
        "(in docker)",
    ):
        assert explain_failure(other, head="spark-01", image="x") == other


@pytest.mark.parametrize(
    ("docker", "images", "warning"),
    [
        ("ok", ["nvcr.io/nvidia/vllm:26.05-py3"], None),
        (
            "ok",
            ["nvcr.io/nvidia/vllm:25.11-py3"],
            "The launch image nvcr.io/nvidia/vllm:26.05-py3 was not on spark-01 when its software was read at "
            "2026-12-01 08:30 UTC: a run there needs vLLM installed on spark-01 itself, or the image pulled there.",
        ),
        (
            "absent",
            None,
            "Docker was not installed on spark-01 when its software was read at 2026-12-01 08:30 UTC: a run there "
            "needs vLLM installed on spark-01 itself.",
        ),
        (
            "denied",
            None,
            "The fleet&#x27;s SSH user could not use Docker on spark-01 when its software was read at 2026-12-01 "
            "08:30 UTC: a run there needs vLLM installed on spark-01 itself, or that user in the docker group.",
        ),
        ("unreachable", None, None),
        (None, None, None),  # never read
        # read since the poll asks the fleet user's shell for a vllm: none there
        ("absent:none", None, "No vLLM was on the fleet user&#x27;s PATH on spark-01 and Docker was not installed "
         "there when its software was read at 2026-12-01 08:30 UTC: a run there will fail unless vLLM is installed "
         "there, or Docker with the launch image."),
        ("denied:none", None, "No vLLM was on the fleet user&#x27;s PATH on spark-01 and that user could not use "
         "Docker there when its software was read at 2026-12-01 08:30 UTC: a run there will fail unless vLLM is "
         "installed there, or that user in the docker group."),
        ("unreachable:none", None, "No vLLM was on the fleet user&#x27;s PATH on spark-01 and its Docker daemon did "
         "not answer when its software was read at 2026-12-01 08:30 UTC: a run there will fail unless vLLM is "
         "installed there, or Docker running there."),
        ("ok:none", ["nvcr.io/nvidia/vllm:25.11-py3"], "No vLLM was on the fleet user&#x27;s PATH on spark-01 and "
         "the launch image nvcr.io/nvidia/vllm:26.05-py3 was not there when its software was read at 2026-12-01 "
         "08:30 UTC: a run there will fail unless vLLM is installed there, or the image pulled there."),
        ("ok:none", ["nvcr.io/nvidia/vllm:26.05-py3"], None),
        # its own vllm: the client never needs Docker
        ("absent:/home/fleet/.local/bin/vllm", None, None),
        ("ok:/usr/local/bin/vllm", ["nvcr.io/nvidia/vllm:25.11-py3"], None),
    ],
)  # fmt: skip
def test_the_run_form_says_when_the_head_node_had_no_way_to_run_the_client(
    admin_user, demo, settings, docker, images, warning
):
    """A head node without its own vLLM runs the client in the launch image;
    its last software reading says whether it had that image and Docker, and
    the run form warns an admin before a run that would fail for want of them."""
    from datetime import UTC, datetime

    from django.test import Client

    from telemetry.models import SoftwareState
    from telemetry.software import Image, SoftwareReading

    settings.FLEET_VLLM_IMAGE = "nvcr.io/nvidia/vllm:26.05-py3"
    vllm = ""
    if docker is not None:
        docker, _, vllm = docker.partition(":")  # "state:vllm path" ("none": not on the PATH); no vllm: unread
        reading = SoftwareReading(
            dgx_os="7.3.1", kernel=None, driver=None, cuda=None, connectx_firmware=None, nccl=None,
            nccl_build=None, nccl_release=None, docker=docker,
            images=None if images is None else tuple(Image(ref, "sha256:" + "a" * 64, "abc123") for ref in images),
            vllm={"": "unread", "none": "absent"}.get(vllm, "present"),
            vllm_path=vllm if vllm.startswith("/") else None,
        )  # fmt: skip
        SoftwareState.objects.create(
            spark=Spark.objects.get(name="spark-01"),
            reading=reading.to_dict(),
            read_at=datetime(2026, 12, 1, 8, 30, tzinfo=UTC),
        )
    client = Client()
    client.force_login(admin_user)
    page = client.get(f"/benchmarks/groups/{demo['direct'].pk}/")
    assert page.status_code == 200
    text = page.content.decode()
    if warning is None:
        assert 'id="client-warning"' not in text
    else:
        assert f'<p class="warn small" id="client-warning" role="note">{warning}</p>' in text
    # which client the run will use, as far as the reading says
    how = {
        "": "its own vLLM or, without one, the launch image&#x27;s (nvcr.io/nvidia/vllm:26.05-py3)",
        "none": "the launch image&#x27;s vLLM (nvcr.io/nvidia/vllm:26.05-py3), since it has none of its own",
    }.get(vllm, f"its own vLLM ({vllm})")
    assert f"over SSH on <strong>spark-01</strong>, with {how}, against the server" in text
