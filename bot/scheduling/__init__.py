"""Scheduled questions: rules, the schedule use cases, the ticker that fires them, and the fan-out limiter."""
