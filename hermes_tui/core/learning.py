"""`TurnLearning`: what runs around each turn of the live agent so that it learns (the `TurnExtras`).

Before the first model call: the memory providers' prefetch and the plugins' `pre_llm_call` context,
joined for the API copy of the current user message (never persisted, never in the system prompt).
Around each tool call: the plugins' `pre_tool_call` (which may block it with a reason the model
reads) and `post_tool_call`. In the finishing phase (reference §8), in Hermes's order: the plugins'
`transform_llm_output` and `post_llm_call` (only for an answer of a turn not interrupted), the
background self-review when a nudge is due (same condition), an auto-title for an untitled session,
and the plugins' `on_session_end` (after every turn, as Hermes does). Nothing here blocks the next
prompt: the review and the title run as background tasks.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from hermes_tui.core.emitter import Emitter
from hermes_tui.core.memory.hooks import MemoryHooks
from hermes_tui.core.messages import Message
from hermes_tui.core.plugins import PluginManager
from hermes_tui.core.review.reviewer import BackgroundReviewer
from hermes_tui.core.session.autotitle import propose_title, title_due
from hermes_tui.core.turn.result import FinishedTurn


class TitleSetter:
    """Proposes a title in the background and sets it if the session is still live and untitled."""

    def __init__(
        self,
        *,
        complete: Callable[[str, int], Awaitable[str]],
        is_demo: Callable[[], bool],
        current: Callable[[], tuple[str, str | None]],
        unique: Callable[[str], Awaitable[str]],
        apply: Callable[[str], Awaitable[None]],
        emitter: Emitter,
    ) -> None:
        self._complete = complete
        self._is_demo = is_demo
        self._current = current
        self._unique = unique
        self._apply = apply
        self._events = emitter
        self._task: asyncio.Task[str | None] | None = None

    def spawn(self, session_id: str, user_message: str, answer: str) -> asyncio.Task[str | None]:
        self._task = asyncio.get_running_loop().create_task(self._run(session_id, user_message, answer))
        return self._task

    async def wait(self, timeout: float = 30.0) -> str | None:
        if self._task is None:
            return None
        done, _ = await asyncio.wait({self._task}, timeout=timeout)
        return self._task.result() if done and not self._task.cancelled() else None

    async def close(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            await asyncio.wait({self._task}, timeout=2.0)

    async def _run(self, session_id: str, user_message: str, answer: str) -> str | None:
        try:
            title = await propose_title(self._complete, user_message, answer, is_demo=self._is_demo())
            if not title:
                return None
            live_id, live_title = self._current()
            if live_id != session_id or live_title:
                return None
            title = await self._unique(title)
            live_id, live_title = self._current()
            if live_id != session_id or live_title:
                return None
            await self._apply(title)
            return title
        except asyncio.CancelledError:
            return None
        except Exception as exc:  # a title is a nicety: one quiet line, never an interruption
            self._events.review("info", f"No auto-title this time ({type(exc).__name__}: {str(exc)[:120]})")
            return None


class TurnLearning:
    """The live agent's `TurnExtras`."""

    def __init__(
        self,
        *,
        memory: MemoryHooks,
        plugins: PluginManager,
        reviewer: BackgroundReviewer,
        titles: TitleSetter | None,
        system_prompt: Callable[[], str | None],
        current_title: Callable[[], str | None],
    ) -> None:
        self.memory = memory
        self.plugins = plugins
        self.reviewer = reviewer
        self.titles = titles
        self._system_prompt = system_prompt
        self._current_title = current_title

    async def turn_context(self, user_message: str, session_id: str, messages: list[Message]) -> str:
        await self.plugins.session_started(session_id)
        parts = [
            await self.memory.prefetch(user_message, session_id),
            await self.plugins.pre_llm_call(user_message, session_id, messages),
        ]
        return "\n\n".join(p for p in parts if p)

    async def before_tool(self, name: str, arguments: str) -> str | None:
        return await self.plugins.pre_tool_call(name, arguments)

    async def after_tool(self, name: str, arguments: str, result: str, is_error: bool) -> None:
        await self.plugins.post_tool_call(name, arguments, result, is_error)

    async def finish(self, turn: FinishedTurn) -> str | None:
        result = turn.result
        answered = result.final_response is not None and not result.interrupted
        transformed: str | None = None
        if answered and result.final_response:
            transformed = await self.plugins.transform_llm_output(result.final_response)
            await self.plugins.post_llm_call(turn.user_message, transformed or result.final_response, result.messages)
        if answered and not result.failed and (turn.review_memory or turn.review_skills):
            self.reviewer.spawn(
                session_id=result.session_id,
                messages=result.messages,
                system_prompt=self._system_prompt() or "",
                memory_due=turn.review_memory,
                skills_due=turn.review_skills,
            )
        if (
            self.titles is not None
            and result.completed
            and result.final_response
            and title_due(result.messages, self._current_title())
        ):
            self.titles.spawn(result.session_id, turn.user_message, result.final_response)
        await self.plugins.session_ended(result.session_id, result.messages)
        return transformed

    async def close(self) -> None:
        await self.reviewer.close()
        if self.titles is not None:
            await self.titles.close()


def provider_tool_handler(manager: Any, provider: Any, name: str) -> Callable[..., Awaitable[Any]]:
    """A FunctionTool handler forwarding one external memory provider tool to the manager."""

    async def handle(args: dict[str, Any], _ctx: Any) -> Any:
        return await manager.handle_tool_call(provider, name, args)

    return handle
