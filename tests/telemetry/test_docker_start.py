"""``telemetry.docker_start.reading``: what the shell and Docker print when
``docker run`` cannot start a container, read as one word (the words of
``docker_gap``), and every other failure left alone."""

from __future__ import annotations

import pytest

from telemetry.docker_start import pulled_image, reading

DENIED = (
    "docker: permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock: "
    'Head "http://%2Fvar%2Frun%2Fdocker.sock/_ping": dial unix /var/run/docker.sock: connect: permission denied.\n'
    "See 'docker run --help'.\n"
)
DOWN = (
    "docker: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n"
    "See 'docker run --help'.\n"
)
PULL = (
    "Unable to find image 'nvcr.io/nvidia/vllm:25.11-py3' locally\n"
    'docker: Error response from daemon: Get "https://nvcr.io/v2/": dial tcp: lookup nvcr.io: no such host.\n'
    "See 'docker run --help'.\n"
)
PULL_DENIED = (
    "Unable to find image 'registry.example/vllm:1.2' locally\n"
    "1.2: Pulling from vllm\n"
    "docker: Error response from daemon: pull access denied for registry.example/vllm, repository does not exist "
    "or may require 'docker login'.\n"
)
GPU = 'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].\n'


@pytest.mark.parametrize(
    ("status", "text", "word"),
    [
        (127, "sh: 1: docker: not found\n", "absent"),
        (127, "bash: line 11: docker: command not found\n", "absent"),
        (126, DENIED, "denied"),
        (125, DOWN, "unreachable"),
        (
            126,
            "docker: permission denied while trying to connect to the docker API at unix:///var/run/docker.sock\n",
            "denied",
        ),
        (
            125,
            "docker: failed to connect to the docker API at unix:///var/run/docker.sock; check if the path is correct "
            "and if the daemon is running: dial unix /var/run/docker.sock: connect: no such file or directory\n",
            "unreachable",
        ),
        (125, "docker: Error response from daemon: No such image: nvcr.io/nvidia/vllm:25.11-py3.\n", "image"),
        (125, PULL, "pull"),
        (125, PULL_DENIED, "pull"),
        (125, GPU, "gpu"),
        # not Docker's start: left alone
        (0, "sh: 1: docker: not found\n", ""),
        (None, DOWN, ""),
        (127, "bash: line 3: vllm-router: command not found\n", ""),
        (1, "PermissionError: [Errno 13] Permission denied: '/root/.cache/huggingface/hub'\n", ""),
        (1, "Unable to find image 'x/y:1' locally\n... Error response from daemon: boom\n", ""),
        (125, 'docker: Error response from daemon: Conflict. The container name "/a" is already in use.\n', ""),
        (137, "Killed\n", ""),
    ],
)
def test_each_start_failure_reads_as_one_word(status, text, word):
    assert reading(status, text) == word


def test_the_image_named_in_a_failed_pull():
    assert pulled_image(PULL) == "nvcr.io/nvidia/vllm:25.11-py3"
    assert pulled_image(PULL_DENIED) == "registry.example/vllm:1.2"
    assert pulled_image(GPU) == ""


def test_a_failed_commands_status_is_read_from_its_error_alone():
    from telemetry.remote import Outcome

    assert Outcome.exit_status("exited with status 127: sh: 1: docker: not found") == 127
    assert Outcome.exit_status("exited with status 125") == 125
    assert Outcome.exit_status("timed out after 2 s") is None
    assert Outcome.exit_status("spark-01: connection refused (exited with status 1)") is None
