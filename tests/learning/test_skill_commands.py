"""Skills as slash commands, and the user's [quick_commands]: registered, advertised, run as Hermes runs them."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_tui.config import Home, load_settings
from hermes_tui.core.commands import all_commands, help_text, run_command, runs_while_busy
from hermes_tui.core.commands.extensions import install_extension_commands
from hermes_tui.core.skills.invocation import command_name
from hermes_tui.core.tools.permissions import ApprovalAnswer
from tests.core.helpers import make_agent

BISECT = (
    "---\nname: git-bisect-helper\ndescription: Find the commit that broke a test with git bisect run.\n---\n"
    "# Git bisect helper\n\n1. Mark a good and a bad commit.\n2. Run `git bisect run scripts/check.sh`.\n"
)
INVOKED = '[IMPORTANT: The user has invoked the "git-bisect-helper" skill, indicating they want you to follow its'
INSTRUCTION = "The user has provided the following instruction alongside the skill invocation: "


def write_skill(skills: Path, folder: str, text: str, category: str = "devops") -> Path:
    path = skills / category / folder
    path.mkdir(parents=True, exist_ok=True)
    (path / "SKILL.md").write_text(text, encoding="utf-8")
    return path


def run_cli(*args: str, home: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "HERMES_TUI_"))}
    env["HERMES_TUI_DEMO_DELAY"] = "0"
    return subprocess.run(
        [sys.executable, "-m", "hermes_tui", *args, "--home", str(home)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_command_names_are_hermes_slugs() -> None:
    assert command_name("git-bisect-helper") == "git-bisect-helper"
    assert command_name("Git_Bisect Helper") == "git-bisect-helper"
    assert command_name("c++ / rust -- notes!") == "c-rust-notes"
    assert command_name("!!!") == ""


def test_headless_skill_command_sends_the_skill_as_hermes_builds_it(tmp_path: Path) -> None:
    home = Home(tmp_path / "home").ensure()
    folder = write_skill(home.skills, "git-bisect-helper", BISECT)
    (folder / "scripts").mkdir()
    (folder / "scripts" / "check.sh").write_text("pytest -x tests/test_login.py\n", encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()

    listed = run_cli("run", "/help", home=home.root, cwd=project)
    assert listed.returncode == 0, listed.stderr
    assert "Skill commands:" in listed.stdout and "/git-bisect-helper [instruction]" in listed.stdout

    result = run_cli("run", "/git-bisect-helper the login test broke", home=home.root, cwd=project)
    assert result.returncode == 0, result.stderr
    assert "Loading skill: git-bisect-helper" in result.stdout
    con = sqlite3.connect(home.state_db)
    try:
        [(message,)] = con.execute("select content from messages where role = 'user'").fetchall()
    finally:
        con.close()
    assert message.startswith(INVOKED)
    assert "The full skill content is loaded below.]\n\n---\nname: git-bisect-helper" in message
    assert f"[Skill directory: {folder}]" in message
    assert f"- scripts/check.sh  ->  {folder / 'scripts' / 'check.sh'}" in message
    assert message.endswith(f"\n\n{INSTRUCTION}the login test broke")


async def test_a_skill_written_during_the_session_is_a_command_at_once_and_goes_with_it(tmp_path: Path) -> None:
    agent, db, _log = await make_agent(tmp_path)
    install_extension_commands(agent)
    try:
        assert (await run_command(agent, "/release-notes v2")).error  # no such skill yet
        created = agent.skills.apply(
            {
                "action": "create",
                "name": "release-notes",
                "content": "---\nname: release-notes\ndescription: Draft release notes.\n---\nUse git log.\n",
            }
        )
        assert created["success"], created
        assert "/release-notes" in help_text()
        assert any(command.name == "release-notes" and command.kind == "skill" for command in all_commands())
        result = await run_command(agent, "/release-notes v2")
        assert not result.error and result.send is not None
        assert result.send.startswith('[IMPORTANT: The user has invoked the "release-notes" skill')
        assert result.send.endswith(f"{INSTRUCTION}v2")
        turn = await agent.run_conversation(result.send)
        assert turn.completed and agent.messages[0]["content"] == result.send
        assert agent.skills.apply({"action": "delete", "name": "release-notes"})["success"]
        assert (await run_command(agent, "/release-notes v2")).error
        assert "/release-notes" not in help_text()
    finally:
        await agent.close()
        await db.close()


async def test_a_skill_named_like_a_built_in_leaves_the_built_in_in_place(tmp_path: Path) -> None:
    agent, db, log = await make_agent(tmp_path)
    write_skill(agent.skills.root, "help", "---\nname: help\ndescription: A skill named help.\n---\nHi.\n")
    write_skill(agent.skills.root, "quit_now", "---\nname: Quit_Now\ndescription: Leaves.\n---\nBye.\n", "misc")
    install_extension_commands(agent)
    try:
        result = await run_command(agent, "/help")
        assert result.intent is not None and result.send is None  # the built-in /help still answers
        assert "(the skill command /help is left out: the built-in /help has that name)" in help_text()
        assert "/quit-now [instruction]" in help_text()  # a different slug is fine
        notes = [entry.text for entry in log if getattr(entry, "kind", "") == "info" and "/help" in entry.text]
        assert notes == [
            "The skill command /help is left out: the built-in /help has that name "
            "(the agent can still load it with skill_view)."
        ]
    finally:
        await agent.close()
        await db.close()


def write_config(home: Path, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text, encoding="utf-8")


QUICK = """
[quick_commands.disk]
type = "exec"
command = "echo disk-ok; echo second-line"
description = "free space"

[quick_commands.st]
type = "alias"
target = "status"

[quick_commands.shrink]
type = "alias"
target = "/compress"

[quick_commands.review]
type = "prompt"
prompt = "Review {args} for bugs, then list them."

[quick_commands.standup]
type = "prompt"
prompt = "Write my stand-up notes."

[quick_commands.git-bisect-helper]
type = "prompt"
prompt = "A quick command may take a skill's name."
"""


async def test_quick_commands_exec_through_approval_alias_and_prompt(tmp_path: Path) -> None:
    write_config(tmp_path / "home", QUICK)
    settings = load_settings(Home(tmp_path / "home"), env={})
    asked: list[str] = []
    answers = [ApprovalAnswer.DENY, ApprovalAnswer.ONCE]

    async def approver(request):  # type: ignore[no-untyped-def]
        asked.append(request.command)
        return answers.pop(0)

    agent, db, _log = await make_agent(tmp_path, settings=settings, approver=approver)
    write_skill(agent.skills.root, "git-bisect-helper", BISECT)
    install_extension_commands(agent)
    try:
        denied = await run_command(agent, "/disk")
        assert denied.error and denied.output == "Command denied by the user"
        ran = await run_command(agent, "/disk")
        assert not ran.error and ran.output == "disk-ok\nsecond-line" and ran.send is None  # no model call
        assert asked == ["echo disk-ok; echo second-line"] * 2  # asked both times, as the agent's commands are
        assert (await run_command(agent, "/disk now")).error  # an exec command takes no arguments

        status = await run_command(agent, "/st")
        assert "Session" in status.output and runs_while_busy("/st")  # /status runs beside a turn, so does /st
        direct = await run_command(agent, "/compress here 1", interactive=True)
        aliased = await run_command(agent, "/shrink here 1", interactive=True)  # the arguments follow the target
        assert (aliased.output, aliased.error) == (direct.output, direct.error) and aliased.output

        review = await run_command(agent, "/review app.py")
        assert review.send == "Review app.py for bugs, then list them."
        assert (await run_command(agent, "/standup yesterday: tests")).send == (
            "Write my stand-up notes.\n\nyesterday: tests"
        )
        assert (await run_command(agent, "/git-bisect-helper")).send == "A quick command may take a skill's name."
        listing = help_text()
        assert "Quick commands:" in listing and "/disk" in listing and "free space" in listing
        assert "(the skill command /git-bisect-helper is left out" in listing
    finally:
        await agent.close()
        await db.close()


async def test_an_alias_loop_is_one_error_line(tmp_path: Path) -> None:
    write_config(
        tmp_path / "home",
        '[quick_commands.ping]\ntype = "alias"\ntarget = "/pong"\n'
        '[quick_commands.pong]\ntype = "alias"\ntarget = "/ping"\n',
    )
    agent, db, _log = await make_agent(tmp_path, settings=load_settings(Home(tmp_path / "home"), env={}))
    install_extension_commands(agent)
    try:
        result = await run_command(agent, "/ping")
        assert result.error and "goes round in aliases" in result.output
        assert not runs_while_busy("/ping")
    finally:
        await agent.close()
        await db.close()


@pytest.mark.parametrize(
    ("toml", "needle"),
    [
        ('quick_commands = "df -h"\n', "'quick_commands' must be a table"),
        ('[quick_commands.disk]\ncommand = "df -h"\n', "'quick_commands.disk': 'type' must be"),
        ('[quick_commands.disk]\ntype = "shell"\ncommand = "df"\n', "got 'shell'"),
        ('[quick_commands.disk]\ntype = "exec"\n', "an exec command needs 'command'"),
        ('[quick_commands.disk]\ntype = "exec"\ncommand = "df"\ntarget = "/x"\n', "unknown key 'target'"),
        ('[quick_commands.Disk]\ntype = "exec"\ncommand = "df"\n', "a command name is lower-case"),
        ('[quick_commands.review]\ntype = "prompt"\nprompt = ""\n', "needs 'prompt', a non-empty string"),
    ],
)
def test_a_bad_quick_command_is_one_line_naming_the_key(tmp_path: Path, toml: str, needle: str) -> None:
    home = tmp_path / "home"
    write_config(home, toml)
    result = run_cli("run", "hello", home=home, cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "config.toml" in result.stderr and needle in result.stderr
