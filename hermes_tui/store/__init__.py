"""Persistence: the Hermes-compatible SQLite `state.db` (schema v21), FTS search, lineage queries."""
