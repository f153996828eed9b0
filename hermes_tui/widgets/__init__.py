"""Textual widgets: conversation, tool cards, lineage tree, token gauge, review log, prompt input.

One widget per module: `conversation` (the windowed, streaming transcript; its rows live in
`transcript_rows`, its plain data in `transcript`, the choice of which rows are mounted in
`transcript_window`; an answer's Markdown in `answer_body`, cut by `markdown_segments`; the
"show all" bar in `hidden_text`, the whole text in `full_text_view`), `tool_card`, `lineage_tree`,
`token_gauge`, `review_log`, `prompt_input`, `status_bar`; `diff_rows` and `diff_view` draw file
changes (tool cards, the approval modal, the diff viewer); `formatting` holds the shared
number/age formatting, `textual_workarounds` what we do about Textual's own costs. Widgets carry no CSS (all
styling is in hermes_tui/styles.tcss) and know the core only through `hermes_tui.core.events`,
`hermes_tui.store.models` and, for slash commands, `hermes_tui.slash_commands`.
"""
