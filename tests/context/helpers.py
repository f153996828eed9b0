"""Conversation builders and fake summary models for the context-engine tests.

The fake summarisers are real async functions with the `(prompt, max_tokens) -> str` contract the
compressor expects; they record what they were asked so tests can inspect the prompt.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from hermes_tui.core.messages import Message


def user(text: str) -> Message:
    return {"role": "user", "content": text}


def assistant(text: str | None = None, *calls: dict[str, Any]) -> Message:
    message: Message = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = list(calls)
    return message


def call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def result(call_id: str, content: Any, name: str | None = None) -> Message:
    message: Message = {"role": "tool", "tool_call_id": call_id, "content": content}
    if name:
        message["tool_name"] = name
    return message


def system(text: str = "You are a careful coding agent.") -> Message:
    return {"role": "system", "content": text}


def tool_round(index: int, output_chars: int = 300, name: str = "read_file") -> list[Message]:
    """user ask -> assistant tool call -> tool result -> assistant answer."""
    cid = f"call_{index}"
    return [
        user(f"Step {index}: look at src/module_{index}.py"),
        assistant(None, call(cid, name, path=f"src/module_{index}.py")),
        result(cid, f"contents of module {index}\n" + "x" * output_chars),
        assistant(f"Module {index} looks fine."),
    ]


def conversation(rounds: int, output_chars: int = 300) -> list[Message]:
    messages = [system()]
    for i in range(rounds):
        messages.extend(tool_round(i, output_chars))
    return messages


@dataclass
class RecordingSummarizer:
    """Returns `reply` (or the prompt itself with echo=True) and records every call."""

    reply: str = "## Active Task\nNone\n\n## Goal\nKeep the tests green."
    echo: bool = False
    prompts: list[str] = field(default_factory=list)
    max_tokens: list[int] = field(default_factory=list)

    async def __call__(self, prompt: str, max_tokens: int) -> str:
        self.prompts.append(prompt)
        self.max_tokens.append(max_tokens)
        return prompt if self.echo else self.reply


@dataclass
class FailingSummarizer:
    """Raises `error` on every call and counts the calls."""

    error: BaseException
    calls: int = 0

    async def __call__(self, prompt: str, max_tokens: int) -> str:
        self.calls += 1
        raise self.error


class StatusError(Exception):
    """An SDK-like error carrying an HTTP status code (the compressor reads it duck-typed)."""

    def __init__(self, status_code: int, message: str) -> None:
        super().__init__(message)
        self.status_code = status_code


class FakeClock:
    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def roles(messages: list[Message]) -> list[str]:
    return [str(m.get("role")) for m in messages]


def text_of(message: Message) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else str(content)
