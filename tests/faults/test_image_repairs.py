"""Images a provider refuses, end to end through both real SDKs against the fake server.

A provider whose per-image limit is exceeded answers "image too large": the request's copy is sent
again with the image downscaled and re-encoded to fit (an image that cannot be decoded becomes a
short note). A model that takes no images answers so: the request goes again with a note in place
of each image. Either repair is made once, stays on for that provider, and never touches the
stored conversation.
"""

from __future__ import annotations

import base64
import io
import json
import random

import pytest
from PIL import Image

from hermes_tui.core import events as ev
from hermes_tui.core.agent import Agent
from hermes_tui.core.turn import images
from hermes_tui.store.db import SessionDB
from tests.core.helpers import EventLog
from tests.fake_llm import Fail, RejectImages, Reply, Step
from tests.fake_llm_steps import image_payloads
from tests.faults.helpers import BOTH, Harness, Run

TOO_LARGE = "messages.0.content.1.image.source.base64: image exceeds 5 MB maximum: 6291456 bytes > 5242880 bytes"


def too_large(limit: int) -> str:
    """The refusal of a provider whose per-image limit is `limit` base64 characters (it names the limit)."""
    return f"messages.0.content.1.image.source.base64: image exceeds the maximum: 5609272 bytes > {limit} bytes"


NO_VISION = {
    "openai": "Invalid content type. image_url is only supported by certain models; this one does not support images.",
    "anthropic": "messages.0.content.1: This model does not support image input.",
}


def noisy_png(width: int, height: int) -> str:
    """A data URL of a PNG that does not compress (random pixels): big in bytes, as photos are."""
    rng = random.Random(width * height)
    image = Image.frombytes("RGB", (width, height), rng.randbytes(width * height * 3))
    out = io.BytesIO()
    image.save(out, "PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


def decoded_size(payload: str) -> tuple[int, int]:
    with Image.open(io.BytesIO(base64.b64decode(payload))) as image:
        return image.size


async def agent_with_image(harness: Harness, protocol: str, url: str) -> tuple[Agent, SessionDB, EventLog]:
    """An agent resumed on a session whose history holds `url` as a user image."""
    agent, db, log = await harness.agent(protocol)
    sid = "20260101_000000_imgtst"
    await db.create_session(sid, source="cli")
    await db.append_message(
        sid, "user", [{"type": "text", "text": "Look at this."}, {"type": "image_url", "image_url": {"url": url}}]
    )
    await db.append_message(sid, "assistant", "I see it.")
    await agent.resume(sid)
    return agent, db, log


async def turn_with_image(harness: Harness, protocol: str, url: str, *steps: Step) -> Run:
    """One turn on a session holding `url` as an image, with `steps` scripted."""
    agent, db, log = await agent_with_image(harness, protocol, url)
    harness.server.enqueue(*steps)
    return await harness.turn(agent, db, log, "What is in it?")


def assert_answered(run: Run, text: str) -> None:
    """Answered with `text`: the turn's prompt and answer are the last two stored rows."""
    run.assert_no_crash()
    assert run.result.completed and not run.result.failed, (run.result.exit_reason, run.result.error)
    assert run.result.final_response == text
    assert [(row["role"], row["content"]) for row in run.stored[-2:]] == [("user", run.prompt), ("assistant", text)]


def stored_image(run: Run) -> str:
    return run.stored[0]["content"][1]["image_url"]["url"]


@pytest.mark.parametrize("protocol", BOTH)
async def test_an_image_over_the_providers_limit_is_shrunk_to_fit_and_the_turn_goes_on(
    harness: Harness, protocol: str
) -> None:
    original = noisy_png(1400, 1000)  # ~5.6 MB of base64
    limit = 1_000_000
    check = RejectImages(limit, too_large(limit), Reply(text="A grey blur."))
    run = await turn_with_image(harness, protocol, original, RejectImages(limit, too_large(limit)), check)
    assert_answered(run, "A grey blur.")
    assert len(run.requests) == 2
    sent_first, sent_again = (image_payloads(r.body) for r in run.requests)
    assert len(sent_first[0]) > limit and 0 < len(sent_again[0]) <= limit, "fits the limit the provider named"
    width, height = decoded_size(sent_again[0])
    assert width <= 1400 and abs(width / height - 1.4) < 0.02, "downscaled, aspect kept"
    assert any("shrinking the images" in entry.text for entry in run.log.of(ev.ReviewEntry))
    assert stored_image(run) == original, "the stored conversation keeps the original image"


@pytest.mark.parametrize("protocol", BOTH)
async def test_shrinking_is_sticky_for_the_provider_and_done_without_a_second_refusal(
    harness: Harness, protocol: str
) -> None:
    agent, db, log = await agent_with_image(harness, protocol, noisy_png(2400, 600))  # over the side limit too
    harness.server.enqueue(RejectImages(0, TOO_LARGE), Reply(text="Seen."))
    first = await harness.turn(agent, db, log, "What is in it?")
    assert_answered(first, "Seen.")
    harness.server.enqueue(Reply(text="Still seen."))
    later = await harness.turn(agent, db, log, "And now?")
    assert_answered(later, "Still seen.")
    assert len(later.requests) == 1, "no second refusal"
    (payload,) = image_payloads(later.requests[0].body)
    assert max(decoded_size(payload)) <= images.MAX_SIDE


@pytest.mark.parametrize("protocol", BOTH)
async def test_an_image_that_cannot_be_decoded_becomes_a_short_note(harness: Harness, protocol: str) -> None:
    broken = "data:image/png;base64," + base64.b64encode(b"\x89PNG not really" * 500_000).decode()
    run = await turn_with_image(harness, protocol, broken, RejectImages(1000, TOO_LARGE), Reply(text="No image."))
    assert_answered(run, "No image.")
    assert image_payloads(run.requests[1].body) == []
    assert images.UNDECODABLE_NOTE in json.dumps(run.requests[1].body)


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_model_without_vision_gets_a_note_in_place_of_each_image(harness: Harness, protocol: str) -> None:
    small = noisy_png(20, 20)
    refusal = RejectImages(0, NO_VISION[protocol])
    run = await turn_with_image(harness, protocol, small, refusal, Reply(text="I cannot see images."))
    assert_answered(run, "I cannot see images.")
    assert len(run.requests) == 2
    assert image_payloads(run.requests[0].body) and image_payloads(run.requests[1].body) == []
    assert images.NO_VISION_NOTE in json.dumps(run.requests[1].body)
    assert "Look at this." in json.dumps(run.requests[1].body), "the text around the image stays"
    assert any("does not accept them" in entry.text for entry in run.log.of(ev.ReviewEntry))
    assert stored_image(run) == small


@pytest.mark.parametrize("protocol", BOTH)
async def test_stripping_images_is_tried_once_then_the_error_takes_its_usual_course(
    harness: Harness, protocol: str
) -> None:
    refusal = Fail(400, NO_VISION[protocol])  # refuses every request, with or without images
    run = await turn_with_image(harness, protocol, noisy_png(20, 20), refusal, refusal, refusal)
    run.assert_no_crash()
    assert run.result.failed and "does not support image" in run.result.error
    assert run.result.error in run.warnings
    assert len(run.requests) == 2, "one repaired call, then the (non-retryable) error fails the turn"
