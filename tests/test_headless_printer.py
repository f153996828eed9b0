"""`hermes-tui run`'s printer: the answer on stdout is data; lines on stderr never split it when piped."""

from __future__ import annotations

import io

from hermes_tui.core import events as ev
from hermes_tui.headless import HeadlessPrinter


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _stream(printer: HeadlessPrinter) -> None:
    printer(ev.TextDelta("serv"))
    printer(ev.Warning("the model's window is not known: 128,000 tokens assumed"))  # a late background warning
    printer(ev.TextDelta("ed by the fake"))
    printer(ev.AssistantFinished("served by the fake", 0, "stop"))


def test_a_warning_mid_answer_adds_nothing_to_a_piped_answer() -> None:
    out, err = io.StringIO(), io.StringIO()
    _stream(HeadlessPrinter(out, err, stream_answer=True))
    assert out.getvalue() == "served by the fake\n"
    assert "window is not known" in err.getvalue()


def test_on_one_terminal_the_answer_line_ends_before_the_warning_shows() -> None:
    out, err = Terminal(), Terminal()
    _stream(HeadlessPrinter(out, err, stream_answer=True))
    assert out.getvalue() == "serv\ned by the fake\n"
    assert "window is not known" in err.getvalue()
