"""`SearchScreen`: find any message of any session, as you type; Enter opens it in the conversation.

The box takes words, "phrases", OR/NOT and the filters `role:`, `source:`, `since:`, `until:`
(`hermes_tui.search_query`). Each change is searched after a short pause, in a worker, one search
at a time: a newer line interrupts the search in flight (its answer is dropped) and runs next.
Results come one row per lineage (`SessionDB.search_lineages`): its title (the compression tip's),
how many matches it has and in how many sessions, and the newest match with the matched words
highlighted. The lower list shows the highlighted lineage's newest matches. Everything shown is
untrusted text: it is passed through `visible` and built as `Text`, never as markup.

Keys: typing edits the query; ↓/↑ move through the lineages; Tab reaches the matches list; Enter
opens the highlighted match (in the box or the lineage list: the lineage's newest); Esc closes.
The screen is dismissed with a `SearchChoice` (session id, message id) or None.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from hermes_tui.core.search_query import SearchRequest, marked_pieces, parse_search
from hermes_tui.store.search_lineages import STOP_CAP, STOP_TIME, LineageHit, LineageResult, LineageSearchOptions
from hermes_tui.text_safety import visible
from hermes_tui.widgets.formatting import format_age, short_session_id

if TYPE_CHECKING:
    from hermes_tui.store.db import SessionDB

DEBOUNCE_S = 0.015
MAX_LINEAGES = 30  # two screens of rows: each row is laid out when the list is filled
SCAN_BUDGET_S = 0.04  # a slow scan (a 1-2 character CJK word walks the table) stops here with what it found
MATCH_STYLE = "bold reverse"
META_STYLE = "dim"
PLACEHOLDER = 'Search every session: words, "a phrase", OR, NOT — role:user source:cli since:7d until:2026-11-26'
HINT = "↓↑ lineages · Tab matches · Enter opens the match · Esc closes"


@dataclass(frozen=True)
class SearchChoice:
    """The message the user chose to open."""

    session_id: str
    message_id: int
    role: str
    text: str  # the snippet, without marks (to recognise a copy of the message under another id)


def highlighted(snippet: str) -> Text:
    """A snippet with its matched words styled; every piece made safe for the terminal."""
    text = Text(no_wrap=True, overflow="ellipsis")
    for piece, matched in marked_pieces(snippet):
        text.append(visible(piece), MATCH_STYLE if matched else "")
    return text


def _age(then: float, now: float) -> str:
    age = format_age(now - then)
    return age if age == "now" else f"{age} ago"


def lineage_prompt(row: LineageResult, now: float) -> Text:
    """Two lines: the lineage's title and counts; its newest match."""
    title = visible(row.title) if row.title else f"(untitled) {short_session_id(row.tip_id)}"
    matches = f"{row.hit_count} match{'es' if row.hit_count != 1 else ''}"
    sessions = f" in {row.session_count} sessions" if row.session_count > 1 else ""
    head = Text(no_wrap=True, overflow="ellipsis")
    head.append(title, "bold")
    head.append(f"  {matches}{sessions} · {_age(row.newest, now)} · {visible(row.source)}", META_STYLE)
    first = row.hits[0]
    line = Text(f"  {first.role}: ", META_STYLE, no_wrap=True, overflow="ellipsis")
    line.append_text(highlighted(first.snippet))
    return Text("\n", no_wrap=True).join([head, line])


def hit_prompt(hit: LineageHit, now: float) -> Text:
    """Two lines: where the match is (session, role, age); the matched text."""
    where = visible(hit.session_title) if hit.session_title else short_session_id(hit.session_id)
    head = Text(no_wrap=True, overflow="ellipsis")
    head.append(f"{hit.role}", "bold")
    head.append(f" in {where} · {_age(hit.timestamp, now)}", META_STYLE)
    line = Text("  ", no_wrap=True, overflow="ellipsis")
    line.append_text(highlighted(hit.snippet))
    return Text("\n", no_wrap=True).join([head, line])


def status_text(request: SearchRequest, rows: int, matches: int, stopped: str) -> str:
    if request.error:
        return request.error
    if not request.query:
        return "Type to search every session's messages."
    if not rows:
        return "No matches."
    found = f"{rows} lineage{'s' if rows != 1 else ''} · {matches:,} match{'es' if matches != 1 else ''}"
    if stopped == STOP_CAP:
        return f"{found} (the newest; add words to narrow)"
    if stopped == STOP_TIME:
        return f"{found} (search stopped early; add words to narrow)"
    return f"{found}, newest first"


class SearchScreen(ModalScreen[SearchChoice | None]):
    """Search as you type over every session."""

    AUTO_FOCUS = "#search-input"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="search-close"),
        Binding("down", "move(1)", "Next lineage", show=False),
        Binding("up", "move(-1)", "Previous lineage", show=False),
    ]

    def __init__(
        self,
        db: SessionDB,
        query: str = "",
        *,
        clock: Callable[[], datetime] = datetime.now,
        options: LineageSearchOptions | None = None,
    ) -> None:
        super().__init__()
        self.db = db
        self.initial_query = query
        self.clock = clock
        self.options = options or LineageSearchOptions(max_lineages=MAX_LINEAGES, time_budget_s=SCAN_BUDGET_S)
        self.request = SearchRequest()
        self.rows: tuple[LineageResult, ...] = ()
        self.shown_query: str | None = None  # the line whose results are on screen
        self.searches_run = 0  # searches that reached the store (tests, the bench)
        self._generation = 0
        self._cancel: threading.Event | None = None
        self._debounce: Timer | None = None
        self._searching = False
        self._pending_line = query

    def compose(self) -> ComposeResult:
        with Vertical(id="search-dialog") as dialog:
            dialog.border_title = "Search"
            yield Input(self.initial_query, placeholder=PLACEHOLDER, id="search-input")
            yield Label(id="search-status")
            yield OptionList(id="search-results")
            yield Label("Newest matches in this lineage", id="search-hits-title")
            yield OptionList(id="search-hits")
            yield Label(HINT, id="search-hint")

    def on_mount(self) -> None:
        self._set_status(status_text(self.request, 0, 0, ""))
        if self.initial_query:
            self._schedule(self.initial_query)
        else:
            self.shown_query = ""  # the empty line's (empty) results are on screen

    # ------------------------------------------------------------------ searching

    @property
    def settled(self) -> bool:
        """No line waits for its pause and no search runs: the results shown stay (tests, the bench)."""
        return self._debounce is None and not self._searching

    @property
    def results(self) -> OptionList:
        return self.query_one("#search-results", OptionList)

    @property
    def hits_list(self) -> OptionList:
        return self.query_one("#search-hits", OptionList)

    @on(Input.Changed, "#search-input")
    def _query_changed(self, event: Input.Changed) -> None:
        self._schedule(event.value)

    def _schedule(self, line: str) -> None:
        self._generation += 1
        self.request = parse_search(line, self.clock())
        self._pending_line = line
        if self._cancel is not None:
            self._cancel.set()  # the search in flight is stale: stop it early
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(DEBOUNCE_S, self._kick)

    def _kick(self) -> None:
        self._debounce = None
        if not self._searching:
            self._searching = True
            self.run_worker(self._search_until_current(), group="search")

    async def _search_until_current(self) -> None:
        """Run the newest request; if the line changed meanwhile, drop the answer and run again."""
        from hermes_tui.store.errors import StoreError

        try:
            while True:
                generation, request, line = self._generation, self.request, self._pending_line
                if not request.searchable:
                    self._show(line, request, ())
                    return
                cancel = self._cancel = threading.Event()
                options = LineageSearchOptions(
                    max_lineages=self.options.max_lineages,
                    hits_per_lineage=self.options.hits_per_lineage,
                    scan_cap=self.options.scan_cap,
                    time_budget_s=self.options.time_budget_s,
                    cancel=cancel,
                )
                self.searches_run += 1
                try:
                    found = await self.db.search_lineages(
                        request.query,
                        role_filter=list(request.roles) or None,
                        source_filter=list(request.sources) or None,
                        since=request.since,
                        until=request.until,
                        options=options,
                    )
                except StoreError as exc:
                    if generation == self._generation:
                        self._set_status(f"Search failed: {exc}", error=True)
                        return
                    continue
                if generation == self._generation:
                    status = status_text(request, len(found.lineages), found.scanned, found.stopped)
                    if found.query_error:
                        status = "That query cannot be searched; try plain words."
                    self._show(line, request, found.lineages, status)
                    return
        finally:
            self._searching = False
            self._cancel = None

    def _show(self, line: str, request: SearchRequest, rows: tuple[LineageResult, ...], status: str = "") -> None:
        now = self.clock().timestamp()
        self.rows = rows
        results = self.results
        results.set_options(Option(lineage_prompt(row, now), id=row.root_id) for row in rows)
        if rows:
            results.highlighted = 0
        self._fill_hits(0 if rows else None)
        self._set_status(status or status_text(request, len(rows), 0, ""), error=bool(request.error))
        self.shown_query = line

    def _fill_hits(self, index: int | None) -> None:
        now = self.clock().timestamp()
        hits = self.rows[index].hits if index is not None and index < len(self.rows) else ()
        self.hits_list.set_options(Option(hit_prompt(hit, now)) for hit in hits)
        if hits:
            self.hits_list.highlighted = 0

    def _set_status(self, text: str, *, error: bool = False) -> None:
        self.query_one("#search-status", Label).update(Text(visible(text), style="bold red" if error else ""))

    # ------------------------------------------------------------------ choosing

    @on(OptionList.OptionHighlighted, "#search-results")
    def _lineage_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._fill_hits(event.option_index)

    def action_move(self, step: int) -> None:
        results = self.results
        if not self.rows:
            return
        current = results.highlighted if results.highlighted is not None else -1
        results.highlighted = max(0, min(len(self.rows) - 1, current + step))

    def _choose(self, hit: LineageHit) -> None:
        plain = "".join(piece for piece, _matched in marked_pieces(hit.snippet))
        self.dismiss(SearchChoice(hit.session_id, hit.id, hit.role, plain))

    @on(Input.Submitted, "#search-input")
    def _open_from_box(self, event: Input.Submitted) -> None:
        event.stop()
        index = self.results.highlighted
        if index is not None and index < len(self.rows):
            self._choose(self.rows[index].hits[0])

    @on(OptionList.OptionSelected, "#search-results")
    def _open_lineage(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_index < len(self.rows):
            self._choose(self.rows[event.option_index].hits[0])

    @on(OptionList.OptionSelected, "#search-hits")
    def _open_hit(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        index = self.results.highlighted
        if index is not None and index < len(self.rows) and event.option_index < len(self.rows[index].hits):
            self._choose(self.rows[index].hits[event.option_index])

    def action_close(self) -> None:
        if self._cancel is not None:
            self._cancel.set()
        self.dismiss(None)
