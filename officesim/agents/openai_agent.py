"""``OpenAIAgent``: a tool-calling loop against any OpenAI-compatible chat-completions endpoint.

Works with OpenAI, vLLM, Ollama, or the scripted test server.  The agent keeps its own chat
history (system prompt, the instruction, assistant turns, ``tool`` results) and hands the env one
tool call per ``act``; parallel tool calls are queued and played one env step each.

Failure handling, and why:

* Tool-call arguments that are not JSON go to the env as the raw string; the env answers with an
  ``invalid_argument`` error and that error reaches the model as the ``tool`` result, so the
  model can fix its own call, exactly as in production.
* A reply with no tool call (plain text or a refusal) earns one nudge; the next one is submitted
  as the final answer, so a chatty model ends its episode instead of looping.  That submit is the
  harness's, not the model's: ``transcript`` marks it ``"officesim": {"actor": "harness"}``.
* A context-length error trims the oldest tool results (the instruction is never trimmed) and
  retries.
* Rate limits, 5xx, timeouts and connection errors are retried by the ``openai`` client itself
  (``max_retries``: exponential backoff with jitter, the server's ``Retry-After`` honoured); after
  lasting failure, or on an error that retrying
  cannot fix (bad key, unknown model), ``AgentError`` is raised so the attempt is recorded as
  ``error``, never as a score of 0.
"""

from __future__ import annotations

import json
import os
from collections import deque
from typing import Any, NoReturn

import openai

from officesim.agents.base import AgentError
from officesim.errors import OfficesimError

DEFAULT_SYSTEM_PROMPT = (
    "You are {user}, working in the company's office tools. Complete the task using only the "
    "tools you are given. Look things up before you act, and do not change or send anything the "
    "task does not ask for. When you are done, call `submit` with your final answer (or null if "
    "the task asks for no answer)."
)
HARNESS_CALL_PREFIX = "officesim_harness_"
HARNESS = {"actor": "harness"}  # marks messages the model did not write (see ``OpenAIAgent.transcript``)
NUDGE = (
    "You replied without calling a tool. Continue the task with the tools; when you are done, "
    "call `submit` with your final answer."
)
TRIMMED = json.dumps({"note": "this older tool result was removed to fit the context window"})
# What the client retries (``max_retries`` times) before it raises: past that, the attempt is an error.
RETRIED = (openai.RateLimitError, openai.InternalServerError, openai.APITimeoutError, openai.APIConnectionError)


def describe_user(user: Any) -> str:
    if isinstance(user, dict):
        name = user.get("name") or user.get("email") or "an employee"
        extras = [str(user[k]) for k in ("title", "email") if user.get(k) and user.get(k) != name]
        return f"{name} ({', '.join(extras)})" if extras else str(name)
    return str(user) if user else "an employee"


def _is_context_error(exc: openai.APIStatusError) -> bool:
    code = getattr(exc, "code", None)
    text = str(exc).lower()
    return code == "context_length_exceeded" or "context length" in text or "context_length" in text


PROBE_TIMEOUT = 5.0  # seconds: a live endpoint lists its models in well under a second


def probe_endpoint(model: str, base_url: str | None = None, api_key: str | None = None, *,
                   probe_timeout: float = PROBE_TIMEOUT, **_options: Any) -> None:
    """Ask the endpoint for its model list once, before a run; ``OfficesimError`` naming the URL if it is down.

    Without this, every attempt of a run against a dead endpoint spends its retries (about 70 s)
    before it is recorded as an error.  An endpoint without ``/models`` (404) is taken as alive:
    the chat requests will tell.  The agent's own options (``timeout``, ...) are ignored here.
    """
    key = api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY"
    client = openai.OpenAI(base_url=base_url, api_key=key, timeout=probe_timeout, max_retries=0)
    url = str(client.base_url).rstrip("/")
    try:
        client.models.list()
    except (openai.APIConnectionError, openai.APITimeoutError) as exc:
        raise OfficesimError(f"the model endpoint {url} does not answer ({exc.__class__.__name__}: {exc}); "
                             "start the server or fix --base-url") from None
    except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
        raise OfficesimError(f"the model endpoint {url} rejected the API key (HTTP {exc.status_code}); "
                             "set OPENAI_API_KEY to a valid key") from None
    except openai.NotFoundError:
        return
    except openai.APIStatusError as exc:
        raise OfficesimError(f"the model endpoint {url} answered HTTP {exc.status_code} to GET /models; "
                             "check --base-url (it usually ends in /v1)") from None
    finally:
        client.close()


class OpenAIAgent:
    """A chat-completions tool-calling agent.

    Args:
        model: the model name the endpoint serves.
        base_url: the endpoint (``http://localhost:8000/v1`` for vLLM); ``None`` means OpenAI.
        api_key: defaults to ``OPENAI_API_KEY``; local endpoints that need none get a placeholder.
        max_retries: retries per request on rate limits, 5xx, timeouts and connection errors (the
            ``openai`` client's own, with its backoff and ``Retry-After`` handling).
        timeout: seconds per request.
        temperature: sampling temperature; ``None`` leaves the endpoint's default.
        max_tokens: completion limit per request; ``None`` leaves the endpoint's default.
        system_prompt: a template with ``{user}``; the default describes the office setting.
        max_nudges: text-only replies answered with a nudge before the text is submitted.
        send_seed: pass the episode seed to the endpoint (OpenAI and vLLM accept ``seed``).
    """

    name = "openai"

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        max_retries: int = 6,
        timeout: float = 120.0,
        temperature: float | None = None,
        max_tokens: int | None = None,
        system_prompt: str | None = None,
        max_nudges: int = 1,
        send_seed: bool = True,
    ) -> None:
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            if base_url is None:
                raise AgentError("OpenAIAgent needs an API key: set OPENAI_API_KEY or pass api_key")
            key = "EMPTY"  # vLLM and Ollama accept any key
        self.model = model
        self.base_url = base_url
        self.max_retries = max_retries
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.system_prompt = system_prompt or DEFAULT_SYSTEM_PROMPT
        self.max_nudges = max_nudges
        self.send_seed = send_seed
        self._client = openai.OpenAI(base_url=base_url, api_key=key, timeout=timeout, max_retries=max_retries)
        self._reset_state(seed=0)

    def _reset_state(self, *, seed: int) -> None:
        self.messages: list[dict[str, Any]] = []  # what the next request sends (older tool results may be trimmed)
        self._transcript: list[dict[str, Any]] = []  # every message as first sent or received, never trimmed
        self.tools: list[dict[str, Any]] = []
        self.usage = {"prompt": 0, "completion": 0, "total": 0}
        self.api_calls = 0
        self.retries = 0
        self.trims = 0
        self._seed = seed
        self._queue: deque[tuple[str, str, Any]] = deque()
        self._awaiting: str | None = None
        self._nudges = 0

    # -- Agent protocol ---------------------------------------------------------------------
    def reset(self, obs: dict[str, Any], *, seed: int) -> None:
        """Start the chat: system prompt, the instruction, and the task's tools."""
        self._reset_state(seed=seed)
        self.tools = list(obs.get("tools") or [])
        system = self.system_prompt.replace("{user}", describe_user(obs.get("user")))
        self._add({"role": "system", "content": system})
        self._add({"role": "user", "content": str(obs["instruction"])})

    def act(self, obs: dict[str, Any]) -> dict[str, Any]:
        """Feed back the last tool result, then play the next queued or newly requested call."""
        self._feed_back(obs)
        while not self._queue:
            message = self._complete()
            self._absorb(message)
            if self._queue:
                break
            reply = message.content or message.refusal or ""
            if self._nudges < self.max_nudges:
                self._nudges += 1
                self._add({"role": "user", "content": NUDGE})
                continue
            return self._harness_submit(reply or None)
        call_id, name, arguments = self._queue.popleft()
        self._awaiting = call_id
        return {"name": name, "arguments": arguments}

    def end(self, obs: dict[str, Any]) -> None:
        """The episode is over: record the result of the last call (the model never reads it)."""
        self._feed_back(obs)

    @property
    def transcript(self) -> list[dict[str, Any]]:
        """The episode exactly as the model saw and said it, as OpenAI chat messages.

        The system prompt, the instruction, every assistant turn (text replies too, with their
        tool calls' arguments as the model wrote them), every tool result as first sent (before
        any trimming for the context window) and every nudge.  Messages the model did not write
        carry ``"officesim": {"actor": "harness"}``: the submit the agent makes for a model that
        kept replying with text, and its result.  Replaying the transcript (``officesim grade``,
        ``score_transcript``) plays those too, so it reaches the episode's grade; training on what
        the model said means dropping them (``officesim.replay.model_messages``).
        """
        return self._transcript

    # -- internals --------------------------------------------------------------------------
    def _add(self, message: dict[str, Any], *, harness: bool = False) -> None:
        """Append to the request history and (as a copy, so trimming never rewrites it) to the transcript."""
        if not harness:
            self.messages.append(message)
        self._transcript.append({**message, "officesim": dict(HARNESS)} if harness else dict(message))

    def _feed_back(self, obs: dict[str, Any]) -> None:
        if self._awaiting is None:
            return
        call_id, self._awaiting = self._awaiting, None
        result = obs.get("result")
        content = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
        self._add({"role": "tool", "tool_call_id": call_id, "content": content},
                  harness=call_id.startswith(HARNESS_CALL_PREFIX))

    def _harness_submit(self, answer: str | None) -> dict[str, Any]:
        """Submit the model's last text as its answer, recorded as the harness's call, not the model's."""
        call_id = f"{HARNESS_CALL_PREFIX}{len(self._transcript)}"
        arguments = {"answer": answer}
        self._add({"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": "submit", "arguments": json.dumps(arguments, ensure_ascii=False)}}]},
            harness=True)
        self._awaiting = call_id
        return {"name": "submit", "arguments": arguments, "id": call_id, "officesim": dict(HARNESS)}

    def _absorb(self, message: Any) -> None:
        """Record the assistant turn in the history and queue its tool calls."""
        entry: dict[str, Any] = {"role": "assistant", "content": message.content}
        calls = [c for c in (message.tool_calls or []) if getattr(c, "function", None) is not None]
        if calls:
            entry["tool_calls"] = [
                {"id": c.id, "type": "function",
                 "function": {"name": c.function.name, "arguments": c.function.arguments or ""}}
                for c in calls
            ]
        elif message.content is None:
            entry["content"] = message.refusal or ""
        self._add(entry)
        for call in calls:
            raw = call.function.arguments or ""
            try:
                arguments: Any = json.loads(raw) if raw.strip() else {}
            except json.JSONDecodeError:
                arguments = raw  # the env answers with an invalid_argument error the model sees
            self._queue.append((call.id, call.function.name, arguments))

    def _request(self) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.model, "messages": self.messages}
        if self.tools:
            request["tools"] = self.tools
        if self.temperature is not None:
            request["temperature"] = self.temperature
        if self.max_tokens is not None:
            request["max_tokens"] = self.max_tokens
        if self.send_seed:
            request["seed"] = self._seed % (2**31)
        return request

    def _complete(self) -> Any:
        """One assistant message, after retries and context trimming as needed."""
        while True:
            self.api_calls += 1
            try:
                raw = self._client.chat.completions.with_raw_response.create(**self._request())
            except openai.BadRequestError as exc:
                if _is_context_error(exc) and self._trim():
                    continue
                raise AgentError(f"{self.model}: request rejected: {exc}") from exc
            except openai.APIStatusError as exc:
                if isinstance(exc, RETRIED) or exc.status_code in (408, 409):
                    self._give_up(exc)
                raise AgentError(f"{self.model}: request rejected: {exc}") from exc
            except RETRIED as exc:
                self._give_up(exc)
            self.retries += raw.retries_taken
            response = raw.parse()
            self._count(response)
            if not response.choices:
                raise AgentError(f"{self.model}: the endpoint returned no choices")
            return response.choices[0].message

    def _give_up(self, exc: Exception) -> NoReturn:
        """The client spent its retries on ``exc``: the attempt is an error."""
        self.retries += self.max_retries
        raise AgentError(f"{self.model}: giving up after {self.max_retries + 1} failed requests: {exc}") from exc

    def _trim(self) -> bool:
        """Blank the older half of the untrimmed tool results; False when nothing is left to cut."""
        candidates = [m for m in self.messages if m["role"] == "tool" and m["content"] != TRIMMED]
        if not candidates:
            return False
        for message in candidates[: max(1, len(candidates) // 2)]:
            message["content"] = TRIMMED  # the transcript keeps the full text: it holds copies
        self.trims += 1
        return True

    def _count(self, response: Any) -> None:
        usage = getattr(response, "usage", None)
        if usage is None:
            return
        self.usage["prompt"] += usage.prompt_tokens or 0
        self.usage["completion"] += usage.completion_tokens or 0
        self.usage["total"] += usage.total_tokens or 0
