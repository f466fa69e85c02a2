"""The curriculum that follows the seed packs: its answer key is pinned here, so any change to it is deliberate.

Each answer was checked against the primary source the question cites (papers, NCCL/PyTorch/DeepSpeed/Megatron-LM/
Transformer Engine docs); see each question's `references`. The curriculum file lists the packs in teaching order.
"""

from __future__ import annotations

import pytest
import yaml

from bot.content import load_catalog
from tests.conftest import CONTENT

CURRICULUM = CONTENT / "curricula" / "ml-infrastructure-onboarding.yaml"
INFERENCE_CURRICULUM = CONTENT / "curricula" / "llm-inference-onboarding.yaml"
SEED_PACKS = ("data-parallelism", "model-pipeline-parallelism")

CURRICULUM_ANSWER_KEY = {
    "collective-communication": [
        ("cc-reduce-scatter-result", "One N-element block of the sum, selected by its rank index"),
        ("cc-allreduce-decomposition", "A reduce-scatter followed by an all-gather"),
        ("cc-ring-allreduce-bytes", "1.75 GB, which is 2(N-1)/N times the buffer"),
        ("cc-busbw-conversion", "187.5 GB/s, because each rank moves 2(n-1)/n of the data"),
        ("cc-broadcast-bottleneck", "All S bytes must leave the root, whose outgoing bandwidth B is the limit"),
        ("cc-ring-vs-tree-latency", "Ring latency grows linearly with GPUs; trees keep full bandwidth at log latency"),
        ("cc-alltoall-semantics", "On rank j, in the output slot reserved for data coming from rank i"),
        ("cc-ll-protocol-tradeoff", "Receivers poll flags instead of waiting on fences, but half the bytes are flags"),
        ("cc-ll128-forcing", "It needs platform guarantees, and enabling it where unsupported can corrupt data"),
        ("cc-nccl-algo-exclude", "Exclude the Tree algorithm and pick among the remaining ones"),
        ("cc-topo-dump", "NCCL_TOPO_DUMP_FILE, which writes the detected topology as XML"),
        ("cc-p2p-disable-effect", "Direct GPU-to-GPU transport is off, so NCCL stages data through host memory"),
    ],
    "ddp-internals": [
        ("ddp-construction-broadcast", "Broadcasts rank 0's state_dict, parameters and buffers, to all ranks"),
        ("ddp-bucket-reverse-order", "Backward produces the last layers' gradients first, so their buckets fill first"),
        ("ddp-bucket-order-mismatch", "Buckets are reduced in index order; a mismatch gives wrong sums or hangs"),
        ("ddp-bucket-size-tradeoff", "Tiny buckets make many latency-bound calls; huge ones start late, overlap less"),
        ("ddp-no-sync-forward", "Gradients are still all-reduced every micro-batch; forward must be inside too"),
        ("ddp-find-unused-parameters", "After forward, walks the autograd graph and marks unused parameters ready"),
        ("ddp-static-graph", "Used and unused parameters and graph shape never change, enabling reentrant backward"),
        ("ddp-fp16-compress-hook", "Each bucket is cast to fp16 for the all-reduce, then cast back after averaging"),
        ("ddp-powersgd-volume", "32,768, which is (4096 + 4096) x 4 for P and Q"),
        ("ddp-summed-loss-scaling", "W times smaller, because DDP averages gradients across ranks"),
        ("ddp-buffer-broadcast", "Rank 0's buffers are broadcast to all ranks at the start of forward"),
        ("ddp-vs-dataparallel", "DDP runs a process per GPU, avoiding the GIL contention of DataParallel threads"),
    ],
    "memory-accounting": [
        ("mem-adam-bytes-per-param", "16 bytes: fp16 weights and gradients, an fp32 master copy and two fp32 moments"),
        ("mem-adam-optimizer-state", "An fp32 master copy of the weights, fp32 momentum and fp32 variance"),
        ("mem-7b-on-80gb", "No: model states alone are about 112 GB per GPU (16 bytes x 7B)"),
        ("mem-fp32-vs-mixed-states", "They stay at about 16: fp32 uses 4+4+4+4, mixed uses 2+2+4+4+4"),
        ("mem-nvidia-smi-reserved", "The caching allocator keeps the freed block reserved for reuse by PyTorch"),
        ("mem-activation-estimate-gpt2", "About 60 GB"),
        ("mem-micro-batch-doubling", "Only activations; parameters, gradients and optimizer states stay put"),
        ("mem-empty-cache-limits", "It returns only unused cached blocks; memory held by tensors stays"),
        ("mem-fragmentation-oom", "Fragmented cached blocks; try PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"),
        ("mem-non-pytorch-allocations", "Libraries such as NCCL allocate GPU memory outside the PyTorch allocator"),
        ("mem-fused-buffer-size", "About 6 GB"),
        ("mem-snapshot-tooling", "torch.cuda.memory._record_memory_history() together with _dump_snapshot()"),
    ],
    "mixed-precision": [
        (
            "mp-prec-loss-scaling-purpose",
            "Small gradients would underflow to zero in fp16; scaling lifts them into representable range",
        ),
        (
            "mp-prec-bf16-bit-layout",
            "1 sign, 8 exponent, 7 mantissa bits: fp32's exponent range with much less precision",
        ),
        ("mp-prec-fp8-hybrid-format", "E4M3 for forward tensors (activations, weights); E5M2 for backward gradients"),
        (
            "mp-prec-gradscaler-overflow-step",
            "optimizer.step() is skipped and update() cuts the scale by backoff_factor (0.5 by default)",
        ),
        (
            "mp-prec-gradscaler-early-skips",
            "Normal calibration: the default 2^16 start scale overflows until GradScaler backs it off",
        ),
        (
            "mp-prec-bf16-no-gradscaler",
            "bf16 keeps fp32's 8-bit exponent, so small gradients rarely underflow as in fp16",
        ),
        (
            "mp-prec-fp32-master-weights",
            "Updates much smaller than a weight (about 2048x or more) round away when added in fp16",
        ),
        ("mp-prec-autocast-fp32-ops", "F.softmax"),
        (
            "mp-prec-clip-before-unscale",
            "The norm is taken on scaled grads, so clipping fires wrongly and shrinks real updates",
        ),
        (
            "mp-prec-fp8-per-tensor-scaling",
            "FP8's range can hold any one tensor but not all at once, so each needs its own scale",
        ),
        (
            "mp-prec-delayed-vs-current-scaling",
            "Delayed sets the scale from past amax values: one read fewer, but a sudden spike gets clipped",
        ),
        (
            "mp-prec-mxfp8-block-scaling",
            "Each block of 32 values gets its own power-of-two (E8M0) scale, so a block needs less range",
        ),
    ],
    "activation-recomputation": [
        (
            "ckpt-what-checkpoint-does",
            "It drops the block's intermediate activations and re-runs its forward during backward",
        ),
        ("ckpt-full-recompute-cost", "About 33%: one extra forward pass, since backward costs about twice the forward"),
        (
            "ckpt-save-on-cpu-tradeoff",
            "PCIe time and host RAM: saved tensors move to CPU in forward and come back in backward",
        ),
        ("ckpt-sqrt-n-segments", "O(sqrt(n)) activation memory for about one extra forward pass per mini-batch"),
        ("ckpt-quadratic-term", "The softmax output, its dropout mask, and the dropout output fed to the V matmul"),
        (
            "ckpt-selective-targets",
            "Recomputes only QKᵀ, softmax, softmax dropout and attention over V; stores the rest",
        ),
        ("ckpt-rng-state", "So dropout in the recomputed forward draws the same masks as the original forward"),
        (
            "ckpt-flash-attention-interplay",
            "It never stores the s×s scores; its backward recomputes them from Q, K, V and softmax stats",
        ),
        ("ckpt-layer-memory-estimate", "About 0.96 GB"),
        ("ckpt-selective-savings-gpt3", "About 70%"),
        (
            "ckpt-tp-replicated-activations",
            "Tensors TP replicates on every rank: LayerNorm and block inputs plus dropout masks",
        ),
        (
            "ckpt-reentrant-no-grad-input",
            "The block's parameters get no gradients (a warning says gradients will be None)",
        ),
    ],
    "zero-deepspeed": [
        ("zero-stage1-partitions", "The optimizer states: fp32 master weights, momentum and variance"),
        ("zero-stage2-partitions", "The reduced fp16 gradients, each rank keeping only its own partition"),
        ("zero-stage3-comm-volume", "About 1.5x: parameters gathered for forward and backward, plus a reduce-scatter"),
        ("zero-stage2-memory-estimate", "About 16.6 GB"),
        ("zero-stage2-same-volume", "Reduce-scatter of gradients plus all-gather of parameters is 2 x Psi"),
        ("zero-offload-cpu-work", "The optimizer states, the gradients and the optimizer step itself"),
        ("zero-infinity-scope", "Offload of all model states, parameters included, to CPU and NVMe"),
        ("zero-offload-param-stage", "offload_param is valid only with ZeRO stage 3"),
        ("zero-stage3-save-weights", "Set stage3_gather_16bit_weights_on_model_save and call save_16bit_model()"),
        ("zero-contiguous-gradients", "Copy each gradient into a preallocated contiguous buffer as it is produced"),
        ("zero-stage1-tutorial-footprint", "2.25 GB, since each of the 8 ranks keeps 1/8 of the states"),
        ("zero-stage3-live-parameters", "Fewer full parameters resident per GPU, but more communication"),
    ],
    "fsdp": [
        (
            "fsdp-root-only-wrap",
            "One group holds every parameter: the full model is all-gathered at once, with no overlap",
        ),
        (
            "fsdp-step-collectives",
            "All-gather params before forward and again before backward, then reduce-scatter grads",
        ),
        ("fsdp-zero2-equivalent", "SHARD_GRAD_OP"),
        (
            "fsdp-reshard-after-forward-false",
            "More memory, less traffic: unsharded params stay after forward, so backward needs no all-gather",
        ),
        (
            "fsdp-root-not-resharded",
            "Backward uses the root's parameters first, so freeing them forces an instant re-all-gather",
        ),
        (
            "fsdp2-dtensor-sharding",
            "Per-parameter DTensors chunked on dim-0; FSDP1 flattens a unit's params into one FlatParameter",
        ),
        (
            "fsdp-mp-policy-dtypes",
            "All-gather and forward/backward in bf16; reduce-scatter in fp32; optimizer step on the fp32 shards",
        ),
        (
            "fsdp-hybrid-shard",
            "Fully shards within each node and replicates across nodes, so all-gathers stay intra-node",
        ),
        (
            "fsdp2-explicit-prefetch",
            "When the CPU can't issue the next all-gather early enough, or to prefetch 2+ layers ahead",
        ),
        (
            "fsdp-reshard-after-forward-int",
            "After forward, params stay 8-way sharded within each node, so backward all-gathers only intra-node",
        ),
        (
            "fsdp1-backward-prefetch",
            "PRE starts the next all-gather before the current gradient compute: most overlap, most memory",
        ),
        (
            "fsdp-mp-policy-vs-autocast",
            "It casts whole modules at FSDP boundaries, so activations are saved in low precision",
        ),
    ],
    "tensor-sequence-parallelism": [
        ("tp-mlp-gemm-split", "A by columns, B by rows"),
        (
            "tp-attention-heads",
            "QKV split by columns so each rank computes whole heads; output projection split by rows",
        ),
        ("tp-vocab-padding", "The vocab is padded so each rank's slice is a multiple of 128, keeping logit GEMMs fast"),
        ("tp-allreduce-payload", "Partial output activations of shape b×s×h, one per rank's slice of B"),
        ("tp-f-g-operators", "f: identity forward, all-reduce backward; g: all-reduce forward, identity backward"),
        ("tp-allreduce-count", "Four: two in forward (g) and two in backward (f)"),
        (
            "tp-vocab-parallel-embedding",
            "An all-reduce: each rank embeds ids in its range, zeros others, and the results are summed",
        ),
        ("tp-sp-collectives", "All-gather before the column-parallel GEMM, reduce-scatter after the row-parallel GEMM"),
        (
            "tp-dropout-rng",
            "Residual dropout hits replicated tensors that must stay equal; split regions need distinct masks",
        ),
        (
            "tp-row-split-gelu",
            "Ranks would hold partial sums X_iA_i, and GeLU isn't additive, so a sync is needed before GeLU",
        ),
        (
            "tp-fused-cross-entropy",
            "Gathering moves b×s×v logits; the fused loss only exchanges per-token values (b×s)",
        ),
        ("tp-sp-comm-volume", "The same: a ring all-reduce is itself a reduce-scatter followed by an all-gather"),
    ],
    "pipeline-schedules": [
        ("pp-gpipe-step-fraction", "20%, since the bubble is (p-1)/(m+p-1)"),
        ("pp-microbatches-for-target", "m = 70"),
        ("pp-1f1b-stashed-microbatches", "GPipe 32, 1F1B 4"),
        ("pp-1f1b-bubble-unchanged", "It stays at (p-1)/m; the gain is lower activation memory"),
        ("pp-interleaved-bubble-arithmetic", "About 10.9%"),
        ("pp-interleaved-layer-layout", "Layers 1, 2, 9 and 10"),
        ("pp-interleaved-cost", "v times more pipeline point-to-point traffic; it catches up at large batch sizes"),
        ("pp-zero-bubble-deferred-w", "Upstream stages wait only for B; W is needed only before the optimizer step"),
        ("pp-zb-h1-bubble", "About one third of the 1F1B bubble"),
        (
            "pp-zb-optimizer-post-validation",
            "Grad-norm clipping and NaN/Inf checks need a cross-stage all-reduce before the step",
        ),
        ("pp-stage-balance-loss-layer", "It also runs the vocabulary projection and loss; give it fewer layers"),
        ("pp-slowest-stage-throughput", "The slowest stage, so one micro-batch every 14 ms"),
    ],
    "context-parallelism": [
        ("cp-what-is-sharded", "The network inputs and all activations, along the sequence"),
        (
            "cp-vs-sequence-parallel",
            "SP shards only LayerNorm/dropout regions in a TP group; CP shards every layer in a CP group",
        ),
        ("cp-weights-not-sharded", "Model weights and their gradients"),
        ("cp-ring-what-moves", "Key/value blocks, sent on while the current block is computed"),
        ("cp-ring-overlap-condition", "When c >= F/B, so 4dc²/F compute time covers 4cd/B transfer time"),
        ("cp-ulysses-all-to-all", "An all-to-all that gives each GPU the full sequence for a subset of heads"),
        ("cp-ulysses-head-limit", "It cannot work: heads are not split, so the degree is capped at 16"),
        ("cp-ulysses-comm-volume", "Ulysses stays constant (4Nh/P); Megatron-LM SP doubles (4Nh)"),
        ("cp-causal-imbalance", "Rank 3, since its queries attend to keys in all four chunks"),
        ("cp-zigzag-chunk-assignment", "Chunks 1 and 6"),
        ("cp-gqa-kv-volume", "CP exchanges only K and V, and GQA/MQA have just a few KV heads"),
        ("cp-scaling-seq-and-degree", "Activation memory stays about the same; attention FLOPs roughly double"),
    ],
    "mixture-of-experts": [
        ("moe-topk-sparsity", "Their gate values are zero, so they are not computed for it"),
        ("moe-switch-top1-benefits", "Less router compute, about half the expert capacity, simpler routing"),
        ("moe-router-gradient", "The expert output is multiplied by its gate value p_i(x)"),
        ("moe-capacity-arithmetic", "80 tokens"),
        ("moe-dropped-tokens", "It skips the expert and passes on via the residual connection"),
        ("moe-aux-loss-scaling", "α; the N keeps the loss constant as the expert count varies"),
        ("moe-ep-all-to-all", "Two: dispatch tokens to expert devices, then combine outputs back"),
        ("moe-params-vs-flops", "About 64× the parameters and about 2× the FLOPs"),
        ("moe-shrinking-batch", "512"),
        ("moe-router-z-loss", "Large router logits, whose exponentials amplify roundoff error"),
        ("moe-gshard-random-routing", "Sends to the second expert only with probability tied to its weight"),
        ("moe-ep-dp-replicas", "Attention on all 64 GPUs (reduced over 64); each expert on 8 (reduced over 8)"),
    ],
    "parallelism-at-scale": [
        ("scale-dp-from-degrees", "8"),
        ("scale-microbatch-size-tradeoff", "m drops from 64 to 16 and the bubble grows from 4.7% to about 18.8%"),
        ("scale-4d-node-count", "128 nodes (1,024 GPUs)"),
        ("scale-bubble-vs-dp", "43.75% vs 37.5%: more DP means a smaller bubble"),
        ("scale-dcp-per-rank-files", "Every rank writes its own shards, giving at least one file per rank"),
        ("scale-dcp-resharding", "Build the model sharded for 32 GPUs and dcp.load; DCP reshards at load"),
        ("scale-dcp-in-place-load", "Its tensors must already be allocated; DCP fills them in place"),
        ("scale-async-save-cost", "It copies state into CPU buffers first, raising host memory use"),
        ("scale-linear-lr-rule", "3.2"),
        ("scale-gradual-warmup", "A constant low rate followed by a jump made training error spike"),
        ("scale-lars-lamb-trust-ratio", "A per-layer trust ratio scaling each step by ‖w‖ / ‖update‖"),
        ("scale-bn-per-worker-batch", "Kept it at 32 per GPU, since changing it changes the loss being optimized"),
    ],
}


def test_the_curriculum_lists_every_shipped_pack_once_in_teaching_order() -> None:
    curriculum = yaml.safe_load(CURRICULUM.read_text(encoding="utf-8"))
    packs = curriculum["packs"]
    inference = yaml.safe_load(INFERENCE_CURRICULUM.read_text(encoding="utf-8"))["packs"]
    assert len(packs) == len(set(packs))
    # every shipped pack is in one of the two curricula: this one (training) or the inference track
    assert set(packs) == {p.id for p in load_catalog(CONTENT).packs} - set(inference)
    assert packs[0] == "data-parallelism"  # the seed packs open it
    assert [p for p in packs if p not in SEED_PACKS] == list(CURRICULUM_ANSWER_KEY)


@pytest.mark.parametrize("pack_id", sorted(CURRICULUM_ANSWER_KEY))
def test_curriculum_answer_key(pack_id: str) -> None:
    pack = load_catalog(CONTENT).get(pack_id)
    assert [(q.key, q.correct_choice) for q in pack.questions] == CURRICULUM_ANSWER_KEY[pack_id]


@pytest.mark.parametrize("pack_id", sorted(CURRICULUM_ANSWER_KEY))
def test_curriculum_questions_teach(pack_id: str) -> None:
    pack = load_catalog(CONTENT).get(pack_id)
    assert 10 <= len(pack.questions) <= 12
    difficulties = {q.difficulty for q in pack.questions}
    assert difficulties == {"easy", "medium", "hard"}, difficulties
    for question in pack.questions:
        assert len(question.choices) == 4, question.key
        assert question.references, question.key
        assert all(ref.startswith("https://") for ref in question.references), question.key


@pytest.mark.parametrize("pack_id", SEED_PACKS)
def test_every_seed_question_names_its_sources(pack_id: str) -> None:
    # The seed packs' prompts, choices and keys are the seeds' own words; the references beside them are ours, and
    # a learner who doubts an answer follows them, so none may be missing.
    pack = load_catalog(CONTENT).get(pack_id)
    for question in pack.questions:
        assert question.references, question.key
        assert all(ref.startswith("https://") for ref in question.references), question.key


def test_a_curriculum_id_expands_to_its_packs_in_order() -> None:
    catalog = load_catalog(CONTENT)
    curriculum = yaml.safe_load(CURRICULUM.read_text(encoding="utf-8"))
    assert [c.id for c in catalog.curricula] == ["llm-inference-onboarding", "ml-infrastructure-onboarding"]
    assert catalog.expand(["ml-infrastructure-onboarding"]) == curriculum["packs"]
    assert catalog.expand(["fsdp", "ml-infrastructure-onboarding"])[0] == "fsdp"  # named packs keep their place
