"""`WarmUp`: loading what the first frame did without, at moments that cost the user nothing.

Two steps. Before the agent opens (after the first frame): the core's modules, in a thread, so
the start worker finds them imported. Once start-up is over and the user starts typing the first
prompt: the Markdown stack, the code highlighter's common lexers and the provider's SDK (in a
thread) and the SDK's client (built by `Agent.warm_up`), so the first turn pays for none of it.
A turn waits (in its worker) until the first answer's modules are in (`answer_modules_ready`,
importing them in a thread if nobody has): the first answer's row imports the Markdown stack on the
event loop, and while the warm-up's thread was importing it, the loop waited for that thread's
import lock — keys with it (36 ms in the first second of bench/stream_bench.py's stream when Enter
came right after the prompt was typed).
Not at start-up: the OpenAI SDK alone holds ~22 MB once imported, which a session opened only to
be read never needs (issue 23, docs/PERFORMANCE.md). A turn sent before the warm-up ran still
works: it imports what it needs.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hermes_tui.lazy_imports import import_off_loop

if TYPE_CHECKING:
    from hermes_tui.config import ProviderChoice
    from hermes_tui.core.agent import Agent

CORE_MODULES = (
    "hermes_tui.core.bootstrap",
    "hermes_tui.core.agent",
    # what `open_agent` imports inside its functions: on the loop otherwise, in the startup worker
    "hermes_tui.core.providers.factory",
    "hermes_tui.core.providers.chain",
    "hermes_tui.core.upkeep",
    "hermes_tui.core.commands",
    "hermes_tui.core.tools.memory_tool",
    "hermes_tui.core.tools.session_search",
    "hermes_tui.core.tools.skill_tools",
)
"""The agent, its turn loop and reviewer, and what opening it imports: imported before it opens."""
FIRST_ANSWER_MODULES = ("hermes_tui.widgets.answer_body", "hermes_tui.core.mentions.attach")
"""What the first prompt and answer need and the first frame does without: the Markdown stack, and
the @-mention expansion every sent prompt goes through (imported on the loop at Enter otherwise)."""
SDK_MODULES = {"openai": "openai", "anthropic": "anthropic"}  # the provider's SDK, by provider
FENCE_LANGUAGES = ("python", "bash", "javascript", "typescript", "json")
"""Code-fence languages whose highlighter the warm-up builds. A Pygments lexer compiles its rules
the first time it is used: ~35 ms for Python (150 ms under a profiler), on the event loop, in the
middle of the first answer with a Python fence, where keys wait for it. These five: ~100 ms of a
thread's time and 1.8 MB."""


def _import_all(modules: tuple[str, ...]) -> None:
    for module in modules:
        importlib.import_module(module)


def build_fence_lexers(languages: tuple[str, ...] = FENCE_LANGUAGES) -> None:
    """Compile the lexers of `languages` (once per process: Pygments keeps them on their classes)."""
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    for language in languages:
        try:
            get_lexer_by_name(language)
        except ClassNotFound:
            pass


def _first_answer_warm_up(modules: tuple[str, ...]) -> None:
    _import_all(modules)
    build_fence_lexers()


async def answer_modules_ready() -> None:
    """Until the first answer's modules are imported, each in a thread if not yet (or waited for there
    while the warm-up's thread imports it): a turn awaits it before it runs."""
    for module in FIRST_ANSWER_MODULES:
        await import_off_loop(module)


async def import_core() -> None:
    """The core's modules, off the event loop (~90 ms of module loading)."""
    await asyncio.to_thread(_import_all, CORE_MODULES)


class WarmUp:
    """The SDK warm-up, started once by the first key typed after start-up (`typed`)."""

    def __init__(
        self,
        choice: ProviderChoice,
        *,
        agent: Callable[[], Agent | None],
        run: Callable[[Any], Any],
        after: Callable[[], None],
    ) -> None:
        """`agent` reads the app's agent, `run` starts a worker with a coroutine, `after` runs once
        the warm-up is done (the GC pacer freezes what it imported)."""
        self._choice = choice
        self._agent = agent
        self._run = run
        self._after = after
        self._due = False  # start-up is over
        self.started = False

    def start_up_done(self, typed_already: bool) -> None:
        """Start-up is over; `typed_already`: the prompt holds text typed while it ran."""
        self._due = True
        if typed_already:
            self.typed()

    def typed(self) -> None:
        """A key changed the prompt: the warm-up starts (once, and only after start-up)."""
        if self._due and not self.started:
            self.started = True
            self._run(self._warm_up())

    async def _warm_up(self) -> None:
        modules = FIRST_ANSWER_MODULES
        sdk = SDK_MODULES.get(self._choice.provider)
        await asyncio.to_thread(_first_answer_warm_up, (*modules, sdk) if sdk else modules)
        agent = self._agent()
        if agent is not None:
            await agent.warm_up()
        self._after()
