"""Small real memory providers and plugins the tests load by "module:factory" name."""

from __future__ import annotations

from typing import Any

from hermes_tui.core.memory.provider import MemoryProvider, ProviderContext

CALLS: list[tuple[str, Any]] = []


class SpyProvider(MemoryProvider):
    """Records every lifecycle call; recalls one fixed note."""

    name = "spy"

    def __init__(self, context: ProviderContext) -> None:
        self.context = context

    def initialize(self, session_id: str, **kwargs: Any) -> None:
        CALLS.append(("initialize", session_id))

    def system_prompt_block(self) -> str:
        return "Spy provider: the user's cat is called Miso."

    async def prefetch(self, query: str, session_id: str) -> str:
        CALLS.append(("prefetch", query))
        return "Remember: deploys happen on Thursdays."

    def queue_prefetch(self, query: str, session_id: str) -> None:
        CALLS.append(("queue_prefetch", query))

    async def sync_turn(self, user: str, assistant: str, session_id: str, messages: list[dict[str, Any]]) -> None:
        CALLS.append(("sync_turn", (user, assistant)))

    def on_pre_compress(self, messages: list[dict[str, Any]]) -> str:
        return "Keep: the staging cluster is eu-west."

    def on_memory_write(self, action: str, target: str, content: str, metadata: dict[str, Any]) -> None:
        CALLS.append(("on_memory_write", (action, target, content)))

    def on_session_switch(self, new_session_id: str, parent_session_id: str = "", **kw: Any) -> None:
        CALLS.append(("on_session_switch", kw.get("reason")))

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        return [
            {
                "type": "function",
                "function": {
                    "name": "spy_lookup",
                    "description": "Look a word up in the spy provider.",
                    "parameters": {"type": "object", "properties": {"word": {"type": "string"}}, "required": []},
                },
            }
        ]

    def handle_tool_call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        return {"word": args.get("word"), "meaning": "found"}


class FailingProvider(MemoryProvider):
    """Raises in every hook the turn uses."""

    name = "failing"

    def __init__(self, context: ProviderContext) -> None:
        pass

    def prefetch(self, query: str, session_id: str) -> str:
        raise RuntimeError("recall backend is down")

    async def sync_turn(self, user: str, assistant: str, session_id: str, messages: list[dict[str, Any]]) -> None:
        raise RuntimeError("cannot store")

    def on_turn_start(self, turn_number: int, message: str, **kwargs: Any) -> None:
        raise ValueError("bad turn")


class ContextPlugin:
    def pre_llm_call(self, user_message: str, session_id: str, messages: list[dict[str, Any]]) -> str:
        CALLS.append(("pre_llm_call", user_message))
        return "Plugin context: the build server is ci-7."

    def transform_llm_output(self, response: str) -> str:
        return response + " [checked]"

    def post_llm_call(self, user_message: str, response: str, messages: list[dict[str, Any]]) -> None:
        CALLS.append(("post_llm_call", response))

    def pre_tool_call(self, name: str, arguments: str) -> str | None:
        return "terminal is blocked by policy plugin" if name == "terminal" else None

    def post_tool_call(self, name: str, arguments: str, result: str, is_error: bool) -> None:
        CALLS.append(("post_tool_call", (name, is_error)))

    def on_session_start(self, session_id: str) -> None:
        CALLS.append(("on_session_start", session_id))

    def on_session_end(self, session_id: str, messages: list[dict[str, Any]]) -> None:
        CALLS.append(("on_session_end", len(messages)))


class ExplodingPlugin:
    def pre_llm_call(self, user_message: str, session_id: str, messages: list[dict[str, Any]]) -> str:
        raise RuntimeError("plugin bug")

    def transform_llm_output(self, response: str) -> str:
        CALLS.append(("exploding transform ran", response))
        return "never"
