"""`SdkClientHolder`: the SDK client a provider talks through — built lazily (the first one in a
worker thread: its TLS set-up loads the CA store, ~50 ms), replaced on a key rotation, and closed
with the provider together with every client it replaced. Shared by the OpenAI and Anthropic
providers; each says how to build its client in `_new_client`."""

from __future__ import annotations

import asyncio
from typing import Any, Generic, TypeVar

ClientT = TypeVar("ClientT")


class SdkClientHolder(Generic[ClientT]):
    """Mixed into a provider that sets `api_key`, `_client = None` and `_retired = []` in its __init__."""

    api_key: str
    _client: ClientT | None
    _retired: list[ClientT]

    def _new_client(self) -> ClientT:
        raise NotImplementedError

    def _get_client(self) -> ClientT:
        if self._client is None:
            self._client = self._new_client()
        return self._client

    async def _client_ready(self) -> ClientT:
        """The client; the first one is built in a worker thread."""
        if self._client is None:
            client = await asyncio.to_thread(self._new_client)
            if self._client is None:
                self._client = client
            else:  # another call built one meanwhile: this one is closed with the provider
                self._retired.append(client)
        return self._client

    async def warm_up(self) -> None:
        """Build the client now (its TLS set-up takes 20-50 ms of CPU), so the first call doesn't."""
        await self._client_ready()

    def rekey(self, api_key: str) -> None:
        """Use `api_key` from the next call on; the old client is closed with the provider."""
        if api_key == self.api_key:
            return
        self.api_key = api_key
        if self._client is not None:
            self._retired.append(self._client)
            self._client = None

    async def aclose(self) -> None:
        clients, self._retired = self._retired, []
        if self._client is not None:
            clients.append(self._client)
            self._client = None
        for client in clients:
            closing: Any = client
            await closing.close()
