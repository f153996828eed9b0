"""A fork server for the kill storm: `hermes-tui` processes started without paying for imports.

Run as `python -m tests.crash.forkserver` from the repository root. It imports the CLI, the agent
and the OpenAI SDK once, then reads one JSON request per line on stdin —
`{"id", "argv", "cwd", "env", "stdout", "stderr"}` — and forks a child that runs exactly what the
`hermes-tui` console script runs, `hermes_tui.cli.main(argv)`, in `cwd` with `env`, stdin from
/dev/null and its output in the two files. It answers `{"id", "pid"}` when the child starts and
`{"pid", "code"}` when it ends (`code` as subprocess reports it: negative for a signal). The
children are real, separate processes: a test kills them with real signals. The server stays
single-threaded so forking is safe; it ends when stdin closes and its children have ended.
"""

from __future__ import annotations

import json
import os
import select
import sys
import traceback
from typing import Any


def _preload() -> None:
    import openai
    import openai.types.chat  # the SDK's lazy parts a streamed chat completion touches

    import hermes_tui.cli
    import hermes_tui.core.agent
    import hermes_tui.core.bootstrap
    import hermes_tui.core.providers.openai
    import hermes_tui.headless

    del hermes_tui, openai


def _child(request: dict[str, Any]) -> None:
    """In the forked child: become the requested `hermes-tui` run, then exit with its code."""
    code = 1
    try:
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        null = os.open(os.devnull, os.O_RDONLY)
        out = os.open(request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        err = os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        for source, target in ((null, 0), (out, 1), (err, 2)):
            os.dup2(source, target)
            os.close(source)
        from hermes_tui.cli import main

        code = main(request["argv"])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(code)


def _say(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _reap(children: set[int]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            children.clear()
            return
        if pid == 0:
            return
        children.discard(pid)
        _say({"pid": pid, "code": os.waitstatus_to_exitcode(status)})


def serve() -> None:
    _preload()
    _say({"ready": True})
    children: set[int] = set()
    pending = b""
    open_input = True
    while open_input or children:
        readable, _, _ = select.select([0] if open_input else [], [], [], 0.005)
        if readable:
            data = os.read(0, 65536)
            open_input = bool(data)
            pending += data
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            request = json.loads(line)
            sys.stdout.flush()
            pid = os.fork()
            if pid == 0:
                _child(request)
            children.add(pid)
            _say({"id": request["id"], "pid": pid})
        _reap(children)


if __name__ == "__main__":
    serve()
