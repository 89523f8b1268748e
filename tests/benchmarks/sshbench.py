"""A small asyncssh server on 127.0.0.1 that answers the benchmark command the
way a head node running `vllm bench serve` does (the telemetry simulator only
answers its poll script). It runs in a thread with its own event loop so the
synchronous task under test can connect to it with ``asyncio.run``.
"""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import dataclass, field

import asyncssh

from benchmarks.command import RESULT_MARK, SERVER_INFO_MARK, SERVER_MARK, SERVER_VERSION_MARK, VERSION_MARK

VLLM_VERSION = "0.11.1"

CONSOLE = """INFO 11-30 10:12:01 [__init__.py:216] Automatically detected platform cuda.
Namespace(backend='vllm', base_url='http://127.0.0.1:8000', dataset_name='random', max_concurrency={c})
Starting initial single prompt test run...
Initial test run completed. Starting main benchmark run...
Traffic request rate: inf
Burstiness factor: 1.0 (Poisson process)
Maximum request concurrency: {c}
100%|██████████| {n}/{n} [00:23<00:00,  2.31s/it]
============ Serving Benchmark Result ============
Successful requests:                     {n}
Maximum request concurrency:             {c}
Benchmark duration (s):                  23.09
Total input tokens:                      {total_in}
Total generated tokens:                  {total_out}
Request throughput (req/s):              0.43
Output token throughput (tok/s):         55.43
Peak output token throughput (tok/s):    58.00
Peak concurrent requests:                1.00
Total Token throughput (tok/s):          110.86
---------------Time to First Token----------------
Mean TTFT (ms):                          61.27
Median TTFT (ms):                        60.80
P99 TTFT (ms):                           75.02
-----Time per Output Token (excl. 1st token)------
Mean TPOT (ms):                          17.72
Median TPOT (ms):                        17.70
P99 TPOT (ms):                           18.41
---------------Inter-token Latency----------------
Mean ITL (ms):                           17.72
Median ITL (ms):                         17.66
P99 ITL (ms):                            19.30
==================================================
"""


# what vLLM's bench prints after the latencies when the server drafted tokens (speculative decoding)
DRAFTING = """---------------Speculative Decoding---------------
Acceptance rate (%):                     58.20
Acceptance length:                       2.75
Drafts:                                  1790
Draft tokens:                            5370
Accepted tokens:                         3125
==================================================
"""


def console(command: str) -> str:
    """The summary for the sizes the command asked for."""

    def arg(name: str) -> int:
        return int(command.split(f"--{name} ")[1].split()[0])

    n = arg("num-prompts")
    return CONSOLE.format(
        c=arg("max-concurrency"), n=n, total_in=n * arg("random-input-len"), total_out=n * arg("random-output-len")
    )


@dataclass
class BenchServer:
    """Start with ``start()``; ``commands`` records every exec it was asked for."""

    client_public_key: str
    answer: str = "console"  # console | drafting (a server with speculative decoding) | garbage | fail
    # what the server at the URL says it is: vllm | sglang | sglang-eagle (drafting with EAGLE, CUDA graphs
    # off) | other (a proxy naming itself) | silent (no model list: curl printed nothing)
    server: str = "vllm"
    sglang_sizes: tuple[int, int, int] = (2, 1, 1)  # the tp, pp and dp an SGLang server reports
    host_key: asyncssh.SSHKey = field(default_factory=lambda: asyncssh.generate_private_key("ssh-ed25519"))
    commands: list[str] = field(default_factory=list)
    port: int = 0

    @property
    def public_host_key(self) -> str:
        return self.host_key.export_public_key("openssh").decode().strip()

    def _handle(self, process: asyncssh.SSHServerProcess[str]) -> None:
        command = process.command or ""
        self.commands.append(command)
        if not (
            command.startswith("export LC_ALL=C; vc() {")
            and f"echo {VERSION_MARK};" in command
            and "vc bench serve --backend vllm" in command
        ):
            process.stderr.write("sh: command not found\n")
            process.exit(127)
            return
        if self.answer == "fail":
            process.stderr.write("Error: connection refused to http://127.0.0.1:8000\n")
            process.exit(1)
            return
        body = "nothing useful here\n" if self.answer == "garbage" else console(command)
        if self.answer == "drafting":
            body = body.removesuffix("==================================================\n") + DRAFTING
        process.stdout.write(f"{VERSION_MARK}\n{VLLM_VERSION}\n{self._probes()}{RESULT_MARK}\n{body}")
        process.exit(0)

    def _probes(self) -> str:
        """What curl -sf printed for each of the command's questions to the server."""
        owner = {"vllm": "vllm", "other": "litellm"}.get(self.server, "sglang")
        models = json.dumps({"object": "list", "data": [{"id": "qwen3-32b", "object": "model", "owned_by": owner}]})
        info = {
            "tp_size": self.sglang_sizes[0],
            "pp_size": self.sglang_sizes[1],
            "dp_size": self.sglang_sizes[2],
            "disable_cuda_graph": self.server == "sglang-eagle",
            "speculative_algorithm": "EAGLE" if self.server == "sglang-eagle" else None,
            "version": "0.5.6",
        }
        answers = {
            SERVER_MARK: "" if self.server == "silent" else models,
            SERVER_VERSION_MARK: json.dumps({"version": VLLM_VERSION}) if self.server == "vllm" else "",
            SERVER_INFO_MARK: json.dumps(info) if self.server.startswith("sglang") else "",
        }
        return "".join(f"{mark}\n{body}\n" for mark, body in answers.items())

    def start(self) -> BenchServer:
        ready = threading.Event()
        self._loop = asyncio.new_event_loop()

        async def listen() -> None:
            keys = asyncssh.import_authorized_keys(self.client_public_key + "\n")
            self._server = await asyncssh.listen(
                "127.0.0.1",
                0,
                server_host_keys=[self.host_key],
                authorized_client_keys=keys,
                process_factory=self._handle,
                encoding="utf-8",
            )
            self.port = self._server.sockets[0].getsockname()[1]
            ready.set()

        def run() -> None:
            asyncio.set_event_loop(self._loop)
            self._loop.run_until_complete(listen())
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def stop(self) -> None:
        async def close() -> None:
            self._server.close()
            await self._server.wait_closed()

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
