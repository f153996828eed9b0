"""`TreeActions`: what the Sessions tree's keys do to its highlighted session.

The tree's keys post `LineageTree.ActionRequested(action, session_id)`; the app hands it to `act`:
- rename (r): `RenameScreen`; the title is checked as /title checks it (the store's sanitising and
  uniqueness: a taken title is refused with a one-line notice). The live session is renamed through
  the Agent (its status bar and future rows follow); any other in state.db directly.
- branch (b): the same as `/resume` of that session then `/branch` (the Agent's session moves).
- export (e): `/save`'s export (`core.commands.export_session`) to hermes-<id>.json in the cwd.
- copy id (c): the id to the clipboard (`App.copy_to_clipboard`) and a notice.
- archive (a): `ArchiveScreen` asks first, then sets `sessions.archived` (Hermes's own flag:
  archived sessions leave its listings); the tree hides archived sessions until Shift+A shows
  them, and a on an archived session unarchives it at once.
- delete (d, Del): `DeleteScreen` says what goes and what happens to the children, then
  `SessionDB.delete_session`: its messages go, its children stay and become top-level sessions
  (their parent link is cleared, as pruning does). The session you are in is refused.
- filter (/): the filter line above the tree (the Sessions pane opens it itself).
- replay (p): its last turn sent again on a route the user picks, stored as a side session
  (`hermes_tui.ui.replay_flow`).
Each action updates the tree in place (`LineageSync`: one node read, or a removal) and the status bar.
Branching runs as the command (`TurnControl`), refused while busy; the rest runs in "tree-action" workers.
"""

from __future__ import annotations

from collections.abc import Callable

from hermes_tui.screens.registry import screen_class
from hermes_tui.store.models import EDGE_COMPRESSION, EDGE_REVIEW, LineageNode
from hermes_tui.text_safety import visible
from hermes_tui.ui.ports import ActionHost
from hermes_tui.ui.sessions_tree import SessionsTree
from hermes_tui.ui.turn_control import TurnControl
from hermes_tui.widgets.formatting import cut, short_session_id
from hermes_tui.widgets.lineage_tree import EDGE_GLYPHS

CHILDREN_LISTED = 5  # children named in the delete dialog; the rest are counted


def session_name(node: LineageNode) -> str:
    """How dialogs and notices name a session: its title (or preview) cut short, made visible-safe."""
    return cut(visible(node.title or node.preview or "(untitled)"), 40)


def delete_lines(node: LineageNode, children: list[LineageNode]) -> list[str]:
    """What the delete dialog says: what is deleted and what happens to the children."""
    noun = "message" if node.message_count == 1 else "messages"
    lines = [
        f"Delete “{session_name(node)}” ({node.id})?",
        f"Its {node.message_count} {noun} are removed from state.db. This cannot be undone.",
    ]
    if not children:
        lines.append("It has no child sessions.")
        return lines
    count = len(children)
    lines.append(
        f"Its {count} child session{'s' if count != 1 else ''} stay{'s' if count == 1 else ''}"
        " and become top-level sessions (their link to this one is cleared):"
    )
    for child in children[:CHILDREN_LISTED]:
        glyph = EDGE_GLYPHS.get(child.edge, "↳")
        lines.append(f"  {glyph} {session_name(child)} ({short_session_id(child.id)})")
    if count > CHILDREN_LISTED:
        lines.append(f"  … and {count - CHILDREN_LISTED} more")
    if any(child.edge == EDGE_COMPRESSION for child in children):
        lines.append("A continuation keeps its summary; the messages it summarised go with this session.")
    return lines


def archive_lines(node: LineageNode) -> list[str]:
    """What the archive dialog says: where the session goes, that nothing is lost, how to bring it back."""
    return [
        f"Archive “{session_name(node)}” ({node.id})?",
        "It leaves the Sessions tree and Hermes's session lists; nothing is deleted.",
        "Shift+A shows archived sessions; a on one of them unarchives it.",
    ]


class TreeActions:
    """Carries out the Sessions tree's actions on one session."""

    def __init__(
        self,
        app: ActionHost,
        turns: TurnControl,
        tree: SessionsTree,
        *,
        show_session: Callable[[str], None],
        replay: Callable[[str], None],
    ) -> None:
        """`show_session(id)` names the live session in the status bar afresh; `replay(id)` asks for
        the route to replay that session's last turn on (`ReplayFlow.open`)."""
        self._app = app
        self._turns = turns
        self._tree = tree
        self._show_session = show_session
        self._replay = replay

    def act(self, action: str, session_id: str | None) -> None:
        """`action` ("rename", "branch", "export", "copy_id", "archive", "delete") on `session_id`."""
        if self._app.agent is None or self._app.db is None:
            self._app.notify("The session database is not open yet.", severity="warning")
            return
        node = self._app.main.lineage.session(session_id or "")
        if node is None:
            self._app.notify("Move the cursor onto a session first.", severity="warning")
            return
        if node.edge == EDGE_REVIEW:
            self._app.notify("That row is a self-review run, not a session: Enter shows what it changed.")
            return
        handlers = {
            "rename": self._ask_rename,
            "branch": self._branch_from_tree,
            "export": self._export,
            "copy_id": self._copy_id,
            "archive": self._toggle_archive,
            "delete": self._ask_delete,
            "replay": lambda chosen: self._replay(chosen.id),
        }
        handler = handlers.get(action)
        if handler is not None:
            handler(node)

    # ------------------------------------------------------------------ rename

    def _ask_rename(self, node: LineageNode) -> None:

        def renamed(text: str | None) -> None:
            if text is not None:
                self._app.run_worker(self._rename(node, text), group="tree-action")

        heading = f"New title for {node.id} (unique, up to 100 characters):"
        self._app.push_screen(screen_class("RenameScreen")(heading, visible(node.title or "")), callback=renamed)

    async def _rename(self, node: LineageNode, text: str) -> None:
        from hermes_tui.core.session.live import SessionError
        from hermes_tui.core.session.moves import clean_title

        agent, db = self._app.agent, self._app.db
        assert agent is not None and db is not None
        try:
            title = clean_title(text)
            if title is None:
                raise SessionError("a title needs at least one visible character")
            if node.id == agent.session_id:
                await agent.set_title(title)  # the live session: the agent keeps its title (TitleChanged)
            else:
                await db.set_session_title(node.id, title)
        except (SessionError, ValueError) as exc:
            self._app.notify(f"Not renamed: {exc}", severity="error")
            return
        self._tree.sync.retitle(node.id, title)
        self._after_action(node.id)
        self._app.notify(f"Renamed {short_session_id(node.id)} to “{title}”.")

    # ------------------------------------------------------------------ branch

    def _branch_from_tree(self, node: LineageNode) -> None:
        if self._turns.refuse_if_busy():
            return
        self._turns.run_as_command(self._branch(node))

    async def _branch(self, node: LineageNode) -> None:
        from hermes_tui.core.commands import run_command

        agent = self._app.agent
        assert agent is not None
        if node.id != agent.session_id:
            resumed = await run_command(agent, f"/resume {node.id}", interactive=True)
            await self._turns.show_result(resumed)
            if resumed.error:
                return
        await self._turns.show_result(await run_command(agent, "/branch", interactive=True))

    # ------------------------------------------------------------------ export, copy id

    def _export(self, node: LineageNode) -> None:
        self._app.run_worker(self._export_to_file(node), group="tree-action")

    async def _export_to_file(self, node: LineageNode) -> None:
        from hermes_tui.core.commands import export_session
        from hermes_tui.core.session.live import SessionError

        assert self._app.agent is not None
        try:
            result = await export_session(self._app.agent, node.id)
        except SessionError as exc:
            self._app.notify(f"Not exported: {exc}", severity="error")
            return
        self._app.notify(result.output)

    def _copy_id(self, node: LineageNode) -> None:
        self._app.copy_to_clipboard(node.id)
        self._app.notify(f"Copied session id {node.id}")

    # ------------------------------------------------------------------ archive

    def _toggle_archive(self, node: LineageNode) -> None:
        """Unarchive at once; archive only once the user says yes (a stray "a" must not hide a session)."""

        if node.archived:
            self._app.run_worker(self._set_archived(node, False), group="tree-action")
            return

        def confirmed(agreed: bool | None) -> None:
            if agreed:
                self._app.run_worker(self._set_archived(node, True), group="tree-action")

        self._app.push_screen(screen_class("ArchiveScreen")(archive_lines(node)), callback=confirmed)

    async def _set_archived(self, node: LineageNode, archived: bool) -> None:
        assert self._app.db is not None
        if not await self._app.db.set_session_archived(node.id, archived):
            self._app.notify("Not saved yet — a session can be archived once it has a message.", severity="warning")
            return
        await self._tree.refresh(node.id)
        self._after_action(node.id)
        if archived:
            hint = "" if self._app.main.lineage.show_archived else " and hidden here (Shift+A shows archived sessions)"
            self._app.notify(f"Archived “{session_name(node)}”: left out of session lists{hint}.")
        else:
            self._app.notify(f"Unarchived “{session_name(node)}”.")

    # ------------------------------------------------------------------ delete

    def _ask_delete(self, node: LineageNode) -> None:

        assert self._app.agent is not None
        if node.id == self._app.agent.session_id:
            self._app.notify(
                "That is the session you are in: it cannot be deleted. Switch to another session first.",
                severity="error",
            )
            return
        children = [child for child in self._app.main.lineage.children_of(node.id) if child.edge != EDGE_REVIEW]

        def confirmed(agreed: bool | None) -> None:
            if agreed:
                self._app.run_worker(self._delete(node, len(children)), group="tree-action")

        self._app.push_screen(screen_class("DeleteScreen")(delete_lines(node, children)), callback=confirmed)

    async def _delete(self, node: LineageNode, children: int) -> None:
        agent, db = self._app.agent, self._app.db
        assert agent is not None and db is not None
        if node.id == agent.session_id:  # it became the live session while the dialog was open
            self._app.notify("That is the session you are in now: nothing was deleted.", severity="error")
            return
        if not await db.delete_session(node.id):
            self._app.notify("That session was already gone.", severity="warning")
        self._tree.sync.remove(node.id)
        self._after_action(agent.session_id)
        moved = f"; its {children} child session(s) are now top-level" if children else ""
        self._app.notify(f"Deleted “{session_name(node)}” ({node.id}){moved}.")

    # ------------------------------------------------------------------ after each action

    def _after_action(self, session_id: str) -> None:
        """The status bar names the live session afresh; the preview reads the highlighted one again."""
        if self._app.agent is not None:
            self._show_session(self._app.agent.session_id)
        self._app.main.tree_preview.refresh_preview()
