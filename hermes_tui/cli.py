"""The `hermes-tui` entry point: the one argument parser, the headless commands, launching the TUI.

    hermes-tui [GLOBAL FLAGS]                          the TUI
    hermes-tui run [PROMPT | -] [--json]               one turn headless; the answer streams to stdout
                                                       (PROMPT "-" or left out with stdin piped: read stdin)
    hermes-tui sessions [--all] [--limit N] [--sort activity|started] [--json]   list sessions
    hermes-tui search QUERY [--limit N] [--role R] [--sort S] [--json]
                                                       QUERY may hold role: source: since: until: filters
    hermes-tui export ID [--lineage] [--format md|json|jsonl] [--output FILE]
    hermes-tui doctor [--json]                         check state.db, its indexes and file modes
    hermes-tui replay SESSION [--turn N] --provider P [--model M] [--base-url URL] [--json]
                                                       a stored turn sent to another model, side by side
    hermes-tui completion bash|zsh|fish                print a shell completion script

Global flags (--home, --provider, --model, --base-url, --context-length, --resume, -c/--continue
[TITLE], --yes, --no-checkpoints) go
before or after the command; one that does not apply to the command is an error, never ignored
(GLOBAL_FLAGS says which command takes which). Everything a user can get wrong (flags, config,
keys, home, a damaged state.db) ends as one line on stderr and exit code 2 — never a traceback.
Before a command reads state.db or calls a model, `PRAGMA quick_check` runs on the existing file
in a background thread while the modules the command needs are imported. Heavy imports
(Textual, the SDKs, aiosqlite) happen only after the arguments are known, so `--version` and
`--help` are instant and never open the database.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from hermes_tui import __version__, exit_codes

if TYPE_CHECKING:
    from hermes_tui.config import Home, ProviderChoice, Settings


TUI = "tui"  # the command name used when no subcommand is given
READ_COMMANDS = ("sessions", "search", "export")
MODEL_COMMANDS = (TUI, "run")
REPLAY = "replay"
COMPLETION = "completion"
ALL_COMMANDS = (TUI, "run", *READ_COMMANDS, "doctor", REPLAY)
STDIN_PROMPT = "-"  # `run -`: the prompt is read from standard input
MAX_STDIN_PROMPT_BYTES = 8 << 20
PROMPT_REQUIRED = "the following arguments are required: prompt"

# flag -> (argparse options, the commands it applies to)
GLOBAL_FLAGS: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "--home": ({"metavar": "DIR", "help": "home folder (default ~/.hermes-tui; env HERMES_TUI_HOME)"}, ALL_COMMANDS),
    "--provider": (
        {"metavar": "P", "help": "demo | openai | anthropic (default: by available key)"},
        (*MODEL_COMMANDS, REPLAY),
    ),
    "--model": ({"metavar": "M", "help": "model name"}, (*MODEL_COMMANDS, REPLAY)),
    "--base-url": (
        {"metavar": "URL", "help": "API base URL (Ollama, vLLM, LM Studio, OpenRouter…)"},
        (*MODEL_COMMANDS, REPLAY),
    ),
    "--context-length": (
        {"metavar": "N", "type": int, "help": "override the model's context window (tokens)"},
        MODEL_COMMANDS,
    ),
    "--resume": ({"metavar": "ID", "help": "resume a session: id, id prefix or title"}, MODEL_COMMANDS),
    "--continue": (
        {
            "metavar": "TITLE",
            "nargs": "?",
            "const": "",
            "help": "continue the most recent session (or the newest titled TITLE)",
        },
        MODEL_COMMANDS,
    ),
    "--yes": ({"action": "store_true", "help": "approve shell commands without asking"}, MODEL_COMMANDS),
    "--no-checkpoints": (
        {"action": "store_true", "help": "take no snapshots of the working folder before file changes"},
        MODEL_COMMANDS,
    ),
}


SHORT_FLAGS = {"--continue": ("-c",)}  # short spellings of global flags


class UsageError(Exception):
    """A mistake in how hermes-tui was invoked or configured; one line for the user."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def _add_global_flags(parser: argparse.ArgumentParser) -> None:
    """The global flags, with no default so a value given before the command is not reset after it."""
    group = parser.add_argument_group("global flags (before or after the command)")
    for flag, (options, _commands) in GLOBAL_FLAGS.items():
        group.add_argument(flag, *SHORT_FLAGS.get(flag, ()), default=argparse.SUPPRESS, **options)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="hermes-tui", description="A terminal home for long-running LLM agents.")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    _add_global_flags(parser)
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")

    run = sub.add_parser("run", help="run one turn headless; the answer streams to stdout")
    run.add_argument(
        "prompt",
        nargs="?",
        help='the message (or a /command such as "/compress auth flow"); "-" or none with stdin piped: read stdin',
    )
    run.add_argument("--json", action="store_true", help="print one JSON result object")

    sessions = sub.add_parser("sessions", help="list sessions")
    sessions.add_argument("--all", action="store_true", help="include compression, other children and archived")
    sessions.add_argument("--limit", type=int, default=50, help="how many sessions, newest activity first (0 = all)")
    sessions.add_argument("--json", action="store_true", help="print a JSON array")
    sessions.add_argument(
        "--sort", choices=("activity", "started"), default="activity", help="newest activity (default) or start first"
    )

    search = sub.add_parser("search", help="full-text search over every session")
    search.add_argument("query", help='words, "a phrase", OR, NOT; filters role: source: since: until:')
    search.add_argument("--limit", type=int, default=20, help="how many hits (default 20)")
    search.add_argument("--role", help="only these roles, comma-separated (user, assistant, tool)")
    search.add_argument("--sort", choices=("rank", "newest", "oldest"), help="default: rank few hits, else newest")
    search.add_argument("--json", action="store_true", help="print a JSON array")

    export = sub.add_parser("export", help="export a session (or its whole lineage)")
    export.add_argument("session", help="id, id prefix or title")
    export.add_argument("--lineage", action="store_true", help="the whole chain from root to tip")
    export.add_argument("--format", default="md", choices=["md", "json", "jsonl"])
    export.add_argument("--output", "-o", metavar="FILE", help="write to FILE (created 0600, never overwritten)")

    doctor = sub.add_parser("doctor", help="check state.db (integrity, schema, FTS) and file modes")
    doctor.add_argument("--json", action="store_true", help="print the findings as JSON")

    replay = sub.add_parser("replay", help="send a stored turn to another provider/model; answers side by side")
    replay.add_argument("session", help="id, id prefix or title")
    replay.add_argument("--turn", type=int, metavar="N", help="which user turn (1 = the first; default: the last)")
    replay.add_argument("--json", action="store_true", help="print one JSON object (nothing is stored)")

    for command in (run, sessions, search, export, doctor, replay):
        _add_global_flags(command)

    completion = sub.add_parser(COMPLETION, help="print a shell completion script (README: how to install it)")
    completion.add_argument("shell", choices=("bash", "zsh", "fish"))
    return parser


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Parse, reject global flags the command does not take, and fill in the defaults."""
    args = build_parser().parse_args(argv)
    command = args.command or TUI
    args.command = command
    for flag, (_options, commands) in GLOBAL_FLAGS.items():
        dest = _dest(flag)
        if hasattr(args, dest) and command not in commands:
            where = "the TUI" if command == TUI else f"`{command}`"
            names = ["the TUI" if c == TUI else f"`{c}`" for c in commands]
            takers = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
            raise UsageError(f"{flag} does not apply to {where} (only to {takers})")
        if not hasattr(args, dest):
            setattr(args, dest, False if GLOBAL_FLAGS[flag][0].get("action") == "store_true" else None)
    continued = getattr(args, "continue")
    if command == "run" and args.prompt is None:
        if continued:
            args.prompt, continued = continued, ""  # `run -c "next step"`: the value was the prompt
            setattr(args, "continue", continued)
        elif stdin_is_piped():
            args.prompt = STDIN_PROMPT  # `echo "…" | hermes-tui run`
        else:
            raise UsageError(f'{PROMPT_REQUIRED} (give it, "-" to read it from stdin, or pipe it in)')
    if continued is not None and args.resume:
        raise UsageError("--continue and --resume both choose a session: give one of them")
    if args.context_length is not None and args.context_length < 1:
        raise UsageError(f"--context-length must be a positive number of tokens, got {args.context_length}")
    return args


# --------------------------------------------------------------------------- the prompt from stdin


def stdin_is_piped() -> bool:
    """Whether standard input is a pipe or a file (not a terminal, and there at all)."""
    try:
        return sys.stdin is not None and not sys.stdin.isatty()
    except (ValueError, OSError):  # closed
        return False


def read_stdin_prompt() -> str:
    """The prompt given on standard input (`run -`, or piped with no PROMPT); UsageError when there is none."""
    stream = sys.stdin
    if stream is not None and not stdin_is_piped():
        print("hermes-tui: reading the prompt from the terminal; end it with Ctrl-D", file=sys.stderr, flush=True)
    try:
        raw = stream.buffer.read(MAX_STDIN_PROMPT_BYTES + 1) if stream is not None else b""
    except (OSError, ValueError, AttributeError):
        raw = b""
    if len(raw) > MAX_STDIN_PROMPT_BYTES:
        raise UsageError(f"the prompt on standard input is larger than {MAX_STDIN_PROMPT_BYTES >> 20} MB")
    text = raw.decode("utf-8", errors="replace").strip("\r\n")
    if not text.strip():
        raise UsageError(f"{PROMPT_REQUIRED} (standard input was empty)")
    return text


# --------------------------------------------------------------------------- start-up


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    """Settings overrides from the flags that set a setting (config.FLAG_SETTINGS)."""
    from hermes_tui.config import FLAG_SETTINGS, NEGATING_FLAG_SETTINGS

    overrides: dict[str, Any] = {}
    for flag, dotted in FLAG_SETTINGS.items():
        value = getattr(args, _dest(flag), None)
        if value is None or value is False or value == "":
            continue
        section, key = dotted.split(".")
        overrides.setdefault(section, {})[key] = value
    for flag, dotted in NEGATING_FLAG_SETTINGS.items():
        if getattr(args, _dest(flag), False) is True:
            section, key = dotted.split(".")
            overrides.setdefault(section, {})[key] = False
    return overrides


def check_state_db(path: Path) -> None:
    """A state.db that exists must be an SQLite file (and it and its -wal/-shm/-journal regular
    files: a FIFO would block the open for ever); a clear error otherwise."""
    from hermes_tui.store.regular_files import SQLITE_HEADER, read_regular_head, sqlite_files_problem

    problem = sqlite_files_problem(path)
    if problem:
        raise UsageError(f"{problem}; move it away (hermes-tui doctor reports it too)")
    try:
        header = read_regular_head(path, len(SQLITE_HEADER))
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    if header and header != SQLITE_HEADER:
        raise UsageError(f"{path} is not an SQLite database (refusing to touch it)")


def check_database_while(path: Path, work: Callable[[], Any] | None = None) -> None:
    """Header check, then `PRAGMA quick_check` of an existing state.db while `work()` runs.

    Raises UsageError with one line when the file is not SQLite or is damaged. `work` is what
    the command would do next anyway (its imports), so the check costs only what it takes longer.
    """
    check_state_db(path)
    if not path.exists():
        if work is not None:
            work()
        return
    from hermes_tui.store.check import start_quick_check

    pending = start_quick_check(path)
    if work is not None:
        work()
    problem = pending.result()
    if problem:
        raise UsageError(problem)


def _warn_if_home_is_open(home: Home) -> None:
    warning = home.permission_warning()
    if warning:
        print(f"hermes-tui: {warning}", file=sys.stderr)


def prepare(
    args: argparse.Namespace, warm_up: Callable[[], Any] | None = None
) -> tuple[Home, Settings, ProviderChoice]:
    """Home, settings and provider choice for `run` and the TUI, after the database check.

    Raises ConfigError/UsageError with one-line messages — before any model is called.
    """
    from hermes_tui.config import load_settings, resolve_home, resolve_provider

    home = resolve_home(args.home)
    existed = home.root.is_dir()
    home.ensure()
    settings = load_settings(home, _overrides(args))
    apply_redaction_setting(settings)
    choice = resolve_provider(settings)
    check_database_while(home.state_db, warm_up)
    if existed:  # after every fatal check: an error stays the only line
        _warn_if_home_is_open(home)
    return home, settings, choice


def apply_redaction_setting(settings: Settings) -> None:
    """Set the secret-redaction switch for this process, once, before anything is stored or printed."""
    from hermes_tui.core.context.redact import set_redaction_enabled

    set_redaction_enabled(settings.security.redact_secrets)


def _importer(*modules: str) -> Callable[[], None]:
    """Work for `check_database_while`: import what the command loads next anyway."""

    def work() -> None:
        for module in modules:
            importlib.import_module(module)

    return work


# What `run` imports before its first model call, and what the TUI imports before its first frame.
_import_headless_dependencies = _importer("hermes_tui.core.agent", "hermes_tui.core.bootstrap")
_import_tui = _importer("hermes_tui.app")


# --------------------------------------------------------------------------- commands


def _run_headless(args: argparse.Namespace) -> int:
    from hermes_tui.headless import run_headless

    if args.prompt == STDIN_PROMPT:
        args.prompt = read_stdin_prompt()

    return run_headless(args, lambda parsed: prepare(parsed, warm_up=_import_headless_dependencies))


def _run_read_command(args: argparse.Namespace) -> int:
    import io

    from hermes_tui.home import resolve_home  # not hermes_tui.config: the settings are not needed here

    home = resolve_home(args.home).require_existing()
    if args.command == "sessions" and args.limit < 0:
        raise UsageError("--limit must be 0 (all) or a positive number")
    if args.command == "search" and args.limit < 1:
        raise UsageError("--limit must be at least 1")
    if args.command == "export" and args.output:
        _check_output_path(Path(args.output))
    if args.command == "export":
        from hermes_tui.config import load_settings

        apply_redaction_setting(load_settings(home))  # the export masks secrets unless switched off
    if not home.state_db.exists():
        raise UsageError(f"no state.db in {home.root} yet — run hermes-tui once to create it")

    # what the command imports next, while the check runs (search: only its own part of the store)
    next_imports = ("hermes_tui.cli_sessions", "hermes_tui.core.search_query", "hermes_tui.store.search_store")
    check_database_while(home.state_db, _importer(*(next_imports if args.command == "search" else next_imports[:1])))
    _warn_if_home_is_open(home)
    from hermes_tui import cli_sessions

    read_only = not home.writable
    db_path = home.state_db
    out: Any = io.StringIO() if args.command == "export" and args.output else sys.stdout
    if args.command == "search":  # no event loop: one query on this thread (a faster start)
        return cli_sessions.run_search_command(
            db_path, args.query, args.limit, args.role, args.json, out, sort=args.sort, read_only=read_only
        )
    import asyncio

    if args.command == "sessions":
        coro = cli_sessions.sessions_command(
            db_path, args.all, args.json, out, limit=args.limit or None, read_only=read_only, sort=args.sort
        )
    else:
        coro = cli_sessions.export_command(db_path, args.session, args.lineage, args.format, out, read_only=read_only)
    code = asyncio.run(coro)
    if code == exit_codes.OK and isinstance(out, io.StringIO):
        _write_export(Path(args.output), out.getvalue())
    return code


def _check_output_path(path: Path) -> None:
    if path.exists():
        raise UsageError(f"{path} exists already; choose another --output (nothing is overwritten)")
    if not path.parent.is_dir():
        raise UsageError(f"cannot write {path}: folder {path.parent} does not exist")


def _write_export(path: Path, text: str) -> None:
    from hermes_tui.store.file_modes import write_private_text

    try:
        write_private_text(path, text, exclusive=True)
    except FileExistsError:
        raise UsageError(f"{path} exists already; choose another --output (nothing is overwritten)") from None
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    print(f"exported to {path}", file=sys.stderr)


def _run_doctor(args: argparse.Namespace) -> int:
    from hermes_tui.config import resolve_home
    from hermes_tui.doctor import run_doctor

    home = resolve_home(args.home).require_existing()
    return run_doctor(home, sys.stdout, as_json=args.json)


def _run_replay(args: argparse.Namespace) -> int:
    import asyncio

    from hermes_tui.config import load_settings, resolve_home, resolve_provider

    if not args.provider:
        raise UsageError("replay needs --provider (and usually --model): the model to send the turn to")
    if args.turn is not None and args.turn < 1:
        raise UsageError("--turn must be 1 or more (1 = the session's first user turn)")
    home = resolve_home(args.home).require_existing()
    if not home.state_db.exists():
        raise UsageError(f"no state.db in {home.root} yet — run hermes-tui once to create it")
    settings = load_settings(home, _overrides(args))
    choice = resolve_provider(settings)
    check_database_while(home.state_db, _importer("hermes_tui.replay", "hermes_tui.core.bootstrap"))
    from hermes_tui.replay import ReplayError, replay_command

    try:
        return asyncio.run(
            replay_command(
                home.state_db,
                args.session,
                args.turn,
                settings,
                choice,
                sys.stdout,
                sys.stderr,
                as_json_output=args.json,
            )
        )
    except ReplayError as exc:
        raise UsageError(str(exc)) from None


def _print_completion(args: argparse.Namespace) -> int:
    from hermes_tui.config import PROVIDERS
    from hermes_tui.shell_completion import commands_from_parser, completion_script

    def applies(flag: str, command: str) -> bool:
        taken = GLOBAL_FLAGS.get(flag)
        return taken is None or (command or TUI) in taken[1]

    specs = commands_from_parser(build_parser(), applies, {"--provider": PROVIDERS})
    sys.stdout.write(completion_script(args.shell, specs))
    return exit_codes.OK


def _launch_tui(args: argparse.Namespace) -> int:
    # The quick_check overlaps the app import but is awaited before the app starts, so on a
    # multi-GB state.db it delays the first frame (docs/PERFORMANCE.md). To take it out of the
    # first frame, HermesApp's start worker would await `start_quick_check(...).result()` before
    # it opens the agent.
    home, settings, choice = prepare(args, warm_up=_import_tui)
    from hermes_tui.app import HermesApp
    from hermes_tui.keymap_config import check_keymap

    check_keymap(settings.keymap)

    app = HermesApp(
        home=home, settings=settings, choice=choice, resume=args.resume, continue_title=getattr(args, "continue")
    )
    app.run()
    if app.startup_error:
        raise UsageError(app.startup_error)
    return int(app.return_code or 0)


def _dispatch(argv: list[str]) -> int:
    if argv[:1] == ["--version"] or argv == ["-V"]:
        print(f"hermes-tui {__version__}")
        return exit_codes.OK
    args = parse_args(argv)
    if args.version:
        print(f"hermes-tui {__version__}")
        return exit_codes.OK
    if args.command == "run":
        return _run_headless(args)
    if args.command in READ_COMMANDS:
        return _run_read_command(args)
    if args.command == "doctor":
        return _run_doctor(args)
    if args.command == REPLAY:
        return _run_replay(args)
    if args.command == COMPLETION:
        return _print_completion(args)
    return _launch_tui(args)


def main(argv: list[str] | None = None) -> int:
    from hermes_tui.home import ConfigError  # the same class config re-exports; no settings machinery here

    argv = sys.argv[1:] if argv is None else argv
    try:
        return _dispatch(argv)
    except (UsageError, ConfigError) as exc:
        print(f"hermes-tui: error: {exc}", file=sys.stderr)
        return exit_codes.USAGE
    except KeyboardInterrupt:
        print("hermes-tui: interrupted", file=sys.stderr)
        return exit_codes.INTERRUPTED
    finally:
        _stop_leftover_connections()


def _stop_leftover_connections() -> None:
    """A connection some path forgot to close must not keep the process alive at exit."""
    if "hermes_tui.store.connection" in sys.modules:
        sys.modules["hermes_tui.store.connection"].stop_leftover_connections()


if __name__ == "__main__":
    raise SystemExit(main())
