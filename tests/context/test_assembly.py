"""Phase 4: summary role selection and merge, END marker, tool-pair sanitising, historical media
(§4.2 phase 4, §11 cases 8, 9, 14)."""

from __future__ import annotations

import copy
import itertools

import pytest

from hermes_tui.core.context import SUMMARY_END_MARKER, ContextCompressor
from hermes_tui.core.context.assembly import assemble, sanitize_tool_pairs, strip_historical_media
from hermes_tui.core.context.markers import (
    HISTORICAL_IMAGE_PLACEHOLDER,
    MERGED_PRIOR_CONTEXT_HEADER,
    MERGED_SUMMARY_DELIMITER,
    MISSING_TOOL_RESULT_STUB,
    split_summary_message,
)
from hermes_tui.store.models import is_summary_text

from .helpers import RecordingSummarizer, assistant, call, result, roles, system, text_of, user

SUMMARY = "[CONTEXT COMPACTION — REFERENCE ONLY] header:\n## Active Task\nNone"
IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}


def no_adjacent_duplicates(messages: list[dict]) -> bool:
    names = roles(messages)
    return all(not (a == b and a in ("user", "assistant")) for a, b in itertools.pairwise(names))


class TestRoleSelection:
    def test_head_assistant_tail_assistant_gives_a_user_summary_with_end_marker(self) -> None:
        out = assemble([system(), user("q"), assistant("a")], SUMMARY, [assistant("next")])
        assert roles(out) == ["system", "user", "assistant", "user", "assistant"]
        assert out[3]["content"] == f"{SUMMARY}\n\n{SUMMARY_END_MARKER}"

    def test_head_user_gives_an_assistant_summary_with_end_marker_too(self) -> None:
        out = assemble([system(), user("q")], SUMMARY, [user("next")])
        assert roles(out) == ["system", "user", "assistant", "user"]
        assert out[2]["content"] == f"{SUMMARY}\n\n{SUMMARY_END_MARKER}"

    def test_head_tool_tail_user_flips_to_assistant(self) -> None:
        head = [system(), user("q"), assistant(None, call("c1", "todo")), result("c1", "ok")]
        out = assemble(head, SUMMARY, [user("next")])
        assert roles(out) == ["system", "user", "assistant", "tool", "assistant", "user"]

    def test_head_assistant_tail_user_merges_into_the_tail_in_hermes_form(self) -> None:
        out = assemble([system(), user("q"), assistant("a")], SUMMARY, [user("what now?"), assistant("x")])
        assert roles(out) == ["system", "user", "assistant", "user", "assistant"]
        merged = f"{MERGED_PRIOR_CONTEXT_HEADER}\nwhat now?\n\n{MERGED_SUMMARY_DELIMITER}"
        assert out[3]["content"] == f"{merged}\n\n{SUMMARY}\n\n{SUMMARY_END_MARKER}"
        assert is_summary_text(out[3]["content"])
        assert split_summary_message(out[3]["content"]) == ("## Active Task\nNone", "what now?")

    def test_head_user_tail_assistant_merges_into_the_tail(self) -> None:
        out = assemble([system(), user("q")], SUMMARY, [assistant("answer"), user("more")])
        assert roles(out) == ["system", "user", "assistant", "user"]
        assert text_of(out[2]).startswith(f"{MERGED_PRIOR_CONTEXT_HEADER}\nanswer\n\n{MERGED_SUMMARY_DELIMITER}")
        assert text_of(out[2]).endswith(SUMMARY_END_MARKER)

    def test_merge_into_list_content_wraps_the_parts(self) -> None:
        tail = [{"role": "user", "content": [{"type": "text", "text": "look"}, IMAGE]}]
        out = assemble([system(), user("q"), assistant("a")], SUMMARY, tail)
        parts = out[3]["content"]
        assert parts[0] == {"type": "text", "text": f"{MERGED_PRIOR_CONTEXT_HEADER}\n"}
        assert parts[1:3] == tail[0]["content"]
        closing = f"\n\n{MERGED_SUMMARY_DELIMITER}\n\n{SUMMARY}\n\n{SUMMARY_END_MARKER}"
        assert parts[3] == {"type": "text", "text": closing}

    def test_summary_right_after_the_system_prompt_is_a_user_message(self) -> None:
        out = assemble([system()], SUMMARY, [assistant("done"), user("and then?")])
        assert roles(out) == ["system", "user", "assistant", "user"]
        assert out[1]["content"] == f"{SUMMARY}\n\n{SUMMARY_END_MARKER}"

    def test_a_user_turn_survives_when_every_user_message_was_summarised(self) -> None:
        head = [assistant("starting"), assistant(None, call("c1", "todo")), result("c1", "ok")]
        out = assemble(head, SUMMARY, [assistant("still working")])
        assert "user" in roles(out)
        assert out[3] == {"role": "user", "content": f"{SUMMARY}\n\n{SUMMARY_END_MARKER}"}

    def test_no_user_in_head_or_tail_after_a_user_head_role_still_gives_a_user_turn(self) -> None:
        out = assemble([], SUMMARY, [assistant("only the agent talked since")])
        assert roles(out) == ["user", "assistant"]

    @pytest.mark.parametrize("head_last", ["user", "assistant", "tool"])
    @pytest.mark.parametrize("tail_first", ["user", "assistant", None])
    def test_no_adjacent_same_roles_in_any_combination(self, head_last: str, tail_first: str | None) -> None:
        head = {
            "user": [system(), user("q")],
            "assistant": [system(), user("q"), assistant("a")],
            "tool": [system(), user("q"), assistant(None, call("c1", "todo")), result("c1", "ok")],
        }[head_last]
        tail = {"user": [user("u")], "assistant": [assistant("a2"), user("u")], None: []}[tail_first]
        out = assemble(head, SUMMARY, tail)
        assert no_adjacent_duplicates(out)
        assert sum(SUMMARY in text_of(m) for m in out) == 1


class TestToolPairs:
    def test_orphan_results_are_dropped_and_missing_results_stubbed(self) -> None:
        messages = [
            system(),
            user("q"),
            result("gone", "orphan"),
            assistant(None, call("c1", "read_file", path="a"), call("c2", "read_file", path="b")),
            result("c2", "only b"),
            assistant("done"),
        ]
        out = sanitize_tool_pairs(messages)
        assert all(m.get("tool_call_id") != "gone" for m in out)
        stub = out[3]
        assert stub == {"role": "tool", "content": MISSING_TOOL_RESULT_STUB, "tool_call_id": "c1"}

    def test_call_id_is_matched_when_it_differs_from_id(self) -> None:
        responses_call = {
            "id": "fc_1",
            "call_id": "call_1",
            "type": "function",
            "function": {"name": "terminal", "arguments": "{}"},
        }
        messages = [user("q"), assistant(None, responses_call), result("call_1", "ok")]
        assert sanitize_tool_pairs(messages) == messages

    def test_assemble_pairs_head_and_tail_in_one_pass(self) -> None:
        # A result in the head and one in the tail whose calls were summarised away are dropped; a
        # tail call answered only by a result that sat in the middle gets a stub; the input is untouched.
        head = [system(), user("q"), result("summarised", "head orphan")]
        tail = [
            result("also-summarised", "tail orphan"),
            assistant(None, call("kept", "read_file", path="a"), call("lost", "terminal", command="ls")),
            result("kept", "a's text"),
            assistant("done"),
        ]
        before = copy.deepcopy((head, tail))
        out = assemble(head, SUMMARY, tail)
        ids = [m.get("tool_call_id") for m in out if m["role"] == "tool"]
        assert ids == ["lost", "kept"]  # the stub right after its call, then the real result
        assert out[out.index(tail[1]) + 1] == {
            "role": "tool",
            "content": MISSING_TOOL_RESULT_STUB,
            "tool_call_id": "lost",
        }
        assert out == sanitize_tool_pairs(out)  # nothing left to fix
        assert (head, tail) == before

    async def test_every_call_has_a_result_after_compression(self) -> None:
        messages = [system()]
        for i in range(15):
            messages += [
                user(f"ask {i}"),
                assistant(None, call(f"a{i}", "read_file", path=f"f{i}"), call(f"b{i}", "terminal", command="ls")),
                result(f"a{i}", "A" * 2_000),
                result(f"b{i}", '{"output": "x", "exit_code": 0}'),
                assistant(f"done {i}"),
            ]
        out = await ContextCompressor(200_000, summarize=RecordingSummarizer()).compress(messages)
        calls = {c["id"] for m in out if m["role"] == "assistant" for c in m.get("tool_calls") or []}
        answered = {m["tool_call_id"] for m in out if m["role"] == "tool"}
        assert calls == answered


class TestHistoricalMedia:
    def conversation(self) -> list[dict]:
        return [
            system(),
            {"role": "user", "content": [{"type": "text", "text": "first"}, IMAGE]},
            {"role": "assistant", "content": [{"type": "text", "text": "seen"}, IMAGE]},
            {"role": "tool", "tool_call_id": "t", "content": [IMAGE]},
            {"role": "user", "content": [{"type": "text", "text": "newest"}, IMAGE]},
            assistant("ok"),
        ]

    def test_only_the_newest_user_image_survives(self) -> None:
        messages = self.conversation()
        snapshot = copy.deepcopy(messages)
        out = strip_historical_media(messages)
        placeholder = {"type": "text", "text": HISTORICAL_IMAGE_PLACEHOLDER}
        assert out[1]["content"] == [{"type": "text", "text": "first"}, placeholder]
        assert out[2]["content"][1] == placeholder
        assert out[3]["content"] == [placeholder]
        assert out[4]["content"][1] == IMAGE
        assert messages == snapshot
        assert strip_historical_media(out) == out  # idempotent

    def test_text_only_newest_user_still_strips_older_images(self) -> None:
        messages = [*self.conversation()[:5], assistant("ok"), user("no picture this time")]
        out = strip_historical_media(messages)
        assert out[1]["content"][1]["text"] == HISTORICAL_IMAGE_PLACEHOLDER
        assert out[4]["content"][1] == IMAGE  # the newest image-bearing user message is the anchor

    def test_no_op_without_user_images_or_anchor_at_zero(self) -> None:
        messages = [{"role": "assistant", "content": [IMAGE]}, user("text")]
        assert strip_historical_media(messages) == messages
        at_zero = [{"role": "user", "content": [IMAGE]}, assistant("a")]
        assert strip_historical_media(at_zero) == at_zero
