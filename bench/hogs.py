"""Run a command next to N processes that keep the CPU busy: the test suite on a loaded machine.

    python -m bench.hogs N -- COMMAND [ARG ...]       e.g. python -m bench.hogs 14 -- make test

Each hog is a child Python process spinning in a loop (at normal priority, so it competes with the
command for the cores). The command runs once all hogs have started; when it ends, or on Ctrl-C or
SIGTERM, the command and every hog are stopped (only the processes started here, by their ids).
Before and after, one line on stderr gives the cores, the load average and the wall time. The exit
status is the command's.
On a 2-core machine, 14 hogs bring the load average to about 15 within a minute.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time

SPIN = "while True:\n    pass\n"


def start_hogs(count: int) -> list[subprocess.Popen[bytes]]:
    """`count` busy child processes, each in its own session so a Ctrl-C reaches only the command."""
    return [
        subprocess.Popen([sys.executable, "-c", SPIN], stdin=subprocess.DEVNULL, start_new_session=True)
        for _ in range(count)
    ]


def stop_hogs(hogs: list[subprocess.Popen[bytes]]) -> None:
    for hog in hogs:
        if hog.poll() is None:
            hog.kill()
    for hog in hogs:
        hog.wait()


def load_line(label: str) -> str:
    one, five, fifteen = os.getloadavg()
    return f"hogs: {label} — {os.cpu_count()} cores, load average {one:.1f} {five:.1f} {fifteen:.1f}"


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.hogs", description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int, help="how many busy processes to start (0: none)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command to run")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if args.count < 0:
        parser.error(f"the number of hogs must be 0 or more, got {args.count}")
    if not command:
        parser.error("give the command to run after --, e.g. python -m bench.hogs 14 -- make test")
    args.command = command
    return args


class Stopped(Exception):
    """SIGTERM (or SIGHUP) arrived: stop the command and the hogs as Ctrl-C does."""


def _stop(signum: int, _frame: object) -> None:
    raise Stopped(signum)


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _stop)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even when started in the background
    hogs = start_hogs(args.count)
    started = time.monotonic()
    print(load_line(f"{len(hogs)} started"), file=sys.stderr, flush=True)
    code = 128 + signal.SIGINT  # unless the command ends by itself
    command: subprocess.Popen[bytes] | None = None
    try:
        command = subprocess.Popen(args.command)
        code = command.wait()
    except FileNotFoundError:
        print(f"hogs: no such command: {args.command[0]}", file=sys.stderr)
        code = 127
    except (KeyboardInterrupt, Stopped) as stop:
        code = 128 + (stop.args[0] if isinstance(stop, Stopped) else signal.SIGINT)
    finally:
        if command is not None and command.poll() is None:
            command.terminate()
            try:
                command.wait(timeout=10)
            except subprocess.TimeoutExpired:
                command.kill()
                command.wait()
        print(load_line(f"exit {code} after {time.monotonic() - started:.0f} s"), file=sys.stderr, flush=True)
        stop_hogs(hogs)
    return code


if __name__ == "__main__":
    sys.exit(main())
