"""End to end in a real terminal: a multi-line paste (tmux's bracketed paste) reaches the model with its lines.

The installed `hermes-tui` runs in tmux against the loopback fake LLM server; `tmux load-buffer`
+ `paste-buffer -p` paste as a terminal does (inside the bracketed-paste markers the app asks for),
Ctrl+J adds a line by hand, Enter sends. Like the other tmux tests, a missing tmux fails loudly.
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from pathlib import Path

from tests.e2e.test_tmux import TMUX, TmuxSession
from tests.fake_llm import FakeLLMServer, Reply

PASTED = 'Traceback (most recent call last):\n  File "gadget.py", line 3\nValueError: the gadget jammed'


def test_a_bracketed_paste_and_ctrl_j_send_every_line(tmp_path: Path) -> None:
    assert TMUX is not None, "tmux is required for the end-to-end test"
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home"
    rc_file = tmp_path / "exit-code"
    executable = Path(sys.executable).with_name("hermes-tui")
    with FakeLLMServer() as srv:
        srv.enqueue(Reply(text="The gadget jammed at line 3."))
        flags = f"--home {home} --provider openai --model gpt-4o-mini --base-url {srv.base_url_openai}"
        command = f"sh -c '{executable} {flags}; echo $? > {rc_file}'"
        session = TmuxSession(f"hermes-paste-{uuid.uuid4().hex[:8]}", command, project, {"HERMES_TUI_DEMO_DELAY": "0"})
        try:
            session.wait_for(lambda s: "Review log" in s and "threshold" in s, what="the first frame")
            buffer = f"paste-{uuid.uuid4().hex[:8]}"
            subprocess.run([TMUX, "load-buffer", "-b", buffer, "-"], input=PASTED, text=True, check=True)
            subprocess.run([TMUX, "paste-buffer", "-p", "-d", "-b", buffer, "-t", session.name], check=True)
            session.wait_for(lambda s: "ValueError: the gadget jammed" in s, what="the pasted lines in the prompt")
            session.keys("C-j")
            session.keys("what broke?", literal=True)
            screen = session.wait_for(lambda s: "what broke?" in s, what="the typed line")
            assert not srv.requests  # nothing was sent by the paste's line ends
            session.keys("Enter")
            session.wait_for(lambda s: "The gadget jammed at line 3." in s, what="the answer")
            turn_call = srv.requests[0].body["messages"]  # (the auto-title's call comes after it)
            user = [m for m in turn_call if m["role"] == "user"][-1]["content"]
            assert user == PASTED + "\nwhat broke?", screen
            session.keys("C-q")
            deadline = time.monotonic() + 10
            while not rc_file.exists() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert rc_file.read_text().strip() == "0"
        finally:
            session.kill()
