"""The checkpoint each published figure ran, where its source names it.

The catalogue's variant is a weights format (NVFP4, FP8, INT4...), and the
performance model predicts a format; but two checkpoints of one format can
decode at very different speeds on the same engine. Qwen3.6-35B-A3B in NVFP4
on vLLM, one Spark, one stream: NVIDIA's ModelOpt checkpoint at 77.4 tok/s
(jvr0x) and RedHat's compressed-tensors one at 42.6 and 43.0 (djangodevreng,
spark-bench-reproducers), from four labs. A plan says which checkpoint it
launches and which checkpoint each published run of its configuration used
(``placement.perfmodel.evidence``), so that a member sees which figures to
expect.

Only a repository the source itself names is recorded (in the figure's note
or, for djangodevreng's series, the ``model`` of each profile's ``meta.json``
at commit 435255228956326a55b5d21de3d69c1f5aee046d, Qwen3.6-27B's FP8 at
1253e092aff33bde6abb55039b088000408742ec); a figure whose source does not
name one has none (heitor-mocelin's ``--quantization modelopt`` sweep names a
method, not a repository). The checkpoint changes no prediction and no fit.
"""

from __future__ import annotations

# the input and output lengths of the thirteenth set's Avarok rows (placement.published_fresh_thirteenth)
_AVAROK_LENGTHS = ((128, 128), (256, 256), (1024, 1024), (4096, 4096), (8192, 1024), (32768, 256))

# repository -> the keys of the published figures that ran it
CHECKPOINTS: dict[str, tuple[str, ...]] = {
    "Intel/Qwen3.6-35B-A3B-int4-mixed-AutoRound": ("qwen3.6-35b-a3b-1-vllm-int4-czcrimpy",),
    "Qwen/Qwen3-30B-A3B": (
        "qwen3-30b-a3b-1-vllm-bf16-palatine",
        "qwen3-30b-a3b-1-vllm-bf16-palatine-c5",
        "qwen3-30b-a3b-1-vllm-bf16-palatine-c10",
        "qwen3-30b-a3b-1-vllm-bf16-palatine-c50",
    ),
    "Qwen/Qwen3-30B-A3B-FP8": (
        "qwen3-30b-a3b-1-vllm-fp8-palatine",
        "qwen3-30b-a3b-1-vllm-fp8-palatine-c5",
        "qwen3-30b-a3b-1-vllm-fp8-palatine-c10",
        "qwen3-30b-a3b-1-vllm-fp8-palatine-c50",
    ),
    "Qwen/Qwen3-30B-A3B-GPTQ-Int4": (
        "qwen3-30b-a3b-1-vllm-int4-palatine",
        "qwen3-30b-a3b-1-vllm-int4-palatine-c5",
        "qwen3-30b-a3b-1-vllm-int4-palatine-c10",
        "qwen3-30b-a3b-1-vllm-int4-palatine-c50",
    ),
    "Qwen/Qwen3-32B": (
        "qwen3-32b-1-vllm-bf16-palatine-c10",
        "qwen3-32b-1-vllm-bf16-palatine-c50",
    ),
    "Qwen/Qwen3-32B-AWQ": (
        "qwen3-32b-1-vllm-int4-palatine-c5",
        "qwen3-32b-1-vllm-int4-palatine-c10",
        "qwen3-32b-1-vllm-int4-palatine-c50",
    ),
    "Qwen/Qwen3-32B-FP8": (
        "qwen3-32b-1-vllm-fp8-palatine-c5",
        "qwen3-32b-1-vllm-fp8-palatine-c10",
        "qwen3-32b-1-vllm-fp8-palatine-c50",
    ),
    "Qwen/Qwen3-Coder-30B-A3B-Instruct": ("qwen3-coder-30b-a3b-1-vllm-bf16-dataforgex",),
    "Qwen/Qwen3.6-27B-FP8": (
        "qwen3.6-27b-1-djangodevreng-fp8",
        "qwen3.6-27b-1-djangodevreng-fp8-c5",
        "qwen3.6-27b-1-djangodevreng-fp8-c10",
        "qwen3.6-27b-1-vllm-fp8-pulsar",
        "qwen3.6-27b-1-vllm-fp8-pulsar-c2",
        "qwen3.6-27b-1-vllm-fp8-pulsar-c4",
        "qwen3.6-27b-1-vllm-fp8-pulsar-c8",
        "qwen3.6-27b-1-vllm-fp8-pulsar-c16",
    ),
    "Qwen/Qwen3.6-35B-A3B": (
        "qwen3.6-35b-a3b-1-djangodevreng-bf16",
        "qwen3.6-35b-a3b-1-djangodevreng-bf16-c5",
        "qwen3.6-35b-a3b-1-djangodevreng-bf16-c10",
    ),
    "Qwen/Qwen3.6-35B-A3B-FP8": (
        "qwen3.6-35b-a3b-1-djangodevreng-fp8",
        "qwen3.6-35b-a3b-1-djangodevreng-fp8-c5",
        "qwen3.6-35b-a3b-1-djangodevreng-fp8-c10",
        # the twelfth set (placement.published_fresh_twelfth): wutonglab's env template
        "qwen3.6-35b-a3b-1-vllm-fp8-wutong-c1-o512",
        "qwen3.6-35b-a3b-1-vllm-fp8-wutong-c1-o1024",
        "qwen3.6-35b-a3b-1-vllm-fp8-wutong-c4-o512",
        "qwen3.6-35b-a3b-1-vllm-fp8-wutong-c4-o1024",
        # Avarok's vLLM + MTP ladder, kept for reference (placement.published_speculative)
        "qwen3.6-35b-a3b-1-vllm-fp8-atlas-mtp",
        *(f"qwen3.6-35b-a3b-1-vllm-fp8-atlas-mtp-c{n}" for n in (2, 4, 8, 16)),
    ),
    "Qwen/Qwen3.8-27B-FP8": (
        "qwen3.8-27b-1-djangodevreng-fp8",
        "qwen3.8-27b-1-djangodevreng-fp8-c5",
        "qwen3.8-27b-1-djangodevreng-fp8-c10",
        "qwen3.8-27b-1-vllm-fp8-jkingston",
        "qwen3.8-27b-1-vllm-fp8-0xbakeer",
        "qwen3.8-27b-1-vllm-fp8-0xbakeer-c4",
        "qwen3.8-27b-1-vllm-fp8-0xbakeer-c8",
        "qwen3.8-27b-1-vllm-fp8-0xbakeer-c12",
        "qwen3.8-27b-1-vllm-fp8-0xbakeer-c16",
    ),
    "RedHatAI/Qwen3.6-35B-A3B-NVFP4": (
        "qwen3.6-35b-a3b-1-vllm-nvfp4-reproducers",
        "qwen3.6-35b-a3b-1-djangodevreng-nvfp4",
        "qwen3.6-35b-a3b-1-djangodevreng-nvfp4-c5",
        "qwen3.6-35b-a3b-1-djangodevreng-nvfp4-c10",
    ),
    "cpatonn/Qwen3-Coder-30B-A3B-Instruct-AWQ-4bit": (
        "qwen3-coder-30b-a3b-1-vllm-awq-dataforgex",
        "qwen3-coder-30b-a3b-1-vllm-awq-dataforgex-seqs8",
    ),
    "meta-llama/Llama-3.3-70B-Instruct": ("llama-3.3-70b-2-tp2-vllm-bf16-rykersun",),
    "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-FP8": (
        "nemotron-3-nano-30b-a3b-1-vllm-fp8-jvr0x",
        "nemotron-3-nano-30b-a3b-1-djangodevreng-fp8",
        "nemotron-3-nano-30b-a3b-1-djangodevreng-fp8-c5",
        "nemotron-3-nano-30b-a3b-1-djangodevreng-fp8-c10",
    ),
    "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4": (
        "nemotron-3-nano-30b-a3b-1-djangodevreng-nvfp4",
        "nemotron-3-nano-30b-a3b-1-djangodevreng-nvfp4-c5",
        "nemotron-3-nano-30b-a3b-1-djangodevreng-nvfp4-c10",
        "nemotron-3-nano-30b-a3b-1-vllm-nvfp4-pulsar",
        "nemotron-3-nano-30b-a3b-1-vllm-nvfp4-pulsar-c4",
        "nemotron-3-nano-30b-a3b-1-vllm-nvfp4-pulsar-c16",
        "nemotron-3-nano-30b-a3b-1-vllm-nvfp4-martin",  # the sample config's snapshot path
    ),
    "nvidia/Qwen3.6-27B-NVFP4": ("qwen3.6-27b-1-vllm-nvfp4-jvr0x", "qwen3.6-27b-1-vllm-nvfp4-jschmied"),
    "nvidia/Qwen3.6-35B-A3B-NVFP4": (
        "qwen3.6-35b-a3b-1-vllm-nvfp4-jvr0x",
        # r0b0tlab's MTP ladder, kept for reference (placement.published_speculative)
        "qwen3.6-35b-a3b-1-vllm-nvfp4-r0b0tlab-mtp",
        *(f"qwen3.6-35b-a3b-1-vllm-nvfp4-r0b0tlab-mtp-c{n}" for n in (2, 4, 8, 16, 32)),
    ),
    "unsloth/Qwen3.6-35B-A3B-NVFP4": (
        "qwen3.6-35b-a3b-1-sglang-nvfp4-anubhav",
        "qwen3.6-35b-a3b-1-sglang-nvfp4-anubhav-c2",
        "qwen3.6-35b-a3b-1-sglang-nvfp4-anubhav-c8",
        "qwen3.6-35b-a3b-1-sglang-nvfp4-anubhav-c10",
        "qwen3.6-35b-a3b-1-sglang-nvfp4-anubhav-c189",
        "qwen3.6-35b-a3b-1-sglang-nvfp4-anubhav-c263",
        "qwen3.6-35b-a3b-1-sglang-nvfp4-anubhav-c367",
        "qwen3.6-35b-a3b-1-sglang-nvfp4-anubhav-c457",
    ),
    "unsloth/Qwen3.8-27B-NVFP4": (
        "qwen3.8-27b-1-vllm-nvfp4-kubesimplify",
        "qwen3.8-27b-1-vllm-nvfp4-kubesimplify-c2",
        "qwen3.8-27b-1-vllm-nvfp4-kubesimplify-c5",
        "qwen3.8-27b-1-vllm-nvfp4-kubesimplify-c10",
        "qwen3.8-27b-1-vllm-nvfp4-kubesimplify-d100k",
        # the ninth set (placement.published_fresh_ninth)
        "qwen3.8-27b-1-vllm-nvfp4-epappas",
        "qwen3.8-27b-1-vllm-nvfp4-jkingston",
        # the twelfth set
        "qwen3.8-27b-1-vllm-nvfp4-jschmied",
        "qwen3.8-27b-1-vllm-nvfp4-0xbakeer",
        "qwen3.8-27b-1-vllm-nvfp4-0xbakeer-c8",
        # the fifteenth set: Avarok's vLLM ladder without speculation
        "qwen3.8-27b-1-vllm-nvfp4-atlas",
        *(f"qwen3.8-27b-1-vllm-nvfp4-atlas-c{n}" for n in (2, 4, 8, 16, 32, 64, 128)),
        # Avarok's vLLM + MTP ladder, kept for reference (placement.published_speculative)
        "qwen3.8-27b-1-vllm-nvfp4-atlas-mtp",
        *(f"qwen3.8-27b-1-vllm-nvfp4-atlas-mtp-c{n}" for n in (2, 4, 8, 16, 32, 64, 128)),
    ),
    "Qwen/Qwen3.8-27B": ("qwen3.8-27b-1-vllm-bf16-jkingston",),
    "openai/gpt-oss-120b": (
        "gpt-oss-120b-1-vllm-mxfp4-sumner",
        "gpt-oss-120b-1-vllm-mxfp4-sumner-c2",
        # the thirteenth set (placement.published_fresh_thirteenth)
        "gpt-oss-120b-1-vllm-mxfp4-rossingram",
        *(f"gpt-oss-120b-1-vllm-mxfp4-rossingram-c{n}" for n in (2, 4, 8, 16)),
    ),
    "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4": (
        "nemotron-3-super-120b-a12b-1-vllm-nvfp4-sumner",
        "nemotron-3-super-120b-a12b-1-vllm-nvfp4-sumner-c2",
        "nemotron-3-super-120b-a12b-1-vllm-nvfp4-pulsar",
        "nemotron-3-super-120b-a12b-1-vllm-nvfp4-pulsar-c4",
        "nemotron-3-super-120b-a12b-1-vllm-nvfp4-pulsar-c16",
        "nemotron-3-super-120b-a12b-1-vllm-nvfp4-pulsar-c32",
        "nemotron-3-super-120b-a12b-2-tp2-vllm-nvfp4-epappas",
        "nemotron-3-super-120b-a12b-1-vllm-nvfp4-martin",  # the twelfth set
    ),
    "unsloth/Qwen3-Coder-Next-GGUF": ("qwen3-coder-next-1-llamacpp-q4km-jschmied",),  # the twelfth set
    "Qwen/Qwen3-8B": ("qwen3-8b-1-vllm-bf16-bytebunker",),  # the fourteenth set: its recipe's MODEL
    # the thirteenth set: elizabetht's notebook names the snapshot, Avarok's report its two checkpoints
    "meta-llama/Llama-3.1-8B-Instruct": (
        "llama-3.1-8b-1-vllm-bf16-elizabetht",
        "llama-3.1-8b-1-vllm-bf16-elizabetht-c8",
        "llama-3.1-8b-2x1-vllm-bf16-elizabetht",
    ),
    **{
        repo: tuple(f"qwen3-coder-next-1-vllm-{quant}-avarok-{isl}-{osl}" for isl, osl in _AVAROK_LENGTHS)
        for repo, quant in (
            ("nvidia/Qwen3-Next-80B-A3B-Instruct-NVFP4", "nvfp4"),
            ("cyankiwi/Qwen3-Next-80B-A3B-Instruct-AWQ-4bit", "int4"),
        )
    },
    # the eleventh set (placement.published_fresh_eleventh): Qwen's own GGUF repositories, every
    # figure of each (three types, one decode and three prompt lengths)
    **{
        f"Qwen/Qwen2.5-{size}-Instruct-GGUF": tuple(
            f"qwen2.5-{size.lower()}-1-llamacpp-{quant}-pendakwah{suffix}"
            for quant in ("q4km", "q5km", "q80")
            for suffix in ("", "-pp128", "-pp256")
        )
        for size in ("3B", "7B", "14B", "32B")
    },
}

CHECKPOINT_BY_KEY: dict[str, str] = {key: repo for repo, keys in CHECKPOINTS.items() for key in keys}
