"""The `hermes-tui` entry point: flags, headless commands, and launching the TUI.

    hermes-tui [--provider P] [--model M] [--base-url URL] [--home DIR] [--resume ID]
    hermes-tui run PROMPT [same flags] [--json] [--yes]
    hermes-tui sessions [--home DIR] [--all] [--limit N] [--json]
    hermes-tui search QUERY [--home DIR] [--limit N] [--role R] [--json]
    hermes-tui export ID [--lineage] [--format md|json|jsonl] [--home DIR]

Everything a user can get wrong (flags, config, keys, home, state.db) ends as one clear line on
stderr and exit code 2 — never a traceback. Heavy imports (Textual, the SDKs, aiosqlite) happen
only after the arguments are known, so `--version` and `--help` are instant.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, NoReturn

from hermes_tui import __version__

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
SQLITE_HEADER = b"SQLite format 3\x00"


class UsageError(Exception):
    """A mistake in how hermes-tui was invoked or configured; one line for the user."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _common_flags(parser: argparse.ArgumentParser, *, model_flags: bool = True) -> None:
    parser.add_argument("--home", metavar="DIR", help="home folder (default ~/.hermes-tui; env HERMES_TUI_HOME)")
    if not model_flags:
        return
    parser.add_argument("--provider", metavar="P", help="demo | openai | anthropic (default: by available key)")
    parser.add_argument("--model", metavar="M", help="model name")
    parser.add_argument("--base-url", metavar="URL", help="API base URL (Ollama, vLLM, LM Studio, OpenRouter…)")
    parser.add_argument("--context-length", metavar="N", type=int, help="override the model's context window")
    parser.add_argument("--resume", metavar="ID", help="resume a session: id, id prefix or title")
    parser.add_argument("--yes", action="store_true", help="approve shell commands without asking")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="hermes-tui", description="A terminal home for long-running LLM agents.")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    _common_flags(parser)
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    run = sub.add_parser("run", help="run one turn headless; the answer streams to stdout")
    run.add_argument("prompt", help='the message (or a /command such as "/compress auth flow")')
    _common_flags(run)
    run.add_argument("--json", action="store_true", help="print one JSON result object")

    sessions = sub.add_parser("sessions", help="list sessions")
    _common_flags(sessions, model_flags=False)
    sessions.add_argument("--all", action="store_true", help="include compression, other children and archived")
    sessions.add_argument("--limit", type=int, default=50, help="how many sessions, newest activity first (0 = all)")
    sessions.add_argument("--json", action="store_true")

    search = sub.add_parser("search", help="full-text search over every session")
    search.add_argument("query")
    _common_flags(search, model_flags=False)
    search.add_argument("--limit", type=int, default=20)
    search.add_argument("--role", help="only messages with this role (user, assistant, tool)")
    search.add_argument("--json", action="store_true")

    export = sub.add_parser("export", help="export a session (or its whole lineage)")
    export.add_argument("session")
    _common_flags(export, model_flags=False)
    export.add_argument("--lineage", action="store_true", help="the whole chain from root to tip")
    export.add_argument("--format", default="md", choices=["md", "json", "jsonl"])
    return parser


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    model: dict[str, Any] = {}
    if getattr(args, "provider", None):
        model["provider"] = args.provider
    if getattr(args, "model", None):
        model["name"] = args.model
    if getattr(args, "base_url", None):
        model["base_url"] = args.base_url
    if getattr(args, "context_length", None) is not None:
        if args.context_length <= 0:
            raise UsageError("--context-length must be a positive number of tokens")
        model["context_length"] = args.context_length
    overrides: dict[str, Any] = {"model": model} if model else {}
    if getattr(args, "yes", False):
        overrides["tools"] = {"auto_approve": True}
    return overrides


def check_state_db(path: Path) -> None:
    """A state.db that exists must be an SQLite file; a clear error otherwise."""
    if not path.exists():
        return
    try:
        with path.open("rb") as fh:
            header = fh.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    if header and header != SQLITE_HEADER:
        raise UsageError(f"{path} is not an SQLite database (refusing to touch it)")


def prepare(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    """Home, settings and provider choice; raises ConfigError/UsageError with one-line messages."""
    from hermes_tui.config import load_settings, resolve_home, resolve_provider

    home = resolve_home(args.home).ensure()
    settings = load_settings(home, _overrides(args))
    choice = resolve_provider(settings)
    check_state_db(home.state_db)
    return home, settings, choice


def _store_db_path(args: argparse.Namespace) -> Path:
    from hermes_tui.config import resolve_home

    home = resolve_home(args.home)
    if not home.root.is_dir():
        raise UsageError(f"home folder {home.root} does not exist")
    check_state_db(home.state_db)
    if not home.state_db.exists():
        raise UsageError(f"no state.db in {home.root} yet — run hermes-tui once to create it")
    return home.state_db


def _run_store_command(args: argparse.Namespace) -> int:
    import asyncio

    from hermes_tui import cli_sessions

    db_path = _store_db_path(args)
    out = sys.stdout
    if args.command == "sessions":
        if args.limit < 0:
            raise UsageError("--limit must be 0 (all) or a positive number")
        coro = cli_sessions.sessions_command(db_path, args.all, args.json, out, limit=args.limit or None)
    elif args.command == "search":
        if args.limit < 1:
            raise UsageError("--limit must be at least 1")
        coro = cli_sessions.search_command(db_path, args.query, args.limit, args.role, args.json, out)
    else:
        coro = cli_sessions.export_command(db_path, args.session, args.lineage, args.format, out)
    return asyncio.run(coro)


def _launch_tui(args: argparse.Namespace) -> int:
    home, settings, choice = prepare(args)
    from hermes_tui.app import HermesApp

    app = HermesApp(home=home, settings=settings, choice=choice, resume=args.resume)
    app.run()
    if app.startup_error:
        raise UsageError(app.startup_error)
    return int(app.return_code or 0)


def _dispatch(argv: list[str]) -> int:
    if argv[:1] == ["--version"] or argv == ["-V"]:
        print(f"hermes-tui {__version__}")
        return 0
    args = build_parser().parse_args(argv)
    if args.version:
        print(f"hermes-tui {__version__}")
        return 0
    if args.command == "run":
        from hermes_tui.headless import run_headless

        return run_headless(args, prepare)
    if args.command in ("sessions", "search", "export"):
        return _run_store_command(args)
    return _launch_tui(args)


def main(argv: list[str] | None = None) -> int:
    from hermes_tui.config import ConfigError

    argv = sys.argv[1:] if argv is None else argv
    try:
        return _dispatch(argv)
    except (UsageError, ConfigError) as exc:
        print(f"hermes-tui: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("hermes-tui: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    raise SystemExit(main())
