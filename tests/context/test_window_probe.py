"""The model's window, as its own server reports it (vLLM, llama.cpp, LM Studio `/v1/models`, Ollama
`/api/show`), asked off the start-up path with a timeout, remembered per base URL under the home,
and shown on the gauge; `model.context_length` wins (the loopback fake server, the real start-up)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import stat
import time
from pathlib import Path

from hermes_tui.config import Home, ProviderChoice, Settings
from hermes_tui.core import events as ev
from hermes_tui.core.bootstrap import open_agent
from hermes_tui.core.context.window_probe import CACHE_FILE_NAME, ask_server
from tests.core.helpers import EventLog, wait_until
from tests.fake_llm import BlackHole, FakeLLMServer, refused_url


async def test_vllm_reports_max_model_len(server: FakeLLMServer) -> None:
    server.serve_json(
        "GET", "/v1/models", {"object": "list", "data": [{"id": "Qwen/Qwen3-8B", "max_model_len": 32768}]}
    )
    assert await ask_server(server.base_url_openai, "Qwen/Qwen3-8B") == 32768


async def test_llamacpp_runtime_context_beats_its_training_length(server: FakeLLMServer) -> None:
    entry = {"id": "/models/gemma.gguf", "owned_by": "llamacpp", "meta": {"n_ctx_train": 131072, "n_vocab": 262144}}
    server.serve_json("GET", "/v1/models", {"data": [entry]})
    assert await ask_server(server.base_url_openai, "gemma") == 131072  # one model served: it is the one
    server.serve_json("GET", "/props", {"default_generation_settings": {"n_ctx": 16384}})
    assert await ask_server(server.base_url_openai, "gemma") == 16384


async def test_lm_studio_loaded_context_beats_the_maximum(server: FakeLLMServer) -> None:
    entries = [
        {"id": "qwen2.5-7b-instruct", "max_context_length": 131072, "loaded_context_length": 65536},
        {"id": "other-model", "max_context_length": 8192},
    ]
    server.serve_json("GET", "/v1/models", {"data": entries})
    assert await ask_server(server.base_url_openai, "qwen2.5-7b-instruct") == 65536
    assert await ask_server(server.base_url_openai, "not-listed") is None  # several models, none matches


async def test_ollama_show_num_ctx_then_the_models_own_length(server: FakeLLMServer) -> None:
    server.serve_json("GET", "/v1/models", {"data": [{"id": "llama3.1:8b", "owned_by": "library"}]})
    show = {"parameters": "stop <|eot_id|>\nnum_ctx 65536", "model_info": {"llama.context_length": 131072}}
    server.serve_json("POST", "/api/show", show)
    assert await ask_server(server.base_url_openai, "llama3.1:8b") == 65536
    server.serve_json(
        "POST", "/api/show", {"model_info": {"general.architecture": "llama", "llama.context_length": 131072}}
    )
    assert await ask_server(server.base_url_openai, "llama3.1:8b") == 131072
    shown = [r for r in server.metadata_requests if r.path == "/api/show"]
    assert shown and shown[-1].body["model"] == "llama3.1:8b"


async def test_no_answer_is_none_quickly() -> None:
    assert await ask_server(refused_url("/v1"), "m") is None
    with BlackHole() as hole:
        started = time.monotonic()
        assert await ask_server(hole.url("/v1"), "m", timeout=0.3) is None
        assert time.monotonic() - started < 5


async def _start(home: Home, settings: Settings, base_url: str, log: EventLog):
    choice = ProviderChoice("openai", "local-model", "k", base_url, False)
    return await open_agent(home=home, settings=settings, choice=choice, sink=log, approver=None, source="cli")


async def test_the_start_up_learns_the_window_shows_it_and_remembers_it(tmp_path: Path, server: FakeLLMServer) -> None:
    home = Home(tmp_path / "home").ensure()
    server.serve_json("GET", "/v1/models", {"data": [{"id": "local-model", "max_model_len": 32768}]})
    log = EventLog()
    agent, db = await _start(home, Settings(), server.base_url_openai, log)
    try:
        await wait_until(lambda: agent.budget().context_length == 32768, timeout=15, what="the reported window")
        budget = agent.budget()
        # 32K minus the 4,096 output tokens: the 64K floor would exceed it, so 85 % of it
        assert budget.threshold_tokens == 24_371 and not budget.window_is_default
        gauge = [e.budget for e in log.of(ev.UsageUpdated)]
        assert gauge and (gauge[-1].context_length, gauge[-1].threshold_tokens) == (32768, 24_371)
        assert any("32,768 tokens" in w.text and "num_ctx" in w.text for w in log.of(ev.Warning))
        assert not any("Unknown model" in w.text for w in log.of(ev.Warning))
    finally:
        await agent.close()
        await db.close()
    cache = home.root / CACHE_FILE_NAME
    assert stat.S_IMODE(cache.stat().st_mode) == 0o600
    assert json.loads(cache.read_text())["windows"][server.base_url_openai] == {"local-model": 32768}

    # The next start knows it before any request (the server says nothing now).
    server.serve_json("GET", "/v1/models", {"data": []}, status=500)
    agent, db = await _start(home, Settings(), server.base_url_openai, EventLog())
    try:
        assert (agent.budget().context_length, agent.context_window_known) == (32768, True)
    finally:
        await agent.close()
        await db.close()


async def test_context_length_in_settings_wins_and_nothing_is_asked(tmp_path: Path, server: FakeLLMServer) -> None:
    home = Home(tmp_path / "home").ensure()
    server.serve_json("GET", "/v1/models", {"data": [{"id": "local-model", "max_model_len": 32768}]})
    settings = Settings()
    settings = dataclasses.replace(settings, model=dataclasses.replace(settings.model, context_length=200_000))
    agent, db = await _start(home, settings, server.base_url_openai, EventLog())
    try:
        await asyncio.sleep(0)  # a probe, had one started, would have its first turn now
        assert agent.budget().context_length == 200_000
        assert server.metadata_requests == []
    finally:
        await agent.close()
        await db.close()


async def test_a_server_without_a_report_leaves_the_default_and_says_so(tmp_path: Path, server: FakeLLMServer) -> None:
    home = Home(tmp_path / "home").ensure()
    log = EventLog()
    agent, db = await _start(home, Settings(), server.base_url_openai, log)
    try:
        await wait_until(lambda: any("Unknown model" in w.text for w in log.of(ev.Warning)), timeout=15, what="warning")
        assert agent.budget().context_length == 128_000 and agent.budget().window_is_default
    finally:
        await agent.close()
        await db.close()
