"""A tiny round-robin TCP load balancer on 127.0.0.1, for the scale-out benchmark: each accepted connection goes
to the next backend in turn, bytes piped both ways until either side closes.

    python -m bench.lb --backends 127.0.0.1:8001,127.0.0.1:8002 --ready FILE

Writes its listening port to FILE, then serves until SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import signal
from pathlib import Path


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


async def serve(backends: list[tuple[str, int]], ready: Path) -> None:
    """Accept, pick the next backend, pipe; until SIGTERM."""
    turn = itertools.cycle(backends)

    async def handle(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        host, port = next(turn)
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(host, port)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(_pipe(client_reader, upstream_writer), _pipe(upstream_reader, client_writer))

    server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=1024)
    port = server.sockets[0].getsockname()[1]
    ready.write_text(str(port), encoding="ascii")
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with server:
        await stop.wait()


def main() -> None:
    """Parse arguments and serve."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--backends", required=True)
    parser.add_argument("--ready", type=Path, required=True)
    args = parser.parse_args()
    backends = [(item.rsplit(":", 1)[0], int(item.rsplit(":", 1)[1])) for item in args.backends.split(",")]
    asyncio.run(serve(backends, args.ready))


if __name__ == "__main__":
    main()
