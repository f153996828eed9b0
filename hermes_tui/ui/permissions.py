"""`Permissions`: the UI's side of what tool calls may do — the approver, the mode badge and Shift+Tab.

`approve` is the approver the core calls for a risky tool call: it opens `ApprovalScreen` (the
command, its risks, and for a file change the diff it would make) and waits for the answer, which
goes back as it came — True (allow once), False (deny) or `ApprovalAnswer.SESSION` (`s`, offered
when the request names what "the rest of the session" covers). A turn cancelled while the modal
is open closes it. `cycle` is Shift+Tab in the prompt: the agent's next permission mode (ask →
accept edits → read-only → yolo); the badge follows through `PermissionModeChanged` (the
presenter). `show_mode` puts the badge up at start-up (--yes starts in yolo). The part sees the
app only through `PermissionHost`.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from hermes_tui.screens.registry import screen_class
from hermes_tui.ui.ports import PermissionHost

if TYPE_CHECKING:
    from hermes_tui.core.tools.base import ApprovalRequest
    from hermes_tui.core.tools.permissions import ApprovalAnswer


class Permissions:
    """Asks the user about risky tool calls and switches the permission mode."""

    def __init__(self, app: PermissionHost) -> None:
        self._app = app

    async def approve(self, request: ApprovalRequest) -> bool | ApprovalAnswer:
        """Ask in `ApprovalScreen`; the answer as the core takes it (True, False or SESSION)."""
        from hermes_tui.core.tools.permissions import ApprovalAnswer  # loaded with the core by now

        future: asyncio.Future[bool | ApprovalAnswer] = asyncio.get_running_loop().create_future()

        def done(result: bool | ApprovalAnswer | None) -> None:
            if not future.done():
                future.set_result(result if isinstance(result, ApprovalAnswer) else bool(result))

        screen = screen_class("ApprovalScreen")(
            request.tool,
            request.command,
            request.cwd,
            tuple(request.reasons),
            change=request.change,
            session_scope=request.session_scope,
        )
        self._app.push_screen(screen, callback=done)
        try:
            return await future
        except asyncio.CancelledError:
            if screen.is_attached:
                screen.dismiss(False)
            raise

    def cycle(self) -> None:
        """Shift+Tab: the next permission mode (the badge follows through PermissionModeChanged)."""
        agent = self._app.agent
        if agent is not None:
            agent.permission_mode = agent.permission_mode.next()

    def show_mode(self) -> None:
        """The status bar's badge for the mode the agent is in now."""
        agent = self._app.agent
        if agent is not None:
            mode = agent.permission_mode
            self._app.main.status_bar.set_permission_mode(mode.value, mode.label)
