"""quizbot: a platform-neutral quiz core for team chat."""

__version__ = "0.1.0"
