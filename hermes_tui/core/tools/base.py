"""What a tool is and what it gets to run: the shared vocabulary of every tool module.

Owns: `ToolResult` (with the file changes a call made, for the UI), `ApprovalRequest`/`Approver`,
`ToolContext` (its `permissions`: the permission mode, `core.tools.permissions`), `ToolArgumentError`,
the `Tool` base class with its OpenAI function schema, the schema helpers `param`/`object_schema`,
parsing a model's arguments text and checking it against a tool's schema (`parse_arguments`,
`check_arguments`), and the `FunctionTool` adapter for tools written as plain async functions.
Imports no tool module but the pure `file_diff` and `permissions`, so every tool module and the
registry can import it.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_tui.config import ToolsSettings
from hermes_tui.core.todo import TodoStore
from hermes_tui.core.tools.file_diff import FileChange
from hermes_tui.core.tools.permissions import ApprovalAnswer, Permissions, initial_mode


@dataclass(frozen=True)
class ToolResult:
    """What a tool call produced; `content` becomes the tool message sent back to the model.

    `changes` are the files the call changed (write_file, patch), for the UI and headless lines only:
    the model reads `content`. `parts` are content parts sent after it (the images an MCP tool
    returned): the tool message then carries a list, `content` as its first text part.
    """

    content: str
    is_error: bool = False
    changes: tuple[FileChange, ...] = ()
    parts: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class ApprovalRequest:
    """A question for the user before a tool acts on the machine; `reasons` say why it is risky.

    `change` is the diff a file change would make (write_file, patch). `session_scope` says what
    "allow for the rest of the session" would cover ("this exact command"); empty = not offered.
    """

    tool: str
    command: str
    cwd: str
    reasons: tuple[str, ...]
    change: FileChange | None = None
    session_scope: str = ""


# An approver answers True / False (allow once / deny) or an ApprovalAnswer (once, session, deny).
Approver = Callable[[ApprovalRequest], Awaitable[bool | ApprovalAnswer]]


@dataclass
class ToolContext:
    """Everything a tool may use: working folder, settings, the approval callback, session state."""

    cwd: Path
    settings: ToolsSettings
    approve: Approver | None
    todo: TodoStore
    session_id: str | None = None
    services: dict[str, Any] = field(default_factory=dict)  # e.g. "db" for session_search
    home: Path | None = None  # hermes's home folder: the file tools always ask before touching it
    permissions: Permissions | None = None  # the agent's mode and allow list; None: from settings.auto_approve

    def __post_init__(self) -> None:
        if self.permissions is None:
            self.permissions = Permissions(initial_mode(self.settings.permission_mode, self.settings.auto_approve))

    @property
    def rules(self) -> Permissions:
        """The permissions every approval decision consults."""
        assert self.permissions is not None
        return self.permissions

    def resolve_path(self, raw: str) -> Path:
        """A user or model path: `~` expanded, relative paths taken against `cwd`."""
        path = Path(raw).expanduser()
        return path if path.is_absolute() else self.cwd / path


class ToolArgumentError(ValueError):
    """Arguments that do not fit a tool's schema; the message is one line naming the parameter."""


class Tool(ABC):
    """One agent tool: a name, a description and a JSON schema the model sees, and `run`."""

    name: str
    description: str
    parameters: dict[str, Any]
    mutates_files: bool = False  # it may create, change or delete files: a checkpoint is taken before it runs
    source: str = "built-in"  # where it comes from, as /tools lists it: built-in, mcp:<server>, plugin:<name>

    def checked_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        """`args` checked against the schema (`check_arguments`); a tool whose other end checks its
        arguments itself (an MCP server's) may pass them through instead."""
        return check_arguments(self.parameters, args)

    def may_change_files(self, args: dict[str, Any]) -> bool:
        """Whether this call (its checked arguments) may change files; a tool that can tell a call that
        only reads (the terminal) narrows `mutates_files` here."""
        return self.mutates_files

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-tool schema."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    @abstractmethod
    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Do the work. `args` has passed `check_arguments`; expected failures return an error result."""


# --------------------------------------------------------------------------- schema helpers


def param(json_type: str, description: str, **extra: Any) -> dict[str, Any]:
    """One property of a tool's parameter schema."""
    return {"type": json_type, "description": description, **extra}


def object_schema(required: Sequence[str] = (), **properties: dict[str, Any]) -> dict[str, Any]:
    """A tool's parameter schema: a JSON object with these properties."""
    return {"type": "object", "properties": properties, "required": list(required)}


# --------------------------------------------------------------------------- argument checking

_JSON_TYPE_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "array": "an array",
    "object": "an object",
}


def _describe(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def _coerce(value: Any, expected: str, where: str) -> Any:
    """`value` as the JSON-schema type `expected`; forgiving where models are commonly sloppy."""
    if expected == "string" and isinstance(value, str):
        return value
    if expected == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
    if expected == "integer":
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
            return int(value.strip())
    if expected == "number":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
        if isinstance(value, str):
            try:
                return float(value.strip())
            except ValueError:
                pass
    if expected == "array" and isinstance(value, list):
        return value
    if expected == "object" and isinstance(value, dict):
        return value
    wanted = _JSON_TYPE_NAMES.get(expected, expected)
    raise ToolArgumentError(f"parameter '{where}' must be {wanted}, got {_describe(value)}")


def check_arguments(parameters: Mapping[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """Arguments checked against an object schema's top level: required names, types and enums.

    `null` for an optional parameter means "not given"; unknown names are dropped (models add
    stray keys, and ignoring them is kinder than failing the call).
    """
    properties: Mapping[str, Any] = parameters.get("properties") or {}
    required = list(parameters.get("required") or [])
    checked: dict[str, Any] = {}
    for name, spec in properties.items():
        if name not in args or args[name] is None:
            continue
        value = args[name]
        expected = spec.get("type") if isinstance(spec, Mapping) else None
        if isinstance(expected, str):
            value = _coerce(value, expected, name)
        choices = spec.get("enum") if isinstance(spec, Mapping) else None
        if choices and value not in choices:
            options = ", ".join(str(choice) for choice in choices)
            raise ToolArgumentError(f"parameter '{name}' must be one of {options}, got {_describe(value)}")
        checked[name] = value
    missing = [name for name in required if name not in checked]
    if missing:
        names = ", ".join(f"'{name}'" for name in missing)
        noun = "parameter" if len(missing) == 1 else "parameters"
        raise ToolArgumentError(f"missing required {noun} {names}")
    return checked


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    for python_type, name in ((bool, "a boolean"), (str, "a string"), (list, "an array")):
        if isinstance(value, python_type):
            return name
    return "a number" if isinstance(value, (int, float)) else type(value).__name__


def parse_arguments(arguments: str | Mapping[str, Any] | None) -> dict[str, Any]:
    """The JSON arguments text a model produced, as a dict ("" and None mean no arguments)."""
    if arguments is None:
        return {}
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if not arguments.strip():
        return {}
    try:
        parsed = json.loads(arguments)
    except ValueError as exc:
        raise ToolArgumentError(
            f"Error: Invalid JSON arguments. The arguments could not be parsed ({exc}). "
            "Send the arguments as one JSON object; for a tool without arguments use an empty object: {}"
        ) from None
    if not isinstance(parsed, dict):
        raise ToolArgumentError(
            f"Error: Invalid JSON arguments. Expected a JSON object, got {_json_kind(parsed)}. "
            "Send the arguments as one JSON object; for a tool without arguments use an empty object: {}"
        )
    return parsed


# --------------------------------------------------------------------------- function adapter

FunctionHandler = Callable[[dict[str, Any], ToolContext], Awaitable[Any]]


class FunctionTool(Tool):
    """A tool made from an async function `(args, ctx) -> ToolResult | str | dict`.

    A dict result is sent as JSON; a dict with an "error" key is an error result. This is how
    tools written as plain functions (session_search) join the registry.
    """

    def __init__(self, name: str, description: str, parameters: dict[str, Any], handler: FunctionHandler):
        self.name = name
        self.description = description
        self.parameters = parameters
        self._handler = handler

    @classmethod
    def from_schema(cls, schema: Mapping[str, Any], handler: FunctionHandler) -> FunctionTool:
        """Build from an OpenAI function schema (the `{"type": "function"}` wrapper or its inner dict)."""
        function = schema.get("function", schema)
        return cls(
            name=function["name"],
            description=function.get("description", ""),
            parameters=function.get("parameters") or {"type": "object", "properties": {}},
            handler=handler,
        )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        outcome = await self._handler(args, ctx)
        if isinstance(outcome, ToolResult):
            return outcome
        if isinstance(outcome, str):
            return ToolResult(outcome)
        is_error = isinstance(outcome, dict) and "error" in outcome
        return ToolResult(json.dumps(outcome, ensure_ascii=False, default=str), is_error=is_error)
