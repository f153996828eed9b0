"""ToolRegistry: schemas the model sees, and dispatch turning every failure into an error result."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from hermes_tui.core.tools.base import FunctionTool, Tool, ToolContext, ToolResult, object_schema, param
from hermes_tui.core.tools.defaults import default_registry
from hermes_tui.core.tools.registry import ToolRegistry
from tests.tools.helpers import make_context

DEFAULT_TOOLS = ["read_file", "write_file", "patch", "search_files", "terminal", "todo"]


class EchoTool(Tool):
    """Returns its checked arguments, so tests can see what dispatch passed on."""

    name = "echo"
    description = "Echo the arguments."
    parameters = object_schema(
        required=["text"],
        text=param("string", "Text."),
        count=param("integer", "How many."),
        loud=param("boolean", "Shout."),
        mode=param("string", "Mode.", enum=["a", "b"]),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(json.dumps(args, sort_keys=True))


class BrokenTool(Tool):
    name = "broken"
    description = "Always fails."
    parameters = object_schema()

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raise RuntimeError("disk on fire")


class HangingTool(Tool):
    name = "hang"
    description = "Never finishes."
    parameters = object_schema()

    def __init__(self) -> None:
        self.started = asyncio.Event()

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        self.started.set()
        await asyncio.Event().wait()
        return ToolResult("unreachable")


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return make_context(tmp_path)


@pytest.fixture
def registry() -> ToolRegistry:
    registry = ToolRegistry()
    registry.register(EchoTool())
    registry.register(BrokenTool())
    return registry


def test_default_registry_offers_the_six_tools_in_order() -> None:
    registry = default_registry()
    assert registry.names() == DEFAULT_TOOLS
    assert [schema["function"]["name"] for schema in registry.schemas()] == DEFAULT_TOOLS
    assert registry.get("terminal") is not None and registry.get("session_search") is None


def test_every_schema_is_a_well_formed_openai_function_tool() -> None:
    for schema in default_registry().schemas():
        assert schema["type"] == "function"
        function = schema["function"]
        assert function["description"].strip()
        parameters = function["parameters"]
        assert parameters["type"] == "object"
        assert set(parameters["required"]) <= set(parameters["properties"])
        json.dumps(schema)  # serialisable as sent on the wire


async def test_unknown_tool_lists_the_available_ones(ctx: ToolContext) -> None:
    result = await default_registry().dispatch("browse_web", "{}", ctx)
    assert result.is_error
    assert result.content == (
        "Tool 'browse_web' does not exist. Available tools: read_file, write_file, patch, search_files, terminal, todo"
    )


@pytest.mark.parametrize("arguments", ['{"text": "hi"', "text=hi", "{'text': 'hi'}"])
async def test_arguments_that_are_not_json_are_an_error_result(
    registry: ToolRegistry, ctx: ToolContext, arguments: str
) -> None:
    result = await registry.dispatch("echo", arguments, ctx)
    assert result.is_error
    assert result.content.startswith("Error: Invalid JSON arguments.")
    assert "empty object: {}" in result.content


@pytest.mark.parametrize(
    ("arguments", "kind"),
    [('["hi"]', "an array"), ('"hi"', "a string"), ("42", "a number"), ("null", "null")],
)
async def test_json_that_is_not_an_object_is_an_error_result(
    registry: ToolRegistry, ctx: ToolContext, arguments: str, kind: str
) -> None:
    result = await registry.dispatch("echo", arguments, ctx)
    assert result.is_error
    assert result.content.startswith("Error: Invalid JSON arguments.")
    assert f"got {kind}" in result.content


@pytest.mark.parametrize("arguments", ["", "   "])
async def test_empty_arguments_mean_no_arguments(ctx: ToolContext, arguments: str) -> None:
    ctx.todo.write([{"id": "1", "content": "ship it", "status": "pending"}])
    result = await default_registry().dispatch("todo", arguments, ctx)
    assert not result.is_error
    assert json.loads(result.content)["todos"][0]["content"] == "ship it"


async def test_missing_required_parameter_is_named(registry: ToolRegistry, ctx: ToolContext) -> None:
    result = await registry.dispatch("echo", '{"count": 2}', ctx)
    assert result.is_error
    assert result.content == "Error: invalid arguments for echo: missing required parameter 'text'"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ('{"text": 5}', "parameter 'text' must be a string, got 5"),
        ('{"text": "x", "count": "many"}', "parameter 'count' must be an integer"),
        ('{"text": "x", "count": 2.5}', "parameter 'count' must be an integer"),
        ('{"text": "x", "loud": "maybe"}', "parameter 'loud' must be a boolean"),
        ('{"text": "x", "mode": "c"}', "parameter 'mode' must be one of a, b"),
    ],
)
async def test_wrong_typed_parameters_are_an_error_result(
    registry: ToolRegistry, ctx: ToolContext, arguments: str, message: str
) -> None:
    result = await registry.dispatch("echo", arguments, ctx)
    assert result.is_error
    assert message in result.content


async def test_common_model_sloppiness_is_coerced(registry: ToolRegistry, ctx: ToolContext) -> None:
    result = await registry.dispatch("echo", '{"text": "x", "count": "3", "loud": "true", "mode": null}', ctx)
    assert not result.is_error
    assert json.loads(result.content) == {"count": 3, "loud": True, "text": "x"}


async def test_unknown_parameters_are_ignored(registry: ToolRegistry, ctx: ToolContext) -> None:
    result = await registry.dispatch("echo", '{"text": "x", "verbose": true}', ctx)
    assert json.loads(result.content) == {"text": "x"}


async def test_an_exception_inside_a_tool_becomes_an_error_result(registry: ToolRegistry, ctx: ToolContext) -> None:
    result = await registry.dispatch("broken", "{}", ctx)
    assert result == ToolResult("Error executing tool: RuntimeError: disk on fire", is_error=True)


async def test_cancellation_propagates_out_of_dispatch(ctx: ToolContext) -> None:
    registry = ToolRegistry()
    hanging = HangingTool()
    registry.register(hanging)
    task = asyncio.create_task(registry.dispatch("hang", "{}", ctx))
    await asyncio.wait_for(hanging.started.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_registering_a_tool_again_replaces_it(ctx: ToolContext) -> None:
    registry = ToolRegistry()

    async def first(args: dict[str, Any], ctx: ToolContext) -> str:
        return "first"

    async def second(args: dict[str, Any], ctx: ToolContext) -> str:
        return "second"

    registry.register(FunctionTool("pick", "Pick.", object_schema(), first))
    registry.register(FunctionTool("pick", "Pick.", object_schema(), second))
    assert registry.names() == ["pick"]
    assert (await registry.dispatch("pick", "{}", ctx)).content == "second"


async def test_function_tool_from_schema_sends_dicts_as_json_and_flags_errors(ctx: ToolContext) -> None:
    schema = {
        "type": "function",
        "function": {
            "name": "lookup",
            "description": "Look something up.",
            "parameters": object_schema(required=["query"], query=param("string", "What.")),
        },
    }

    async def lookup(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        if args["query"] == "bad":
            return {"error": "query too vague"}
        return {"results": [args["query"].upper()], "session": ctx.session_id}

    ctx.session_id = "20260101_120000_abcdef"
    registry = ToolRegistry()
    registry.register(FunctionTool.from_schema(schema, lookup))
    assert registry.schemas() == [schema]

    found = await registry.dispatch("lookup", '{"query": "café"}', ctx)
    assert not found.is_error
    assert json.loads(found.content) == {"results": ["CAFÉ"], "session": "20260101_120000_abcdef"}
    assert "CAFÉ" in found.content  # not \u-escaped

    failed = await registry.dispatch("lookup", '{"query": "bad"}', ctx)
    assert failed.is_error and json.loads(failed.content) == {"error": "query too vague"}

    missing = await registry.dispatch("lookup", "{}", ctx)
    assert missing.is_error and "missing required parameter 'query'" in missing.content
