"""Every collaborator a turn is given implements the whole of its protocol.

A missing method only shows up when a turn reaches it (the review fork once lacked the meter's
`prepare`, so every review failed on its first step), so this checks all of them up front: the live
agent's session, meter and compression, and the review fork's stand-ins.
"""

from __future__ import annotations

import inspect

import pytest

from hermes_tui.core.review.fork import ForkMeter, ForkSession, NoCompaction
from hermes_tui.core.session.compression import CompressionOrchestrator
from hermes_tui.core.session.live import LiveSession
from hermes_tui.core.session.meter import ContextMeter
from hermes_tui.core.turn.deps import Compaction, Meter, TurnSession


def protocol_members(protocol: type) -> set[str]:
    names = set(getattr(protocol, "__annotations__", {}))
    for name, value in vars(protocol).items():
        if not name.startswith("_") and (callable(value) or isinstance(value, property)):
            names.add(name)
    return names


@pytest.mark.parametrize(
    ("protocol", "implementation"),
    [
        (TurnSession, LiveSession),
        (TurnSession, ForkSession),
        (Meter, ContextMeter),
        (Meter, ForkMeter),
        (Compaction, CompressionOrchestrator),
        (Compaction, NoCompaction),
    ],
    ids=lambda value: value.__name__,
)
def test_the_implementation_has_every_member_of_the_protocol(protocol: type, implementation: type) -> None:
    members = protocol_members(protocol)
    assert members, f"{protocol.__name__} names no members"
    init_source = inspect.getsource(implementation.__init__) if "__init__" in vars(implementation) else ""
    missing = [
        name for name in sorted(members) if not hasattr(implementation, name) and f"self.{name}" not in init_source
    ]
    assert missing == [], f"{implementation.__name__} lacks {missing} of {protocol.__name__}"


@pytest.mark.parametrize(
    ("protocol", "implementation"),
    [(TurnSession, ForkSession), (Meter, ForkMeter), (Compaction, NoCompaction)],
    ids=lambda value: value.__name__,
)
def test_the_forks_async_methods_are_coroutines_where_the_protocol_awaits(protocol: type, implementation: type) -> None:
    for name, value in vars(protocol).items():
        if inspect.iscoroutinefunction(value):
            assert inspect.iscoroutinefunction(getattr(implementation, name)), f"{implementation.__name__}.{name}"
