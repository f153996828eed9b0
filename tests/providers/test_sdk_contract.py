"""The parts of the OpenAI and Anthropic SDKs we use below their documented `create()`, pinned.

`core/providers/prebuilt_request.py` sends our own encoded body through each client's generic
`post(path, cast_to=, content=, options=, stream=, stream_cls=)` with `AsyncStream[object]`, and
OpenAI's per-request `security` option. Those are SDK internals a new major release may change,
so pyproject bounds both SDKs to the major we checked (`openai>=3.0,<4`, `anthropic>=2.0,<3`),
and these tests fail with a message that says what to re-check when an SDK moves on.
"""

from __future__ import annotations

import inspect
import tomllib
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

REPO_ROOT = Path(__file__).resolve().parents[2]
SDKS = ("openai", "anthropic")
RECHECK = (
    "— the {sdk} SDK changed what core/providers/prebuilt_request.py relies on: re-check `post` and "
    "AsyncStream against its changelog (and tests/providers/test_prebuilt_request.py), then move the "
    "bound in pyproject.toml"
)


def declared(sdk: str) -> Requirement:
    data = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found = [Requirement(line) for line in data["project"]["dependencies"] if Requirement(line).name == sdk]
    assert len(found) == 1, f"pyproject.toml must name {sdk} once"
    return found[0]


@pytest.mark.parametrize("sdk", SDKS)
def test_each_sdk_is_bounded_to_one_major_and_the_installed_one_is_inside(sdk: str) -> None:
    requirement = declared(sdk)
    uppers = [spec for spec in requirement.specifier if spec.operator == "<"]
    lowers = [spec for spec in requirement.specifier if spec.operator == ">="]
    assert len(uppers) == 1 and len(lowers) == 1, f"{requirement}: give one lower bound and one upper bound"
    lower, upper = Version(lowers[0].version), Version(uppers[0].version)
    assert upper == Version(f"{lower.major + 1}.0"), f"{requirement}: the upper bound must be the next major"
    installed = version(sdk)
    assert requirement.specifier.contains(installed), (
        f"{sdk} {installed} is installed but pyproject.toml says {requirement.specifier} " + RECHECK.format(sdk=sdk)
    )


def client_classes() -> dict[str, tuple[type, Any]]:
    import anthropic
    import openai

    return {
        "openai": (openai.AsyncOpenAI, openai.AsyncStream),
        "anthropic": (anthropic.AsyncAnthropic, anthropic.AsyncStream),
    }


@pytest.mark.parametrize("sdk", SDKS)
def test_the_generic_post_takes_the_arguments_we_call_it_with(sdk: str) -> None:
    client_class, stream_class = client_classes()[sdk]
    post = getattr(client_class, "post", None)
    assert callable(post), f"{client_class.__name__}.post is gone " + RECHECK.format(sdk=sdk)
    assert inspect.iscoroutinefunction(post), f"{client_class.__name__}.post is no longer async " + RECHECK.format(
        sdk=sdk
    )
    try:  # exactly the call prebuilt_request makes
        inspect.signature(post).bind(
            object(),
            "/v1/messages",
            cast_to=object,
            content=b"{}",
            options={"timeout": 30.0},
            stream=True,
            stream_cls=stream_class[object],
        )
    except TypeError as exc:
        pytest.fail(f"{client_class.__name__}.post({exc}) " + RECHECK.format(sdk=sdk))


def test_the_openai_request_options_still_take_the_security_key_we_pass() -> None:
    from openai._types import RequestOptions

    known = set(RequestOptions.__annotations__)
    assert {"timeout", "security"} <= known, f"openai RequestOptions has {sorted(known)} " + RECHECK.format(
        sdk="openai"
    )


def test_the_anthropic_request_options_still_take_a_timeout() -> None:
    from anthropic._types import RequestOptions

    known = set(RequestOptions.__annotations__)
    assert "timeout" in known, f"anthropic RequestOptions has {sorted(known)} " + RECHECK.format(sdk="anthropic")
