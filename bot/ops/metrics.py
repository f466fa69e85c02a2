"""Prometheus metrics of one bot process (a registry per Runtime, so tests and replicas never share one).

Besides quizbot's own: `quizbot_build_info` (version, python) and prometheus_client's standard process, platform
and garbage-collector metrics (`process_*`, `python_info`, `python_gc_*`), as in its default registry. Labelled
counters start at zero for every label value known in advance (the installed adapters, the outcomes, sources and
kinds), so a rate or an alert on them has a series before the first event.
"""

from __future__ import annotations

import platform as python_platform
from collections.abc import Iterable, Sequence

from prometheus_client import (
    GC_COLLECTOR,
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    Info,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from bot import __version__
from bot.domain import AnswerOutcome, PostSource
from bot.plugins import installed_plugins

__all__ = ["ANSWER_OUTCOMES", "CONTENT_TYPE_LATEST", "ERROR_KINDS", "Metrics"]

ANSWER_OUTCOMES = (*(outcome.value for outcome in AnswerOutcome), "failed")
"""quizbot_answers_total's outcomes: the recorded outcomes, and `failed` (the click raised)."""
ERROR_KINDS = ("rate_limited", "permanent", "error")
"""quizbot_platform_errors_total's kinds."""


class Metrics:
    """The counters, gauges and histograms quizbot exports on /metrics."""

    def __init__(self, platforms: Sequence[str] | None = None) -> None:
        """`platforms`: the label values to start the counters at zero for (default: the installed adapters)."""
        self.registry = CollectorRegistry(auto_describe=True)
        Info("quizbot_build", "The running quizbot: its version and Python's.", registry=self.registry).info(
            {"version": __version__, "python": python_platform.python_version()}
        )
        ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        if GC_COLLECTOR is not None:  # None where the interpreter has no gc statistics
            GCCollector(registry=self.registry)
        self.answers = Counter(
            "quizbot_answers_total",
            "Clicks handled, by platform and outcome (recorded, already_answered, closed, failed).",
            ["platform", "outcome"],
            registry=self.registry,
        )
        self.answer_seconds = Histogram(
            "quizbot_answer_seconds",
            "Time to record one click, from the adapter's call to the committed answer.",
            ["platform"],
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
            registry=self.registry,
        )
        self.posts = Counter(
            "quizbot_posts_total",
            "Questions posted, by platform and source.",
            ["platform", "source"],
            registry=self.registry,
        )
        self.platform_errors = Counter(
            "quizbot_platform_errors_total",
            "Platform API failures, by platform and kind (rate_limited, permanent, error).",
            ["platform", "kind"],
            registry=self.registry,
        )
        self.scheduler_lag = Gauge(
            "quizbot_scheduler_lag_seconds",
            "How late the most recent scheduled post went out, relative to its slot.",
            registry=self.registry,
        )
        self.adapter_restarts = Counter(
            "quizbot_adapter_restarts_total",
            "Adapters restarted after they failed while serving (a platform library's error, a lost connection).",
            ["adapter"],
            registry=self.registry,
        )
        self.adapters_up = Gauge(
            "quizbot_adapter_up",
            "1 while the adapter is serving, 0 while it restarts.",
            ["adapter"],
            registry=self.registry,
        )
        self.inflight = Gauge("quizbot_inflight_answers", "Clicks being recorded right now.", registry=self.registry)
        self.late_acks = Counter(
            "quizbot_late_acks_total",
            "Clicks acknowledged to the platform before their answer was committed, because the commit outlasted "
            "the acknowledgement deadline; they are answered once recorded. By platform.",
            ["platform"],
            registry=self.registry,
        )
        self.busy_refusals = Counter(
            "quizbot_busy_refusals_total",
            "Clicks refused at once, nothing recorded, because QUIZBOT_MAX_PENDING_CLICKS clicks were already "
            "waiting to be committed. By platform.",
            ["platform"],
            registry=self.registry,
        )
        self._answer_children: dict[tuple[str, str], Counter] = {}
        self._latency_children: dict[str, Histogram] = {}
        self._start_at_zero(list(installed_plugins()) if platforms is None else platforms)

    def _start_at_zero(self, platforms: Iterable[str]) -> None:
        """Every known label combination of the counters, at zero (a child exists once `labels` made it)."""
        for name in platforms:
            for outcome in ANSWER_OUTCOMES:
                self.answers.labels(name, outcome)
            for source in PostSource:
                self.posts.labels(name, source.value)
            for kind in ERROR_KINDS:
                self.platform_errors.labels(name, kind)
            self.adapter_restarts.labels(name)
            self.late_acks.labels(name)
            self.busy_refusals.labels(name)

    def answered(self, platform: str, outcome: str, seconds: float) -> None:
        """Count one click and its recording time (labelled children cached: this runs for every click)."""
        key = (platform, outcome)
        counter = self._answer_children.get(key)
        if counter is None:
            counter = self._answer_children[key] = self.answers.labels(platform, outcome)
        histogram = self._latency_children.get(platform)
        if histogram is None:
            histogram = self._latency_children[platform] = self.answer_seconds.labels(platform)
        counter.inc()
        histogram.observe(seconds)

    def recording(self, delta: int) -> None:
        """Clicks being recorded right now went up (+1) or down (-1)."""
        self.inflight.inc(delta)

    def busy_refused(self, platform: str) -> None:
        """One click refused at once because too many were waiting to be committed."""
        self.busy_refusals.labels(platform).inc()

    def late_ack(self, platform: str) -> None:
        """One click acknowledged to its platform before its answer was committed."""
        self.late_acks.labels(platform).inc()

    def posted(self, platform: str, source: str) -> None:
        """One question posted."""
        self.posts.labels(platform, source).inc()

    def platform_error(self, platform: str, kind: str) -> None:
        """One platform API failure (rate_limited, permanent, error)."""
        self.platform_errors.labels(platform, kind).inc()

    def adapter_restarted(self, adapter: str) -> None:
        """Count one restart of an adapter."""
        self.adapter_restarts.labels(adapter).inc()

    def adapter_up(self, adapter: str, up: bool) -> None:
        """Whether an adapter is serving."""
        self.adapters_up.labels(adapter).set(1 if up else 0)

    def render(self) -> bytes:
        """The Prometheus text exposition of every metric."""
        return generate_latest(self.registry)
