"""HermesApp: the composition root — start-up, shutdown, signals, GC pacing, keys and looks.

The app builds its parts (`hermes_tui.ui`) and hands each the app typed as the one small Protocol
it needs (`hermes_tui.ui.ports`): `TurnControl` (the turn and command workers, the queue, the busy
rule), `EventPresenter` (core events -> widgets), `SessionsTree` (the tree's reads, the ordered
background lane), `Navigation`, `TreeActions`, `MessageActions`, `ReplayFlow` (replay a turn on
another route), `Permissions` (the approver,
the mode badge, Shift+Tab) and `RewindFlow` (F6 / Esc Esc). Its own Textual handlers and
actions only forward to them. Core events arrive through the Agent's sink as `CoreEvent` messages.

The first frame paints before anything heavy happens: the database opens in a startup worker after
mount; the provider SDK is imported (and its client built) once the user first types, in a worker of
its own, so a session opened to be read never holds it (~22 MB). While start-up runs the app paces
full garbage collections (`GcPacer`), draws at up to 240 frames a second and gives the interpreter
back to the loop within 1 ms (see docs/PERFORMANCE.md for why each).

Ctrl-C ladder: text in the input -> clear it; a turn running -> interrupt it (the partial answer
stays, marked interrupted, and is saved); idle -> a second Ctrl-C within 2 s quits. Ctrl-Q quits.
SIGINT, SIGTERM and SIGHUP stop the app the same way: the turn is interrupted and saved, the session
ends with the signal's reason, and the app exits 130 / 143 / 129 (`hermes_tui.stop_signals`). A
terminal that goes away (SIGHUP, a failed write) cannot keep the process alive: `terminal_watch`.
The `[keymap]` table is applied (bad entries skipped, said once) and the chosen theme remembered.
"""

from __future__ import annotations

import asyncio
import functools
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import App
from textual.binding import BindingType
from textual.driver import Driver
from textual.message import Message
from textual.notifications import Notify
from textual.widgets import Input

from hermes_tui import stop_signals, terminal_watch
from hermes_tui.config import Home, ProviderChoice, Settings
from hermes_tui.gc_pacer import GcPacer
from hermes_tui.heap_trim import trim_heap
from hermes_tui.input_arrivals import InputArrivals
from hermes_tui.keymap import APP_BINDINGS
from hermes_tui.keymap_config import keymap_problems, usable_keymap
from hermes_tui.screens.main import STYLES_PATH, MainScreen
from hermes_tui.ui import parts
from hermes_tui.ui.event_inbox import CoreEvent, EventInbox
from hermes_tui.ui.permissions import Permissions
from hermes_tui.ui.sessions_tree import SessionsTree
from hermes_tui.ui.turn_control import TurnControl
from hermes_tui.ui.warm_up import WarmUp, import_core
from hermes_tui.ui_state import save_theme, saved_theme
from hermes_tui.widgets.lineage_tree import LineageTree
from hermes_tui.widgets.message_cursor import MessageActionRequested
from hermes_tui.widgets.prompt_input import PromptInput
from hermes_tui.widgets.queue_line import QueueLine
from hermes_tui.widgets.review_log import ReviewLog
from hermes_tui.widgets.textual_workarounds import quicker_frames, release_removed_widget_lines

if TYPE_CHECKING:
    from rich.console import RenderableType
    from textual.screen import Screen
    from textual.theme import Theme

    from hermes_tui.core import events as ev
    from hermes_tui.core.agent import Agent
    from hermes_tui.store.db import SessionDB

QUIT_WINDOW_S = 2.0
GC_TICK_S = 0.25
LOOP_SWITCH_INTERVAL_S = 0.001
"""How long a worker thread (the store's, `off_loop`'s, the SDK import) may keep the interpreter
once the event loop wants it back: CPython's default 5 ms let resuming a 20,000-message session
hold the loop 15-18 ms in stretches (`python -m bench.responsiveness_bench loop`); 1 ms, 5-8 ms."""
ECHO_SETTLE_S = 0.002  # after a key is drawn, before a due collection runs (see _collect_after_echo)


class HermesApp(App[int]):
    CSS_PATH = STYLES_PATH  # absolute, so subclasses defined anywhere find it
    TITLE = "hermes-tui"
    BINDINGS: ClassVar[list[BindingType]] = APP_BINDINGS  # F1 (help) is MainScreen's

    def __init__(
        self,
        *,
        home: Home,
        settings: Settings,
        choice: ProviderChoice,
        resume: str | None = None,
        continue_title: str | None = None,
        cwd: Path | None = None,
    ) -> None:
        """`resume` opens a session by reference; `continue_title` ("" = the most recent) continues one."""
        self._terminal_watch = terminal_watch.TerminalWatch()  # before App.__init__ asks get_driver_class
        super().__init__()
        self.home = home
        self.settings = settings
        self.choice = choice
        self.resume_ref = resume
        self.continue_title = continue_title
        self.cwd = cwd
        self.agent: Agent | None = None
        self.db: SessionDB | None = None
        self.startup_error: str | None = None
        self._last_ctrl_c = 0.0
        self._agent_closed = False
        self._stopping_for_signal = False
        self._stop_signals = stop_signals.StopSignals(self._on_stop_signal)
        self.ready = asyncio.Event()
        self.gc_pacer = GcPacer(release=release_removed_widget_lines, trim=self._hand_memory_back)
        self.input_arrivals = InputArrivals(self.gc_pacer.note_input)  # counted before the loop sees them
        self.inbox = EventInbox(self.post_message)  # core events in; streamed deltas batched
        self._keys_handled = 0  # of them, keys (the frame after a text change echoes them: gc_pacer.note_echo)
        self._inputs_handled = 0  # keys and mouse events this app's queue has handed over (on_event)
        self._echo_due: tuple[int, int | None] | None = None  # (keys handled, inputs if a collection is due)
        self._saved_switch_interval: float | None = None
        self.warm_up = WarmUp(
            choice,
            agent=lambda: self.agent,
            run=lambda work: self.run_worker(work, group="warm-up"),
            after=self.gc_pacer.freeze_more,  # the SDK's modules join what no paced collection walks
        )
        self.applied_keymap: dict[str, str] = {}  # the [keymap] entries in use (the help screen shows them)
        quicker_frames()  # a keystroke's frame follows a long one by 4-8 ms, not 17-33
        # The parts, each seeing this app through its Protocol. The one link back: a command's result
        # opens its screen through the navigation part, which itself starts work through TurnControl.
        # The parts the first frame never uses (the class attributes below) are built, and their
        # modules imported, the first time they are read (`hermes_tui.ui.parts`).
        tree = self.sessions_tree = SessionsTree(self)
        self.turns = TurnControl(
            self,
            tree,
            open_intent=lambda i: self.navigation.open_intent(i),
            quit=self.action_quit,
            busy_input_mode=settings.display.busy_input_mode,
        )
        self.permissions = Permissions(self)

    presenter = functools.cached_property(parts.build_presenter)
    navigation = functools.cached_property(parts.build_navigation)
    replay_flow = functools.cached_property(parts.build_replay_flow)
    tree_actions = functools.cached_property(parts.build_tree_actions)
    message_actions = functools.cached_property(parts.build_message_actions)
    rewind_flow = functools.cached_property(parts.build_rewind_flow)

    # ------------------------------------------------------------------ start-up

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver, made safe for a terminal that goes away (`terminal_watch`)."""
        return terminal_watch.guarded_driver(super().get_driver_class(), self._terminal_watch)

    def get_default_screen(self) -> MainScreen:
        return MainScreen(provider_label=f"{self.choice.provider}:{self.choice.model}", is_demo=self.choice.is_demo)

    @property
    def main(self) -> MainScreen:
        screen = self.screen_stack[0] if self.screen_stack else self.screen
        assert isinstance(screen, MainScreen)
        return screen

    def on_mount(self) -> None:
        self.gc_pacer.hold()  # no automatic full collection in the middle of start-up
        if self._driver is not None:
            self.input_arrivals.watch(self._driver)  # keys counted in the driver's thread (gc_pacer)
        self._saved_switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(LOOP_SWITCH_INTERVAL_S)  # worker threads hand the interpreter back sooner
        self._stop_signals.install()
        if not self.is_headless:  # a real terminal (never under Pilot: the watchdog ends the process)
            self._terminal_watch.install(on_gone=self._on_terminal_gone)
        self._apply_keymap(self.settings.keymap)
        self._restore_theme(self.home.root)
        if self.choice.is_demo:
            self.main.review_log.add_entry("info", f"Demo model — {self.choice.reason}")
        self.call_after_refresh(self._start)

    def _start(self) -> None:
        self.run_worker(self._start_agent(), group="startup", exclusive=True)

    async def _start_agent(self) -> None:
        await import_core()
        from hermes_tui.config import ConfigError
        from hermes_tui.core.agent import AgentError
        from hermes_tui.core.bootstrap import open_agent
        from hermes_tui.core.session.live import SessionError
        from hermes_tui.store.errors import StoreError

        try:
            agent, db = await open_agent(
                home=self.home,
                settings=self.settings,
                choice=self.choice,
                sink=self._sink,
                approver=self.permissions.approve,
                source="tui",
                cwd=self.cwd,
                build_extra_indexes=True,
            )
        except (StoreError, AgentError, ConfigError) as exc:
            self.startup_error = str(exc)
            self.exit(2)
            return
        self.agent, self.db = agent, db
        try:
            if self.resume_ref:
                await agent.resume(self.resume_ref)
            elif self.continue_title is not None:
                await agent.continue_session(self.continue_title or None)
        except SessionError as exc:  # --resume / -c naming no session (or several): one line on stderr, exit 2
            self.startup_error = str(exc)
            self.exit(2)
            return
        self.presenter.show_session(agent.session_id)
        await self.presenter.show_goal_of_session()
        self.main.gauge.budget = agent.budget()
        self.permissions.show_mode()
        await self.presenter.load_review_history()
        await self.sessions_tree.reload()
        self.sessions_tree.wire_preview()
        self.presenter.lineage_history.read(with_sizes=True)
        self.ready.set()
        await self.main.conversation.history_loaded()
        self.gc_pacer.start()  # what start-up left alive is frozen
        self.set_interval(GC_TICK_S, self.gc_pacer.tick)
        self.warm_up.start_up_done(typed_already=bool(self.main.prompt.value))

    def _hand_memory_back(self) -> bool:
        """The pacer's trim (at a quiet tick): the store's page caches, then the heap's free pages.
        Not while a turn runs (False: still due): malloc_trim holds the allocator's lock a while."""
        if self.turns.turn_running:
            return False

        async def release() -> None:
            if self.db is not None:
                await self.db.release_caches()
            await asyncio.to_thread(trim_heap)  # a few ms of the C library's, without the GIL, off the loop

        self.run_worker(release(), group="trim", exclusive=True)
        return True

    # ------------------------------------------------------------------ core events

    def _sink(self, event: ev.Event) -> None:
        self.inbox.put(event)

    async def on_core_event(self, message: CoreEvent) -> None:
        await self.presenter.receive(self.inbox.take(message))

    # ------------------------------------------------------------------ what the panes ask for

    async def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        await self.turns.submit(message.text, other_mode=message.other_mode)

    def on_queue_line_edit_requested(self, message: QueueLine.EditRequested) -> None:
        self.turns.take_queued(message.position, edit=True)

    def on_queue_line_drop_requested(self, message: QueueLine.DropRequested) -> None:
        self.turns.take_queued(message.position, edit=False)

    async def on_lineage_tree_session_chosen(self, message: LineageTree.SessionChosen) -> None:
        await self.navigation.session_chosen(message.session_id)

    def on_lineage_tree_action_requested(self, message: LineageTree.ActionRequested) -> None:
        message.stop()
        self.tree_actions.act(message.action, message.session_id)

    def on_message_action_requested(self, message: MessageActionRequested) -> None:
        message.stop()
        self.message_actions.act(message.action, message.item)

    def on_review_log_detail_requested(self, message: ReviewLog.DetailRequested) -> None:
        self.navigation.open_review_detail(message.entry)

    def action_open_search(self, query: str = "") -> None:
        self.navigation.open_search(query)

    async def action_compare_sessions(self) -> None:
        await self.navigation.compare_sessions()

    async def action_inspect_compression(self) -> None:
        await self.navigation.inspect_compression()

    def action_open_context(self) -> None:
        """F7, Enter or a click on the gauge: what fills the context."""
        self.navigation.open_context()

    def action_open_learning(self) -> None:
        self.navigation.open_learning()

    def open_session(self, session_id: str) -> None:
        """The palette's session jump."""
        self.navigation.open_session(session_id)

    def action_cycle_permission_mode(self) -> None:
        """Shift+Tab in the prompt: the next permission mode."""
        self.permissions.cycle()

    def on_main_screen_rewind_requested(self, message: MainScreen.RewindRequested) -> None:
        """F6 / Esc Esc: the rewind picker — but Esc Esc while a turn runs interrupts it, as Ctrl-C does."""
        if message.by_escape and self.turns.interrupt():
            return
        self.rewind_flow.open(by_escape=message.by_escape)

    # ------------------------------------------------------------------ notices

    def on_notify(self, message: Notify) -> None:
        """One toast at a time: a new notice replaces the one on show (Textual's own would stack).
        Runs just before Textual's handler adds the new one, on the app's thread, in arrival order."""
        self.clear_notifications()

    # ------------------------------------------------------------------ keys and looks

    def _apply_keymap(self, keymap: dict[str, str]) -> None:
        """Use the `[keymap]` table (the CLI refused a bad one; here bad entries are skipped, said once)."""
        problems = keymap_problems(keymap)
        self.applied_keymap = usable_keymap(keymap)
        self.set_keymap(self.applied_keymap)
        if problems:
            self.notify(problems[0], severity="warning")

    def _restore_theme(self, home_root: Path) -> None:
        """The theme chosen last time (if Textual still has it); every later choice is saved."""
        theme = saved_theme(home_root)
        if theme and theme in self.available_themes:
            self.theme = theme
        self.theme_changed_signal.subscribe(self, lambda chosen: self._remember_theme(home_root, chosen))

    def _remember_theme(self, home_root: Path, theme: Theme) -> None:
        error = save_theme(home_root, theme.name)
        if error:
            self.notify(error, severity="warning")

    # ------------------------------------------------------------------ actions

    async def action_ctrl_c(self) -> None:
        prompt = self.main.prompt
        if prompt.value:
            prompt.value = ""
            self._last_ctrl_c = 0.0
            return
        if self.turns.interrupt():
            self._last_ctrl_c = 0.0
            return
        now = time.monotonic()
        if now - self._last_ctrl_c <= QUIT_WINDOW_S:
            await self.action_quit()
            return
        self._last_ctrl_c = now
        self.notify("Press Ctrl-C again within 2 s to quit (Ctrl-Q quits at once).", timeout=QUIT_WINDOW_S)

    async def action_quit(self) -> None:
        await self.shutdown_agent()
        self.exit(0)

    def _on_stop_signal(self, signum: int) -> None:
        """SIGINT/SIGTERM/SIGHUP: stop like Ctrl-C then quit — the partial answer is saved, the session ended."""
        self._terminal_watch.arm(signum)  # the process ends by the deadline, whatever the driver does
        if not self._stopping_for_signal:  # the first one; later signals wait for it
            self._stopping_for_signal = True
            self.call_later(self._stop_for_signal, signum)

    def _on_terminal_gone(self) -> None:
        """A write found the terminal gone (no SIGHUP came): stop as SIGHUP does."""
        self._on_stop_signal(signal.SIGHUP)

    async def _stop_for_signal(self, signum: int) -> None:
        await self.shutdown_agent(stop_signals.end_reason(signum))
        self._terminal_watch.saved()  # with the terminal gone, the watchdog ends the process now
        self.exit(return_code=stop_signals.exit_code(signum))

    async def shutdown_agent(self, end_reason: str = "tui_shutdown") -> None:
        if self._agent_closed:
            return
        self._agent_closed = True
        if parts.is_built(self, "presenter"):  # (built only once an event or the start-up used it)
            self.presenter.close()
        self.sessions_tree.close()
        await self.turns.end_turn(timeout=5)
        if self.agent is not None:
            await self.agent.close(end_reason)
        if self.db is not None:
            await self.db.close()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.MouseEvent)):  # (counted by post_message on arrival)
            self._inputs_handled += 1
            self._keys_handled += isinstance(event, events.Key)
            if isinstance(event, events.Key) and self.screen_stack:
                self.main.conversation.note_keypress()  # a history still mounting lets this key's frame go first
        await super().on_event(event)

    def post_message(self, message: Message) -> bool:
        # input is counted as it arrives, not when the app's queue reaches it (if the driver's
        # thread has not counted it already)
        self.input_arrivals.note_posted(message)
        return super().post_message(message)

    def on_input_changed(self, event: Input.Changed) -> None:
        """A key changed a text field (the prompt, mostly): the next frame written shows it. Then the
        pacer hears that the key is drawn and, if a full collection is due, runs it — unless another
        key is waiting by then (see `_display` and `_collect_after_echo`)."""
        self.warm_up.typed()  # the first key after start-up warms the SDK up
        self._echo_due = (self._keys_handled, self._inputs_handled if self.gc_pacer.due else None)

    on_text_area_changed = on_input_changed  # the prompt is a TextArea

    def _display(self, screen: Screen[object], renderable: RenderableType | None) -> None:
        # The frame that shows a typed key is the first one written after the key was handled.
        # Callbacks "after refresh" are no such signal: a screen update runs them whether it drew
        # anything or not, and 1-3 collections a stream ran in front of a key not yet drawn.
        super()._display(screen, renderable)
        echo = self._echo_due
        if echo is None or renderable is None or self._batch_count:  # nothing was written: still due
            return
        self._echo_due = None
        keys, handled = echo
        self.gc_pacer.note_echo(keys)
        if handled is not None:
            self._collect_after_echo(handled)

    def _collect_after_echo(self, handled: int) -> None:
        # A moment later: a key the driver's thread sent while the frame was drawn is counted by
        # then (input_arrivals), and the collection waits for that key's echo instead of holding it up.
        asyncio.get_running_loop().call_later(ECHO_SETTLE_S, self.gc_pacer.after_echo, handled)

    async def on_unmount(self) -> None:
        self.gc_pacer.stop()
        if self._saved_switch_interval is not None:
            sys.setswitchinterval(self._saved_switch_interval)
            self._saved_switch_interval = None
        await self.shutdown_agent()
        self._terminal_watch.remove()
        self._stop_signals.remove()
