"""MCP servers as the agent's tools, end to end: real SDK servers, our SDK client, the real Agent and the fake LLM.

The model (the loopback fake server) calls `mcp__<server>__<tool>` as Hermes names them; the
assertions read what the next request to the model carried, what state.db stored and what the
Review log said.
"""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

from hermes_tui.core.tools.base import ApprovalRequest
from hermes_tui.core.tools.permissions import ApprovalAnswer, PermissionMode
from tests.core.helpers import rows, wait_until
from tests.fake_llm import FakeLLMServer, RejectImages, Reply
from tests.mcp.helpers import http_server, mcp_agent, pid_alive, review_lines, stdio, tool_messages, tool_names


async def test_stdio_and_http_servers_give_the_model_their_tools_and_answers(tmp_path: Path) -> None:
    with FakeLLMServer() as srv, http_server("basic") as url:
        servers = {"local": stdio("basic", trusted=True), "remote": {"url": url, "trusted": True}}
        agent, db, log = await mcp_agent(tmp_path, servers, base_url=srv.base_url_openai)
        try:
            srv.enqueue(
                Reply(
                    tool_calls=[
                        ("c1", "mcp__local__echo", json.dumps({"text": "hello"})),
                        ("c2", "mcp__remote__add", json.dumps({"a": 2, "b": 40})),
                    ]
                ),
                Reply(text="Both servers answered."),
            )
            result = await agent.run_conversation("use the servers")
            assert result.final_response == "Both servers answered."
            first = srv.requests[0].body
            offered = {tool["function"]["name"]: tool["function"] for tool in first["tools"]}
            assert {"mcp__local__echo", "mcp__local__add", "mcp__remote__echo", "mcp__remote__add"} <= set(offered)
            schema = offered["mcp__remote__add"]["parameters"]  # the server's own schema, passed through
            assert schema["properties"]["a"]["type"] == "integer" and sorted(schema["required"]) == ["a", "b"]
            assert offered["mcp__local__echo"]["description"] == "Send the text back unchanged."
            answers = [m["content"] for m in tool_messages(srv.requests[1].body)]
            assert '{"result": "echo: hello"' in answers[0] and '"2 + 40 = 42"' in answers[1]
            for answer in answers:  # untrusted data, framed as Hermes frames every mcp_* result
                assert answer.startswith('<untrusted_tool_result source="mcp__')
                assert answer.endswith("</untrusted_tool_result>")
            stored = [r for r in await rows(db, agent.session_id) if r["role"] == "tool"]
            assert [r["tool_name"] for r in stored] == ["mcp__local__echo", "mcp__remote__add"]
            assert "echo: hello" in stored[0]["content"]
            assert review_lines(log, "warning") == []
            assert sorted(review_lines(log, "info")) == [
                "MCP server 'local' connected: 2 tools",
                "MCP server 'remote' connected: 2 tools",
            ]
        finally:
            await agent.close()
            await db.close()


async def test_an_sse_server_works_too(tmp_path: Path) -> None:
    with FakeLLMServer() as srv, http_server("pictures", "sse") as url:
        agent, db, _log = await mcp_agent(
            tmp_path, {"docs": {"url": url, "transport": "sse", "trusted": True}}, base_url=srv.base_url_openai
        )
        try:
            srv.enqueue(Reply(tool_calls=[("c1", "mcp__docs__manual", "{}")]), Reply(text="Read it."))
            await agent.run_conversation("read the manual")
            (answer,) = tool_messages(srv.requests[1].body)
            assert "Turn it off and on again." in answer["content"]  # an embedded text resource, as text
        finally:
            await agent.close()
            await db.close()


async def test_an_untrusted_servers_tool_asks_first_like_the_shell(tmp_path: Path) -> None:
    asked: list[ApprovalRequest] = []
    answers = [ApprovalAnswer.DENY, ApprovalAnswer.SESSION]

    async def approver(request: ApprovalRequest) -> ApprovalAnswer:
        asked.append(request)
        return answers.pop(0)

    with FakeLLMServer() as srv:
        agent, db, _log = await mcp_agent(
            tmp_path, {"local": stdio("basic")}, base_url=srv.base_url_openai, approver=approver
        )
        try:
            call = ("c1", "mcp__local__echo", json.dumps({"text": "secret plan"}))
            srv.enqueue(Reply(tool_calls=[call]), Reply(text="It was refused."))
            await agent.run_conversation("echo it")
            (denied,) = tool_messages(srv.requests[1].body)
            assert denied["content"] == "MCP tool call denied by the user"
            assert asked[0].tool == "mcp__local__echo" and "secret plan" in asked[0].command
            assert "not marked trusted" in asked[0].reasons[0]
            # "allow for the rest of the session": asked once more, then never again for this tool
            for turn in range(2):
                srv.enqueue(
                    Reply(tool_calls=[(f"c{turn + 2}", "mcp__local__echo", '{"text": "again"}')]), Reply(text="ok")
                )
                await agent.run_conversation("echo again")
                assert "echo: again" in tool_messages(srv.last_body)[-1]["content"]
            assert len(asked) == 2
        finally:
            await agent.close()
            await db.close()


async def test_without_anyone_to_ask_an_untrusted_tool_is_denied_and_read_only_mode_refuses(tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        agent, db, _log = await mcp_agent(
            tmp_path, {"local": stdio("basic"), "ok": stdio("basic", trusted=True)}, base_url=srv.base_url_openai
        )
        try:
            srv.enqueue(Reply(tool_calls=[("c1", "mcp__local__echo", '{"text": "x"}')]), Reply(text="done"))
            await agent.run_conversation("echo")
            assert "no approval available" in tool_messages(srv.last_body)[-1]["content"]
            agent.permission_mode = PermissionMode.READ_ONLY  # plan mode: even a trusted server's tool waits
            srv.enqueue(Reply(tool_calls=[("c2", "mcp__ok__echo", '{"text": "x"}')]), Reply(text="done"))
            await agent.run_conversation("echo")
            assert "read-only (plan) mode" in tool_messages(srv.last_body)[-1]["content"]
        finally:
            await agent.close()
            await db.close()


async def test_a_slow_tool_times_out_as_a_tool_error_and_the_turn_goes_on(tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        agent, db, _log = await mcp_agent(
            tmp_path, {"slow": stdio("slow", timeout=1, trusted=True)}, base_url=srv.base_url_openai
        )
        try:
            srv.enqueue(
                Reply(tool_calls=[("c1", "mcp__slow__wait", json.dumps({"seconds": 60}))]),
                Reply(text="The tool was too slow; moving on."),
            )
            started = time.monotonic()
            result = await agent.run_conversation("wait a minute")
            assert time.monotonic() - started < 30, "the call was given up on, not waited out"
            assert result.final_response == "The tool was too slow; moving on."
            (answer,) = tool_messages(srv.requests[1].body)
            assert "did not answer within 1 s" in answer["content"] and '"error"' in answer["content"]
            srv.enqueue(Reply(tool_calls=[("c2", "mcp__slow__wait", json.dumps({"seconds": 0}))]), Reply(text="ok"))
            await agent.run_conversation("a quick one")  # the server is still there for the next call
            assert "waited 0 s" in tool_messages(srv.last_body)[-1]["content"]
        finally:
            await agent.close()
            await db.close()


async def test_a_server_that_dies_mid_call_is_one_review_line_and_comes_back(tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        agent, db, log = await mcp_agent(
            tmp_path, {"crashy": stdio("crashy", trusted=True)}, base_url=srv.base_url_openai
        )
        try:
            srv.enqueue(Reply(tool_calls=[("c1", "mcp__crashy__echo", '{"text": "a"}')]), Reply(text="ok"))
            await agent.run_conversation("first")
            first_pid = tool_messages(srv.last_body)[-1]["content"].split("(pid ")[1].split(")")[0]
            srv.enqueue(Reply(tool_calls=[("c2", "mcp__crashy__crash", "{}")]), Reply(text="It crashed."))
            result = await agent.run_conversation("crash it")
            assert result.final_response == "It crashed."
            assert "closed the connection during the call" in tool_messages(srv.last_body)[-1]["content"]
            # the call fails at once; the connection reports its end once the SDK's session is torn down,
            # which can come after the turn's next call on a busy machine
            await wait_until(
                lambda: any("crashy" in line for line in review_lines(log, "warning")), what="the disconnect line"
            )
            assert [line for line in review_lines(log, "warning") if "crashy" in line] == [
                "MCP server 'crashy' disconnected: the server closed the connection; reconnecting"
            ]
            srv.enqueue(Reply(tool_calls=[("c3", "mcp__crashy__echo", '{"text": "b"}')]), Reply(text="back"))
            await agent.run_conversation("again")
            answer = tool_messages(srv.last_body)[-1]["content"]
            assert "echo: b" in answer and f"(pid {first_pid})" not in answer, "a new server process answered"
            assert len([line for line in review_lines(log, "warning") if "crashy" in line]) == 1
            assert "MCP server 'crashy' reconnected: 2 tools" in review_lines(log, "info")
        finally:
            await agent.close()
            await db.close()


async def test_an_image_reaches_the_model_as_an_image_and_a_model_without_vision_gets_a_note(tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        agent, db, _log = await mcp_agent(
            tmp_path, {"pics": stdio("pictures", trusted=True)}, base_url=srv.base_url_openai
        )
        try:
            srv.enqueue(Reply(tool_calls=[("c1", "mcp__pics__snapshot", "{}")]), Reply(text="A red dot."))
            await agent.run_conversation("look")
            (answer,) = tool_messages(srv.requests[1].body)
            text, image = answer["content"]
            assert "A red dot." in text["text"] and "[image attached: image/png" in text["text"]
            assert image["type"] == "image_url" and image["image_url"]["url"].startswith("data:image/png;base64,iVBOR")
            stored = [r for r in await rows(db, agent.session_id) if r["role"] == "tool"]
            assert "base64" not in stored[0]["content"], "state.db keeps the text, not the image data"
            # a provider that takes no images: the turn's repair sends a note in the image's place
            srv.enqueue(
                Reply(tool_calls=[("c2", "mcp__pics__snapshot", "{}")]),
                RejectImages(0, "This model does not support images", otherwise=Reply(text="Seen as text.")),
                Reply(text="Seen as text."),
            )
            result = await agent.run_conversation("look again")
            assert result.final_response == "Seen as text."
            retried = tool_messages(srv.last_body)[-1]["content"]
            assert "image_url" not in json.dumps(retried) and "does not accept images" in json.dumps(retried)
        finally:
            await agent.close()
            await db.close()


async def test_an_error_result_is_a_tool_error_the_model_reads(tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        agent, db, log = await mcp_agent(
            tmp_path, {"pics": stdio("pictures", trusted=True)}, base_url=srv.base_url_openai
        )
        try:
            srv.enqueue(Reply(tool_calls=[("c1", "mcp__pics__broken", "{}")]), Reply(text="It failed."))
            await agent.run_conversation("print")
            (answer,) = tool_messages(srv.requests[1].body)
            assert '{"error": "Error executing tool broken: the printer is on fire"}' in answer["content"]
            finished = [e for e in log if type(e).__name__ == "ToolCallFinished"]
            assert finished[-1].is_error
        finally:
            await agent.close()
            await db.close()


async def test_include_and_exclude_lists_choose_the_tools(tmp_path: Path) -> None:
    servers = {
        "only": stdio("basic", tools={"include": ["echo"], "exclude": ["echo"]}),  # include wins
        "without": stdio("basic", tools={"exclude": "echo"}),
        "off": stdio("basic", enabled=False),
    }
    agent, db, log = await mcp_agent(tmp_path, servers)
    try:
        mcp_tools = sorted(name for name in agent.registry.names() if name.startswith("mcp__"))
        assert mcp_tools == ["mcp__only__echo", "mcp__without__add"]
        assert sorted(review_lines(log, "info")) == [
            "MCP server 'only' connected: 1 tool",
            "MCP server 'without' connected: 1 tool",
        ]
        assert {tool["function"]["name"] for tool in agent.tool_schemas} >= {"mcp__only__echo", "mcp__without__add"}
    finally:
        await agent.close()
        await db.close()


async def test_a_server_that_cannot_start_is_one_line_and_the_others_work(tmp_path: Path) -> None:
    servers = {
        "missing": {"command": str(tmp_path / "no-such-server")},
        "refused": {"url": "http://127.0.0.1:9/mcp", "connect_timeout": 5},
        "good": stdio("basic"),
    }
    agent, db, log = await mcp_agent(tmp_path, servers)
    try:
        warnings = review_lines(log, "warning")
        assert len(warnings) == 2, warnings
        assert any(w.startswith("MCP server 'missing' failed to connect: command not found") for w in warnings)
        assert any(w.startswith("MCP server 'refused' failed to connect:") for w in warnings)
        assert all("Traceback" not in w and "\n" not in w for w in warnings)
        assert "mcp__good__echo" in agent.registry
    finally:
        await agent.close()
        await db.close()


async def test_server_processes_are_gone_after_close_and_stderr_went_to_a_private_log(tmp_path: Path) -> None:
    pid_file = tmp_path / "server.pid"
    agent, db, _log = await mcp_agent(tmp_path, {"local": stdio("basic", env={"MCP_TEST_PID_FILE": str(pid_file)})})
    pid = int(pid_file.read_text())
    assert pid_alive(pid)
    await agent.close()
    await db.close()
    assert not pid_alive(pid), "the stdio server's process ended with the agent"
    log_file = agent.home.root / "logs" / "mcp-local.log"
    assert "test server basic.py starting" in log_file.read_text()
    assert stat.S_IMODE(os.stat(log_file).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(log_file.parent).st_mode) == 0o700


async def test_the_server_gets_its_env_but_not_our_keys(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-servers")
    monkeypatch.setenv("MCP_TEST_TOKEN", "from-the-environment")
    pid_file = tmp_path / "server.pid"
    env = {"MCP_TEST_PID_FILE": str(pid_file), "GREETING": "${MCP_TEST_TOKEN}"}
    agent, db, _log = await mcp_agent(tmp_path, {"local": stdio("basic", env=env)})
    try:
        environ = Path(f"/proc/{pid_file.read_text()}/environ").read_bytes().split(b"\0")
        assert b"GREETING=from-the-environment" in environ
        assert not any(item.startswith(b"OPENAI_API_KEY=") for item in environ)
    finally:
        await agent.close()
        await db.close()


async def test_tools_lists_every_source_and_disable_takes_a_tool_away(tmp_path: Path) -> None:
    from hermes_tui.core.commands import run_command

    with FakeLLMServer() as srv:
        servers = {"local": stdio("basic", trusted=True), "missing": {"command": str(tmp_path / "nothing")}}
        agent, db, _log = await mcp_agent(tmp_path, servers, base_url=srv.base_url_openai)
        try:
            listing = (await run_command(agent, "/tools")).output
            assert "built-in" in listing and "  on   read_file" in listing
            assert "mcp:local (stdio, connected, trusted)" in listing and "  on   mcp__local__echo" in listing
            assert "mcp:missing (stdio, " in listing and "command not found" in listing
            done = await run_command(agent, "/tools disable local:echo")  # Hermes's server:tool form
            assert not done.error and "mcp__local__echo" in done.output
            assert "  off  mcp__local__echo" in (await run_command(agent, "/tools")).output
            srv.enqueue(Reply(tool_calls=[("c1", "mcp__local__echo", '{"text": "x"}')]), Reply(text="ok"))
            await agent.run_conversation("echo")
            assert "mcp__local__echo" not in tool_names(srv.requests[0].body)
            assert "switched off" in tool_messages(srv.last_body)[-1]["content"]
            assert (await run_command(agent, "/tools enable nothing-like-it")).error
            await run_command(agent, "/tools enable mcp__local__echo")
            await agent.run_conversation("now")
            assert "mcp__local__echo" in tool_names(srv.last_body)
        finally:
            await agent.close()
            await db.close()


async def test_reload_mcp_reads_the_config_again_and_restarts_the_servers(tmp_path: Path) -> None:
    from hermes_tui.core.commands import run_command

    pid_file = tmp_path / "server.pid"
    agent, db, _log = await mcp_agent(tmp_path, {"local": stdio("basic", env={"MCP_TEST_PID_FILE": str(pid_file)})})
    try:
        before = int(pid_file.read_text())
        agent.home.config_file.write_text(
            "[mcp_servers.fresh]\n"
            f"command = {json.dumps(stdio('basic')['command'])}\n"
            f"args = {json.dumps(stdio('basic')['args'])}\n"
            "[mcp_servers.fresh.tools]\ninclude = ['add']\n",
            encoding="utf-8",
        )
        result = await run_command(agent, "/reload-mcp")
        assert not result.error and result.output == "MCP server 'fresh': connected, 1 tool"
        await wait_until(lambda: not pid_alive(before), 10, "the old server to stop")
        assert [name for name in agent.registry.names() if name.startswith("mcp__")] == ["mcp__fresh__add"]
        assert [t["function"]["name"] for t in agent.tool_schemas if t["function"]["name"].startswith("mcp__")] == [
            "mcp__fresh__add"
        ]
        agent.home.config_file.write_text("[mcp_servers.bad]\ntimeout = 3\n", encoding="utf-8")
        broken = await run_command(agent, "/reload-mcp")
        assert broken.error and "'mcp_servers.bad'" in broken.output and "left as they are" in broken.output
        assert "mcp__fresh__add" in agent.registry
    finally:
        await agent.close()
        await db.close()
