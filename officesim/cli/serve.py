"""``officesim serve http|mcp``: serve tasks and worlds to remote agents.

``serve http`` runs the FastAPI app (sessions over tasks, calls on plain worlds) with uvicorn.
``serve mcp`` plays one task episode (``--task``) or exposes a world (``--world``) over stdio for
MCP clients; it needs the ``mcp`` extra (``pip install 'officesim[mcp]'``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import uvicorn

from officesim.cli.options import bounded_int, positive_float
from officesim.env import OfficeEnv
from officesim.errors import OfficesimError
from officesim.grading.judge import JudgeConfig
from officesim.server.http import create_app
from officesim.task import WORLDS_DIR, load_task, resolve_spec_path
from officesim.toolexport import SCHEMA_MODES
from officesim.world import World

DB_SUFFIXES = {".db", ".sqlite", ".sqlite3"}


def register(subparsers: argparse._SubParsersAction) -> None:
    serve = subparsers.add_parser("serve", help="serve tasks and worlds over HTTP or MCP")
    kinds = serve.add_subparsers(dest="serve_kind", required=True)

    http = kinds.add_parser("http", help="FastAPI sessions over tasks (OpenAPI at /docs)")
    http.add_argument("--tasks", default="tasks", help="the task library (default tasks/)")
    http.add_argument("--worlds", default=str(WORLDS_DIR), help="world specs for /worlds/{name}/call")
    http.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    http.add_argument("--port", type=bounded_int(1, 65535, what="port"), default=8000,
                      help="port, 1-65535 (default 8000)")
    http.add_argument("--max-sessions", type=bounded_int(1, what="--max-sessions"), default=256,
                      help="open sessions allowed at once (default 256)")
    http.add_argument("--session-ttl", type=positive_float("--session-ttl"), default=3600.0,
                      help="seconds a session may sit idle before new sessions may evict it (default 3600)")
    http.add_argument("--task-cache", type=int, default=64,
                      help="loaded tasks kept in memory, least recently used dropped first (default 64)")
    http.add_argument("--access-log", action="store_true", help="log every request (off by default: it costs "
                      "about a tenth of the server's time per step)")
    http.add_argument("--http", choices=["auto", "h11", "httptools"], default="auto",
                      help="uvicorn's HTTP parser (default auto: httptools when installed)")
    http.add_argument("--loop", choices=["auto", "asyncio", "uvloop"], default="auto",
                      help="uvicorn's event loop (default auto: uvloop when installed)")
    http.add_argument("--threaded-steps", action="store_true",
                      help="run every step in a worker thread (default: cheap steps on the event loop, which costs "
                      "about a fifth less CPU; steps that grade and tools that were slow lately always go to a thread)")
    http.add_argument("--full-grades", action="store_true",
                      help="return every gate and criterion with reasons (they quote expected values)")
    _judge_options(http)
    http.set_defaults(func=http_command)

    mcp = kinds.add_parser("mcp", help="one task episode or a world over MCP (stdio or streamable HTTP)")
    target = mcp.add_mutually_exclusive_group(required=True)
    target.add_argument("--task", help="a task folder or id: its tools plus submit, graded at the end")
    target.add_argument("--world", help="a world spec (name in worlds/ or YAML path) or a saved .db: every tool")
    mcp.add_argument("--tasks", help="the tasks directory for a task id (default $OFFICESIM_TASKS, ./tasks, "
                                     "the packaged library)")
    mcp.add_argument("--seed", type=int, help="world generation seed (--world with a spec)")
    mcp.add_argument("--record", help="write the grade and transcript here as JSON when the episode ends (--task)")
    mcp.add_argument("--full-grades", action="store_true",
                     help="return every gate and criterion in submit's result (they quote expected values: "
                          "for trusted harnesses only)")
    mcp.add_argument("--revisions", type=int, default=0, metavar="K",
                     help="revision mode (--task): a submit that does not pass says what is still wrong and the "
                          "agent may submit again, up to K times (default 0)")
    mcp.add_argument("--revision-discount", type=float, default=1.0, metavar="D",
                     help="reward factor per revision used, in (0, 1] (default 1)")
    mcp.add_argument("--schema", choices=SCHEMA_MODES, default="relaxed",
                     help="tool schemas: relaxed (default; optional arguments not required) or strict")
    mcp.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                     help="stdio (default) or streamable HTTP at http://HOST:PORT/mcp")
    mcp.add_argument("--host", default="127.0.0.1", help="interface for --transport http (default 127.0.0.1)")
    mcp.add_argument("--port", type=int, default=8001, help="port for --transport http (default 8001)")
    _judge_options(mcp)
    mcp.set_defaults(func=mcp_command)


def _judge_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--judge-model", help="judge model for judge criteria (default: $OFFICESIM_JUDGE_MODEL)")
    parser.add_argument("--judge-base-url", help="judge endpoint (default: $OFFICESIM_JUDGE_BASE_URL)")


def _judge(args: argparse.Namespace) -> JudgeConfig | None:
    overrides = {k: v for k, v in (("model", args.judge_model), ("base_url", args.judge_base_url)) if v}
    return JudgeConfig.from_env(**overrides)


def http_command(args: argparse.Namespace) -> int:
    app = create_app(args.tasks, args.worlds, judge=_judge(args), max_sessions=args.max_sessions,
                     session_ttl=args.session_ttl, grade_detail="full" if args.full_grades else "summary",
                     task_cache=args.task_cache, threaded_steps=args.threaded_steps)
    uvicorn.run(app, host=args.host, port=args.port, access_log=args.access_log, http=args.http, loop=args.loop)
    return 0


def _open_world(ref: str, seed: int | None) -> World:
    path = Path(ref)
    if path.suffix in DB_SUFFIXES:
        return World.load(path)
    return World.generate(resolve_spec_path(ref, Path.cwd()), seed)


def _report(record: Path | None) -> Callable[[OfficeEnv], None]:
    """Print the grade to stderr (stdout is the MCP wire) and, when asked, write it with the transcript."""

    def on_end(env: OfficeEnv) -> None:
        if env.grade is None:
            return
        print(env.grade.summary(), file=sys.stderr)
        if record is not None:
            data = {"grade": env.grade.model_dump(mode="json"), "transcript": env.transcript}
            record.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return on_end


def mcp_command(args: argparse.Namespace) -> int:
    # The mcp SDK is an optional extra: import it only for this command.
    try:
        from officesim.server.mcp_server import TaskHost, WorldHost, run_http, run_stdio
    except ModuleNotFoundError as exc:
        if exc.name is None or not exc.name.startswith("mcp"):
            raise
        raise OfficesimError("serving MCP needs the mcp SDK: pip install 'officesim[mcp]'") from exc
    if args.task:
        if args.seed is not None:
            raise OfficesimError("--seed applies to --world; a task fixes its own world")
        host: TaskHost | WorldHost
        host = TaskHost(load_task(args.task, args.tasks), judge=_judge(args), full_grades=args.full_grades,
                        schema=args.schema, on_end=_report(Path(args.record) if args.record else None),
                        revisions=args.revisions, revision_discount=args.revision_discount)
    else:
        for flag, given in (("--record", args.record), ("--full-grades", args.full_grades), ("--tasks", args.tasks),
                            ("--revisions", args.revisions)):
            if given:
                raise OfficesimError(f"{flag} applies to --task; a world has no episode")
        host = WorldHost(_open_world(args.world, args.seed), Path(args.world).stem, schema=args.schema)
    if args.transport == "http":
        run_http(host, host_name=args.host, port=args.port)
    else:
        run_stdio(host)
    return 0
