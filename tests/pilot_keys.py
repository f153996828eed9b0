"""`Pilot.press` that returns once each key has been handled, on a loaded machine too.

Textual's `Pilot.press` posts a key, waits until the process looks idle (its CPU time stops growing,
a guess that a starved process on a busy machine passes at once), then waits for the messages
queued at that moment. A key handled in steps — the app's bindings, then the focused widget, a focus
change applied a message later — can still be in flight when it returns, and the next key goes to
the wrong widget or the test looks too early. `press_and_settle` presses one key at a time and,
after each, waits until the app and its screen have no message left queued (bounded: a blinking
cursor's timer may always have one). tests/conftest.py puts it in place of `Pilot.press`.
"""

from __future__ import annotations

from textual.pilot import Pilot

from tests.waits import HANG_GUARD_S

ORIGINAL_PRESS = Pilot.press
MAX_ROUNDS = 20


async def settle(pilot: Pilot) -> None:
    """Wait until the app and every node of its screen have handled what was queued for them."""
    for _ in range(MAX_ROUNDS):
        if not await pilot._wait_for_screen(timeout=HANG_GUARD_S):  # the app raised, or has no screen
            return
        app = pilot.app
        try:
            nodes = [app, *app.screen.walk_children(with_self=True)]
        except Exception:  # the app is closing
            return
        if all(node._message_queue.empty() for node in nodes):
            return


async def press_and_settle(self: Pilot, *keys: str) -> None:
    """Press `keys` one after another, each handled before the next is sent."""
    for key in keys:
        await ORIGINAL_PRESS(self, key)
        await settle(self)
