"""One MCP server's connection: a long-lived task that owns the SDK's transport and session.

The SDK (`mcp`) runs on anyio: its transports and `ClientSession` are context managers that
must be entered and left by the same task. So each server gets one asyncio task of its own
(`McpConnection._run`) that enters them, lists the tools, then serves tool calls handed to it
through a queue — each call in its own cancel scope, its answer delivered through a future —
until the connection ends, and leaves them again. Nothing here blocks the event loop: the SDK
(about a second of imports) is imported in a worker thread the first time a server connects.

- stdio servers: `command` + `args` started by the SDK in a session of their own, with a small
  environment (the SDK's HOME/PATH/USER… plus LANG, LC_ALL, TMPDIR, XDG_* and the configured
  `env`: never our API keys); their stderr goes to `<home>/logs/mcp-<name>.log` (0600), so it
  never reaches the terminal. Streamable HTTP and SSE servers: `url` with `headers`.
- `connect_timeout` bounds connecting + initialising + listing; `timeout` bounds each call
  (the SDK cancels it on the server too). A call that finds the server down wakes the task to
  reconnect at once and waits for it (at most `connect_timeout`).
- A lost connection (a stdio server that exits, a failed connect) is reported to the listener
  once, then retried with exponential backoff (1 s doubling to 60 s: 3 tries for a server that
  never connected, 5 after a drop, as Hermes); after that the server waits for a call or
  `/reload-mcp` (`wake`). A stdio server's end of stream is noticed at once (`_WatchedStream`),
  even between calls.
- `stop()` ends the session from inside the task (the SDK then closes stdin, waits, and kills
  the process group), so no server process outlives the agent.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Protocol

from hermes_tui.core.mcp.config import ServerConfig
from hermes_tui.core.mcp.naming import name_part
from hermes_tui.store.file_modes import PRIVATE_FILE_MODE, make_private_dir

BACKOFF_FIRST = 1.0  # seconds before the first retry; doubled each time
MAX_BACKOFF = 60.0
INITIAL_RETRIES = 3  # a server that never connected (Hermes's _MAX_INITIAL_CONNECT_RETRIES)
RECONNECT_RETRIES = 5  # after a drop (Hermes's _MAX_RECONNECT_RETRIES)
CALL_GRACE = 5.0  # seconds past the tool timeout before a call is given up on our side
STOP_TIMEOUT = 12.0  # the SDK's stdio shutdown takes at most ~6 s (stdin close, SIGTERM, SIGKILL)
MAX_TOOL_PAGES = 50
_PASSED_ENV = ("LANG", "LC_ALL", "LC_CTYPE", "TMPDIR")  # beside the SDK's own HOME, PATH, USER, SHELL, TERM


class State(StrEnum):
    STARTING = "connecting"
    CONNECTED = "connected"
    RETRYING = "reconnecting"
    FAILED = "failed"  # the retries ran out: a call or /reload-mcp tries again
    STOPPED = "stopped"


class McpCallError(Exception):
    """A call that got no answer from the server; the message is one line for the model."""


class Listener(Protocol):
    def connected(self, connection: McpConnection, *, again: bool) -> None: ...

    def failed(self, connection: McpConnection, reason: str, *, was_connected: bool) -> None: ...


# --------------------------------------------------------------------------- the SDK, imported once off the loop

_sdk: SimpleNamespace | None = None
_sdk_lock: asyncio.Lock | None = None


def _import_sdk() -> SimpleNamespace:
    import httpx2
    import mcp_types
    from mcp.client.session import ClientSession
    from mcp.client.sse import sse_client
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.exceptions import MCPError

    return SimpleNamespace(
        httpx=httpx2,
        types=mcp_types,
        ClientSession=ClientSession,
        StdioServerParameters=StdioServerParameters,
        stdio_client=stdio_client,
        sse_client=sse_client,
        streamable_http_client=streamable_http_client,
        MCPError=MCPError,
        client_info=mcp_types.Implementation(name="hermes-tui", version=_version()),
    )


def _version() -> str:
    from hermes_tui import __version__

    return __version__


async def load_sdk() -> SimpleNamespace:
    """The SDK's parts, imported in a worker thread the first time (never on the event loop)."""
    global _sdk, _sdk_lock
    if _sdk is not None:
        return _sdk
    if _sdk_lock is None:
        _sdk_lock = asyncio.Lock()
    async with _sdk_lock:
        if _sdk is None:
            _sdk = await asyncio.to_thread(_import_sdk)
    return _sdk


# --------------------------------------------------------------------------- small parts


def server_env(configured: dict[str, str]) -> dict[str, str]:
    """What a stdio server gets on top of the SDK's default environment: locale, temp and XDG
    folders, then the configured `env`. Nothing else of ours (API keys, tokens) is passed."""
    env = {key: value for key, value in os.environ.items() if key in _PASSED_ENV or key.startswith("XDG_")}
    env.update(configured)
    return env


def log_path(log_dir: Path, server: str) -> Path:
    return log_dir / f"mcp-{name_part(server)}.log"


def open_stderr_log(log_dir: Path, config: ServerConfig) -> Any:
    """The server's stderr log, opened for appending (created 0600 in a 0700 folder), with a start line."""
    make_private_dir(log_dir)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
    handle = os.fdopen(
        os.open(log_path(log_dir, config.name), flags, PRIVATE_FILE_MODE),
        "a",
        encoding="utf-8",
        errors="replace",
        buffering=1,
    )
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    handle.write(f"\n===== {stamp} starting MCP server '{config.name}': {config.where} =====\n")
    return handle


def describe_failure(exc: BaseException) -> str:
    """One line for a failed connection: the innermost useful message of an exception (group)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    if isinstance(exc, PermissionError):
        return f"cannot start the command: {exc.strerror or exc}"
    text = " ".join(str(exc).split()) or type(exc).__name__
    message = getattr(exc, "message", None)
    if isinstance(message, str) and message:
        text = message
    cause = exc.__cause__ or exc.__context__
    detail = " ".join(str(cause).split()) if cause is not None else ""
    if detail and detail not in text and type(exc).__name__ in ("ConnectError", "ConnectTimeout"):
        text = f"{text}: {detail}"
    return text[:300]


class _WatchedStream:
    """The transport's read stream, passed on unchanged, that notices when it ends (the server went away)."""

    def __init__(self, inner: Any, ended: asyncio.Event) -> None:
        self._inner = inner
        self._ended = ended

    @property
    def last_context(self) -> Any:  # the dispatcher reads the sender's context through this
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        try:
            return await self._inner.receive()
        except Exception:
            self._ended.set()
            raise

    async def aclose(self) -> None:
        self._ended.set()
        await self._inner.aclose()

    def __aiter__(self) -> _WatchedStream:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self._inner.__anext__()
        except StopAsyncIteration:
            self._ended.set()
            raise
        except Exception:
            self._ended.set()
            raise

    async def __aenter__(self) -> _WatchedStream:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        self._ended.set()
        return await self._inner.__aexit__(*exc)


@dataclass
class _Call:
    tool: str
    arguments: dict[str, Any]
    future: asyncio.Future[Any]
    scope: Any = None  # the anyio cancel scope serving it, once it runs

    def abandon(self) -> None:
        """The caller gave up (timeout, Ctrl-C): stop serving it."""
        if not self.future.done():
            self.future.cancel()
        if self.scope is not None:
            self.scope.cancel()


@dataclass
class _Attempt:
    """What one connection attempt came to."""

    connected: bool = False
    reason: str = ""
    closed: asyncio.Event = field(default_factory=asyncio.Event)


# --------------------------------------------------------------------------- the connection


class McpConnection:
    """One configured server: its state, its listed tools, and the task that talks to it."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        log_dir: Path,
        listener: Listener,
        backoff_first: float = BACKOFF_FIRST,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.log_dir = log_dir
        self.state = State.STOPPED
        self.tools: list[Any] = []  # the server's tools as listed (mcp_types.Tool), before include/exclude
        self.error = ""  # why the last attempt failed or the connection ended
        self.connected_since: float | None = None
        self._listener = listener
        self._backoff_first = backoff_first
        self._clock = clock
        self._calls: asyncio.Queue[_Call] = asyncio.Queue()
        self._wake = asyncio.Event()
        self._connected = asyncio.Event()
        self._settled = asyncio.Event()  # the first attempt ended, one way or the other
        self._stopping = False
        self._scope: Any = None
        self._task: asyncio.Task[None] | None = None
        self._ever_connected = False

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Begin connecting in the background (returns at once)."""
        if self.running:
            return
        self._stopping = False
        self._settled.clear()
        self.state = State.STARTING
        self._task = asyncio.create_task(self._run(), name=f"mcp-server:{self.name}")

    def wake(self) -> None:
        """Skip the backoff wait (or leave the failed state) and try to connect now."""
        self._wake.set()

    async def wait_settled(self, timeout: float | None = None) -> None:
        """Wait until the first connection attempt has connected or failed (bounded by `timeout`)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._settled.wait(), timeout)

    async def stop(self) -> None:
        """End the connection (a stdio server's process is stopped by the SDK) and the task."""
        task = self._task
        if task is None:
            return
        self._stopping = True
        self._wake.set()
        if self._scope is not None:
            self._scope.cancel()
        try:
            await asyncio.wait_for(asyncio.shield(task), STOP_TIMEOUT)
        except TimeoutError:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        except Exception:
            pass
        self._task = None
        self.state = State.STOPPED
        self._fail_queued("the MCP server was stopped")

    # ------------------------------------------------------------------ calls

    async def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        """Call one of the server's tools; the SDK's CallToolResult, or McpCallError (one line)."""
        if self.state is not State.CONNECTED:
            await self._await_connection()
        call = _Call(tool, arguments, asyncio.get_running_loop().create_future())
        self._calls.put_nowait(call)
        try:
            return await asyncio.wait_for(asyncio.shield(call.future), self.config.timeout + CALL_GRACE)
        except TimeoutError:
            call.abandon()
            raise McpCallError(f"MCP server '{self.name}' did not answer within {self.config.timeout:g} s") from None
        except asyncio.CancelledError:
            call.abandon()
            raise

    async def _await_connection(self) -> None:
        if self._stopping or not self.running:
            raise McpCallError(f"MCP server '{self.name}' is not running (/reload-mcp starts it again)")
        self._wake.set()
        try:
            await asyncio.wait_for(self._connected.wait(), self.config.connect_timeout + CALL_GRACE)
        except TimeoutError:
            reason = f": {self.error}" if self.error else ""
            raise McpCallError(f"MCP server '{self.name}' is not connected{reason}") from None

    def _fail_queued(self, reason: str) -> None:
        while not self._calls.empty():
            call = self._calls.get_nowait()
            if not call.future.done():
                call.future.set_exception(McpCallError(reason))

    # ------------------------------------------------------------------ the task

    async def _run(self) -> None:
        failures = 0
        try:
            while not self._stopping:
                self._wake.clear()
                attempt = await self._attempt()
                if self._stopping:
                    break
                self._settled.set()
                self.error = attempt.reason
                self.state = State.RETRYING
                if attempt.connected:
                    failures = 0
                failures += 1
                if failures == 1:  # one report per run of failures, not one per retry
                    self._listener.failed(self, attempt.reason, was_connected=attempt.connected)
                budget = RECONNECT_RETRIES if self._ever_connected else INITIAL_RETRIES
                if failures > budget:
                    self.state = State.FAILED
                    await self._wake.wait()
                    failures = 0
                    continue
                delay = min(self._backoff_first * 2 ** (failures - 1), MAX_BACKOFF)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), delay)
        finally:
            self.state = State.STOPPED
            self._connected.clear()
            self._settled.set()

    async def _attempt(self) -> _Attempt:
        """Connect, list the tools, serve calls until the connection ends; what it came to."""
        attempt = _Attempt()
        if self.state is not State.STARTING:
            self.state = State.RETRYING if self._ever_connected else State.STARTING
        log = None
        try:
            import anyio

            sdk = await load_sdk()
            if self.config.transport == "stdio":
                log = open_stderr_log(self.log_dir, self.config)
            deadline = anyio.current_time() + self.config.connect_timeout
            with anyio.CancelScope(deadline=deadline) as scope:
                self._scope = scope
                if self._stopping:
                    scope.cancel()
                async with self._transport(sdk, log) as streams:
                    read = _WatchedStream(streams[0], attempt.closed)
                    async with sdk.ClientSession(read, streams[1], client_info=sdk.client_info) as session:
                        await session.initialize()
                        self.tools = await self._list_tools(sdk, session)
                        scope.deadline = math.inf
                        attempt.connected = True
                        self._became_connected()
                        await self._serve(session, attempt.closed)
            if scope.cancelled_caught and not attempt.connected:
                attempt.reason = f"no answer within {self.config.connect_timeout:g} s (connect_timeout)"
            elif not attempt.reason:
                attempt.reason = "the server closed the connection"
        except Exception as exc:
            attempt.reason = describe_failure(exc)
        finally:
            self._scope = None
            self._connected.clear()
            self.connected_since = None
            if log is not None:
                with contextlib.suppress(OSError):
                    log.close()
        return attempt

    def _became_connected(self) -> None:
        again = self._ever_connected
        self._ever_connected = True
        self.error = ""
        self.state = State.CONNECTED
        self.connected_since = self._clock()
        self._connected.set()
        self._settled.set()
        self._listener.connected(self, again=again)

    @contextlib.asynccontextmanager
    async def _transport(self, sdk: SimpleNamespace, log: Any) -> AsyncIterator[Any]:
        config = self.config
        if config.transport == "stdio":
            params = sdk.StdioServerParameters(
                command=config.command, args=list(config.args), env=server_env(config.env)
            )
            async with sdk.stdio_client(params, errlog=log) as streams:
                yield streams
        elif config.transport == "sse":
            async with sdk.sse_client(
                config.url,
                headers=config.headers or None,
                timeout=min(config.connect_timeout, 30.0),
                sse_read_timeout=max(300.0, config.timeout + 30.0),
            ) as streams:
                yield streams
        else:
            timeout = sdk.httpx.Timeout(min(config.connect_timeout, 30.0), read=max(300.0, config.timeout + 30.0))
            async with (
                sdk.httpx.AsyncClient(headers=config.headers or None, timeout=timeout) as http,
                sdk.streamable_http_client(config.url, http_client=http) as streams,
            ):
                yield streams

    async def _list_tools(self, sdk: SimpleNamespace, session: Any) -> list[Any]:
        tools: list[Any] = []
        cursor: str | None = None
        for _ in range(MAX_TOOL_PAGES):
            params = sdk.types.PaginatedRequestParams(cursor=cursor) if cursor else None
            try:
                page = await session.list_tools(params=params)
            except sdk.MCPError as exc:
                if exc.code == sdk.types.METHOD_NOT_FOUND:  # a server without tools
                    return tools
                raise
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    async def _serve(self, session: Any, closed: asyncio.Event) -> None:
        """Hand queued calls to the session, each in a task of its own, until the stream ends or we stop."""
        import anyio

        async with anyio.create_task_group() as group:

            async def watch() -> None:
                await closed.wait()
                group.cancel_scope.cancel()

            group.start_soon(watch)
            while True:
                call = await self._calls.get()
                if not call.future.done():
                    group.start_soon(self._serve_call, session, call)

    async def _serve_call(self, session: Any, call: _Call) -> None:
        import anyio

        sdk = await load_sdk()
        with anyio.CancelScope() as scope:
            call.scope = scope
            try:
                result = await session.call_tool(
                    call.tool, call.arguments or None, read_timeout_seconds=self.config.timeout
                )
            except sdk.MCPError as exc:
                if not call.future.done():
                    call.future.set_exception(McpCallError(self._call_error(sdk, exc)))
                return
            except Exception as exc:
                if not call.future.done():
                    call.future.set_exception(McpCallError(f"MCP call failed: {describe_failure(exc)}"))
                return
            if not call.future.done():
                call.future.set_result(result)
        if not call.future.done():  # cancelled: the connection ended or the agent is stopping
            call.future.set_exception(McpCallError(f"MCP server '{self.name}' closed the connection during the call"))

    def _call_error(self, sdk: SimpleNamespace, exc: Any) -> str:
        if exc.code == sdk.types.REQUEST_TIMEOUT:
            return f"MCP server '{self.name}' did not answer within {self.config.timeout:g} s (timeout)"
        if exc.code == sdk.types.CONNECTION_CLOSED:
            return f"MCP server '{self.name}' closed the connection during the call"
        return f"MCP call failed: {exc.message}"
