"""/context: what fills the context window — by category, as Hermes's breakdown does, and by message.

Categories (every figure with the counter the gauge's estimate uses, `core/context/tokens.py`:
(characters + 3) // 4 of the prompt, of the tool schemas' repr, of each message's repr):
system prompt (identity, guidance, environment — what the parts below leave), tool schemas (MCP
tools apart, `mcp_` names), rules (the project's context file), skills (the skills index),
memory (MEMORY.md / USER.md and a memory provider's block), personality (/personality's overlay),
conversation (the messages), and free (the window less what the gauge shows used: the
provider's reported prompt size when there is one, else the estimate). The parts of the prompt
are found in the cached prompt text itself, so they add up to what is really sent.

By message: the heaviest messages and tool results, each with its position in Agent.messages
(the UI jumps there), role, tool name, tokens, a preview, whether it is pinned, and its reference
as /history counts turns: "#12" is turn 12's user message, "#12.3" the third message after it
("#0.N" comes before the first user message). /pin and /unpin take these references
(`parse_ref`). `build_report` is pure; `await context_report(agent)` reads the live agent.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hermes_tui.core.context.constants import ROUGH_IMAGE_PART_TOKENS
from hermes_tui.core.context.pins import is_pinned
from hermes_tui.core.context.tokens import estimate_messages_tokens_rough, estimate_tokens_rough, message_rough_chars
from hermes_tui.core.events import ContextBudget
from hermes_tui.core.memory.store import MEMORY_HEADING, RULE, USER_HEADING
from hermes_tui.core.messages import Message, content_text
from hermes_tui.core.prompt import SKILLS_INDEX_INTRO, SKILLS_INDEX_OUTRO

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent

DEFAULT_TOP = 10
PREVIEW_CHARS = 80
MCP_PREFIX = "mcp_"
_VOLATILE_START = "\n\nConversation started: "
_RULES_START = "\n\n# Project context"
_MEMORY_STARTS = (f"{RULE}\n{MEMORY_HEADING}", f"{RULE}\n{USER_HEADING}")

LABELS = {
    "system_prompt": "System prompt",
    "tool_schemas": "Tool schemas",
    "mcp_tools": "MCP tools",
    "rules": "Rules (project context)",
    "skills": "Skills index",
    "memory": "Memory",
    "personality": "Personality",
    "conversation": "Conversation",
    "free": "Free",
}


@dataclass(frozen=True)
class Category:
    key: str  # one of LABELS
    tokens: int

    @property
    def label(self) -> str:
        return LABELS[self.key]


@dataclass(frozen=True)
class MessageWeight:
    """One message as /context lists it."""

    index: int  # position in Agent.messages
    role: str
    tool_name: str  # the tool a result answers, or the tools an assistant message calls ("" otherwise)
    tokens: int
    preview: str
    pinned: bool
    turn: int  # the user turn it belongs to (0: before the first user message)
    position: int  # 0 for the turn's user message, N for the Nth message after it
    message_id: int | None  # its state.db row, when stored

    @property
    def ref(self) -> str:
        return f"#{self.turn}" if self.position == 0 else f"#{self.turn}.{self.position}"


@dataclass(frozen=True)
class ContextReport:
    categories: tuple[Category, ...]  # the used ones, then "free"
    context_length: int
    used_tokens: int  # what the gauge shows
    estimated_tokens: int  # the categories' sum
    reported: bool  # used_tokens is the provider's figure (else the estimate)
    threshold_tokens: int
    message_count: int
    heaviest: tuple[MessageWeight, ...]
    pinned: tuple[MessageWeight, ...]
    prompt_built: bool = True  # False: no turn yet, the prompt shown is the one the first turn will build

    def tokens_of(self, key: str) -> int:
        return next((c.tokens for c in self.categories if c.key == key), 0)


# --------------------------------------------------------------------------- the prompt's parts


def _span(text: str, start: int, end: int) -> str:
    return text[start:end] if 0 <= start < end else ""


def prompt_parts(prompt: str, overlay: str = "") -> dict[str, str]:
    """The cached prompt cut into rules, skills, memory, personality and the rest ("system_prompt")."""
    rest = prompt
    personality = ""
    if overlay and prompt.endswith(overlay):
        personality, rest = overlay, prompt[: len(prompt) - len(overlay)].rstrip("\n")
    volatile = rest.rfind(_VOLATILE_START)
    volatile = volatile if volatile >= 0 else len(rest)
    starts = [at for marker in _MEMORY_STARTS if 0 <= (at := rest.find(marker)) < volatile]
    memory_at = min(starts) if starts else volatile
    rules_at = rest.find(_RULES_START)
    rules = _span(rest, rules_at + 2, memory_at) if 0 <= rules_at < memory_at else ""
    memory = _span(rest, memory_at, volatile)
    skills_at = rest.find(SKILLS_INDEX_INTRO)
    skills_end = rest.find(SKILLS_INDEX_OUTRO, skills_at) if skills_at >= 0 else -1
    skills = _span(rest, skills_at, skills_end + len(SKILLS_INDEX_OUTRO)) if skills_end >= 0 else ""
    return {"rules": rules, "skills": skills, "memory": memory, "personality": personality}


def _prompt_categories(prompt: str, overlay: str) -> list[Category]:
    """The prompt's categories; "system_prompt" takes what the others leave, so they sum to its size."""
    total = estimate_tokens_rough(prompt)
    parts = {key: estimate_tokens_rough(text) for key, text in prompt_parts(prompt, overlay).items()}
    rest = max(0, total - sum(parts.values()))
    return [Category("system_prompt", rest), *(Category(key, tokens) for key, tokens in parts.items())]


def _tool_name(schema: Any) -> str:
    if not isinstance(schema, dict):
        return ""
    function = schema.get("function")
    return str((function if isinstance(function, dict) else schema).get("name") or "")


def _tool_categories(schemas: Sequence[Any]) -> list[Category]:
    total = estimate_tokens_rough(str(list(schemas))) if schemas else 0
    mcp = [s for s in schemas if _tool_name(s).startswith(MCP_PREFIX)]
    mcp_tokens = estimate_tokens_rough(str(mcp)) if mcp else 0
    return [Category("tool_schemas", max(0, total - mcp_tokens)), Category("mcp_tools", min(mcp_tokens, total))]


# --------------------------------------------------------------------------- messages


def message_tokens(message: Message) -> int:
    """One message's size by the gauge's counter."""
    chars, images = message_rough_chars(message)
    return (chars + 3) // 4 + images * ROUGH_IMAGE_PART_TOKENS


def turn_positions(messages: Sequence[Message]) -> list[tuple[int, int]]:
    """(turn, position) of every message, as `MessageWeight.ref` numbers them."""
    turn, position, out = 0, 0, []
    for message in messages:
        if message.get("role") == "user":
            turn, position = turn + 1, 0
        else:
            position += 1
        out.append((turn, position))
    return out


def _call_names(messages: Sequence[Message]) -> dict[str, str]:
    names: dict[str, str] = {}
    for message in messages:
        for call in message.get("tool_calls") or ():
            if isinstance(call, dict):
                function = call.get("function") or {}
                names[str(call.get("id") or "")] = str(function.get("name") or "")
    return names


def _tool_label(message: Message, names: dict[str, str]) -> str:
    if message.get("role") == "tool":
        return str(message.get("tool_name") or names.get(str(message.get("tool_call_id") or ""), ""))
    calls = [
        str((c.get("function") or {}).get("name") or "") for c in message.get("tool_calls") or () if isinstance(c, dict)
    ]
    return ", ".join(name for name in calls if name)


def _preview(message: Message) -> str:
    text = " ".join(content_text(message.get("content")).split())
    if not text and message.get("tool_calls"):
        call = message["tool_calls"][0]
        arguments = (call.get("function") or {}).get("arguments") if isinstance(call, dict) else ""
        text = " ".join(str(arguments or "").split())
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"


def weigh_messages(messages: Sequence[Message]) -> list[MessageWeight]:
    """Every message as /context lists it, in order."""
    names = _call_names(messages)
    weights = []
    for index, (message, (turn, position)) in enumerate(zip(messages, turn_positions(messages), strict=True)):
        row = message.get("_db_id")
        weights.append(
            MessageWeight(
                index=index,
                role=str(message.get("role") or "?"),
                tool_name=_tool_label(message, names),
                tokens=message_tokens(message),
                preview=_preview(message),
                pinned=is_pinned(message),
                turn=turn,
                position=position,
                message_id=row if isinstance(row, int) and not isinstance(row, bool) else None,
            )
        )
    return weights


def parse_ref(ref: str, messages: Sequence[Message]) -> int:
    """The position in `messages` of a reference ("12", "#12", "#12.3"); ValueError says why not."""
    text = ref.strip().lstrip("#")
    turn_text, _, position_text = text.partition(".")
    if not turn_text.isdigit() or (position_text and not position_text.isdigit()):
        raise ValueError(f"'{ref}' is not a message reference: give #N (turn N's message) or #N.M, as /context lists")
    wanted = (int(turn_text), int(position_text or 0))
    for index, place in enumerate(turn_positions(messages)):
        if place == wanted:
            return index
    raise ValueError(f"there is no message {ref.strip()} in this session — /context lists the references")


# --------------------------------------------------------------------------- the report


def build_report(
    messages: Sequence[Message],
    system_prompt: str,
    tool_schemas: Sequence[Any],
    budget: ContextBudget,
    *,
    conversation_tokens: int | None = None,
    overlay: str = "",
    top: int = DEFAULT_TOP,
    prompt_built: bool = True,
) -> ContextReport:
    """The report for a message list, its prompt and tools, against the gauge's `budget`.

    `conversation_tokens` is the ledger's total when the caller has it (the same value as measuring
    `messages` at once)."""
    weights = weigh_messages(messages)
    if conversation_tokens is None:
        conversation_tokens = estimate_messages_tokens_rough(messages)
    used = [*_prompt_categories(system_prompt, overlay), *_tool_categories(tool_schemas)]
    used.append(Category("conversation", conversation_tokens))
    estimated = sum(c.tokens for c in used)
    shown = budget.shown_tokens if prompt_built else estimated
    free = Category("free", max(0, budget.context_length - shown))
    heaviest = sorted(weights, key=lambda w: (-w.tokens, w.index))[: max(0, top)]
    return ContextReport(
        categories=(*(c for c in used if c.tokens > 0), free),
        context_length=budget.context_length,
        used_tokens=shown,
        estimated_tokens=estimated,
        reported=prompt_built and not budget.is_estimate,
        threshold_tokens=budget.threshold_tokens,
        message_count=len(messages),
        heaviest=tuple(heaviest),
        pinned=tuple(w for w in weights if w.pinned),
        prompt_built=prompt_built,
    )


async def context_report(agent: Agent, top: int = DEFAULT_TOP) -> ContextReport:
    """The live agent's report: its messages, cached prompt (a resumed session's stored one, or for a
    session without messages the one its first turn will build), tools."""
    session = agent.session
    if session.system_prompt is None and session.messages:
        await session.prompt()  # a resumed session's prompt, read back from its row (what the next turn sends)
    prompt = session.system_prompt
    built = prompt is not None
    if prompt is None:
        overlay = session.prompt_overlay
        prompt = session.rebuild_prompt() + (f"\n\n{overlay}" if overlay else "")
    messages = session.messages
    return build_report(
        messages,
        prompt,
        agent.tool_schemas,
        agent.budget(),
        conversation_tokens=agent.meter.ledger.rough_messages_tokens(messages),
        overlay=session.prompt_overlay,
        top=top,
        prompt_built=built,
    )


# --------------------------------------------------------------------------- headless text


def _percent(tokens: int, window: int) -> str:
    return f"{tokens * 100 / window:.1f}%" if window else "—"


def weight_line(weight: MessageWeight) -> str:
    who = weight.role + (f" {weight.tool_name}" if weight.tool_name else "")
    pin = "  📌" if weight.pinned else ""
    return (
        f"  {weight.ref:<8} {who[:28]:<28} {weight.tokens:>8,}  {json.dumps(weight.preview, ensure_ascii=False)}{pin}"
    )


def report_text(report: ContextReport) -> str:
    """The report as plain lines (what /context prints headless)."""
    how = "reported by the provider" if report.reported else "estimated"
    window = report.context_length
    lines = [
        f"Context: ~{report.used_tokens:,} of {window:,} tokens ({_percent(report.used_tokens, window)}, {how});"
        f" compression at {report.threshold_tokens:,}",
    ]
    if report.reported and report.estimated_tokens != report.used_tokens:
        lines.append(f"  (the categories below are estimates; together ~{report.estimated_tokens:,})")
    if not report.prompt_built:
        lines.append("  (no message yet: the system prompt shown is the one the first message will build)")
    width = max(len(c.label) for c in report.categories)
    for category in report.categories:
        lines.append(f"  {category.label:<{width}}  {category.tokens:>9,}  {_percent(category.tokens, window):>6}")
    if report.heaviest:
        lines.append(f"Heaviest of {report.message_count} messages (/pin REF keeps one through the next compression):")
        lines.extend(weight_line(w) for w in report.heaviest)
    if report.pinned:
        lines.append(f"Pinned ({len(report.pinned)}), kept verbatim by the next compression:")
        lines.extend(weight_line(w) for w in report.pinned)
    return "\n".join(lines)
