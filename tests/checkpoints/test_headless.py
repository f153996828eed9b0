"""`hermes-tui run`: checkpoints taken by one process are listed, compared and restored by the next
(`run --resume ID "/rollback N"`), and `--no-checkpoints` takes none."""

from __future__ import annotations

import json
from pathlib import Path

from tests.checkpoints.helpers import folder_state, make_project, write_call
from tests.fake_llm import FakeLLMServer, Reply
from tests.test_cli import run_cli


def test_rollback_works_headless_across_processes(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    home = tmp_path / "home"
    first = folder_state(project)
    with FakeLLMServer() as server:
        base = ["--provider", "openai", "--base-url", server.base_url_openai, "--home", str(home)]
        server.enqueue(Reply(tool_calls=[write_call("a", "src/app.py", "changed = True\n")]), Reply(text="One."))
        one = run_cli("run", "change the app", "--json", *base, cwd=project)
        assert one.returncode == 0, one.stderr
        session = json.loads(one.stdout)["session_id"]
        server.enqueue(Reply(tool_calls=[write_call("b", "NEW.md", "new\n")]), Reply(text="Two."))
        two = run_cli("run", "--resume", session, "add a file", *base, cwd=project)
        assert two.returncode == 0, two.stderr
        latest = folder_state(project)

        listing = run_cli("run", "--resume", session, "/rollback", *base, cwd=project)
        assert listing.returncode == 0, listing.stderr
        rows = [line.split() for line in listing.stdout.splitlines() if line.strip()[:1].isdigit()]
        assert [(row[0], row[1]) for row in rows] == [("1", "#1"), ("2", "#2")]
        assert "before “change the app”" in listing.stdout and "before “add a file”" in listing.stdout

        diff = run_cli("run", "--resume", session, "/rollback diff 2", *base, cwd=project)
        assert diff.returncode == 0, diff.stderr
        assert "+++ b/NEW.md" in diff.stdout and "src/app.py" not in diff.stdout

        back = run_cli("run", "--resume", session, "/rollback 1", *base, cwd=project)
        assert back.returncode == 0, back.stderr
        assert folder_state(project) == first
        assert "/rollback 3 undoes this" in back.stdout

        undo = run_cli("run", "--resume", session, "/rollback 3", *base, cwd=project)
        assert undo.returncode == 0, undo.stderr
        assert folder_state(project) == latest

        wrong = run_cli("run", "--resume", session, "/rollback 99", *base, cwd=project)
        assert wrong.returncode != 0 and "There is no checkpoint 99" in (wrong.stdout + wrong.stderr)
        assert "Traceback" not in wrong.stderr


def test_no_checkpoints_flag_takes_none(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    home = tmp_path / "home"
    with FakeLLMServer() as server:
        base = ["--provider", "openai", "--base-url", server.base_url_openai, "--home", str(home)]
        server.enqueue(Reply(tool_calls=[write_call("a", "x.txt", "x\n")]), Reply(text="Done."))
        result = run_cli("run", "write x", "--no-checkpoints", "--json", *base, cwd=project)
        assert result.returncode == 0, result.stderr
        session = json.loads(result.stdout)["session_id"]
        assert (project / "x.txt").read_text() == "x\n"
        assert not (home / "checkpoints").exists()
        listing = run_cli("run", "--resume", session, "/rollback", "--no-checkpoints", *base, cwd=project)
    assert "No checkpoints in this conversation yet" in listing.stdout
    assert "Checkpoints are off" in listing.stdout
