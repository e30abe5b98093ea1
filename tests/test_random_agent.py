"""The random agent: every call it makes validates against its tool's schema, and it ends with submit."""

from __future__ import annotations

import jsonschema

from officesim import World
from officesim.agents.random_agent import RandomAgent
from officesim.agents.registry import agent_names, make_agent
from officesim.toolexport import export_tools
from officesim.tools import dispatch, registry


def test_every_call_is_schema_valid_and_accepted_by_the_tool(tiny: World) -> None:
    tools = export_tools()
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in tools}
    validators = {name: jsonschema.Draft202012Validator(schema) for name, schema in schemas.items()}
    tools_by_name = registry()
    calls = 0
    for episode in range(25):
        agent = RandomAgent(seed=3, max_steps=20)
        obs = {"instruction": "x", "tools": tools, "max_steps": 40, "steps_left": 40, "result": None}
        agent.reset(obs, seed=episode)
        snapshot = tiny.snapshot()
        while True:
            action = agent.act(obs)
            if action["name"] == "submit":
                break
            validators[action["name"]].validate(action["arguments"])
            tools_by_name[action["name"]].validate(action["arguments"])  # the signature accepts it too
            result = dispatch(tiny, action["name"], action["arguments"])
            obs = {**obs, "result": result, "steps_left": obs["steps_left"] - 1}
            calls += 1
        tiny = World.restore(snapshot)
    assert calls > 100


def test_same_seed_same_actions_and_the_budget_is_respected() -> None:
    tools = export_tools(["directory_search_people", "directory_get_person"])
    obs = {"instruction": "x", "tools": tools, "max_steps": 3, "steps_left": 3, "result": None}

    def play(seed: int) -> list[dict]:
        agent = RandomAgent(seed=seed, max_steps=50)
        agent.reset(obs, seed=11)
        actions = []
        for _ in range(5):
            actions.append(agent.act(obs))
            if actions[-1]["name"] == "submit":
                break
        return actions

    assert play(1) == play(1)
    assert len(play(1)) <= 3 and play(1)[-1]["name"] == "submit"


def test_registry_names_every_agent_and_builds_probes() -> None:
    names = agent_names()
    assert {"oracle", "null", "random", "openai", "probe:spam_everyone"} <= set(names)
    assert make_agent("probe:spam_everyone", task=None).name == "spam_everyone"
    assert make_agent("random", seed=4).seed == 4
