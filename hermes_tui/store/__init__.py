"""Persistence: the Hermes-compatible SQLite `state.db` (schema v14), FTS search, lineage queries."""
