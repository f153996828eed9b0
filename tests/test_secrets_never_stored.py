"""A session full of secrets leaves none of them on disk: every file of the home, byte for byte.

Real processes (`hermes-tui run`, `export`) against the loopback fake model: the user pastes keys,
the model reads a `.env` full of keys (approved with --yes), echoes tokens in its text, its
reasoning and its tool arguments, a shell command prints more, the session gets a title holding a
key, then `/save`, `/save notes.md` and `hermes-tui export` in three formats. Afterwards every
file under the home (state.db and any -wal/-shm: SQLite keeps deleted text in free pages, so the
raw bytes are read, not rows) and every export in the working folder is searched for each secret
and for any 12-character run of one; so are the `--json` output and stderr. With
`[security] redact_secrets = false` the same session finds every secret in state.db, so the
search is shown to be able to fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fake_llm import FakeLLMServer, Reply

RUN = 12  # no stored text may hold this many characters of a secret in a row

OPENAI_KEY = "sk-proj-Qm4Zr8Lt2Wx6Nb0Vc3Hy7Kp1"
GITHUB_TOKEN = "ghp_R7tY2uI9oP4aS6dF1gH8jK3lZ5xC0vB2nM4q"
AWS_SECRET = "wJa1rXUtnFEMI7K7MDENGbPxRfiCY9EXAMPLEKEYq"
DB_PASSWORD = "Pa55w0rdVeryL0ngSecretXyz"
FIREWORKS_KEY = "fw_3Zk8Qp2Lm7Rt4Wx9Nb6Vc1Hy5Jd0Gs8Fa"
FIREWORKS_DASH_KEY = "fw-8Hy5Jd0Gs8Fa3Zk8Qp2Lm7Rt4Wx9Nb6Vc1"
FIREWORKS_PROJECT_KEY = "fpk_Lm7Rt4Wx9Nb6Vc1Hy5Jd0Gs8Fa3Zk8Qp2"
NOTION_TOKEN = "ntn_5Tq8Wz2Xc7Vb4Nm1Lk9Jh6Gf3Ds0Aa"
SLACK_APP_TOKEN = "xapp-1-A0123ABCD45-6789012345678-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
DO_TOKEN = "dop_v1_4f3e2d1c0b9a88776655443322110ffeeddccbbaa99887766554433221100"
DO_OAUTH_TOKEN = "doo_v1_Aa11Bb22Cc33Dd44Ee55Ff66Gg77Hh88Ii99"
AUTH_TOKEN = "Xq7Ww2Ee9Rr4Tt1Yy6Uu3Ii8Oo5Pp0"
PROXY_BASIC = "dXNlcjpzM2NyM3QtcHJveHktcGFzc3dvcmQ="
URL_TOKEN = "7c1e4b9a2d8f6e3b0a5c9d7e1f4a8b2c6d0e3f9a"
SENTRY_KEY = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
TITLE_KEY = "sk-ant-api03-Tt5Gg8Hh2Jj6Kk9Ll3Mm7Nn"

SECRETS = [
    OPENAI_KEY, GITHUB_TOKEN, AWS_SECRET, DB_PASSWORD, FIREWORKS_KEY, FIREWORKS_DASH_KEY, FIREWORKS_PROJECT_KEY,
    NOTION_TOKEN, SLACK_APP_TOKEN, DO_TOKEN, DO_OAUTH_TOKEN, AUTH_TOKEN, PROXY_BASIC, URL_TOKEN, SENTRY_KEY,
    TITLE_KEY,
]  # fmt: skip

SENTRY_DSN = f"https://{SENTRY_KEY}@o450123.ingest.sentry.io/4501234"
GIT_REMOTE = f"https://{URL_TOKEN}@git.example.org/team/repo.git"
DOT_ENV = (
    f"OPENAI_API_KEY={OPENAI_KEY}\n"
    f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}\n"
    f"DB_PASSWORD={DB_PASSWORD}\n"
    f"FIREWORKS_API_KEY={FIREWORKS_KEY}\n"
    f"SENTRY_DSN={SENTRY_DSN}\n"
    "LOG_LEVEL=info\n"
)
USER_PASTE = (
    f"My keys: Fireworks {FIREWORKS_DASH_KEY} and project {FIREWORKS_PROJECT_KEY}, Notion {NOTION_TOKEN}, "
    f"Slack {SLACK_APP_TOKEN}, DigitalOcean {DO_TOKEN} / {DO_OAUTH_TOKEN}. The API wants "
    f"`curl -H 'Authorization: token {AUTH_TOKEN}' -H 'Proxy-Authorization: Basic {PROXY_BASIC}'`. "
    "Check the .env and the git remote, please."
)


def model_script() -> list[Reply]:
    """The model reads .env, runs a shell command with tokens in it, then echoes everything."""
    command = f"echo git remote set-url origin {GIT_REMOTE}; echo GITHUB_TOKEN={GITHUB_TOKEN}"
    return [
        Reply(
            reasoning=f"The user gave Notion {NOTION_TOKEN} and Authorization: token {AUTH_TOKEN}; read .env.",
            text="Reading .env first.",
            tool_calls=[("call_env", "read_file", json.dumps({"path": ".env"}))],
            chunk_size=16,
        ),
        Reply(
            reasoning=f"The .env holds {OPENAI_KEY} and DB_PASSWORD={DB_PASSWORD}.",
            text=f"Setting the remote with {GITHUB_TOKEN}.",
            tool_calls=[("call_sh", "terminal", json.dumps({"command": command}))],
            chunk_size=16,
        ),
        Reply(
            reasoning=f"Summarise: Fireworks {FIREWORKS_KEY}, DigitalOcean {DO_TOKEN}.",
            text=(
                f"All set. OpenAI key {OPENAI_KEY}, GitHub token {GITHUB_TOKEN}, AWS secret "
                f"aws_secret_access_key = {AWS_SECRET}, password: {DB_PASSWORD}, Sentry DSN {SENTRY_DSN}, "
                f"Slack {SLACK_APP_TOKEN}, Fireworks {FIREWORKS_PROJECT_KEY}."
            ),
            chunk_size=16,
        ),
    ]


def run_cli(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "ANTHROPIC_", "HERMES_TUI_", "HERMES_REDACT"))
    }
    return subprocess.run(
        [sys.executable, "-m", "hermes_tui", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def leaks(secret: str, blob: str) -> list[str]:
    """The secret, or every RUN-character piece of it, found in `blob`."""
    return sorted({secret[i : i + RUN] for i in range(len(secret) - RUN + 1) if secret[i : i + RUN] in blob})


def leaked_secrets(blob: str) -> dict[str, list[str]]:
    """Each secret found (whole or in part) in `blob`, with what was found of it."""
    found = {secret: leaks(secret, blob) for secret in SECRETS}
    return {secret: hits for secret, hits in found.items() if hits}


def files_under(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def session_full_of_secrets(tmp_path: Path, protocol: str, redact: bool) -> tuple[Path, Path, list[str]]:
    """Run the whole session; returns the home, the working folder and every process's output."""
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "config.toml").write_text(f"[security]\nredact_secrets = {str(redact).lower()}\n", encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    (project / ".env").write_text(DOT_ENV, encoding="utf-8")
    outputs: list[str] = []

    def cli(*args: str) -> subprocess.CompletedProcess:
        result = run_cli(*args, "--home", str(home), cwd=project)
        outputs.extend([result.stdout, result.stderr])
        assert result.returncode == 0, result.stderr
        return result

    with FakeLLMServer() as srv:
        srv.enqueue(*model_script())
        base = srv.base_url_openai if protocol == "openai" else srv.base_url_anthropic
        turn = cli("run", USER_PASTE, "--json", "--yes", "--provider", protocol, "--base-url", base)
        session_id = json.loads(turn.stdout)["session_id"]
        assert len(srv.requests) == 3  # the whole script ran: two tool rounds and the answer
    assert "read_file" in turn.stderr and "terminal" in turn.stderr  # the tool activity was printed
    cli("run", f"/title deploy with {TITLE_KEY}", "--resume", session_id)
    cli("run", "/save", "--resume", session_id, "--json")
    cli("run", "/save notes.md", "--resume", session_id)
    for fmt in ("md", "jsonl"):
        cli("export", session_id, "--format", fmt, "--output", str(project / f"export.{fmt}"))
    cli("export", session_id, "--format", "json")
    return home, project, outputs


def exports_in(project: Path) -> dict[str, bytes]:
    found = {name: data for name, data in files_under(project).items() if name != ".env"}
    assert {"notes.md", "export.md", "export.jsonl"} <= found.keys() and any(n.startswith("hermes-") for n in found)
    return found


@pytest.mark.parametrize("protocol", ["anthropic", "openai"])
def test_no_secret_reaches_any_file_or_printed_output(tmp_path: Path, protocol: str) -> None:
    home, project, outputs = session_full_of_secrets(tmp_path, protocol, redact=True)
    stored = {f"home/{name}": data for name, data in files_under(home).items()}
    stored |= {f"project/{name}": data for name, data in exports_in(project).items()}
    assert "home/state.db" in stored
    found = {name: leaked_secrets(data.decode("utf-8", "replace")) for name, data in stored.items()}
    assert {name: hits for name, hits in found.items() if hits} == {}
    assert leaked_secrets("\n".join(outputs)) == {}  # --json, stderr tool activity, command output
    export = json.loads(outputs[-2])  # `export --format json` on stdout: still a valid document
    titles = [session["title"] for session in export["sessions"]]
    assert titles == [f"deploy with ***{TITLE_KEY[-4:]}"]  # masked, and the rest of the title kept


def test_with_redaction_off_the_same_session_stores_every_secret(tmp_path: Path) -> None:
    home, project, _outputs = session_full_of_secrets(tmp_path, "anthropic", redact=False)
    database = b"".join(data for name, data in files_under(home).items() if name.startswith("state.db"))
    text = database.decode("utf-8", "replace")
    assert [secret for secret in SECRETS if secret not in text] == []
    exported = (project / "export.md").read_text(encoding="utf-8")
    assert OPENAI_KEY in exported and TITLE_KEY in exported
