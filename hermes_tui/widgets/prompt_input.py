"""`PromptInput`: the prompt — a multi-line editor that sends on Enter.

Enter posts `PromptInput.Submitted(text)` for non-empty text and empties the box; Ctrl+J (every
terminal), Shift+Enter and Alt+Enter (where the terminal reports them apart from Enter) insert a
new line. A paste keeps its lines (control and escape characters dropped, line ends made "\\n");
one of more than 200 lines or 20 KB shows as a token, "[pasted 1,234 lines]", that Backspace
removes whole, and is sent whole (`prompt_paste`). The box grows with its text to 10 lines, then
scrolls (styles.tcss). ↑ on the first line and ↓ on the last walk the prompts sent before — kept
per home in `.hermes_history`, Hermes's own file (`core.prompt_history`) — elsewhere they move the
cursor; the unfinished draft comes back after the newest. Ctrl+E, or /edit, opens $VISUAL /
$EDITOR on the draft with the app suspended (`external_editor`). Typing "/" at the start offers
the slash commands of the core's registry, "@" the working folder's files and folders and
"@session:" the session titles (`prompt_completion`; the list under the conversation is
`completion_menu`): the best one is shown after the cursor, ↑/↓ choose while the list is open,
Tab or → accept, Esc closes it. Ctrl+C with a selection copies it, with text empties the box,
and in an empty box passes on to the app (interrupt/quit). `set_text()` puts text in the box
(e.g. after /undo), `submit_text()` sends text as if typed (the command palette uses it), `value`
is the text shown. Shift+Tab here switches the agent to the next permission mode (the app's
`cycle_permission_mode`); everywhere else Shift+Tab keeps moving the focus back, as Tab moves it forward.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, overload

from textual import events
from textual.actions import SkipAction
from textual.app import SuspendNotSupported
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.suggester import Suggester
from textual.widgets import TextArea
from textual.widgets.text_area import EditHistory

from hermes_tui.core.mentions.tokens import TypedMention, mention_at
from hermes_tui.external_editor import NO_EDITOR, edit_in_editor, editor_command
from hermes_tui.slash_commands import completion_candidates
from hermes_tui.text_safety import without_controls
from hermes_tui.widgets.prompt_completion import Candidate, mention_candidates, slash_candidates
from hermes_tui.widgets.prompt_paste import PastedBlocks, is_huge
from hermes_tui.widgets.prompt_sources import PromptSources

if TYPE_CHECKING:
    from hermes_tui.core.mentions.files import FileIndex

PLACEHOLDER = "Ask anything — /help for commands, @ for files, Ctrl+J for a new line"
MODE_CYCLE_NOTE = (
    "Shift+Tab in the prompt: the next permission mode, ask → accept edits → read-only → yolo "
    "(the status bar shows it); elsewhere Shift+Tab moves the focus back."
)
MAX_HISTORY = 500
EDIT_COMMAND = "/edit"
NEWLINE_KEYS = ("ctrl+j", "shift+enter", "alt+enter")
PASSED_KEYS = frozenset({"f6", "f7"})
"""Keys TextArea binds that the prompt leaves to the app, as the one-line prompt did (a [keymap] may use them)."""
NEWLINE_NOTE = (
    "Ctrl+J inserts a new line in every terminal; Shift+Enter and Alt+Enter do where the terminal "
    "reports them apart from Enter (the kitty keyboard protocol: kitty, WezTerm, foot, Ghostty, iTerm2) "
    "— elsewhere they send, as Enter does. While a turn runs, Alt+Enter sends in the other busy-input "
    "mode (steer instead of queue, or the reverse)."
)


class SlashCommandSuggester(Suggester):
    """Suggests the first slash command (registry order, names before aliases) that completes "/…"."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=False)

    @property
    def candidates(self) -> tuple[str, ...]:
        """Every completion this suggester can offer, in the order it prefers them."""
        return completion_candidates()

    async def get_suggestion(self, value: str) -> str | None:
        if not value.startswith("/") or any(char.isspace() for char in value):
            return None
        return next((candidate for candidate in self.candidates if candidate.startswith(value)), None)


def _clean(text: str) -> tuple[str, int]:
    """`text` as the box takes it: line ends made "\\n", tabs kept, other control characters dropped."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    pieces = [without_controls(piece) for piece in text.split("\t")]
    return "\t".join(piece for piece, _ in pieces), sum(count for _, count in pieces)


def _edit_arguments(text: str) -> str | None:
    """The draft a typed "/edit [TEXT]" gives the editor, or None when the text is something else."""
    stripped = text.strip()
    if stripped == EDIT_COMMAND:
        return ""
    if stripped.startswith(EDIT_COMMAND) and stripped[len(EDIT_COMMAND)].isspace():
        return stripped[len(EDIT_COMMAND) :].strip()
    return None


class SentPrompts(Sequence[str]):
    """The prompts sent, oldest first, read-only — and, since TextArea keeps its undo stack under the
    name `history` too, every other attribute (record, checkpoint, clear …) is that undo stack's."""

    def __init__(self, prompts: list[str], edits: EditHistory) -> None:
        self._prompts = tuple(prompts)
        self._edits = edits

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return self._prompts[index]

    def __len__(self) -> int:
        return len(self._prompts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self._prompts) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._edits, name)


class PromptInput(TextArea):
    """The prompt box."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Send the prompt", show=False),
        Binding(",".join(NEWLINE_KEYS), "newline", "New line", show=False, tooltip=NEWLINE_NOTE),
        Binding("up", "history_previous", "Previous prompt (from the first line)", show=False),
        Binding("down", "history_next", "Next prompt (from the last line)", show=False),
        Binding("tab", "complete", "Accept the highlighted completion", show=False),
        Binding("right", "cursor_right", "Accept the suggested completion", show=False),
        Binding("escape", "close_completions", "Close the completion list", show=False),
        Binding("ctrl+e", "open_editor", "Edit the prompt in $EDITOR (also /edit)", show=False, id="prompt-editor"),
        Binding("ctrl+c", "copy_or_clear", "Clear the prompt (copies a selection)", show=False),
        Binding(",".join(sorted(PASSED_KEYS)), "pass_key", "", show=False),  # TextArea's select line / select all
        Binding(
            "shift+tab",
            "app.cycle_permission_mode",
            "Next permission mode",
            show=False,
            id="permission-mode",
            tooltip=MODE_CYCLE_NOTE,
        ),
    ]

    completions: reactive[tuple[Candidate, ...]] = reactive((), init=False)
    completion_index: reactive[int] = reactive(0, init=False)

    class Submitted(Message):
        """The user submitted a prompt (never empty); `other_mode`: by Alt+Enter (steer ⇄ queue while busy)."""

        def __init__(self, prompt_input: PromptInput, text: str, *, other_mode: bool = False) -> None:
            super().__init__()
            self.prompt_input = prompt_input
            self.text = text
            self.other_mode = other_mode

        @property
        def control(self) -> PromptInput:
            return self.prompt_input

    def __init__(
        self,
        *,
        placeholder: str = PLACEHOLDER,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        self._history: list[str] = []  # set first: TextArea's start-up reads `history`
        self._history_index: int | None = None  # None = editing the draft
        self._draft = ""
        self._pastes = PastedBlocks()
        self._suggester = SlashCommandSuggester()
        self._files: FileIndex | None = None  # made on the first "@" (its import stays off the first frame)
        self._target: tuple[str, int, int, int, str] | None = None  # (kind, row, start, end, query) offered for
        self._loaded = ""  # the text last put here by the program: no completion is offered for it
        self._history_lock = asyncio.Lock()
        self._history_warned = False
        super().__init__(
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            highlight_cursor_line=False,
            placeholder=placeholder,
            compact=False,
            name=name,
            id=id,
            classes=classes,
        )

    # ------------------------------------------------------------------ public contract

    @property
    def history(self) -> SentPrompts:
        """Prompts submitted so far (those the home's history file held first), oldest first."""
        return SentPrompts(self._history, self._edits)

    @history.setter
    def history(self, edits: EditHistory) -> None:
        """TextArea keeps its undo stack under this name; it is set once, as TextArea starts."""
        self._edits = edits

    @property
    def value(self) -> str:
        """The text the box shows (a huge paste as its token)."""
        return self.text

    @value.setter
    def value(self, text: str) -> None:
        self._load(text)
        self._pastes.keep_only(text)
        self._history_index = None

    @property
    def draft(self) -> str:
        """What Enter would send: the text with every paste token replaced by what was pasted."""
        return self._pastes.expand(self.text)

    @property
    def slash_suggester(self) -> SlashCommandSuggester:
        """The suggester behind the slash-command completion."""
        return self._suggester

    @property
    def sources(self) -> PromptSources:
        return PromptSources(self.app)

    def set_text(self, text: str) -> None:
        """Put `text` in the prompt with the cursor at its end (e.g. the text /undo removed).

        Control and escape characters are dropped (a stored message may hold them), so the box
        shows exactly what Enter would send; a huge text shows as a paste token."""
        text, _ = _clean(text)
        self._history_index = None
        self._pastes.keep_only("")
        self._load(self._collapsed(text))

    async def action_submit_other(self) -> None:
        """Alt+Enter: submit, asking for the other busy-input mode (steer instead of queue, or the reverse)."""
        await self.action_submit(other_mode=True)

    def submit_text(self, text: str, *, other_mode: bool = False) -> None:
        """Send `text` as if it had been typed and Enter pressed: it joins the history and
        `Submitted` is posted. What is in the box stays there. "/edit" opens the editor on it."""
        text = text.strip()
        if not text:
            return
        if _edit_arguments(text) is not None:
            self._edit(self.draft)
            return
        self._remember(text)
        self.post_message(self.Submitted(self, text, other_mode=other_mode))

    # ------------------------------------------------------------------ start-up: the history file

    def on_mount(self) -> None:
        self.run_worker(self._read_history_file(), group="prompt-history")

    async def _read_history_file(self) -> None:
        path = self.sources.history_file
        if path is None:
            return
        from hermes_tui.core.prompt_history import load_history

        loaded = await asyncio.to_thread(load_history, path, MAX_HISTORY)
        if loaded.problem:
            self.notify(loaded.problem, severity="warning")
        self._history = [*loaded.entries, *self._history][-MAX_HISTORY:]

    def _remember(self, text: str) -> None:
        if not self._history or self._history[-1] != text:
            self._history.append(text)
            del self._history[:-MAX_HISTORY]
        path = self.sources.history_file
        if path is not None:
            self.run_worker(self._append_to_file(path, text), group="prompt-history")

    async def _append_to_file(self, path, text: str) -> None:  # type: ignore[no-untyped-def]
        from hermes_tui.core.prompt_history import append_history

        async with self._history_lock:  # entries reach the file in the order they were sent
            problem = await asyncio.to_thread(append_history, path, text)
        if problem and not self._history_warned:
            self._history_warned = True
            self.notify(problem, severity="warning")

    # ------------------------------------------------------------------ keys

    async def _on_key(self, event: events.Key) -> None:
        """Enter sends (TextArea's own handler, called next along the class chain, would insert a new
        line); the new-line keys insert one here, in the order the keys came: as a binding the key
        would travel up to the app first, and letters typed right after it would land before it."""
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            await self.action_submit()
        elif event.key == "alt+enter" and self.sources.turn_running:
            event.stop()  # while a turn runs Alt+Enter sends in the other busy-input mode (steer ⇄ queue)
            event.prevent_default()
            await self.action_submit(other_mode=True)
        elif event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.action_newline()

    async def action_submit(self, other_mode: bool = False) -> None:
        text = self.draft
        if not text.strip():
            return
        arguments = _edit_arguments(text)
        self._history_index = None
        self._draft = ""
        self._pastes.clear()
        self._load("")
        if arguments is not None:
            self._edit(arguments)
            return
        self.submit_text(text, other_mode=other_mode)

    def action_newline(self) -> None:
        self._replace_via_keyboard("\n", *self.selection)

    def action_history_previous(self) -> None:
        if self.completions:
            self.completion_index = (self.completion_index - 1) % len(self.completions)
            return
        if not self.selection.is_empty or not self.navigator.is_first_wrapped_line(self.cursor_location):
            self.action_cursor_up()
            return
        if not self._history:
            return
        if self._history_index is None:
            self._draft = self.text
            self._history_index = len(self._history) - 1
        elif self._history_index > 0:
            self._history_index -= 1
        else:
            return
        self._show(self._history[self._history_index], at_start=True)

    def action_history_next(self) -> None:
        if self.completions:
            self.completion_index = (self.completion_index + 1) % len(self.completions)
            return
        if not self.selection.is_empty or not self.navigator.is_last_wrapped_line(self.cursor_location):
            self.action_cursor_down()
            return
        if self._history_index is None:
            return
        if self._history_index < len(self._history) - 1:
            self._history_index += 1
            self._show(self._history[self._history_index], at_start=False)
        else:
            self._history_index = None
            self._show(self._draft, at_start=False)

    def action_pass_key(self) -> None:
        raise SkipAction()

    def action_copy_or_clear(self) -> None:
        """Ctrl-C: copy a selection, else empty the box, else let the app handle it."""
        if self.selected_text:
            self.app.copy_to_clipboard(self.selected_text)
        elif self.text:
            self.value = ""
        else:
            raise SkipAction()

    def action_delete_left(self) -> None:
        """Backspace; a paste token before the cursor goes whole."""
        if self._delete_token(before=True):
            return
        super().action_delete_left()

    def action_delete_right(self) -> None:
        """Delete; a paste token after the cursor goes whole."""
        if self._delete_token(before=False):
            return
        super().action_delete_right()

    def _delete_token(self, *, before: bool) -> bool:
        if self.read_only or not self.selection.is_empty or not self._pastes:
            return False
        row, column = self.cursor_location
        span = self._pastes.span_at(self.document[row], column, before=before)
        if span is None:
            return False
        self._delete_via_keyboard((row, span[0]), (row, span[1]))
        return True

    # ------------------------------------------------------------------ paste

    async def _on_paste(self, event: events.Paste) -> None:
        """Insert the pasted text with its lines; a huge one as a token."""
        event.prevent_default()  # instead of TextArea's own paste, which keeps control characters
        event.stop()
        if self.read_only:
            return
        text, dropped = _clean(event.text)
        if dropped:
            self.notify(f"Removed {dropped} control character(s) from the pasted text.", severity="warning")
        if not text:
            return
        if result := self._replace_via_keyboard(self._collapsed(text), *self.selection):
            self.move_cursor(result.end_location)
        self.focus()

    def _collapsed(self, text: str) -> str:
        if not is_huge(text):
            return text
        self._pastes.keep_only(self.text)  # a token deleted since is free again
        return self._pastes.token_for(text)

    # ------------------------------------------------------------------ the editor

    def action_open_editor(self) -> None:
        self._edit(self.draft)

    def _edit(self, draft: str) -> None:
        """Let the user edit `draft` in their editor; the result replaces what is in the box."""
        command = editor_command()
        if command is None:
            self.notify(NO_EDITOR, severity="warning")
            return
        try:
            with self.app.suspend():
                outcome = edit_in_editor(draft, command)
        except SuspendNotSupported:  # a headless driver (tests, the web): nothing to hand over
            outcome = edit_in_editor(draft, command)
        if outcome.text is None:
            self.notify(outcome.problem, severity="warning")
            if not self.text:
                self.set_text(draft)
            return
        self.set_text(outcome.text)
        self.focus()

    # ------------------------------------------------------------------ completion

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if event.text_area is self:
            self._refresh_completions()

    def on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        if event.text_area is self:
            self._refresh_completions()

    def _typed_target(self) -> tuple[str, int, int, int, str] | None:
        """What the cursor is at the end of and could be completed: (kind, row, start, end, query)."""
        if not self.selection.is_empty or self.text == self._loaded:
            return None
        row, column = self.cursor_location
        line = self.document[row]
        if row == 0 and self.document.line_count == 1 and line.startswith("/") and column == len(line):
            if not any(char.isspace() for char in line):
                return ("slash", 0, 0, column, line)
            return None
        mention = mention_at(line, column)
        if mention is None:
            return None
        return (mention.kind, row, mention.start, mention.end, mention.query)

    def _refresh_completions(self) -> None:
        target = self._typed_target()
        if target == self._target:
            return
        self._target = target
        if target is None:
            self._offer(None, [])
        elif target[0] == "slash":
            self._offer(target, slash_candidates(target[4]))
        else:
            self.run_worker(self._find_mentions(target), group="prompt-completion", exclusive=True)

    async def _find_mentions(self, target: tuple[str, int, int, int, str]) -> None:
        if self._files is None:
            from hermes_tui.core.mentions.files import FileIndex

            self._files = FileIndex()
        kind, _row, start, end, query = target
        sources = self.sources
        found = await mention_candidates(TypedMention(start, end, kind, query), sources.cwd, sources.db, self._files)
        self._offer(target, found)

    def _offer(self, target: tuple[str, int, int, int, str] | None, candidates: list[Candidate]) -> None:
        if target != self._target:  # the text moved on while they were looked up
            return
        self.completions = tuple(candidates)
        self.completion_index = 0
        self._suggest()

    def watch_completion_index(self) -> None:
        self._suggest()

    def _suggest(self) -> None:
        """Show the rest of the highlighted completion after the cursor."""
        target, candidates = self._target, self.completions
        if target is None or not candidates:
            self.suggestion = ""
            return
        typed = self.document[target[1]][target[2] : target[3]]
        chosen = candidates[self.completion_index].insert
        self.suggestion = chosen[len(typed) :] if chosen.lower().startswith(typed.lower()) else ""

    def update_suggestion(self) -> None:
        """TextArea's hook after each edit: the completion follows in `_offer` instead."""

    def accept_completion(self, index: int | None = None) -> bool:
        """Put completion `index` (the highlighted one) in place of what was typed; False when none is open."""
        target, candidates = self._target, self.completions
        if target is None or not candidates:
            return False
        candidate = candidates[self.completion_index if index is None else index]
        _kind, row, start, end, _query = target
        ending = " " if candidate.final and target[0] != "slash" else ""
        self.completions = ()
        self.suggestion = ""
        result = self.replace(candidate.insert + ending, (row, start), (row, end), maintain_selection_offset=False)
        self.move_cursor(result.end_location)
        return True

    def action_complete(self) -> None:
        if not self.accept_completion():
            raise SkipAction()

    def action_cursor_right(self, select: bool = False) -> None:
        if not select and self.suggestion and self.accept_completion():
            return
        super().action_cursor_right(select)

    def action_close_completions(self) -> None:
        if not self.completions:
            raise SkipAction()
        self.completions = ()
        self.suggestion = ""

    # ------------------------------------------------------------------ helpers

    def _load(self, text: str) -> None:
        """Replace the whole text (no completion is offered for it) with the cursor at its end."""
        self._loaded = text
        self.completions = ()
        self._target = None
        self.load_text(text)
        self.move_cursor(self.document.end)

    def _show(self, text: str, *, at_start: bool) -> None:
        """A history entry in the box: the cursor on its first line walking back, on its last walking on,
        so the next ↑ (↓) goes on through the history."""
        self._load(self._collapsed(text))
        if at_start:
            self.move_cursor((0, len(self.document[0])))
