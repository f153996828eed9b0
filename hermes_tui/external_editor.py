"""Editing a text in the user's own editor: which editor, and the round trip through a private temp file.

`editor_command(env)` is `$VISUAL`, else `$EDITOR` (split as a shell would: "code --wait" works),
else `vi` or `nano` when one is installed; None when there is none. `edit_in_editor(text, command)`
writes `text` to a new temporary file created 0600 (`tempfile.mkstemp`), runs the editor on it and
waiting for it to exit, reads the file back (at most `MAX_EDITED_BYTES`) and removes it. The text
comes back without the newline editors add at the end; a failure (the editor is missing, exits
non-zero, the file is unreadable) comes back as one line and the caller keeps its text. The
caller hands the terminal over (the TUI suspends itself around the call).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

FALLBACK_EDITORS = ("vi", "nano")
MAX_EDITED_BYTES = 8 * 1024 * 1024
NO_EDITOR = "No editor to open: set $VISUAL or $EDITOR (vi and nano are not installed either)."


def editor_command(env: Mapping[str, str] | None = None) -> list[str] | None:
    """The command that edits a file (the file's path is added after it), or None."""
    env = os.environ if env is None else env
    for variable in ("VISUAL", "EDITOR"):
        value = (env.get(variable) or "").strip()
        if value:
            try:
                words = shlex.split(value)
            except ValueError:
                words = value.split()
            if words:
                return words
    for name in FALLBACK_EDITORS:
        found = shutil.which(name)
        if found:
            return [found]
    return None


@dataclass(frozen=True)
class EditOutcome:
    """The edited text, or (text None) why there is none."""

    text: str | None
    problem: str = ""


def _without_final_newline(text: str) -> str:
    return text[:-1] if text.endswith("\n") else text


def edit_in_editor(text: str, command: Sequence[str], *, suffix: str = ".md") -> EditOutcome:
    """Let the user edit `text` with `command` (blocking until the editor exits)."""
    fd, path = tempfile.mkstemp(prefix="hermes-prompt-", suffix=suffix)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text + ("\n" if text and not text.endswith("\n") else ""))
        try:
            finished = subprocess.run([*command, path], check=False)
        except OSError as exc:
            return EditOutcome(None, f"The editor {command[0]} could not be started: {exc.strerror or exc}.")
        if finished.returncode != 0:
            return EditOutcome(
                None, f"The editor {command[0]} exited with {finished.returncode}; the prompt is unchanged."
            )
        with open(path, "rb") as handle:
            data = handle.read(MAX_EDITED_BYTES + 1)
        if len(data) > MAX_EDITED_BYTES:
            return EditOutcome(None, "The edited text is larger than 8 MB; the prompt is unchanged.")
        return EditOutcome(_without_final_newline(data.decode("utf-8", "replace").replace("\r\n", "\n")))
    except OSError as exc:
        return EditOutcome(None, f"The edited text could not be read back: {exc.strerror or exc}.")
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
