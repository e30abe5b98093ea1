"""OpenAIAgent over real HTTP (the real ``openai`` client) against the scripted server."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from officesim.agents.base import AgentError
from officesim.agents.openai_agent import NUDGE, TRIMMED, OpenAIAgent
from officesim.testing import (
    Call,
    ContextLengthExceeded,
    RateLimited,
    Refusal,
    ScriptedServer,
    ServerError,
    Slow,
    serve,
    submit,
    text,
    tool_call,
    tool_calls,
)
from officesim.testing.openai_server import load_script

TOOLS = [
    {"type": "function", "function": {
        "name": "mail_search_messages", "description": "Search mail.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string", "description": "q"}},
                       "required": ["query"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "submit", "description": "Finish.",
        "parameters": {"type": "object", "properties": {"answer": {"type": ["string", "null"], "description": "a"}},
                       "required": ["answer"], "additionalProperties": False}}},
]
OBS = {"instruction": "Find the invoice mail.", "tools": TOOLS, "max_steps": 10, "steps_left": 10,
       "user": {"id": "p_1", "name": "Dana Ops", "email": "dana@acme.test", "title": "Ops Manager"},
       "result": None}


def agent_for(server: ScriptedServer, **options: Any) -> OpenAIAgent:
    defaults: dict[str, Any] = {"timeout": 5.0}
    return OpenAIAgent("scripted-model", base_url=server.base_url, api_key="test", **{**defaults, **options})


def with_result(result: Any) -> dict[str, Any]:
    return {**OBS, "result": result}


def test_tool_call_then_submit_feeds_the_result_back(openai_server: ScriptedServer) -> None:
    openai_server.push(tool_call("mail_search_messages", query="invoice"), submit("INV-7"))
    agent = agent_for(openai_server)
    agent.reset(OBS, seed=3)
    assert agent.act(OBS) == {"name": "mail_search_messages", "arguments": {"query": "invoice"}}
    final = agent.act(with_result({"messages": [{"id": "msg_4"}]}))
    assert final == {"name": "submit", "arguments": {"answer": "INV-7"}}
    first, second = openai_server.requests
    assert first["tools"] == TOOLS
    assert first["model"] == "scripted-model"
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert "Dana Ops" in first["messages"][0]["content"]
    assert first["messages"][1]["content"] == "Find the invoice mail."
    call_id = second["messages"][2]["tool_calls"][0]["id"]
    assert second["messages"][3] == {"role": "tool", "tool_call_id": call_id,
                                     "content": json.dumps({"messages": [{"id": "msg_4"}]})}
    assert agent.usage["total"] > 0
    assert agent.usage["total"] == agent.usage["prompt"] + agent.usage["completion"]


def test_parallel_tool_calls_are_played_one_step_each(openai_server: ScriptedServer) -> None:
    openai_server.push(tool_calls(("mail_search_messages", {"query": "a"}), ("mail_search_messages", {"query": "b"})),
                       submit(None))
    agent = agent_for(openai_server)
    agent.reset(OBS, seed=0)
    assert agent.act(OBS)["arguments"] == {"query": "a"}
    assert agent.act(with_result({"n": 1}))["arguments"] == {"query": "b"}
    assert len(openai_server.requests) == 1  # the second call came from the queue
    assert agent.act(with_result({"n": 2}))["name"] == "submit"
    messages = openai_server.requests[1]["messages"]
    ids = [c["id"] for c in messages[2]["tool_calls"]]
    assert [(m["tool_call_id"], m["content"]) for m in messages[3:]] == [(ids[0], '{"n": 1}'), (ids[1], '{"n": 2}')]


def test_malformed_arguments_reach_the_env_raw_and_its_error_goes_back(openai_server: ScriptedServer) -> None:
    openai_server.push(tool_call("mail_search_messages", '{"query": "inv'), submit(None))
    agent = agent_for(openai_server)
    agent.reset(OBS, seed=0)
    action = agent.act(OBS)
    assert action == {"name": "mail_search_messages", "arguments": '{"query": "inv'}
    error = {"error": {"type": "invalid_argument", "message": "arguments are not valid JSON"}}
    agent.act(with_result(error))
    assistant, tool = openai_server.requests[1]["messages"][2:4]
    assert assistant["tool_calls"][0]["function"]["arguments"] == '{"query": "inv'
    assert json.loads(tool["content"]) == error


def test_refusal_is_nudged_once_then_submitted(openai_server: ScriptedServer) -> None:
    openai_server.push(Refusal("I can't do that."), Refusal("Still no."))
    agent = agent_for(openai_server)
    agent.reset(OBS, seed=0)
    action = agent.act(OBS)
    assert (action["name"], action["arguments"], action["officesim"]) == (
        "submit", {"answer": "Still no."}, {"actor": "harness"})  # the agent's submit, not the model's
    second = openai_server.requests[1]["messages"]
    assert second[-1] == {"role": "user", "content": NUDGE}
    assert second[-2] == {"role": "assistant", "content": "I can't do that."}


def test_plain_text_then_tool_call_continues_after_the_nudge(openai_server: ScriptedServer) -> None:
    openai_server.push(text("Let me look."), tool_call("mail_search_messages", query="x"))
    agent = agent_for(openai_server)
    agent.reset(OBS, seed=0)
    assert agent.act(OBS)["name"] == "mail_search_messages"
    assert len(openai_server.requests) == 2


def test_rate_limit_is_retried_after_retry_after(openai_server: ScriptedServer) -> None:
    openai_server.push(RateLimited(0.02), RateLimited(0.02), submit("ok"))
    agent = agent_for(openai_server)
    agent.reset(OBS, seed=0)
    started = time.perf_counter()
    assert agent.act(OBS) == {"name": "submit", "arguments": {"answer": "ok"}}
    assert agent.retries == 2 and len(openai_server.requests) == 3
    # the client waited what the server asked (0.02 s twice), not its own default backoff (0.5 s, 1 s)
    assert 0.04 <= time.perf_counter() - started < 1.0


def test_lasting_server_errors_raise_agent_error(openai_server: ScriptedServer) -> None:
    openai_server.default = ServerError(500)
    agent = agent_for(openai_server, max_retries=2)
    agent.reset(OBS, seed=0)
    with pytest.raises(AgentError, match="giving up after 3 failed requests"):
        agent.act(OBS)
    assert len(openai_server.requests) == 3


def test_timeout_is_retried(openai_server: ScriptedServer) -> None:
    openai_server.push(Slow(3.0, text("too late")), submit("on time"))
    agent = agent_for(openai_server, timeout=0.3)
    agent.reset(OBS, seed=0)
    assert agent.act(OBS) == {"name": "submit", "arguments": {"answer": "on time"}}
    assert agent.retries == 1


def test_errors_retrying_cannot_fix_fail_at_once() -> None:
    server = ScriptedServer(default=None)  # an empty script answers 400 "script exhausted"
    with serve(server):
        agent = agent_for(server)
        agent.reset(OBS, seed=0)
        with pytest.raises(AgentError, match="rejected"):
            agent.act(OBS)
    assert len(server.requests) == 1


def test_context_length_error_trims_old_tool_results_and_keeps_the_instruction() -> None:
    big = {"body": "x" * 3000}
    server = ScriptedServer([tool_call("mail_search_messages", query="a"), tool_call("mail_search_messages", query="b"),
                             submit("done")], context_limit=4000)
    with serve(server):
        agent = agent_for(server)
        agent.reset(OBS, seed=0)
        agent.act(OBS)
        agent.act(with_result(big))          # one big result: still fits
        action = agent.act(with_result(big))  # two: rejected, trimmed, accepted
    assert action["name"] == "submit"
    assert agent.trims >= 1
    last = server.requests[-1]["messages"]
    assert last[1]["content"] == "Find the invoice mail."
    tool_contents = [m["content"] for m in last if m["role"] == "tool"]
    assert tool_contents[0] == TRIMMED
    assert len(json.dumps(last)) <= 4000
    # The transcript keeps what the model was first sent, not the trimmed copy.
    kept = [m["content"] for m in agent.transcript if m["role"] == "tool"]
    assert kept == [json.dumps(big), json.dumps(big)]


def test_context_error_with_nothing_left_to_trim_is_an_agent_error(openai_server: ScriptedServer) -> None:
    openai_server.push(ContextLengthExceeded())
    agent = agent_for(openai_server)
    agent.reset(OBS, seed=0)
    with pytest.raises(AgentError, match="maximum context length"):
        agent.act(OBS)


def test_missing_key_for_openai_proper_is_an_agent_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(AgentError, match="OPENAI_API_KEY"):
        OpenAIAgent("gpt-x")


def test_scripted_calls_keep_given_ids(openai_server: ScriptedServer) -> None:
    openai_server.push(tool_calls(Call("mail_search_messages", {"query": "q"}, id="call_custom")), submit(None))
    agent = agent_for(openai_server)
    agent.reset(OBS, seed=0)
    agent.act(OBS)
    agent.act(with_result({}))
    assert openai_server.requests[1]["messages"][3]["tool_call_id"] == "call_custom"


def test_script_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "script.yaml"
    path.write_text("- {text: hi}\n- {tool_calls: [{name: submit, arguments: {answer: x}}]}\n"
                    "- {malformed: {name: submit, arguments: '{oops'}}\n- {rate_limited: 0.5}\n"
                    "- {slow: 1, then: {refusal: nope}}\n- {server_error: 503}\n- {context_length_exceeded: true}\n")
    replies = load_script(path)
    assert replies[0] == text("hi")
    assert replies[2].calls[0].arguments == "{oops"
    assert replies[3] == RateLimited(0.5)
    assert replies[4] == Slow(1.0, Refusal("nope"))
    assert replies[5] == ServerError(503)
