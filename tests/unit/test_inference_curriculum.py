"""The LLM inference and serving curriculum: its answer key is pinned here, so any change to it is deliberate.

Each answer was checked against the primary source the question cites (the papers' arXiv abstracts, the vLLM
documentation and source); see each question's `references`. The curriculum file lists the packs in teaching order.
"""

from __future__ import annotations

import pytest
import yaml

from bot.content import load_catalog
from tests.conftest import CONTENT

CURRICULUM = CONTENT / "curricula" / "llm-inference-onboarding.yaml"

INFERENCE_ANSWER_KEY = {
    "kv-cache-memory": [
        (
            "kv-cache-contents",
            "The key and value vectors of earlier tokens in every layer, so they are not recomputed for each new token",
        ),
        ("kv-cache-size-gqa", "512 MiB"),
        ("kv-cache-waste-causes", "Memory was wasted by fragmentation and by redundant duplication of the cache"),
        (
            "paged-attention-idea",
            "Virtual memory with paging: a request's cache lives in fixed-size blocks that need not be contiguous in GPU memory",
        ),
        (
            "paged-attention-sharing",
            "Let all n sequences map to the same physical blocks instead of each holding its own copy",
        ),
        ("paged-attention-block-capacity", "585, since each request needs 7 blocks"),
        ("kv-cache-contiguous-waste", "About 85%"),
        ("vllm-gains-where", "Longer sequences, larger models and more complex decoding algorithms"),
        (
            "prefix-cache-block-hash",
            "A block's keys and values depend on every earlier token, so the same text after a different prefix has a different cache",
        ),
        (
            "prefix-cache-effect",
            "The prefill of the shared prompt is skipped for later requests, and the outputs are unchanged",
        ),
        ("prefix-cache-eviction", "Only blocks no running request references, starting with the least recently used"),
        (
            "kv-cache-unknown-length",
            "The output length is unknown until generation stops, so the cache grows token by token",
        ),
    ],
    "llm-batching": [
        (
            "orca-request-level-problem",
            "A request that finished early could not return, and new arrivals waited until the whole batch finished",
        ),
        (
            "orca-iteration-level",
            "The scheduler runs the model for one iteration at a time, so the batch can change between iterations",
        ),
        (
            "static-batching-loop",
            "It is done after 20 iterations but returned after 500, and its slot does nothing for the other 480",
        ),
        (
            "orca-selective-batching",
            "Requests in one iteration are at different lengths and phases, so batching is applied only to a selected set of operations",
        ),
        (
            "batching-limit-kv-memory",
            "The KV cache memory left after the weights, since every running request holds its cache",
        ),
        (
            "sarathi-decode-utilization",
            "Decode processes one token per request, so each weight read does very little arithmetic",
        ),
        (
            "sarathi-decode-maximal",
            "One chunk of one prompt's prefill, with the remaining slots filled by decode tokens",
        ),
        (
            "sarathi-piggyback-cost",
            "The prefill chunk already streams the weights and keeps compute busy, so added decode tokens cost little",
        ),
        (
            "sarathi-pipeline-bubbles",
            "Micro-batches of similar compute cost keep the stages balanced, so fewer pipeline bubbles form",
        ),
        (
            "sarathi-serve-stall-free",
            "Ongoing decodes pausing while a newly admitted prompt is prefilled, removed with chunked prefills",
        ),
        ("chunked-prefill-token-budget", "5 iterations"),
        (
            "chunked-prefill-budget-tradeoff",
            "Smoother inter-token latency for running requests, at the cost of time to first token for new ones",
        ),
    ],
    "attention-kernels-prefill-decode": [
        (
            "flashattention-io-aware",
            "The reads and writes between GPU high-bandwidth memory and on-chip SRAM, which it cuts by tiling",
        ),
        (
            "flashattention-exact",
            "It computes the same exact attention; the speedup comes from moving less data, not from approximating",
        ),
        (
            "flashattention-memory-linear",
            "From quadratic to linear in N, since the N x N score matrix is never stored in HBM",
        ),
        (
            "flashattention-naive-code",
            "It fuses the steps and keeps tiles of S and P in on-chip SRAM, so neither is written to HBM",
        ),
        (
            "flashattention2-partitioning",
            "Suboptimal work partitioning between thread blocks and warps, giving low occupancy or extra shared-memory traffic",
        ),
        (
            "flashattention2-sequence-parallel",
            "Long sequences with a small batch or few heads, where batch x heads leaves SMs idle",
        ),
        (
            "prefill-compute-decode-memory",
            "Prompt computation is compute-intensive; token generation is memory-intensive",
        ),
        ("decode-step-bandwidth-floor", "About 7 ms"),
        ("decode-batch-ridge-point", "About 300"),
        (
            "prefill-arithmetic-intensity",
            "Compute-bound: each fp16 weight does 2 FLOPs for each of 2,000 tokens, about 2,000 FLOPs per byte",
        ),
        ("gqa-decode-speed", "It shrinks the keys and values each decode step must load from memory"),
        (
            "decode-attention-no-batching-gain",
            "Each request attends to its own keys and values, so added requests add bytes in step with the FLOPs",
        ),
    ],
    "inference-quantization": [
        (
            "llmint8-outlier-decomposition",
            "It multiplies the few outlier feature dimensions in 16-bit and more than 99.9% of values in 8-bit",
        ),
        (
            "llmint8-vector-wise",
            "A separate normalization constant for each row of X and each column of W, one per inner product",
        ),
        ("llmint8-memory", "About 175 GB, half of the 16-bit size"),
        (
            "smoothquant-migration",
            "Move quantization difficulty from activations to weights offline, with an equivalent per-channel rescaling",
        ),
        ("smoothquant-equivalence", "Y_s equals Y: the scales cancel, since (X diag(s)^-1)(diag(s) W) = X W"),
        (
            "smoothquant-w8a8-benefit",
            "With both operands in INT8, the matmuls can run on INT8 hardware, speeding up compute too",
        ),
        ("gptq-method", "Approximate second-order information, in one pass with calibration data"),
        ("gptq-single-gpu-bits", "3 bits"),
        ("awq-salient-by-activation", "By the magnitude of the activations that feed each input channel"),
        (
            "awq-scaling-not-mixed-precision",
            "It scales salient channels up and their inputs down, keeping one low-bit format",
        ),
        ("weight-only-decode-speedup", "Decode is memory-bound, and each step reads a quarter of the weight bytes"),
        (
            "fp8-formats",
            "E4M3 trades range for a third mantissa bit, widened by giving up infinities; E5M2 keeps IEEE-style specials and range",
        ),
    ],
    "speculative-decoding": [
        (
            "spec-core-observation",
            "Scoring a short continuation in parallel takes about as long as sampling a single token from the target",
        ),
        (
            "spec-same-distribution",
            "They follow the target model's distribution exactly, up to floating-point numerics",
        ),
        ("spec-no-retraining", "Nothing: no retraining and no architecture change are needed"),
        (
            "spec-residual-resample",
            "Acceptance already gives min(p, q) of the mass; the residual adds the rest, so the total is p",
        ),
        ("spec-greedy-accept", "When it equals the target model's own argmax at that position"),
        ("spec-tokens-per-round", "Between 1 and 6"),
        ("spec-expected-tokens", "About 3.36 tokens"),
        ("spec-speedup-draft-cost", "About 1.38x"),
        ("spec-longer-draft", "It falls to about 1.11x: extra drafts are rarely reached but always paid for"),
        (
            "spec-when-it-helps",
            "Medium-to-low request rates, where decoding is memory-bound and inter-token latency matters",
        ),
        (
            "spec-lossless-numerics",
            "Floating-point differences from differently shaped batches, which can flip near-ties",
        ),
        (
            "spec-easy-subtasks",
            "Hard language-modelling tasks include many easier steps that a smaller model approximates well",
        ),
    ],
    "serving-at-scale": [
        ("tp-allreduces-per-layer", "Two: one after the attention block and one after the MLP block"),
        ("tp-within-node", "Its all-reduces sit in every layer of every decode step, so they need the fastest links"),
        ("tp-decode-latency", "About 17.5 ms"),
        (
            "distserve-interference",
            "It causes prefill-decoding interference and ties both phases to one resource and parallelism plan",
        ),
        ("distserve-ttft-tpot", "Prefill sets time to first token (TTFT); decode sets time per output token (TPOT)"),
        (
            "distserve-goodput",
            "The highest request rate per GPU served while meeting both the TTFT and the TPOT requirements",
        ),
        (
            "distserve-per-phase-plan",
            "A separate GPU count and parallelism strategy per phase, tuned to its TTFT or TPOT goal",
        ),
        ("splitwise-hardware", "Run token generation on cheaper, lower-power GPUs that lack the latest compute"),
        (
            "splitwise-state-transfer",
            "A transfer of the request's state (its KV cache) from the prompt machine to the token machine",
        ),
        ("kv-transfer-time", "About 10 ms"),
        (
            "vllm-disagg-purpose",
            "It lets TTFT and inter-token latency be tuned apart, and bounds tail inter-token latency",
        ),
        (
            "prefix-cache-prompt-layout",
            "Layout A, since a cached block matches only when every token before it matches too",
        ),
    ],
}


def test_the_inference_curriculum_walks_its_packs_in_teaching_order() -> None:
    curriculum = yaml.safe_load(CURRICULUM.read_text(encoding="utf-8"))
    assert curriculum["packs"] == list(INFERENCE_ANSWER_KEY)
    assert load_catalog(CONTENT).expand(["llm-inference-onboarding"]) == list(INFERENCE_ANSWER_KEY)


@pytest.mark.parametrize("pack_id", sorted(INFERENCE_ANSWER_KEY))
def test_inference_answer_key(pack_id: str) -> None:
    pack = load_catalog(CONTENT).get(pack_id)
    assert [(q.key, q.correct_choice) for q in pack.questions] == INFERENCE_ANSWER_KEY[pack_id]


@pytest.mark.parametrize("pack_id", sorted(INFERENCE_ANSWER_KEY))
def test_inference_questions_teach(pack_id: str) -> None:
    pack = load_catalog(CONTENT).get(pack_id)
    assert len(pack.questions) == 12
    assert {q.difficulty for q in pack.questions} == {"easy", "medium", "hard"}
    for question in pack.questions:
        assert len(question.choices) == 4, question.key
        assert question.references, question.key
        assert all(ref.startswith("https://") for ref in question.references), question.key
    # at least two questions per pack show code, a config or a log line in a fenced block
    assert sum("```" in q.prompt for q in pack.questions) >= 2
