"""hermes-tui: a full-screen terminal home for long-running LLM agents.

The package root only holds the version so that `hermes-tui --version` stays fast:
nothing heavy (Textual, the SDKs) is imported from here.
"""

__version__ = "0.1.0"
