"""A 200 answer that is not labelled as an event stream, read whole and made usable if it can be.

Some servers ignore `stream: true` and answer with one JSON completion; some label a real event
stream `application/json`; a captive portal or a wrong base URL answers with an HTML page.
`read_plain_body` returns None for a properly labelled stream (the SDK reads those), else a
`PlainBody`: the one JSON answer (`whole`) or the data of each event of a mislabelled stream
(`events`). An HTML page, an error object and anything unreadable raise the typed errors of
`hermes_tui.core.providers.failures`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from hermes_tui.core.providers.failures import ProviderErrorBody, ProviderStreamError
from hermes_tui.core.providers.stream_guard import GuardedStream

_SNIPPET = 120


@dataclass(frozen=True)
class PlainBody:
    """The usable content of a body that was not labelled as an event stream."""

    whole: dict[str, Any] | None = None  # one JSON answer
    events: list[dict[str, Any]] = field(default_factory=list)  # the data of a mislabelled event stream
    done: bool = False  # the mislabelled stream ended with `data: [DONE]`


async def read_plain_body(guard: GuardedStream, sdk_stream: Any) -> PlainBody | None:
    """None for an event stream; else the body, read under the guard's timeouts and checked."""
    response = getattr(sdk_stream, "response", None)
    headers = getattr(response, "headers", None)
    content_type = str(headers.get("content-type", "") if headers is not None else "").lower()
    if "json" not in content_type and "html" not in content_type:
        return None
    text = (await guard.read_body(response)).decode("utf-8", "replace").strip()
    endpoint = guard.endpoint
    if "html" in content_type or text.startswith("<"):
        title = html_title(text) or "no title"
        raise ProviderStreamError(
            "not_a_stream",
            f"{endpoint} answered with an HTML page instead of an event stream ({title}); check the base URL",
        )
    if text.startswith(("data:", "event:", ":")):
        events, done = parse_sse_text(text)
        return PlainBody(events=events, done=done)
    try:
        body = json.loads(text)
    except ValueError:
        raise ProviderStreamError(
            "not_a_stream", f"{endpoint} answered with a body that is neither a stream nor JSON: {text[:80]!r}"
        ) from None
    if not isinstance(body, dict):
        raise ProviderStreamError("not_a_stream", f"{endpoint} answered with unexpected JSON: {text[:80]!r}")
    _raise_if_error(body)
    return PlainBody(whole=body)


def parse_sse_text(text: str) -> tuple[list[dict[str, Any]], bool]:
    """The JSON data of each event in a complete SSE text, and whether `[DONE]` ended it.

    Comments and `ping` events are skipped; an error event or error object raises.
    """
    events: list[dict[str, Any]] = []
    done = False
    for block in text.replace("\r\n", "\n").split("\n\n"):
        name = ""
        data: list[str] = []
        for line in block.split("\n"):
            field_name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field_name == "event":
                name = value
            elif field_name == "data":
                data.append(value)
        payload = "\n".join(data)
        if not payload or name == "ping":
            continue
        if payload.startswith("[DONE]"):
            done = True
            break
        try:
            item = json.loads(payload)
        except ValueError as exc:
            raise ProviderStreamError(
                "malformed", f"the provider sent a malformed stream event (not JSON: {exc})"
            ) from exc
        if isinstance(item, dict):
            if name == "error":
                raise ProviderErrorBody(f"the provider reported an error: {error_text(item)}", item)
            _raise_if_error(item)
            events.append(item)
    return events, done


def _raise_if_error(body: dict[str, Any]) -> None:
    if body.get("error") or body.get("type") == "error":
        raise ProviderErrorBody(f"the provider answered 200 with an error: {error_text(body)}", body)


def html_title(text: str) -> str:
    """The `<title>` of an HTML page, on one line ('' when it has none)."""
    lowered = text.lower()
    start = lowered.find("<title>")
    end = lowered.find("</title>", start + 7)
    if start < 0 or end < 0:
        return ""
    return " ".join(text[start + 7 : end].split())[:_SNIPPET]


def error_text(body: dict[str, Any]) -> str:
    """The message of an error object (`{"error": {"message": ...}}` and its variants)."""
    error = body.get("error")
    if isinstance(error, dict):
        return str(error.get("message") or error.get("type") or error)[:_SNIPPET]
    return str(error or body)[:_SNIPPET]
