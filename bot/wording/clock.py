"""What the operator is told when this host's clock is far from the platforms' (bot/clock_skew.py)."""

from __future__ import annotations

SKEW_FIX = "sync this host's clock (run NTP: systemd-timesyncd, chrony or ntpd)"


def _amount(seconds: float) -> str:
    """`10 minutes` or `45 s`, for an offset in seconds."""
    seconds = abs(seconds)
    if seconds >= 120:
        return f"{seconds / 60:.0f} minutes"
    return f"{seconds:.0f} s"


def skew_problem(platform: str, offset: float) -> str:
    """The clock is `offset` seconds behind `platform`'s (ahead when negative), in a sentence."""
    where = "behind" if offset > 0 else "ahead of"
    consequence = (
        " (Slack refuses every request more than 5 minutes off)" if platform == "slack" and abs(offset) > 300 else ""
    )
    name = platform.capitalize()
    return f"this host's clock is {_amount(offset)} {where} {name}'s ({-offset:+.0f} s){consequence}"


def skew_log(platform: str, offset: float) -> str:
    """The ERROR line logged while the clock is off."""
    return f"{skew_problem(platform, offset)}: {SKEW_FIX}"


def skew_within(platform: str, offset: float) -> str:
    """Doctor's line when the clock agrees with the platform's."""
    return f"within {abs(offset):.0f} s of {platform.capitalize()}'s"


def skew_unknown(platform: str) -> str:
    """Doctor's line when the platform could not be asked for its time."""
    return f"could not ask {platform.capitalize()} for its time"
