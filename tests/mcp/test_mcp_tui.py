"""The TUI with MCP servers (Pilot): nothing waits for a slow server, and its process ends with the app."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from hermes_tui.core.mcp.client import State
from tests.app.test_app import make_app, submit, wait_turn
from tests.mcp.helpers import pid_alive, stdio, with_servers
from tests.tui.helpers import wait_until
from tests.waits import HANG_GUARD_S


async def test_the_first_frame_and_a_turn_do_not_wait_for_a_slow_server(tmp_path: Path) -> None:
    pid_file = tmp_path / "slow.pid"
    slow = stdio("basic", env={"MCP_TEST_PID_FILE": str(pid_file), "MCP_TEST_START_DELAY": "120"}, connect_timeout=300)
    app = make_app(tmp_path, settings=with_servers({"slow": slow, "quick": stdio("basic")}))
    async with app.run_test(size=(120, 40)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)  # the screen is up and the agent answers
        await wait_until(
            pilot, lambda: pid_file.exists() and pid_file.read_text() != "", 60, "the slow server to start"
        )
        await wait_until(
            pilot, lambda: "MCP server 'quick' connected: 2 tools" in _review(app), 60, "the quick server's line"
        )
        assert app.agent.mcp.connection("slow").state is State.STARTING  # still coming up
        assert app.focused is app.main.prompt
        await submit(pilot, app, "list files")  # the demo model: a turn runs while the slow server connects
        await wait_turn(pilot, app, 30)
        assert "Found" in app.main.conversation.items[-1].text
        await submit(pilot, app, "/tools")
        await wait_until(
            pilot,
            lambda: any("mcp:slow (stdio, connecting)" in item.text for item in app.main.conversation.items),
            10,
            "the /tools listing",
        )
        assert app.agent.mcp.connection("slow").state is State.STARTING
        pid = int(pid_file.read_text())
        assert pid_alive(pid)
    deadline = time.monotonic() + 20
    while pid_alive(pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert not pid_alive(pid), "the slow server's process ended with the app"


def _review(app) -> str:
    return "\n".join(entry.text for entry in app.main.review_log.entries)
