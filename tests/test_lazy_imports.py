"""Imports kept off the event loop: a module another thread is still importing does not count as
imported, and `import_off_loop` waits for such an import in a thread while the loop goes on."""

from __future__ import annotations

import asyncio
import importlib
import sys
import threading
import types
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_tui.lazy_imports import import_off_loop, module_imported
from tests.waits import HANG_GUARD_S

GATE = "hermes_lazy_import_gate"


@pytest.fixture
def slow_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, types.ModuleType]]:
    """A module whose code holds its import until the test opens the gate."""
    name = f"slow_module_{uuid.uuid4().hex}"
    (tmp_path / f"{name}.py").write_text(
        f"import {GATE} as gate\ngate.entered.set()\ngate.release.wait({HANG_GUARD_S})\nDONE = True\n"
    )
    gate = types.ModuleType(GATE)
    gate.entered, gate.release = threading.Event(), threading.Event()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, GATE, gate)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        yield name, gate
    finally:
        gate.release.set()  # type: ignore[attr-defined]
        sys.modules.pop(name, None)


def _import_in_a_thread(name: str) -> threading.Thread:
    thread = threading.Thread(target=importlib.import_module, args=(name,), daemon=True)
    thread.start()
    return thread


def test_a_module_still_being_imported_by_another_thread_does_not_count(
    slow_module: tuple[str, types.ModuleType],
) -> None:
    name, gate = slow_module
    thread = _import_in_a_thread(name)
    assert gate.entered.wait(HANG_GUARD_S)  # type: ignore[attr-defined]
    assert name in sys.modules and not module_imported(name)
    gate.release.set()  # type: ignore[attr-defined]
    thread.join(HANG_GUARD_S)
    assert module_imported(name) and sys.modules[name].DONE


async def test_import_off_loop_waits_for_another_threads_import_while_the_loop_runs(
    slow_module: tuple[str, types.ModuleType],
) -> None:
    name, gate = slow_module
    thread = _import_in_a_thread(name)
    assert await asyncio.to_thread(gate.entered.wait, HANG_GUARD_S)  # type: ignore[attr-defined]
    waiting = asyncio.ensure_future(import_off_loop(name))
    for _ in range(50):  # loop passes, not time: the loop is free while the import is held
        await asyncio.sleep(0)
    assert not waiting.done()
    gate.release.set()  # type: ignore[attr-defined]
    await asyncio.wait_for(waiting, HANG_GUARD_S)
    assert module_imported(name) and sys.modules[name].DONE
    thread.join(HANG_GUARD_S)


def test_an_imported_module_needs_no_thread_and_no_loop_pass() -> None:
    assert module_imported("json")
    done = import_off_loop("json")
    with pytest.raises(StopIteration):  # finished at its first step: nothing was awaited
        done.send(None)
    assert not module_imported(f"never_imported_{uuid.uuid4().hex}")
