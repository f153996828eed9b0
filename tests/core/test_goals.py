"""Standing goals through the real Agent: the judge loop, its budget and failure rules, persistence across /resume."""

from __future__ import annotations

import json
from pathlib import Path

from hermes_tui.core import events as ev
from hermes_tui.core.commands import run_command
from hermes_tui.core.goals import CONTINUATION_TAG, JUDGE_TAG, GoalState, goal_key
from tests.core.helpers import make_agent, openai_choice
from tests.fake_llm import Fail, FakeLLMServer, Reply


def verdict(kind: str, reason: str = "because") -> Reply:
    return Reply(text=json.dumps({"verdict": kind, "reason": reason}))


async def run_loop(agent, text: str, limit: int = 10) -> list[str]:
    """Send `text`, then whatever `next_turn` says, as a front-end does; the user messages sent."""
    sent = [text]
    result = await agent.run_conversation(text)
    while (following := await agent.next_turn(result)) is not None and len(sent) < limit:
        sent.append(following)
        result = await agent.run_conversation(following)
    return sent


async def stored_goal(db, session_id: str) -> dict:
    return json.loads(await db.get_meta(goal_key(session_id)))


async def test_the_loop_continues_until_the_judge_says_done(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    outcome = await run_command(agent, "/goal write the release notes")
    assert outcome.send == "write the release notes" and outcome.output.startswith("⚑ Goal set")
    server.enqueue(
        Reply(text="Drafted the outline."),
        verdict("continue", "only an outline so far"),
        Reply(text="Wrote every section."),
        verdict("done", "the notes are written"),
    )
    sent = await run_loop(agent, outcome.send)
    assert len(sent) == 2 and sent[1].startswith(CONTINUATION_TAG) and "Goal: write the release notes" in sent[1]
    judge_prompt = server.requests[1].body["messages"][0]["content"]
    assert judge_prompt.startswith(JUDGE_TAG) and "Drafted the outline." in judge_prompt
    state = await stored_goal(db, agent.session_id)
    assert (state["status"], state["turns_used"], state["last_reason"]) == ("done", 2, "the notes are written")
    changes = log.of(ev.GoalChanged)
    assert changes[0].status == "active" and changes[-1].status == "done"
    assert "(done, 2/20 turns)" in (await run_command(agent, "/goal status")).output
    await db.close()


async def test_blocked_budget_and_bad_verdicts_pause_the_loop(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, _log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    await run_command(agent, "/goal migrate the database")
    server.enqueue(Reply(text="I need the production password."), verdict("blocked", "needs a password"))
    assert len(await run_loop(agent, "migrate the database")) == 1
    state = await stored_goal(db, agent.session_id)
    assert state["status"] == "paused" and state["paused_reason"] == "blocked: needs a password"

    resumed = await run_command(agent, "/goal resume")
    assert resumed.send is not None and resumed.send.startswith(CONTINUATION_TAG)
    # Three replies that are not a verdict in a row pause it; an unreachable judge counts as "continue".
    server.enqueue(
        Reply(text="step"),
        Fail(500, "judge down"),
        Reply(text="step"),
        Reply(text="I think it is going well"),
        Reply(text="step"),
        Reply(text="no json here"),
        Reply(text="step"),
        Reply(text="still no json"),
    )
    await run_loop(agent, resumed.send)
    state = await stored_goal(db, agent.session_id)
    assert state["status"] == "paused" and "no verdict 3 times" in state["paused_reason"]
    assert state["turns_used"] == 5

    await run_command(agent, "/goal a tiny goal")
    stored = GoalState.from_json(await db.get_meta(goal_key(agent.session_id)))
    stored.max_turns = 2
    await db.set_meta(goal_key(agent.session_id), stored.to_json())
    server.enqueue(Reply(text="a"), verdict("continue"), Reply(text="b"), verdict("continue"))
    assert len(await run_loop(agent, "a tiny goal")) == 2
    state = await stored_goal(db, agent.session_id)
    assert state["status"] == "paused" and state["paused_reason"] == "the budget of 2 turns is used up"
    await db.close()


async def test_a_queued_user_message_comes_before_the_continuation(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, _log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    await run_command(agent, "/goal tidy the repo")
    server.enqueue(Reply(text="Tidied one folder."))
    result = await agent.run_conversation("tidy the repo")
    agent.steering.enqueue("also update the changelog")
    assert await agent.next_turn(result) == "also update the changelog"
    assert len(server.requests) == 1  # the judge was not asked: the user spoke first
    await db.close()


async def test_the_goal_survives_resume_and_follows_a_compression(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, _log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    await run_command(agent, "/goal keep the build green")
    server.enqueue(Reply(text="Fixed the first test."), verdict("continue"))
    first = await agent.run_conversation("keep the build green")
    await agent.next_turn(first)
    session = agent.session_id
    await run_command(agent, "/goal pause")
    await run_command(agent, "/new")
    assert "No goal" in (await run_command(agent, "/goal")).output
    await run_command(agent, f"/resume {session}")
    status = (await run_command(agent, "/goal status")).output
    assert status.startswith("Goal (paused, 1/20 turns): keep the build green")

    # A compression continuation takes the goal over.
    for index in range(6):
        server.enqueue(Reply(text=f"Step {index}." + " detail of the work done" * 60))
        await agent.run_conversation(f"step {index}")
    server.enqueue(Reply(text="## Active Task\nkeep the build green"))
    assert (await run_command(agent, "/compress")).output.startswith("🗜️ Compressed")
    assert agent.session_id != session
    assert (await run_command(agent, "/goal status")).output.startswith("Goal (paused, 1/20 turns)")
    assert json.loads(await db.get_meta(goal_key(agent.session_id)))["goal"] == "keep the build green"
    assert (await run_command(agent, "/goal clear")).output == "Goal cleared."
    await db.close()


async def test_an_interrupted_turn_pauses_the_goal(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, _log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    await run_command(agent, "/goal write docs")
    from hermes_tui.core.turn.result import TurnResult

    interrupted = TurnResult(final_response=None, session_id=agent.session_id, interrupted=True)
    assert await agent.next_turn(interrupted) is None
    state = await stored_goal(db, agent.session_id)
    assert state["status"] == "paused" and "interrupted" in state["paused_reason"]
    await db.close()


async def test_a_goal_written_by_hermes_is_read_and_its_keys_kept(tmp_path: Path) -> None:
    agent, db, _log = await make_agent(tmp_path)
    await agent.run_conversation("hello")
    hermes = {"goal": "ship JWT auth", "turns_used": 2, "max_turns": 20, "status": "active", "subgoals": ["tests"]}
    await db.set_meta(goal_key(agent.session_id), json.dumps(hermes))
    assert (await run_command(agent, "/goal")).output.startswith("Goal (active, 2/20 turns): ship JWT auth")
    await run_command(agent, "/goal pause")
    stored = await stored_goal(db, agent.session_id)
    assert stored["subgoals"] == ["tests"] and stored["status"] == "paused"
    await db.set_meta(goal_key(agent.session_id), "{not json")
    assert "No goal" in (await run_command(agent, "/goal")).output
    await db.close()


async def test_the_demo_model_judges_offline(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# Gadget\n", encoding="utf-8")
    agent, db, _log = await make_agent(tmp_path)
    outcome = await run_command(agent, "/goal read README.md")
    sent = await run_loop(agent, outcome.send)
    assert sent == ["read README.md"]  # the demo judge saw the file's contents and called it done
    assert (await stored_goal(db, agent.session_id))["status"] == "done"
    await db.close()
