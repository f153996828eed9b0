"""Errors the store raises to the layers above; every message is one line a user can act on."""

from __future__ import annotations


class StoreError(Exception):
    """The session database cannot be used (not SQLite, corrupt, unreadable); names the file."""


class SessionNotFound(StoreError):
    """No session matches an id, id prefix or title."""


class AmbiguousSession(StoreError):
    """An id prefix matches more than one session."""


class SchemaTooOld(StoreError):
    """A read-only open met a file older than the oldest schema it reads as it is (v14)."""
