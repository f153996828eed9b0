"""`LearningScreen`: what the agent has learned — memory entries with usage bars, and the skills.

Two lists of entries (the agent's notes in MEMORY.md and the user profile in USER.md), each under a
usage bar, and the list of skills with their descriptions (pinned ones marked). Keys: e edits the
highlighted entry (an input opens with its text; Enter saves, Esc cancels), x removes it, v views the
highlighted skill's SKILL.md, d deletes the highlighted skill after a confirmation, Esc closes.
Every change goes through the same code as the agent's tools — the memory store's lock, re-read,
drift check and screening, the skill manager's pinning rule — so a refusal is shown, not bypassed.
File contents are model- or user-written text: shown without markup.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, ListItem, ListView, Static

from hermes_tui.core.memory.store import MemoryStore, join_entries
from hermes_tui.core.skills.catalog import Skill
from hermes_tui.core.skills.manage import SkillManager
from hermes_tui.store.regular_files import read_regular_text
from hermes_tui.text_safety import visible

BAR_WIDTH = 24


def usage_bar(used: int, limit: int, width: int = BAR_WIDTH) -> str:
    filled = min(width, round(width * used / limit)) if limit > 0 else 0
    return "█" * filled + "░" * (width - filled)


class EntryItem(ListItem):
    def __init__(self, target: str, entry: str) -> None:
        super().__init__(Label(Text(visible(entry)), classes="learning-entry"))
        self.target = target
        self.entry = entry


class SkillItem(ListItem):
    def __init__(self, skill: Skill, pinned: bool) -> None:
        where = f"{skill.category}/" if skill.category else ""
        label = Text(visible(f"{where}{skill.name}"), style="bold")
        if pinned:
            label.append(" 📌")
        label.append(f" — {skill.description}")
        super().__init__(Label(label, classes="learning-entry"))
        self.skill = skill


class TextScreen(ModalScreen[None]):
    """A read-only view of one text (a SKILL.md)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close")]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="text-dialog") as dialog:
            dialog.border_title = self.title_text
            with VerticalScroll():
                yield Static(Text(visible(self.text)), id="text-body")

    def action_close(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n", "answer(False)", "No"),
        Binding("escape", "answer(False)", "No", show=False),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog"):
            yield Label(Text(visible(self.question)))
            with Horizontal(id="confirm-buttons"):
                yield Button("Yes (y)", variant="error", id="confirm-yes")
                yield Button("No (n)", id="confirm-no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class LearningScreen(ModalScreen[None]):
    """Memory & Skills."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="learning-close"),
        Binding("e", "edit", "Edit entry", id="learning-edit"),
        Binding("x", "remove", "Remove entry", id="learning-remove"),
        Binding("v", "view_skill", "View skill", id="learning-view"),
        Binding("d", "delete_skill", "Delete skill", id="learning-delete"),
    ]

    def __init__(self, memory: MemoryStore, skills: SkillManager) -> None:
        super().__init__()
        self.memory = memory
        self.skills = skills
        self._editing: EntryItem | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="learning-dialog") as dialog:
            dialog.border_title = "Memory & Skills"
            yield Label(id="learning-memory-usage")
            yield ListView(id="learning-memory")
            yield Label(id="learning-user-usage")
            yield ListView(id="learning-user")
            yield Label("Skills", id="learning-skills-title")
            yield ListView(id="learning-skills")
            yield Input(id="learning-input", placeholder="Edit the entry; Enter saves, Esc cancels")
            yield Static(id="learning-status")

    async def on_mount(self) -> None:
        self.query_one("#learning-input", Input).display = False
        await self.reload()
        self.query_one("#learning-memory", ListView).focus()

    # ------------------------------------------------------------------ data

    def _usage_line(self, target: str, entries: list[str]) -> Text:
        file = self.memory.file(target)
        used = len(join_entries(entries))
        name = "Agent notes (MEMORY.md)" if target == "memory" else "User profile (USER.md)"
        off = "" if self.memory.enabled(target) else "  (turned off)"
        return Text(f"{name}  {usage_bar(used, file.char_limit)}  {file.usage(entries)}{off}")

    async def reload(self) -> None:
        for target in ("memory", "user"):
            entries = await asyncio.to_thread(self.memory.file(target).entries)
            self.query_one(f"#learning-{target}-usage", Label).update(self._usage_line(target, entries))
            view = self.query_one(f"#learning-{target}", ListView)
            await view.clear()
            await view.extend(EntryItem(target, entry) for entry in entries)
        skills, problems = await asyncio.to_thread(self.skills.scan)
        usage = await asyncio.to_thread(self.skills.usage.read)
        view = self.query_one("#learning-skills", ListView)
        await view.clear()
        await view.extend(
            SkillItem(s, isinstance(usage.get(s.dir_name), dict) and usage[s.dir_name].get("pinned") is True)
            for s in skills
        )
        title = f"Skills ({len(skills)})" + (f" — {len(problems)} malformed, skipped" if problems else "")
        self.query_one("#learning-skills-title", Label).update(Text(title))

    def _status(self, text: str, *, error: bool = False) -> None:
        status = self.query_one("#learning-status", Static)
        status.update(Text(visible(text), style="bold red" if error else ""))

    def _report(self, response: dict[str, Any]) -> None:
        if response.get("success"):
            self._status(str(response.get("message", "Done.")))
        else:
            self._status(str(response.get("error", "Failed.")), error=True)

    def _highlighted(self, kind: type) -> Any:
        focused = self.focused
        if isinstance(focused, ListView) and isinstance(focused.highlighted_child, kind):
            return focused.highlighted_child
        return None

    # ------------------------------------------------------------------ memory entries

    def action_edit(self) -> None:
        item = self._highlighted(EntryItem)
        if item is None:
            self._status("Highlight a memory entry first.", error=True)
            return
        self._editing = item
        box = self.query_one("#learning-input", Input)
        box.value = item.entry
        box.display = True
        box.focus()

    @on(Input.Submitted, "#learning-input")
    async def save_edit(self, event: Input.Submitted) -> None:
        event.stop()
        item, self._editing = self._editing, None
        box = self.query_one("#learning-input", Input)
        box.display = False
        if item is None:
            return
        response = await asyncio.to_thread(self.memory.apply, "replace", item.target, event.value, item.entry)
        self._report(response)
        await self.reload()

    async def action_remove(self) -> None:
        item = self._highlighted(EntryItem)
        if item is None:
            self._status("Highlight a memory entry first.", error=True)
            return
        response = await asyncio.to_thread(self.memory.apply, "remove", item.target, "", item.entry)
        self._report(response)
        await self.reload()

    # ------------------------------------------------------------------ skills

    def action_view_skill(self) -> None:
        item = self._highlighted(SkillItem)
        if item is None:
            self._status("Highlight a skill first.", error=True)
            return
        try:
            text = read_regular_text(item.skill.skill_md)
        except (OSError, UnicodeDecodeError) as exc:
            self._status(f"Cannot read {item.skill.skill_md.name}: {exc}", error=True)
            return
        self.app.push_screen(TextScreen(f"{item.skill.name} — SKILL.md", text))

    def action_delete_skill(self) -> None:
        item = self._highlighted(SkillItem)
        if item is None:
            self._status("Highlight a skill first.", error=True)
            return

        async def answered(yes: bool | None) -> None:
            if not yes:
                self._status("Nothing deleted.")
                return
            response = await asyncio.to_thread(self.skills.apply, {"action": "delete", "name": item.skill.dir_name})
            self._report(response)
            await self.reload()

        self.app.push_screen(ConfirmScreen(f"Delete the skill '{item.skill.name}' and all its files?"), answered)

    def action_close(self) -> None:
        if self._editing is not None:
            self._editing = None
            self.query_one("#learning-input", Input).display = False
            self.query_one("#learning-memory", ListView).focus()
            return
        self.dismiss(None)
