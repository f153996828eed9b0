"""Drive one SDK stream under the three provider timeouts, turning transport faults into typed errors.

`StreamTimeouts` holds the limits: `connect` (TCP/TLS set-up, enforced by httpx2), `first_byte`
(from sending the request until the model streams its first content) and `idle` (the longest
silence between two pieces of content once the answer has started). Keep-alives (Anthropic
`ping` events, SSE comments, chunks with an empty delta) are not content, so a server that only
keeps the connection warm still times out. 0 disables a limit.

`GuardedStream` wraps the SDK calls: `open()` awaits the request within the first-byte window,
`items()` yields the SDK's events, each awaited within what is left of the current window (the
provider calls `progress()` whenever an event carried content), `read_body()` reads a body that
is not an event stream under the same windows, and `watch_for_done()` notes OpenAI's `[DONE]`.
Every transport failure comes out as a `ProviderTimeout`, `ProviderConnectionError` or
`ProviderStreamError`; HTTP status errors and in-stream error events pass through unchanged.
httpx2 is imported on first use.
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass
from typing import Any, NoReturn

from hermes_tui.core.providers.failures import ProviderConnectionError, ProviderStreamError, ProviderTimeout
from hermes_tui.core.providers.read_gathering import gather_reads
from hermes_tui.core.providers.utf8_repair import repair_utf8

# The SDKs' own default for a whole read when no timeout is configured: only a backstop here.
SDK_READ_TIMEOUT = 600.0


@dataclass(frozen=True)
class StreamTimeouts:
    """Seconds each phase of a provider call may take; 0 turns that limit off."""

    connect: float = 10.0
    first_byte: float = 45.0
    idle: float = 30.0

    def http_timeout(self, total: float | None = None) -> Any:
        """The httpx2 timeout for the SDK client: our connect limit; reads bounded by `total` or a backstop."""
        import httpx2

        read = total if total else SDK_READ_TIMEOUT
        connect = self.connect if self.connect > 0 else read
        if total:
            connect = min(connect, total)
        return httpx2.Timeout(read, connect=connect, pool=connect)


def _chain(error: BaseException) -> list[BaseException]:
    """The error and what led to it, outermost first: causes and contexts both (an SDK may set either)."""
    chain: list[BaseException] = []
    pending: list[BaseException] = [error]
    while pending and len(chain) < 12:
        current = pending.pop(0)
        if any(current is seen for seen in chain):
            continue
        chain.append(current)
        pending += [linked for linked in (current.__cause__, current.__context__) if linked is not None]
    return chain


def _names(error: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(error).__mro__}


_GENERIC_TEXTS = ("Connection error.", "Request timed out")
_SDK_WRAPPERS = frozenset({"APIConnectionError", "APITimeoutError"})  # the SDKs' wrappers of a transport error


def _reason(chain: list[BaseException]) -> str:
    """The most specific readable cause: an OS error's text, else the first non-generic message."""
    for item in chain:
        if isinstance(item, OSError) and type(item).__name__.startswith("SSL") and str(item).strip():
            return str(item).strip()[:200]  # its errno is OpenSSL's, not the OS's: strerror would mislead
        if isinstance(item, OSError) and item.errno:
            return os.strerror(item.errno)
        if isinstance(item, OSError) and item.strerror:
            return item.strerror
    # The transport's own words first: an SDK that wraps a transport error mid-stream (anthropic
    # from 2.17: "Connection to HOST failed: ...") would otherwise name the host a second time.
    for item in sorted(chain, key=lambda linked: bool(_names(linked) & _SDK_WRAPPERS)):
        text = str(item).strip()
        if text and not text.startswith(_GENERIC_TEXTS):
            return text.splitlines()[0][:200]
    return type(chain[-1]).__name__


def _status_of(chain: list[BaseException]) -> int | None:
    for item in chain:
        response = getattr(item, "response", None)
        status = getattr(response, "status_code", None)
        if isinstance(status, int) and status >= 400:
            return status
    return None


class GuardedStream:
    """One provider call's stream under the watchdog. Create one per call."""

    def __init__(self, timeouts: StreamTimeouts, endpoint: str, read_timeout: float | None = None) -> None:
        self.timeouts = timeouts
        self.endpoint = endpoint
        self.read_timeout = read_timeout or SDK_READ_TIMEOUT
        self.started = False  # True once the first content arrived
        loop = asyncio.get_running_loop()
        self._loop = loop
        self._deadline = loop.time() + timeouts.first_byte if timeouts.first_byte > 0 else None

    # ------------------------------------------------------------------ the watchdog

    def progress(self) -> None:
        """Content arrived: the idle window starts again."""
        self.started = True
        idle = self.timeouts.idle
        self._deadline = self._loop.time() + idle if idle > 0 else None

    def _expired(self) -> ProviderTimeout:
        if self.started:
            return ProviderTimeout("idle", self.timeouts.idle, self.endpoint)
        return ProviderTimeout("first_byte", self.timeouts.first_byte, self.endpoint)

    async def _within_deadline(self, awaitable: Awaitable[Any]) -> Any:
        if self._deadline is None:
            return await awaitable
        scope = asyncio.timeout_at(self._deadline)
        try:
            async with scope:
                return await awaitable
        except TimeoutError:
            if scope.expired():
                raise self._expired() from None
            raise

    # ------------------------------------------------------------------ SDK calls

    async def open(self, create: Awaitable[Any]) -> Any:
        """Send the request and wait for the response headers (first-byte window)."""
        try:
            return await self._within_deadline(create)
        except (ProviderTimeout, asyncio.CancelledError):
            raise
        except Exception as exc:
            self._reraise(exc, before_response=True)

    async def items(self, sdk_stream: Any) -> AsyncIterator[Any]:
        """The SDK stream's events, each within the current window; faults come out typed.

        One alarm serves the whole stream (`_Alarm`), not a timeout scope per event: a fast stream
        brings tens of thousands of events, and arming and dropping a timer for each cost ~6 µs."""
        repair_utf8(sdk_stream)  # a stray invalid byte becomes U+FFFD, not a failed answer
        gather_reads(sdk_stream)  # a fast stream's events come a read's worth at a time
        alarm = _Alarm(self)
        try:
            while True:
                if self._deadline is not None and self._loop.time() >= self._deadline:
                    raise self._expired()
                try:
                    item = await alarm.watch(sdk_stream.__anext__())
                except StopAsyncIteration:
                    return
                except ProviderTimeout:
                    raise
                except asyncio.CancelledError:
                    if alarm.rang():
                        raise self._expired() from None
                    raise
                except ValueError as exc:  # json.JSONDecodeError: an SSE event whose data is not JSON
                    raise ProviderStreamError(
                        "malformed", f"the provider sent a malformed stream event (not JSON: {exc})"
                    ) from exc
                except Exception as exc:
                    self._reraise(exc, before_response=False)
                yield item
        finally:
            alarm.close()

    async def read_body(self, response: Any) -> bytes:
        """The whole body, read chunk by chunk: the first within the current window, each next within `idle`."""
        chunks: list[bytes] = []
        iterator = response.aiter_bytes().__aiter__()
        while True:
            try:
                chunk = await self._within_deadline(iterator.__anext__())
            except StopAsyncIteration:
                return b"".join(chunks)
            except (ProviderTimeout, asyncio.CancelledError):
                raise
            except Exception as exc:
                self._reraise(exc, before_response=False)
            if chunk:
                chunks.append(chunk)
                self.progress()

    def watch_for_done(self, sdk_stream: Any) -> DoneMarker:
        """Watch the raw body for OpenAI's `data: [DONE]` (the SDK swallows it): set on the marker when seen."""
        marker = DoneMarker()
        response = getattr(sdk_stream, "response", None)
        stream = getattr(response, "stream", None)
        import httpx2

        if isinstance(stream, httpx2.AsyncByteStream):
            response.stream = _done_tap_class()(stream, marker)  # type: ignore[union-attr]
        return marker

    # ------------------------------------------------------------------ translation

    def _reraise(self, exc: Exception, *, before_response: bool) -> NoReturn:
        translated = self.translate(exc, before_response=before_response)
        if translated is exc:
            raise exc
        raise translated from exc

    def translate(self, exc: Exception, *, before_response: bool) -> Exception:
        """A transport-level SDK/httpx2 error as a typed provider error; anything else unchanged."""
        chain = _chain(exc)
        names: set[str] = set()
        for item in chain:
            names |= _names(item)
        if getattr(exc, "status_code", None) is not None and "APIStatusError" in _names(exc):
            return exc  # an HTTP error or an error event: the SDK's own exception is the right one
        if names & {"ConnectTimeout", "PoolTimeout"}:
            return ProviderTimeout("connect", self.timeouts.connect or self.read_timeout, self.endpoint)
        if "ReadTimeout" in names:
            kind = "idle" if self.started else "first_byte"
            return ProviderTimeout(kind, self.read_timeout, self.endpoint)
        reason = _reason(chain)
        status = _status_of(chain)
        if "DecodingError" in names:
            what = f"the HTTP {status} response" if status else "the response"
            return ProviderConnectionError(
                f"could not decode {what} from {self.endpoint} (bad Content-Encoding): {reason}",
                status_code=status,
            )
        if "ConnectError" in names:
            return ProviderConnectionError(f"cannot connect to {self.endpoint}: {reason}")
        if names & {"APIConnectionError", "TransportError", "NetworkError", "ProtocolError"}:
            when = "before it answered" if before_response and not self.started else "mid-answer"
            return ProviderConnectionError(f"the connection to {self.endpoint} broke {when}: {reason}")
        return exc


class _Alarm:
    """One timer for a stream's whole read: when the guard's deadline passes while the reading task
    waits for the next event, the task is cancelled (and `rang()` says why). Progress moves the
    deadline on; the timer, when it fires early, waits again for the new one. Between events (the
    caller handling one) it cancels nothing: the next read checks the deadline before it waits."""

    def __init__(self, guard: GuardedStream) -> None:
        task = asyncio.current_task()
        assert task is not None, "a stream is read in a task"
        self._guard = guard
        self._task = task
        self._waiting = False
        self._cancelled = False
        self._handle: asyncio.TimerHandle | None = None

    async def watch(self, read: Awaitable[Any]) -> Any:
        """`await read`, cancelled if the guard's deadline passes meanwhile."""
        self._waiting = True
        deadline = self._guard._deadline
        if deadline is not None and (self._handle is None or self._handle.when() > deadline):
            if self._handle is not None:  # the idle window ends before the first-byte one would have
                self._handle.cancel()
            self._handle = self._guard._loop.call_at(deadline, self._fire)
        try:
            return await read
        finally:
            self._waiting = False

    def _fire(self) -> None:
        self._handle = None
        deadline = self._guard._deadline
        if deadline is None:
            return  # content came and the idle window is off: no limit any more
        if self._guard._loop.time() < deadline:
            self._handle = self._guard._loop.call_at(deadline, self._fire)  # content came meanwhile
        elif self._waiting and not self._cancelled:
            self._cancelled = True
            self._task.cancel()
        # else: the caller is handling an event; its next read checks the deadline, or arms again

    def rang(self) -> bool:
        """True when the cancellation being handled is this alarm's own (and none other is pending)."""
        if not self._cancelled:
            return False
        self._cancelled = False
        return self._task.uncancel() == 0

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None


class DoneMarker:
    """Whether the closing `data: [DONE]` went by."""

    seen = False


@functools.cache
def _done_tap_class() -> type:
    import httpx2

    class DoneTap(httpx2.AsyncByteStream):
        """Pass the body through unchanged, noting the `[DONE]` sentinel (also when split across reads)."""

        def __init__(self, inner: Any, marker: DoneMarker) -> None:
            self._inner = inner
            self._marker = marker
            self._tail = b""

        async def __aiter__(self) -> AsyncIterator[bytes]:
            async for chunk in self._inner:
                if not self._marker.seen:
                    window = self._tail + chunk
                    self._marker.seen = b"data: [DONE]" in window or b"data:[DONE]" in window
                    self._tail = window[-16:]
                yield chunk

        async def aclose(self) -> None:
            await self._inner.aclose()

    return DoneTap
