"""`QueueLine`: one line under the prompt showing what waits for the running agent.

Queued messages (sent one per turn when the running turn ends), /steer guidance that waits for
the next tool call, and a pending /stop. Hidden when nothing waits. The texts are the user's own,
shown as data (no markup) and cut to fit; `/queue` lists them in full and edits them.
"""

from __future__ import annotations

from textual.widgets import Static

from hermes_tui.widgets.formatting import cut

ITEM_WIDTH = 40


def queue_summary(queued: tuple[str, ...], steers: tuple[str, ...], stop_requested: bool) -> str:
    """The line's text, or "" when nothing waits."""
    parts: list[str] = []
    if stop_requested:
        parts.append("⏹ stopping after the current tool call")
    if steers:
        parts.append(f"⇢ steer waiting: {cut(steers[-1], ITEM_WIDTH)}")
    if queued:
        first = cut(queued[0], ITEM_WIDTH)
        more = f" (+{len(queued) - 1} more)" if len(queued) > 1 else ""
        parts.append(f"⏵ queued {len(queued)}: {first}{more} — /queue to edit")
    return " · ".join(parts)


class QueueLine(Static):
    """What waits for the agent (hidden when nothing does)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", markup=False, id=id)
        self.display = False
        self.text = ""

    def show(self, queued: tuple[str, ...], steers: tuple[str, ...], stop_requested: bool) -> None:
        self.text = queue_summary(queued, steers, stop_requested)
        self.update(self.text)
        self.display = bool(self.text)
