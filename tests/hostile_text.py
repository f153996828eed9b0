"""Hostile text for tests: escape sequences a model, a tool or a file could send, and how to spot them.

`HOSTILE` packs what the hardening issue saw reach a terminal: a window-title OSC, leaving the
alternate screen, a full reset, an OSC 52 clipboard write, an 8-bit (C1) CSI, a bidi override, an
erase-line, a carriage return and a bell. `live_characters` lists any character of those kinds left
raw in some output; `LIVE_BYTES` does the same for captured process output.
"""

from __future__ import annotations

import re

HOSTILE = (
    "\x1b]0;pwned-title\x07"  # set the window title
    "\x1b[?1049l"  # leave the alternate screen
    "\x1bc"  # full reset
    "\x1b]52;c;cm0gLXJmIH4=\x07"  # write "rm -rf ~" to the clipboard
    "\x9b2J"  # 8-bit CSI: erase the screen
    "\u202eevil\u202c"  # right-to-left override
    "\x1b[2K\rok\x08"  # erase the line, carriage return, backspace
)
# How the OSC 52 write looks once made visible.
SHOWN_CLIPBOARD = "\\x1b]52;c;cm0gLXJmIH4=\\x07"
SHOWN_TITLE = "\\x1b]0;pwned-title\\x07"

_LIVE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
# The same as UTF-8 bytes: C0 (not tab/newline), DEL, C1 (encoded \xc2\x80-\xc2\x9f), bidi controls.
LIVE_BYTES = re.compile(
    rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xd8\x9c|\xe2\x80[\x8e\x8f\xaa-\xae]|\xe2\x81[\xa6-\xa9]"
)


def live_characters(text: str) -> list[str]:
    """The characters in `text` a terminal would act on (newline and tab excepted)."""
    return _LIVE.findall(text)
