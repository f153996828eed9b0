"""The Agent: a thin facade over one conversation's collaborators, driven by the TUI and the CLI.

Construction wires the parts together — the live session (`core.session.live.LiveSession`, the
one owner of the session's identity, messages, flush cursor and cached prompt), the context meter
(with its look ahead, `core.session.outlook`), the compression orchestrator, the session moves,
the steering inbox (`core.turn.steering`: /steer, /queue, /stop), the standing goal
(`core.goals`), the checkpoints of the working folder (`core.checkpoints`) and the tool
registry, the pinned messages (`core.session.pins`), the display flags (`core.display`), the
reasoning level (`core.reasoning`) and the /background turns (`core.background`). After that the
Agent only forwards: `run_conversation` runs one turn
(`core.turn.runner.TurnRunner`), `next_turn` says what to send after it (a queued message, else
the goal's continuation), the session commands move the live session,
`budget`/`totals`/`lineage` answer what the UI shows, `permission_mode` is what tool calls may do
unasked (`core.tools.permissions`, one `Permissions` for every turn), `close` ends it.

Tools come from three sources: the built-ins, the MCP servers of `mcp_servers` (`core.mcp`:
connected in the background by `start_mcp`, their tools joining as each server connects) and
the enabled plugins (`core.plugins.load_extensions`: tools and slash commands). `tool_schemas`
is replaced, never changed in place, whenever the set changes (`refresh_tools`): a running turn
and a running self-review keep the list they started with.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_tui.config import ConfigError, Home, Settings, load_settings
from hermes_tui.core import events as ev
from hermes_tui.core.background import BackgroundRuns
from hermes_tui.core.checkpoints.manager import CheckpointManager
from hermes_tui.core.context.compressor import ContextCompressor
from hermes_tui.core.context.cooldown_store import CooldownKeeper
from hermes_tui.core.context.window_probe import CACHE_FILE_NAME, WindowCache, WindowDetector, should_ask
from hermes_tui.core.context.windows import MINIMUM_CONTEXT_LENGTH, context_window
from hermes_tui.core.display import DisplayOptions
from hermes_tui.core.emitter import Emitter
from hermes_tui.core.goals import GoalKeeper
from hermes_tui.core.learning import TitleSetter, TurnLearning, provider_tool_handler
from hermes_tui.core.mcp.config import ServerConfig, parse_servers
from hermes_tui.core.mcp.manager import McpManager
from hermes_tui.core.memory.manager import MemoryManager, ProviderLoadError, load_external_provider
from hermes_tui.core.memory.provider import MemoryProvider, ProviderContext
from hermes_tui.core.memory.store import MemoryStore
from hermes_tui.core.messages import Message
from hermes_tui.core.personality import overlay_for, personality_text
from hermes_tui.core.plugins import PluginManager, load_extensions
from hermes_tui.core.prompt import PromptInputs, build_system_prompt
from hermes_tui.core.prompt_context import cap
from hermes_tui.core.providers.base import Provider
from hermes_tui.core.providers.chain import ProviderChain
from hermes_tui.core.reasoning import ReasoningEffort
from hermes_tui.core.review.records import ReviewRecord, load_records, review_nodes
from hermes_tui.core.review.reviewer import BackgroundReviewer
from hermes_tui.core.session.branching import BranchResult
from hermes_tui.core.session.compression import CompressionOrchestrator
from hermes_tui.core.session.compression_check import CompressionPreview
from hermes_tui.core.session.live import LiveSession, SessionError
from hermes_tui.core.session.manual_compress import compression_preview
from hermes_tui.core.session.meter import ContextMeter, SessionTotals
from hermes_tui.core.session.model_switch import check_model_name, switched_provider, window_for
from hermes_tui.core.session.moves import BUSY, SessionMoves
from hermes_tui.core.session.outlook import OutlookTracker
from hermes_tui.core.session.pins import Pins
from hermes_tui.core.skills.catalog import available_skills_block
from hermes_tui.core.skills.manage import SkillManager
from hermes_tui.core.tools.base import Approver, FunctionTool, ToolContext
from hermes_tui.core.tools.defaults import default_registry
from hermes_tui.core.tools.permissions import PermissionMode, Permissions, initial_mode
from hermes_tui.core.tools.registry import ToolRegistry
from hermes_tui.core.turn.deps import TurnDeps
from hermes_tui.core.turn.result import TurnResult
from hermes_tui.core.turn.runner import TurnRunner
from hermes_tui.core.turn.steering import SteeringInbox
from hermes_tui.core.turn_changes import TurnChangeLog
from hermes_tui.store.regular_files import read_regular_text

if TYPE_CHECKING:
    from hermes_tui.store.db import SessionDB
    from hermes_tui.store.models import LineageNode

DEFAULT_BACKOFF_BASE = 2.0  # seconds; the retry loop's jittered backoff base (reference §1.2)


class AgentError(Exception):
    """A problem that stops the agent from starting; the message is one clear line."""


class Agent:
    """A conversation with one model, persisted to a Hermes-compatible state.db."""

    def __init__(
        self,
        *,
        settings: Settings,
        home: Home,
        provider: Provider,
        db: SessionDB | None = None,
        aux_provider: Provider | None = None,
        sink: ev.EventSink = ev.null_sink,
        approver: Approver | None = None,
        source: str = "cli",
        cwd: Path | None = None,
        registry: ToolRegistry | None = None,
        session_id: str | None = None,
        backoff_base: float = DEFAULT_BACKOFF_BASE,
        chain: ProviderChain | None = None,
    ) -> None:
        self.settings = settings
        self.home = home
        self.aux_provider = aux_provider
        self.db = db
        self.approver = approver
        self.cwd = (cwd or Path.cwd()).resolve()
        self.registry = registry or default_registry()
        self.backoff_base = backoff_base
        self.events = Emitter(TurnChangeLog(sink))  # + one TurnFilesChanged per turn that changed files
        self.permissions = Permissions(
            initial_mode(settings.tools.permission_mode, settings.tools.auto_approve), on_change=self._mode_changed
        )

        window, known = context_window(provider.model, settings.model.context_length)
        # the provider answering now, its fallbacks and key pools (core/providers/chain.py)
        self.chain = chain or ProviderChain.single(provider, window, known)
        if window < MINIMUM_CONTEXT_LENGTH:
            raise AgentError(
                f"model window {window:,} tokens is below the {MINIMUM_CONTEXT_LENGTH:,}-token minimum "
                "(set model.context_length or --context-length to the model's real window)"
            )
        comp = settings.compression
        self.compressor = ContextCompressor(
            window,
            threshold_percent=comp.threshold,
            protect_first_n=comp.protect_first_n,
            protect_last_n=comp.protect_last_n,
            summary_target_ratio=comp.target_ratio,
            summarize=self._summarize_with_aux if aux_provider is not None else self._summarize_with_main,
            fallback_summarize=self._summarize_with_main if aux_provider is not None else None,
            abort_on_summary_failure=comp.abort_on_summary_failure,
            max_output_tokens=settings.model.max_tokens,  # reserved out of the window: the trigger's input budget
        )
        self.memory = MemoryStore(
            home.memories,
            memory_enabled=settings.memory.memory_enabled,
            user_profile_enabled=settings.memory.user_profile_enabled,
            memory_char_limit=settings.memory.memory_char_limit,
            user_char_limit=settings.memory.user_char_limit,
        )
        self.skills = SkillManager(home.skills, guard_agent_created=settings.skills.guard_agent_created)
        self.memory_hooks = MemoryManager(self.memory, self.events, self._external_memory_provider())
        for owner, schema in self.memory_hooks.tool_schemas():
            name = schema.get("function", schema).get("name", "")
            tool = FunctionTool.from_schema(schema, provider_tool_handler(self.memory_hooks, owner, name))
            tool.source = f"memory:{getattr(owner, 'name', 'provider')}"
            self.registry.register(tool)
        self._on_close: list[Callable[[], None]] = []
        self.extensions = load_extensions(settings.plugins.enabled)
        self._add_plugin_tools()
        self.mcp = McpManager(
            self._mcp_servers(settings),
            registry=self.registry,
            emitter=self.events,
            log_dir=home.root / "logs",
            on_tools_changed=self.refresh_tools,
        )
        self.tool_schemas = self.registry.schemas()  # one list, shared byte for byte with the review fork
        self.plugins = PluginManager.from_names(settings.plugins.enabled, self.events, self.extensions.provided)
        self.session = LiveSession(
            db=db,
            emitter=self.events,
            source=source,
            cwd=self.cwd,
            model=lambda: self.provider.model,
            build_prompt=self._build_system_prompt,
            session_id=session_id,
        )
        self.meter = ContextMeter(
            session=self.session,
            compressor=self.compressor,
            tool_schemas=self.tool_schemas,
            emitter=self.events,
            window_known=known,
            compression_enabled=comp.enabled,
            outlook=OutlookTracker(model=lambda: self.provider.model),
        )
        self.compression = CompressionOrchestrator(
            compressor=self.compressor,
            session=self.session,
            meter=self.meter,
            emitter=self.events,
            memory_hooks=self.memory_hooks,
            enabled=comp.enabled,
            in_place=comp.in_place,
        )
        self._turn_lock = asyncio.Lock()
        self._window_detector: WindowDetector | None = None
        self.cooldowns = CooldownKeeper(self.compressor, db, lambda: self.session.id) if db is not None else None
        self.moves = SessionMoves(
            session=self.session,
            meter=self.meter,
            compression=self.compression,
            memory_hooks=self.memory_hooks,
            emitter=self.events,
            busy=self._turn_lock.locked,
        )
        self.reviewer = BackgroundReviewer(
            provider=lambda: self.provider,
            registry=self.registry,
            tool_schemas=lambda: self.tool_schemas,
            settings=settings,
            context_length=lambda: self.meter.context_length,
            emitter=self.events,
            home=home.root,
            cwd=self.cwd,
            services=self._tool_services,
            db=db,
            backoff_base=backoff_base,
        )
        self.learning = TurnLearning(
            memory=self.memory_hooks,
            plugins=self.plugins,
            reviewer=self.reviewer,
            titles=None
            if not settings.sessions.auto_title
            else TitleSetter(
                complete=self._complete_with_aux,
                is_demo=lambda: (self.aux_provider or self.provider).is_demo,
                current=lambda: (self.session.id, self.session.title),
                unique=self._unique_title,
                apply=self.session.set_title,
                emitter=self.events,
            ),
            system_prompt=lambda: self.session.system_prompt,
            current_title=lambda: self.session.title,
        )
        self.steering = SteeringInbox(self.events)
        self.checkpoints = CheckpointManager(
            settings=settings.checkpoints,
            home_root=home.root,
            cwd=self.cwd,
            db=db,
            emitter=self.events,
            session_id=lambda: self.session.id,
            messages=lambda: self.session.messages,
        )
        self.goals = GoalKeeper(
            session=self.session, judge=lambda: self.aux_provider or self.provider, emitter=self.events
        )
        self.pins = Pins(session=self.session, emitter=self.events, busy=self._turn_lock.locked)
        self.display = DisplayOptions(self.events)
        self.reasoning = ReasoningEffort(self.chain, settings.model.reasoning_effort)
        self.personality = ""  # the /personality name in use ("" = none)
        self.background = BackgroundRuns(self)

    # ------------------------------------------------------------------ tools from MCP servers and plugins

    def _mcp_servers(self, settings: Settings) -> list[ServerConfig]:
        """The configured MCP servers, checked (ConfigError: one line naming the key)."""
        return parse_servers(settings.mcp_servers, source=str(self.home.config_file), env=os.environ)

    def _add_plugin_tools(self) -> None:
        """The enabled plugins' tools join; a name already taken keeps its owner (one line). Their
        slash commands join the command registry in `core.bootstrap.open_agent`."""
        for problem in self.extensions.problems:
            self.events.warn(problem)
        for tool in self.extensions.tools:
            if tool.name in self.registry:
                self.events.warn(f"{tool.source}: tool '{tool.name}' left out: the name belongs to a built-in tool")
                continue
            self.registry.register(tool)

    def call_on_close(self, callback: Callable[[], None]) -> None:
        """Run `callback` when the agent closes (e.g. to take back the slash commands its plugins added)."""
        self._on_close.append(callback)

    def start_mcp(self) -> None:
        """Start connecting the MCP servers in the background (returns at once; see `core.mcp.manager`)."""
        self.mcp.start()

    async def wait_for_mcp(self) -> None:
        """Wait until every MCP server has connected or failed once (a one-shot run does, before its turn)."""
        await self.mcp.wait_ready()

    def refresh_tools(self) -> None:
        """Send the registry's current tools (on ones only) from the next turn on; a new list, never an edit."""
        schemas = self.registry.schemas()
        if schemas != self.tool_schemas:
            self.tool_schemas = schemas
            self.meter.use_tool_schemas(schemas)

    async def reload_mcp(self) -> str:
        """/reload-mcp: read `mcp_servers` from the config again, restart every server, wait for them."""
        try:
            fresh = load_settings(self.home, env=os.environ)
            servers = self._mcp_servers(fresh)
        except ConfigError as exc:
            raise SessionError(f"{exc} — the MCP servers were left as they are") from None
        summary = await self.mcp.reload(servers)
        self.refresh_tools()
        return summary

    # ------------------------------------------------------------------ what the front-ends read

    @property
    def provider(self) -> Provider:
        """The provider answering now: the primary, or a fallback for the rest of the turn."""
        return self.chain.provider

    async def warm_up(self) -> None:
        """Get the provider ready for the first turn while the user is still typing it (the TUI calls
        this once start-up is over). A failure here is left for that turn, which reports it."""
        with contextlib.suppress(Exception):
            await self.provider.warm_up()

    @property
    def session_id(self) -> str:
        return self.session.id

    @property
    def messages(self) -> list[Message]:
        return self.session.messages

    @property
    def totals(self) -> SessionTotals:
        return self.meter.totals

    @property
    def context_window_known(self) -> bool:
        return self.meter.window_known

    def budget(self) -> ev.ContextBudget:
        return self.meter.budget()

    def watch_window(self, base_url: str, api_key: str = "") -> WindowDetector | None:
        """Learn the primary model's window from its server (core/context/window_probe.py): the last
        report at once, a fresh one in the background. Nothing to do when `model.context_length` is
        set (it wins) or the endpoint reports no windows."""
        route = self.chain.primary
        if self.settings.model.context_length > 0 or not should_ask(route.choice.provider, base_url):
            return None
        cache = WindowCache(self.home.root / CACHE_FILE_NAME)
        detector = WindowDetector(
            cache=cache, base_url=base_url, model=route.choice.model, api_key=api_key, apply=self.use_reported_window
        )
        cached = detector.cached()
        if cached is not None:
            self.use_reported_window(cached, f"last reported by the server at {base_url}", quiet=True)
        self._window_detector = detector
        detector.start()
        return detector

    def warn_unknown_window(self) -> None:
        self.events.warn(
            f"Unknown model '{self.provider.model}': assuming a {self.meter.context_length:,}-token window. "
            "Set --context-length or model.context_length to its real window.",
            once_key="unknown-window",
        )

    def use_reported_window(self, tokens: int | None, where: str, *, quiet: bool = False) -> None:
        """The primary model's window is `tokens` (its server says so; None: it did not say): every
        budget and the gauge follow."""
        route = self.chain.primary
        detector = self._window_detector
        if detector is not None and detector.model != route.choice.model:
            return  # /model switched away meanwhile: the report is about another model
        if tokens is None:
            if not route.window_known:
                self.warn_unknown_window()
            return
        changed = (route.window, route.window_known) != (tokens, True)
        route.window, route.window_known = tokens, True
        if not self.chain.on_fallback:
            self.meter.use_window(tokens, True)
            self.meter.publish()
        if changed and not quiet:
            self.events.review("info", f"Context window: {tokens:,} tokens ({where})")
        if tokens < MINIMUM_CONTEXT_LENGTH:
            self.events.warn(
                f"The model's window is {tokens:,} tokens ({where}), below the {MINIMUM_CONTEXT_LENGTH:,} "
                "tokens Hermes needs for tool work; compression will fire at "
                f"{self.compressor.threshold_tokens:,}. Give the server a larger context (e.g. Ollama's num_ctx).",
                once_key=f"small-window:{tokens}",
            )

    @property
    def permission_mode(self) -> PermissionMode:
        """What tool calls may do without asking (`core.tools.permissions`); setting it emits PermissionModeChanged."""
        return self.permissions.mode

    @permission_mode.setter
    def permission_mode(self, mode: PermissionMode) -> None:
        self.permissions.set_mode(mode)

    def _mode_changed(self, mode: PermissionMode, previous: PermissionMode) -> None:
        self.events.emit(ev.PermissionModeChanged(mode.value, previous.value, mode.label))

    @property
    def busy(self) -> bool:
        """A turn is running."""
        return self._turn_lock.locked()

    async def lineage(self) -> list[LineageNode]:
        """Every session's lineage node (the live one even before its row exists), review runs as leaves."""
        nodes = list(await self.db.lineage_tree()) if self.db is not None else []
        unsaved = self.session.unsaved_node()
        if unsaved is not None:
            nodes.append(unsaved)
        nodes.extend(review_nodes(await self.review_history(), {node.id for node in nodes}))
        return nodes

    async def review_history(self) -> list[ReviewRecord]:
        """The recorded self-review runs, oldest first ([] without a state.db)."""
        if self.db is None:
            return []
        try:
            return await load_records(self.db)
        except Exception:
            return []

    # ------------------------------------------------------------------ turns

    async def run_conversation(self, user_message: str) -> TurnResult:
        """Run one user turn to completion, interruption or failure; persist what happened.

        The message the model reads has the prompt's @-mentions attached (`core.mentions.attach`)."""
        async with self._turn_lock:
            self._restore_primary()
            self.refresh_tools()
            content = await self._attach_mentions(user_message)
            return await TurnRunner(self._turn_deps(), user_message, content=content).run()

    async def _attach_mentions(self, text: str) -> str | list[dict[str, Any]]:
        """`text` with the files and sessions it @-mentions attached; what was and was not is said."""
        from hermes_tui.core.mentions.attach import MentionContext, expand_mentions

        route = self.chain.active
        vision = not route.choice.is_demo and "strip_images" not in route.quirks
        context = MentionContext(cwd=self.cwd, home=self.home.root, db=self.db, vision=vision)
        try:
            expansion = await expand_mentions(text, context)
        except Exception as exc:  # a bug here must not lose the turn: the prompt goes as typed
            self.events.warn(f"@-mentions not attached ({type(exc).__name__}: {exc}); the prompt is sent as typed.")
            return text
        if expansion.attached:
            self.events.review("info", "Attached " + ", ".join(expansion.attached))
        for note in expansion.notes:
            self.events.warn(note)
        return expansion.content

    def _restore_primary(self) -> None:
        """A fallback lasts one turn: the next turn starts on the primary again (reference §6.0 step 1)."""
        if not self.chain.restore_primary():
            return
        route = self.chain.active
        self.meter.use_window(route.window, route.window_known)
        self.events.review("fallback", f"Back on the primary provider {route.label}")
        self.events.emit(ev.ProviderSwitched(route.choice.provider, route.choice.model, "restored"))

    async def next_turn(self, result: TurnResult) -> str | None:
        """What to send after the turn that gave `result`: the next queued message (a real user
        message comes first), else the standing goal's continuation — or None, to wait for the user.
        After an interrupted, stopped or failed turn nothing is sent (the goal pauses; the queue waits)."""
        if result.interrupted or result.failed or result.exit_reason == "stopped":
            await self.goals.after_turn(result)
            return None
        queued = self.steering.take_next()
        if queued is not None:
            return queued
        return await self.goals.after_turn(result)

    def _turn_deps(self) -> TurnDeps:
        return TurnDeps(
            session=self.session,
            chain=self.chain,
            tools=self.registry,
            tool_schemas=self.tool_schemas,
            tool_context=self._tool_context,
            compaction=self.compression,
            meter=self.meter,
            events=self.events,
            hooks=self.memory_hooks,
            settings=self.settings,
            backoff_base=self.backoff_base,
            extras=self.learning,
            steering=self.steering,
            checkpoints=self.checkpoints,
        )

    def _tool_services(self) -> dict[str, object]:
        return {"db": self.db, "agent_session_id": self.session.id, "memory": self.memory, "skills": self.skills}

    def _tool_context(self) -> ToolContext:
        return ToolContext(
            cwd=self.cwd,
            settings=self.settings.tools,
            approve=self.approver,
            todo=self.session.todo,
            session_id=self.session.id,
            services=self._tool_services(),
            home=self.home.root,
            permissions=self.permissions,
        )

    def _external_memory_provider(self) -> MemoryProvider | None:
        name = self.settings.memory.provider.strip()
        if not name:
            return None
        context = ProviderContext(home=self.home.root, settings=self.settings, db=self.db, cwd=self.cwd)
        try:
            return load_external_provider(name, context)
        except ProviderLoadError as exc:
            self.events.warn(f"{exc} — continuing with the built-in memory only")
            return None

    def _skills_listing(self) -> str:
        skills, problems = self.skills.scan()
        for problem in problems:
            self.events.review(
                "warning", f"Skipped skill {problem.path}: {problem.error}", once_key=f"skill:{problem.path}"
            )
        return available_skills_block(self.skills.root, skills)

    def _soul(self) -> str:
        try:
            return cap(read_regular_text(self.home.root / "SOUL.md", errors="replace"))
        except OSError:
            return ""

    def _build_system_prompt(self) -> str:
        return build_system_prompt(
            PromptInputs(
                cwd=self.cwd,
                model=self.provider.model,
                provider=self.provider.name,
                tool_names=tuple(self.registry.names()),
                memory_block=self.memory.snapshot_block(),
                session_started=self.session.started_at,
                soul=self._soul(),
                skills_listing=self._skills_listing() if "skill_view" in self.registry else "",
                provider_block=self.memory_hooks.system_prompt_block(),
                context_length=self.meter.context_length,
            )
        )

    async def _complete_with_aux(self, prompt: str, max_tokens: int) -> str:
        provider = self.aux_provider or self.provider
        return await provider.complete(prompt, max_tokens=max_tokens)

    async def _unique_title(self, title: str) -> str:
        return await self.db.get_next_title_in_lineage(title) if self.db is not None else title

    async def _summarize(self, provider: Provider, prompt: str, max_tokens: int) -> str:
        timeout = self.settings.auxiliary.compression.timeout or None
        return await asyncio.wait_for(provider.complete(prompt, max_tokens=max_tokens), timeout)

    async def _summarize_with_main(self, prompt: str, max_tokens: int) -> str:
        return await self._summarize(self.provider, prompt, max_tokens)

    async def _summarize_with_aux(self, prompt: str, max_tokens: int) -> str:
        assert self.aux_provider is not None
        return await self._summarize(self.aux_provider, prompt, max_tokens)

    # ------------------------------------------------------------------ session commands

    async def new_session(self, title: str | None = None) -> str:
        return await self.moves.new_session(title)

    async def resume(self, ref: str) -> str:
        said = await self.moves.resume(ref)
        await self._restore_cooldown()
        await self.pins.restore()
        return said

    async def _restore_cooldown(self) -> None:
        """A resumed session keeps the summary-failure pause it had (core/context/cooldown_store.py)."""
        if self.cooldowns is not None and await self.cooldowns.restore() > 0:
            self.events.review("compression", "Automatic compression stays paused: the summary model failed recently")

    async def continue_session(self, title: str | None = None) -> str:
        """Continue the most recent session, or the newest one titled `title` (`hermes-tui -c [title]`)."""
        said = await self.moves.continue_latest(title)
        await self._restore_cooldown()
        await self.pins.restore()
        return said

    async def branch(self, name: str | None = None) -> str:
        said = await self.moves.branch(name)
        await self.pins.carry()  # a branch keeps the pins it was copied with
        return said

    async def branch_at(self, message_index: int, *, edit: bool = False, name: str | None = None) -> BranchResult:
        """Branch from any message of `messages` (the message cursor's "branch here" / "edit and resend").

        `edit=False`: the new branch keeps the history up to and including `message_index`.
        `edit=True` (user messages only): it keeps the history before it, and `BranchResult.prefill`
        is the message's text for the prompt. The original session keeps all its messages.
        Raises SessionError (one line) for a bad index, a non-user message to edit, or a running turn.
        """
        result = await self.moves.branch_at(message_index, edit=edit, name=name)
        await self.pins.carry()
        return result

    async def pin_message(self, index: int, label: str = "") -> str:
        """Pin `messages[index]`: the next compression keeps it (and its tool-call group) verbatim.
        Idle only; a SessionError (one line) for a bad index, a summary or an unsaved message."""
        return await self.pins.pin(index, label)

    async def unpin_message(self, index: int, label: str = "") -> str:
        return await self.pins.unpin(index, label)

    def set_personality(self, name: str) -> str:
        """/personality NAME ("none" clears it): the overlay goes with every request from the next one on."""
        text = personality_text(name)
        if text is None:
            raise SessionError(f"unknown personality '{name.strip()}'")
        self.personality = name.strip().lower() if text else ""
        self.session.prompt_overlay = overlay_for(text)
        self.meter.publish()
        return self.personality

    async def set_title(self, name: str | None) -> str:
        return await self.moves.title(name)

    async def undo(self, count: int = 1) -> str:
        text = await self.moves.undo(count)
        await self.pins.carry()  # the record loses the pins of the removed messages
        return text

    async def compress(self, args: str = "") -> str:
        return await self.moves.compress(args)

    async def compression_preview(self, args: str = "") -> CompressionPreview:
        """What `/compress args` would do now — summarised/kept messages, tokens before and estimated
        after, or why it would change nothing. Calls no model and changes nothing."""
        return await compression_preview(self.session, self.compression, self.meter, args)

    async def switch_model(self, name: str) -> str:
        """/model NAME: the same provider with another model from the next turn on; budgets follow its window."""
        if self.busy:
            raise SessionError(BUSY)
        model = check_model_name(name)
        if model == self.provider.model:
            return f"Already using {self.provider.label}"
        window, known = window_for(model, self.settings.model.context_length)
        provider = switched_provider(self.provider, model)
        old = self.provider.label
        self.chain.replace_primary(provider, window, known)
        self.reasoning.apply()
        self.meter.use_window(window, known)
        if self.db is not None and self.session.row_created:
            await self.db.update_session_model(self.session.id, model)
        self.meter.publish()
        guess = "" if known else " (unknown model: window assumed)"
        self.events.review("info", f"Model switched {old} → {provider.label}, window {window:,} tokens{guess}")
        return (
            f"Model: {provider.label} — window {window:,} tokens{guess}, threshold {self.compressor.threshold_tokens:,}"
        )

    # ------------------------------------------------------------------ lifecycle

    async def wait_for_background_work(self, timeout: float = 60.0, *, background: bool = True) -> None:
        """Let a running self-review (up to `timeout`) and, with `background`, the /background turns
        finish (they end on their own: stream timeouts bound them). A one-shot CLI run waits for both."""
        await self.reviewer.wait(timeout)
        if background:
            await self.background.wait()

    async def close(self, end_reason: str = "cli_close") -> None:
        """Stop background work, end the live session (only if its row exists), release resources."""
        await self.background.stop()
        mcp_closed = asyncio.ensure_future(self.mcp.close())  # servers stop alongside the rest
        for callback in self._on_close:
            with contextlib.suppress(Exception):
                callback()
        await self.learning.close()
        await self.checkpoints.close()
        if self._window_detector is not None:
            await self._window_detector.aclose()
        if self.cooldowns is not None:
            await self.cooldowns.flush()
        if self.session.row_created:
            self.memory_hooks.on_session_end(self.session.messages)
        await self.memory_hooks.shutdown()
        await self.session.end(end_reason)
        await self.chain.aclose()
        if self.aux_provider is not None and all(self.aux_provider is not r.provider for r in self.chain.routes):
            try:
                await self.aux_provider.aclose()
            except Exception:
                pass
        with contextlib.suppress(Exception):
            await mcp_closed
