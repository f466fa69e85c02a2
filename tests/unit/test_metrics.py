"""/metrics (bot/ops/metrics.py; issue 25): the build's version, the standard process metrics, and every labelled
counter present at zero for its known labels before its first event."""

from __future__ import annotations

import platform

from prometheus_client.parser import text_string_to_metric_families

from bot import __version__
from bot.ops.metrics import ANSWER_OUTCOMES, ERROR_KINDS, Metrics


def samples(metrics: Metrics) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of the exposition, by name and labels."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(metrics.render().decode())
        for sample in family.samples
    }


def test_build_info_and_the_standard_process_metrics() -> None:
    found = samples(Metrics())
    build = {"version": __version__, "python": platform.python_version()}
    assert found[("quizbot_build_info", frozenset(build.items()))] == 1.0
    names = {name for name, _ in found}
    assert {"process_resident_memory_bytes", "process_cpu_seconds_total", "process_open_fds", "python_info"} <= names
    assert "python_gc_collections_total" in names


def test_labelled_counters_start_at_zero_for_the_installed_adapters() -> None:
    found = samples(Metrics())
    for name in ("slack", "discord", "console"):
        for outcome in ANSWER_OUTCOMES:
            key = ("quizbot_answers_total", frozenset({"platform": name, "outcome": outcome}.items()))
            assert found[key] == 0.0
        for source in ("command", "schedule", "cohort"):
            assert found[("quizbot_posts_total", frozenset({"platform": name, "source": source}.items()))] == 0.0
        for kind in ERROR_KINDS:
            key = ("quizbot_platform_errors_total", frozenset({"platform": name, "kind": kind}.items()))
            assert found[key] == 0.0
        for counter, label in (
            ("quizbot_adapter_restarts_total", "adapter"),
            ("quizbot_late_acks_total", "platform"),
            ("quizbot_busy_refusals_total", "platform"),
        ):
            assert found[(counter, frozenset({label: name}.items()))] == 0.0


def test_counting_still_adds_to_the_started_series() -> None:
    metrics = Metrics(platforms=["fake"])
    metrics.answered("fake", "recorded", 0.01)
    metrics.posted("fake", "command")
    found = samples(metrics)
    assert found[("quizbot_answers_total", frozenset({"platform": "fake", "outcome": "recorded"}.items()))] == 1.0
    assert found[("quizbot_answers_total", frozenset({"platform": "fake", "outcome": "closed"}.items()))] == 0.0
    assert found[("quizbot_posts_total", frozenset({"platform": "fake", "source": "command"}.items()))] == 1.0
    assert not any(dict(labels).get("platform") == "slack" for _, labels in found)
