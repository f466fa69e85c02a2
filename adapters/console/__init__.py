"""The terminal adapter: a local team channel in your shell, no account needed."""

from adapters.console.adapter import ConsoleAdapter, build

__all__ = ["ConsoleAdapter", "build"]
