"""Asking an OpenAI-compatible server for a model's context window, and remembering the answer.

Owns `ask_server(base_url, model, api_key)`: the server's own report — `GET <base>/models` and the
context fields the local servers put on a model's entry (vLLM `max_model_len`, LM Studio
`loaded_context_length` / `max_context_length`, llama.cpp `meta.n_ctx_train`, refined by its
runtime `n_ctx` from `/props`, OpenRouter `context_length`), else Ollama's `POST /api/show` (the
Modelfile's `num_ctx`, else the model's own `*.context_length`). Every request has a timeout and
any failure is just "no answer" (None). `WindowCache` keeps the answers per base URL and model in
`<home>/context_windows.json` (0600), so the next start knows the window before any request.
`should_ask(provider, base_url)` says when a server is worth asking: an OpenAI-compatible endpoint
the user pointed us at (not OpenAI's own API, which reports no windows).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hermes_tui.core.private_io import atomic_write_private

log = logging.getLogger(__name__)

CACHE_FILE_NAME = "context_windows.json"
ASK_TIMEOUT_S = 3.0
_MIN_WINDOW, _MAX_WINDOW = 1024, 10_000_000
# Context fields of a model entry, best first: what the server runs with before what the model was trained for.
_RUNTIME_KEYS = ("max_model_len", "loaded_context_length", "n_ctx", "context_length", "context_window")
_TRAINED_KEYS = ("max_context_length", "n_ctx_train", "max_position_embeddings", "max_seq_len")
_OFFICIAL_HOSTS = ("api.openai.com",)


def should_ask(provider: str, base_url: str) -> bool:
    """Whether the endpoint may report its window: an OpenAI-compatible server given by URL."""
    url = (base_url or "").strip().lower()
    return (
        provider == "openai" and url.startswith(("http://", "https://")) and not any(h in url for h in _OFFICIAL_HOSTS)
    )


def _tokens(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value if isinstance(value, int) and _MIN_WINDOW <= value <= _MAX_WINDOW else None


def _dicts(value: object, depth: int = 0) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict) and depth <= 3:
        yield value
        for nested in value.values():
            yield from _dicts(nested, depth + 1)


def _field(entry: dict[str, Any], keys: tuple[str, ...]) -> int | None:
    for key in keys:
        for mapping in _dicts(entry):
            found = _tokens(mapping.get(key))
            if found is not None:
                return found
    return None


def _same_model(entry_id: object, model: str) -> bool:
    if not isinstance(entry_id, str) or not entry_id:
        return False
    a, b = entry_id.strip().lower(), model.strip().lower()
    if a == b:
        return True
    short_a, short_b = a.rsplit("/", 1)[-1], b.rsplit("/", 1)[-1]
    return short_a == short_b or short_a.removesuffix(":latest") == short_b.removesuffix(":latest")


def model_entry(listing: object, model: str) -> dict[str, Any] | None:
    """The entry of `model` in a `/models` answer (the only entry, on a one-model server)."""
    data = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(data, list):
        return None
    entries = [item for item in data if isinstance(item, dict)]
    for item in entries:
        if _same_model(item.get("id"), model):
            return item
    return entries[0] if len(entries) == 1 else None


def _root(base_url: str) -> str:
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def ollama_window(show: object) -> int | None:
    """The window in an Ollama `/api/show` answer: `num_ctx` from the Modelfile, else the model's own."""
    if not isinstance(show, dict):
        return None
    parameters = show.get("parameters")
    if isinstance(parameters, str):
        for line in parameters.splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[0] == "num_ctx":
                found = _tokens(parts[-1])
                if found is not None:
                    return found
    info = show.get("model_info")
    if isinstance(info, dict):
        for key, value in info.items():
            if str(key).endswith("context_length") and _tokens(value) is not None:
                return _tokens(value)
    return None


async def ask_server(base_url: str, model: str, api_key: str = "", timeout: float = ASK_TIMEOUT_S) -> int | None:
    """The window the server at `base_url` reports for `model`, or None (no answer, or none given)."""
    import httpx2  # on first use: not on the start-up path

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    base = base_url.rstrip("/")
    try:
        async with httpx2.AsyncClient(timeout=timeout, headers=headers, follow_redirects=False) as client:
            window = await _from_models_listing(client, base, model)
            if window is None:
                window = await _from_ollama(client, _root(base), model)
            return window
    except Exception as exc:  # an unreachable or odd server is "no answer", never an error
        log.debug("context window probe of %s failed: %s", base_url, exc)
        return None


async def _json(response: Any) -> object:
    if response.status_code != 200:
        return None
    try:
        return response.json()
    except ValueError:
        return None


async def _from_models_listing(client: Any, base: str, model: str) -> int | None:
    try:
        entry = model_entry(await _json(await client.get(f"{base}/models")), model)
    except Exception as exc:
        log.debug("GET %s/models failed: %s", base, exc)
        return None
    if entry is None:
        return None
    runtime = _field(entry, _RUNTIME_KEYS)
    if runtime is not None:
        return runtime
    trained = _field(entry, _TRAINED_KEYS)
    if trained is not None and entry.get("owned_by") == "llamacpp":
        running = await _llamacpp_runtime(client, _root(base))
        return running or trained
    return trained


async def _llamacpp_runtime(client: Any, root: str) -> int | None:
    try:
        props = await _json(await client.get(f"{root}/props"))
    except Exception:
        return None
    settings = props.get("default_generation_settings") if isinstance(props, dict) else None
    return _tokens(settings.get("n_ctx")) if isinstance(settings, dict) else None


async def _from_ollama(client: Any, root: str, model: str) -> int | None:
    try:
        response = await client.post(f"{root}/api/show", json={"model": model, "name": model})
    except Exception as exc:
        log.debug("POST %s/api/show failed: %s", root, exc)
        return None
    return ollama_window(await _json(response))


class WindowCache:
    """Windows servers reported, per base URL and model, in one small private JSON file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _load(self) -> dict[str, dict[str, int]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        windows = data.get("windows") if isinstance(data, dict) else None
        if not isinstance(windows, dict):
            return {}
        return {
            str(url): {str(m): t for m, t in models.items() if _tokens(t) is not None}
            for url, models in windows.items()
            if isinstance(models, dict)
        }

    def get(self, base_url: str, model: str) -> int | None:
        """The window last reported for `model` at `base_url`, or None."""
        return self._load().get(base_url.rstrip("/"), {}).get(model)

    def put(self, base_url: str, model: str, tokens: int) -> None:
        """Remember a reported window; a home we cannot write to only loses the cache."""
        windows = self._load()
        key = base_url.rstrip("/")
        if windows.get(key, {}).get(model) == tokens:
            return
        windows.setdefault(key, {})[model] = tokens
        try:
            atomic_write_private(self.path, json.dumps({"windows": windows}, indent=1, sort_keys=True) + "\n")
        except OSError as exc:
            log.debug("could not write %s: %s", self.path, exc)


class WindowDetector:
    """Asks the server once, off the start-up path, and hands what it reports to `apply`.

    `cached()` answers at once from the cache (the last report for this base URL and model); `start()`
    runs the request as a background task (a start never waits for it), remembers a report and calls
    `apply(tokens, where)` — tokens None when the server gave none; `aclose()` cancels a request
    still running.
    """

    def __init__(self, *, cache: WindowCache, base_url: str, model: str, api_key: str, apply: Any) -> None:
        self.cache = cache
        self.base_url = base_url
        self.model = model
        self._api_key = api_key
        self._apply = apply
        self._task: Any = None

    def cached(self) -> int | None:
        return self.cache.get(self.base_url, self.model)

    def start(self) -> None:
        import asyncio

        self._task = asyncio.get_running_loop().create_task(self.run(), name="context-window-probe")

    async def run(self) -> int | None:
        tokens = await ask_server(self.base_url, self.model, self._api_key)
        if tokens is not None:
            self.cache.put(self.base_url, self.model, tokens)
        self._apply(tokens, f"reported by the server at {self.base_url}")
        return tokens

    async def wait(self) -> int | None:
        """The running request's answer (None without one)."""
        return await self._task if self._task is not None else None

    async def aclose(self) -> None:
        import asyncio
        import contextlib

        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
