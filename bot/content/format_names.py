"""The names of the quiz formats, apart from their readers and writers (bot/content/formats/), so that building the
`quizbot` command line (done for every command, `quizbot run` included) does not import them."""

from __future__ import annotations

IMPORT_FORMATS = ("text", "gift", "aiken", "opentdb", "csv")
EXPORT_FORMATS = ("gift", "csv")
