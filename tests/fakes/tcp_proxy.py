"""A TCP proxy on 127.0.0.1 that a test can cut, stall and restore, to take a database away in the middle of work."""

from __future__ import annotations

import asyncio
import contextlib


class CuttableProxy:
    """Forwards connections to (host, port).

    `cut()` drops every connection and refuses new ones (the server went away: the client sees a reset at once).
    `stall()` is a silent partition: sockets stay open and new connections are accepted, but nothing is forwarded
    either way until `restore()` (the client sees nothing at all, as when a network path dies without a reset).
    """

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target_host = target_host
        self.target_port = target_port
        self.port = 0
        self.up = True
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        """Listen on an ephemeral port of 127.0.0.1."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """Close everything."""
        self.cut()
        self._flowing.set()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    def cut(self) -> None:
        """Drop every open connection at once and refuse new ones until `restore()`."""
        self.up = False
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    def stall(self) -> None:
        """Stop forwarding, silently: open sockets stay open, new ones are accepted, no byte gets through."""
        self._flowing.clear()

    def restore(self) -> None:
        """Accept and forward connections again (what a stall held back is delivered, as after a healed link)."""
        self.up = True
        self._flowing.set()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        await self._flowing.wait()  # a connection accepted during a stall waits, like a SYN into a dead route
        if not self.up:
            self._writers.discard(writer)
            writer.transport.abort()
            return
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(self.target_host, self.target_port)
        except OSError:
            self._writers.discard(writer)
            writer.transport.abort()
            return
        self._writers.add(upstream_writer)

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, ConnectionError, asyncio.CancelledError):
                while data := await src.read(65536):
                    await self._flowing.wait()
                    dst.write(data)
                    await dst.drain()
            dst.transport.abort()

        await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer))
        self._writers.difference_update({writer, upstream_writer})
