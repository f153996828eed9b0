"""How the fake LLM server renders a step on the wire, in each protocol's real shape.

OpenAI chat-completions SSE chunks (`openai_events`), Anthropic messages SSE events
(`anthropic_events`), each protocol's error body, and the keep-alive traffic real servers send
while a model is busy (`keep_alive_events`). Pure functions: no sockets here.
"""

from __future__ import annotations

import json
from typing import Any

from tests.fake_llm_steps import Fail, Reply


def _pieces(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)]


_OPENAI_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    402: "billing_error",
    403: "permission_error",
    404: "invalid_request_error",
    413: "invalid_request_error",
    429: "requests",
}
_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}
_TO_ANTHROPIC_STOP = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}


def openai_error_body(fail: Fail) -> Any:
    if fail.body is not None:
        return fail.body
    kind = fail.type or _OPENAI_ERROR_TYPES.get(fail.status, "server_error")
    return {"error": {"message": fail.message, "type": kind, "code": fail.code, "param": None}}


def anthropic_error_body(fail: Fail) -> Any:
    if fail.body is not None:
        return fail.body
    kind = fail.type or _ANTHROPIC_ERROR_TYPES.get(fail.status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": fail.message}}


def openai_events(
    reply: Reply, model: str, include_usage: bool, text_pieces: list[str] | None = None
) -> list[tuple[str, str]]:
    """(kind, SSE text) of an OpenAI chat-completions stream, `[DONE]` included; kind "text" marks deltas."""
    base = {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": model,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        payload = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return f"data: {json.dumps(payload)}\n\n"

    out = [("other", chunk({"role": "assistant", "content": ""}))]
    out += [("other", raw) for raw in reply.inject]
    out += [("other", chunk({reply.reasoning_field: p})) for p in _pieces(reply.reasoning, reply.chunk_size)]
    pieces = _pieces(reply.text, reply.chunk_size) if text_pieces is None else text_pieces
    out += [("text", chunk({"content": p})) for p in pieces]
    for index, (call_id, name, args) in enumerate(reply.tool_calls):
        head = {
            "index": index,
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        out.append(("other", chunk({"tool_calls": [head]})))
        for piece in _pieces(args, reply.chunk_size):
            out.append(("other", chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})))
    finish = reply.finish or ("tool_calls" if reply.tool_calls else "stop")
    if reply.send_finish:
        out.append(("other", chunk({}, finish)))
    if include_usage and reply.send_finish:
        prompt, completion, cache_read, _cache_write = reply.usage
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cache_read},
            "completion_tokens_details": {"reasoning_tokens": reply.reasoning_tokens},
        }
        out.append(("other", f"data: {json.dumps({**base, 'choices': [], 'usage': usage})}\n\n"))
    if reply.terminal:
        out.append(("other", "data: [DONE]\n\n"))
    return out


def anthropic_events(reply: Reply, model: str, text_pieces: list[str] | None = None) -> list[tuple[str, str]]:
    """(kind, SSE text) of an Anthropic messages stream; kind "text" marks text deltas."""
    out: list[tuple[str, str]] = []

    def event(name: str, data: dict[str, Any], kind: str = "other") -> None:
        out.append((kind, f"event: {name}\ndata: {json.dumps(data)}\n\n"))

    prompt, completion, cache_read, cache_write = reply.usage
    start_usage = {
        "input_tokens": max(0, prompt - cache_read - cache_write),
        "output_tokens": 1,
        "cache_read_input_tokens": cache_read,
        "cache_creation_input_tokens": cache_write,
    }
    message = {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": start_usage,
    }
    event("message_start", {"type": "message_start", "message": message})
    out += [("other", raw) for raw in reply.inject]
    event("ping", {"type": "ping"})
    blocks: list[tuple[dict[str, Any], list[dict[str, Any]], str]] = []
    if reply.reasoning:
        deltas = [{"type": "thinking_delta", "thinking": p} for p in _pieces(reply.reasoning, reply.chunk_size)]
        deltas.append({"type": "signature_delta", "signature": "c2lnbmF0dXJl"})
        blocks.append(({"type": "thinking", "thinking": "", "signature": ""}, deltas, "other"))
    pieces = _pieces(reply.text, reply.chunk_size) if text_pieces is None else text_pieces
    if pieces:
        blocks.append(({"type": "text", "text": ""}, [{"type": "text_delta", "text": p} for p in pieces], "text"))
    for call_id, name, args in reply.tool_calls:
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in _pieces(args, reply.chunk_size)]
        blocks.append(({"type": "tool_use", "id": call_id, "name": name, "input": {}}, deltas, "other"))
    for index, (content_block, deltas, kind) in enumerate(blocks):
        event(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": content_block},
        )
        for delta in deltas:
            event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}, kind)
        event("content_block_stop", {"type": "content_block_stop", "index": index})
    finish = reply.finish or ("tool_calls" if reply.tool_calls else "stop")
    if reply.send_finish:
        event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": _TO_ANTHROPIC_STOP.get(finish, finish), "stop_sequence": None},
                "usage": {"output_tokens": completion},
            },
        )
    if reply.terminal:
        event("message_stop", {"type": "message_stop"})
    return out


def keep_alive_events(anthropic: bool, model: str) -> list[str]:
    """One round of idle traffic: what a server sends while the model has produced nothing new."""
    if anthropic:
        return [f"event: ping\ndata: {json.dumps({'type': 'ping'})}\n\n"]
    empty = {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": model,
        "choices": [{"index": 0, "delta": {}, "finish_reason": None}],
    }
    return [": keep-alive\n\n", "\n", f"data: {json.dumps(empty)}\n\n"]


def error_event(anthropic: bool, message: str, kind: str) -> str:
    """An error reported inside a 200 stream, in the protocol's shape."""
    if anthropic:
        error = {"type": "error", "error": {"type": kind, "message": message}}
        return f"event: error\ndata: {json.dumps(error)}\n\n"
    error = {"error": {"message": message, "type": kind, "code": None, "param": None}}
    return f"data: {json.dumps(error)}\n\n"
