"""`TurnControl`: the one owner of the turn worker, the command worker, the queue and the busy rule.

A turn runs in a Textual worker of the exclusive group "turn", turn after turn: when one ends,
`Agent.next_turn` gives the next queued message, or the standing goal's continuation. A slash
command — and any other work that moves the session (resuming a search hit, branching from the
tree or from a message, an agreed /compress) — runs in the exclusive group "command"
(`run_as_command`, the one place such a worker starts). Whether a turn or a command runs is read
from those groups' workers (`turn_running`, `command_running`), never kept by hand.

The busy rule: while a turn or a command runs, the commands the registry flags `while_busy`
(/steer, /queue, /stop, /status …) run at once in their own workers, beside it; other commands are
refused with the one `BUSY` notice (the command goes back into the prompt). Plain text typed while
busy follows `busy_input_mode` (Hermes's display.busy_input_mode; Alt+Enter swaps queue and steer):
queue — it joins the queue (shown, editable and removable in the queue line: `take_queued`) and
goes out as its own turn when the running turn ends; steer — the model reads it after its next
tool call; interrupt — the turn stops (its partial answer kept) and the text goes out next. The
prompt is emptied either way, so the next text typed starts afresh. A command's result
(`show_result`) opens its screen (through the navigation part's `open_intent`), asks before
/compress rotates (`CompressPreviewScreen`), shows its text, fills the prompt or sends a message —
which waits in the queue while something runs, and goes out once nothing does (`send_queued`).
`interrupt` is Ctrl-C's part: the running turn (else command) is cancelled; the partial answer stays.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

from textual.worker import Worker, WorkerState

from hermes_tui.screens.registry import screen_class
from hermes_tui.ui.ports import MainView, TurnHost
from hermes_tui.ui.sessions_tree import SessionsTree
from hermes_tui.ui.warm_up import answer_modules_ready

if TYPE_CHECKING:
    from hermes_tui.core.commands import CommandResult, Intent
    from hermes_tui.core.turn.result import TurnResult

BUSY = (
    "Busy — a turn or a command is running: Ctrl-C interrupts it, /queue TEXT sends TEXT once it ends,"
    " /steer TEXT guides the turn now."
)
"""The one notice for anything refused while a turn or a command runs."""
TURN = "turn"
COMMAND = "command"
BESIDE = "busy-command"  # the while-busy commands, run beside a turn or a command
_ACTIVE = (WorkerState.PENDING, WorkerState.RUNNING)
BUSY_INPUT_MODES = ("queue", "steer", "interrupt")
_OTHER_MODE = {"queue": "steer", "steer": "queue", "interrupt": "queue"}  # what Alt+Enter does instead


class TurnControl:
    """Starts turns and commands, says when something runs, and refuses what must wait."""

    def __init__(
        self,
        app: TurnHost,
        tree: SessionsTree,
        *,
        open_intent: Callable[[Intent], None],
        quit: Callable[[], Awaitable[None]],
        busy_input_mode: str = "queue",
        answer_modules_ready: Callable[[], Awaitable[None]] = answer_modules_ready,
    ) -> None:
        """`open_intent` opens the screen a command asked for; `quit` ends the app (/quit);
        `busy_input_mode` (queue | steer | interrupt) is what Enter does with text while a turn runs;
        a turn first awaits `answer_modules_ready` (the Markdown stack, imported off the loop)."""
        self._app = app
        self._answer_modules_ready = answer_modules_ready
        self._tree = tree
        self._open_intent = open_intent
        self._quit = quit
        self.busy_input_mode = busy_input_mode if busy_input_mode in BUSY_INPUT_MODES else "queue"
        self._send_after_interrupt = False  # an interrupt-mode message waits at the queue's front
        self.turn_runs = 0  # turn workers started so far (tests and benchmarks wait for the next one)

    @property
    def _main(self) -> MainView:
        return self._app.main

    # ------------------------------------------------------------------ what runs

    def _running(self, group: str) -> list[Worker[Any]]:
        return [worker for worker in self._app.workers if worker.group == group and worker.state in _ACTIVE]

    @property
    def turn_running(self) -> bool:
        return bool(self._running(TURN))

    @property
    def command_running(self) -> bool:
        return bool(self._running(COMMAND))

    @property
    def busy(self) -> bool:
        return self.turn_running or self.command_running

    def refuse_if_busy(self) -> bool:
        """True (after the `BUSY` notice) while a turn or a command runs."""
        if self.busy:
            self._app.notify(BUSY, severity="warning")
            return True
        return False

    # ------------------------------------------------------------------ starting work

    async def submit(self, text: str, *, other_mode: bool = False) -> None:
        """What the prompt sent: a turn, a command, a while-busy command beside what runs, text queued
        (or steering, or an interrupt: `busy_input_mode`, swapped by `other_mode`) or a refusal."""
        text = text.strip()
        if not text:
            return
        await self._app.ready.wait()  # not just the agent: with --resume it exists before its session does
        from hermes_tui.core.commands import is_command, runs_while_busy

        if self.busy and runs_while_busy(text):  # /steer, /queue, /stop, /status …: at once, beside the turn
            self._app.run_worker(self._run_command(text, beside=True), group=BESIDE)
            return
        if self.busy and not is_command(text):
            mode = _OTHER_MODE[self.busy_input_mode] if other_mode else self.busy_input_mode
            self._typed_while_busy(text, mode)
            return
        if self.refuse_if_busy():
            self._main.prompt.set_text(text)  # the text waits in the prompt
            return
        if is_command(text):
            self.run_command(text)
        else:
            self.start_turn(text)

    def _typed_while_busy(self, text: str, mode: str) -> None:
        """Text sent while something runs: queued, steering the turn, or interrupting it (the module's docstring)."""
        agent = self._app.agent
        assert agent is not None
        if mode == "steer" and self.turn_running:
            agent.steering.steer(text)
            self._app.notify("⇢ Steering: the model reads it after its next tool call.")
        elif mode == "interrupt" and self.turn_running:
            agent.steering.enqueue(text, first=True)
            self._send_after_interrupt = True
            self.interrupt()
            self._app.notify("Interrupted — your message goes out next.")
        else:
            position = agent.steering.enqueue(text)
            self._app.notify(f"Queued #{position}: sent when the turn ends (Tab to the queue line to edit it).")

    def take_queued(self, position: int, *, edit: bool) -> None:
        """The queue line's Enter (`edit`: the message back into the prompt) or Delete (removed)."""
        agent = self._app.agent
        if agent is None:
            return
        if edit and self._main.prompt.value.strip():  # never overwrite a draft
            self._app.notify("The prompt has text: send or clear it first, then edit the queued message.")
            return
        try:
            text = agent.steering.take(position)
        except IndexError:  # it went out meanwhile
            self._app.notify("That message is no longer in the queue.", severity="warning")
            return
        if edit:
            self._main.prompt.set_text(text)
            self._main.prompt.focus()
            self._app.notify("Taken out of the queue: edit it and press Enter.")
        else:
            self._app.notify("Removed from the queue.")

    def run_as_command(self, work: Coroutine[Any, Any, Any]) -> Worker[Any]:
        """Run `work` as the command (the exclusive "command" group): the app is busy until it ends."""
        return self._app.run_worker(work, group=COMMAND, exclusive=True)

    def run_command(self, text: str) -> None:
        """Run the slash command `text` as the command."""
        self.run_as_command(self._run_command(text))

    def start_turn(self, text: str) -> None:
        assert self._app.agent is not None  # input waits for `ready`
        self._main.conversation.add_user(text)
        self._main.status_bar.state = "thinking"
        self.turn_runs += 1
        self._app.run_worker(self._run_turns(text), group=TURN, exclusive=True)

    async def _run_turns(self, text: str) -> TurnResult | None:
        """Run `text`, then whatever the agent says comes next (queued messages, the goal's continuation)."""
        agent = self._app.agent
        assert agent is not None
        await self._answer_modules_ready()  # the answer's row then imports nothing on the loop
        result = None
        next_text: str | None = text
        while next_text is not None:
            result = await agent.run_conversation(next_text)
            if result.interrupted and self._send_after_interrupt:  # interrupt mode: the text goes out next
                self._send_after_interrupt = False
                self._app.call_later(self.send_queued)  # once this worker has ended
                return result
            next_text = await agent.next_turn(result)
            if next_text is not None:
                self._main.conversation.add_user(next_text)
                self._main.status_bar.state = "thinking"
        return result

    async def _run_command(self, text: str, *, beside: bool = False) -> None:
        """Run a command; `beside` = it runs next to a running turn or command (a while-busy command)."""
        from hermes_tui.core.commands import run_command

        assert self._app.agent is not None  # input waits for `ready`
        await self.show_result(await run_command(self._app.agent, text, interactive=True), beside=beside)

    # ------------------------------------------------------------------ a command's result

    async def show_result(self, result: CommandResult, *, beside: bool = False) -> None:
        agent = self._app.agent
        assert agent is not None
        convo = self._main.conversation
        if result.quit:
            self._app.call_later(self._quit)  # exit from the app's own loop, not from this worker
            return
        if result.clear_conversation:
            await convo.clear()
        if result.intent is not None:
            self._open_intent(result.intent)
        elif result.confirm is not None:
            self._app.push_screen(
                screen_class("CompressPreviewScreen")(result.confirm.preview), callback=self._confirmed(result)
            )
        elif result.output:
            convo.add_notice("warning" if result.error else "info", result.output)
        if result.prefill is not None:
            self._main.prompt.set_text(result.prefill)
        if result.send:
            if beside or self.turn_running:  # it ran beside a turn or a command: its message waits its turn
                agent.steering.enqueue(result.send)
            else:
                self._app.call_later(self.start_turn, result.send)  # after this command's worker ends
        elif not self.turn_running:
            self._app.call_later(self.send_queued)
        await self._tree.refresh()

    def _confirmed(self, result: CommandResult) -> Callable[[bool | None], None]:
        confirmation = result.confirm
        assert confirmation is not None

        def done(agreed: bool | None) -> None:
            if not agreed:
                self._main.conversation.add_notice("info", "Compression cancelled — nothing changed.")
                return

            async def apply() -> None:
                await self.show_result(await confirmation.apply())

            self.run_as_command(apply())

        return done

    def send_queued(self) -> None:
        """Messages queued while a command ran (or before an interrupt) go out once nothing runs."""
        agent = self._app.agent
        if agent is None or self.busy:
            return
        queued = agent.steering.take_next()
        if queued is not None:
            self.start_turn(queued)

    # ------------------------------------------------------------------ stopping

    def interrupt(self) -> bool:
        """Cancel the running turn, else the running command; False when nothing runs."""
        for group in (TURN, COMMAND):
            running = self._running(group)
            if running:
                for worker in running:
                    worker.cancel()
                self._main.status_bar.state = "interrupting"
                return True
        return False

    async def end_turn(self, timeout: float) -> None:
        """Interrupt a running turn and give it up to `timeout` seconds to save its partial answer."""
        for worker in self._running(TURN):
            worker.cancel()
            try:
                await asyncio.wait_for(worker.wait(), timeout)
            except Exception:
                pass
