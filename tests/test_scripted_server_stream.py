"""The scripted OpenAI-compatible server streams (SSE) like the real API, for harnesses that only stream."""

from __future__ import annotations

from openai import OpenAI

from officesim.testing.openai_server import serve, text, tool_calls


def test_streamed_tool_calls_and_text_reassemble_to_the_scripted_reply() -> None:
    script = [tool_calls(("mail_search_messages", {"query": "invoice overdue"}), ("submit", {"answer": "$91,800"})),
              text("A reply long enough to arrive in several chunks.")]
    with serve(script) as base_url:
        client = OpenAI(base_url=base_url, api_key="sk-test")
        stream = client.chat.completions.create(model="scripted", messages=[{"role": "user", "content": "hi"}],
                                                stream=True, stream_options={"include_usage": True})
        calls: dict[int, dict[str, str]] = {}
        finish, usage = None, None
        for chunk in stream:
            usage = chunk.usage or usage
            for choice in chunk.choices:
                finish = choice.finish_reason or finish
                for delta in choice.delta.tool_calls or []:
                    call = calls.setdefault(delta.index, {"id": "", "name": "", "arguments": ""})
                    call["id"] = delta.id or call["id"]
                    call["name"] = (delta.function.name if delta.function else None) or call["name"]
                    call["arguments"] += (delta.function.arguments if delta.function else None) or ""
        assert [(c["name"], c["arguments"]) for c in calls.values()] == [
            ("mail_search_messages", '{"query": "invoice overdue"}'), ("submit", '{"answer": "$91,800"}')]
        assert all(c["id"] for c in calls.values()) and finish == "tool_calls"
        assert usage is not None and usage.total_tokens > 0
        streamed = client.chat.completions.create(model="scripted", messages=[{"role": "user", "content": "hi"}],
                                                  stream=True)
        pieces = [c.choices[0].delta.content or "" for c in streamed if c.choices]
        assert "".join(pieces) == "A reply long enough to arrive in several chunks." and len(pieces) > 3
