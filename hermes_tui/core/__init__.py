"""The agent core: conversation loop, providers, context engine, tools, sessions.

Nothing in this package imports Textual or Rich; the UI sees the core only through
`hermes_tui.core.events`, the Agent's public methods and its callbacks.
"""
