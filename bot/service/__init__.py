"""Use cases of the quiz core (posting, answering, revealing) and its read models (leaderboards, stats)."""
