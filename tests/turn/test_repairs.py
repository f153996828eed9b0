"""The one-shot repairs on their own: what each changes in the conversation or the tool schemas."""

from __future__ import annotations

import base64
import io

from PIL import Image

from hermes_tui.core.providers.anthropic_wire import to_anthropic
from hermes_tui.core.turn import images, repairs

BIG = "data:image/png;base64," + "A" * (8 * 1024 * 1024)
SMALL = "data:image/png;base64,iVBORw0KGgo="


def image(url: str) -> dict:
    return {"type": "image_url", "image_url": {"url": url}}


def test_oversized_images_are_dropped_with_a_note_and_the_rest_kept() -> None:
    messages = [{"role": "user", "content": [{"type": "text", "text": "look"}, image(BIG), image(SMALL)]}]
    assert repairs.shrink_images(messages) == 1
    parts = messages[0]["content"]
    assert parts[0]["text"] == "look" and parts[1]["text"] == repairs.IMAGE_DROPPED and parts[2] == image(SMALL)


def png_url(width: int, height: int, mode: str = "RGB") -> str:
    out = io.BytesIO()
    Image.new(mode, (width, height), (200, 30, 30, 128) if mode == "RGBA" else (200, 30, 30)).save(out, "PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


def size_of(url: str) -> tuple[int, int]:
    with Image.open(io.BytesIO(base64.b64decode(url.partition(",")[2]))) as opened:
        return opened.size


def test_an_image_over_the_side_limit_is_downscaled_and_one_within_the_limits_kept() -> None:
    wide, small = png_url(3000, 300), png_url(40, 40)
    messages = [{"role": "user", "content": [image(wide), image(small)]}]
    assert repairs.shrink_images(messages) == 1
    shrunk = messages[0]["content"][0]["image_url"]["url"]
    assert size_of(shrunk) == (images.MAX_SIDE, 200) and shrunk.startswith("data:image/jpeg;base64,")
    assert messages[0]["content"][1] == image(small)


def test_transparency_keeps_png_and_anthropic_shaped_parts_keep_their_shape() -> None:
    url = png_url(2500, 2500, "RGBA")
    payload = url.partition(",")[2]
    part = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": payload}}
    messages = [{"role": "user", "content": [part]}]
    assert repairs.shrink_images(messages) == 1
    source = messages[0]["content"][0]["source"]
    assert source["type"] == "base64" and source["media_type"] == "image/png"
    assert size_of("x," + source["data"]) == (images.MAX_SIDE, images.MAX_SIDE)
    assert part["source"]["data"] == payload, "the original part is not mutated"


def test_the_limit_a_refusal_names_is_read() -> None:
    assert images.limit_from_error("image exceeds 5 MB maximum: 6291456 bytes > 5242880 bytes") == 5_242_880
    assert images.limit_from_error("Image too large: exceeds 3.75 MB") == int(3.75 * 1024 * 1024)
    assert images.limit_from_error("image too large") is None


def test_images_are_stripped_for_a_model_without_vision_and_the_phrases_recognised() -> None:
    messages = [{"role": "user", "content": [{"type": "text", "text": "look"}, image(SMALL)]}]
    assert repairs.strip_images(messages) == 1
    assert messages[0]["content"] == [{"type": "text", "text": "look"}, {"type": "text", "text": images.NO_VISION_NOTE}]
    assert images.rejects_images("Error: model does not support images")
    assert images.rejects_images("unknown variant `image_url`, expected `text` at line 1")
    assert not images.rejects_images("image exceeds 5 MB maximum")


def test_tool_results_become_text_and_images_are_noted() -> None:
    messages = [
        {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "shot:"}, image(SMALL)]},
        {"role": "tool", "tool_call_id": "c2", "content": "plain"},
    ]
    assert repairs.text_tool_results(messages) == 1
    assert messages[0]["content"] == "shot:\n[image]" and messages[1]["content"] == "plain"


def test_replayed_reasoning_is_stripped_everywhere_and_the_text_kept() -> None:
    detail = [{"type": "thinking", "thinking": "x", "signature": "sig"}]
    messages = [
        {"role": "assistant", "content": "a", "reasoning": "x", "reasoning_details": detail},
        {"role": "user", "content": "b"},
    ]
    assert repairs.strip_reasoning(messages) == 1
    assert messages[0] == {"role": "assistant", "content": "a", "reasoning": "x"}


def test_schema_patterns_go_but_properties_named_pattern_stay() -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "t",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "pattern": {"type": "string", "pattern": "^\\d+$"},
                        "when": {"type": "string", "format": "date-time"},
                    },
                },
            },
        }
    ]
    stripped, removed = repairs.strip_schema_patterns(tools)
    properties = stripped[0]["function"]["parameters"]["properties"]
    assert removed == 2 and properties == {"pattern": {"type": "string"}, "when": {"type": "string"}}
    assert tools[0]["function"]["parameters"]["properties"]["when"]["format"] == "date-time", "input untouched"


def test_signed_thinking_is_replayed_first_and_thinking_only_turns_are_dropped() -> None:
    signed = [{"type": "thinking", "thinking": "y", "signature": "t"}]
    payload = to_anthropic(
        [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "", "reasoning_details": signed},
            {
                "role": "assistant",
                "content": "ok",
                "reasoning_details": [*signed, {"type": "thinking", "thinking": "z"}],
            },
        ]
    )
    assert payload.messages[1] == {"role": "assistant", "content": [*signed, {"type": "text", "text": "ok"}]}
    assert len(payload.messages) == 2
