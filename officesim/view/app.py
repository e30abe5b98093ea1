"""The viewer's FastAPI app: what PATH is decides the start page; every route only reads.

* a world: a saved ``.db`` (``officesim world build``) or a spec ``.yaml``;
* a task folder: its start world and its instruction;
* a transcript ``.json``: the episode replayed (``--task`` names its task folder, or it sits in a
  run folder's ``transcripts/<task>/``);
* a run folder (``run.json``): its attempts, a plot, and each transcript replayed;
* a delivery folder (``manifest.json``): the report, the split, the calibration table.

Worlds opened from pages (a task's start world) are kept in a small LRU, keyed by a number.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from pathlib import Path

import uvicorn
from fastapi import FastAPI, HTTPException
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from officesim.errors import OfficesimError
from officesim.pipeline.runner import RUN_INFO, read_run_info
from officesim.task import load_task
from officesim.view import calendarpage, runpages, worldpages
from officesim.view.episode import render_episode, replay_episode
from officesim.view.html import esc, link, page, pre
from officesim.world import World

WORLD_CACHE = 4
IMAGE_TYPES = {".png": "image/png", ".svg": "image/svg+xml"}


def detect(path: Path) -> str:
    """``world``, ``task``, ``transcript``, ``run`` or ``delivery``; ``OfficesimError`` for anything else."""
    if path.is_file():
        if path.suffix in (".db", ".sqlite", ".yaml", ".yml"):
            return "world"
        if path.suffix in (".json", ".jsonl"):
            return "transcript"
    elif path.is_dir():
        if (path / "manifest.json").is_file():
            return "delivery"
        if (path / RUN_INFO).is_file():
            return "run"
        if (path / "task.yaml").is_file():
            return "task"
    elif not path.exists():
        raise OfficesimError(f"{path} does not exist")
    raise OfficesimError(f"{path} is not something officesim view shows: pass a world (.db or spec .yaml), a "
                         "transcript (.json), a task folder, a run folder (run.json) or a delivery (manifest.json)")


class Worlds:
    """Open worlds by key; the main one stays, others are evicted least recently used."""

    def __init__(self) -> None:
        self._worlds: OrderedDict[str, tuple[World, str]] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, key: str, world: World, label: str) -> str:
        with self._lock:
            self._worlds[key] = (world, label)
            self._worlds.move_to_end(key)
            while len(self._worlds) > WORLD_CACHE:
                oldest = next(k for k in self._worlds if k != "main")
                del self._worlds[oldest]
        return key

    def get(self, key: str) -> tuple[World, str]:
        with self._lock:
            if key not in self._worlds:
                raise HTTPException(404, f"world {key!r} is not open; open it again from its page")
            self._worlds.move_to_end(key)
            return self._worlds[key]


def _task_world(worlds: Worlds, task_dir: Path) -> str:
    task = load_task(task_dir)
    key = "t" + hashlib.sha256(str(task_dir.resolve()).encode()).hexdigest()[:10]
    return worlds.add(key, World.restore(task.start_snapshot()), f"start world of {task.id}")


def _transcript_task(transcript: Path, task: str | None) -> Path:
    if task:
        return Path(task)
    run = transcript.parent.parent.parent
    info = read_run_info(run) if (run / RUN_INFO).is_file() else None
    recorded = (info or {}).get("tasks", {}).get(transcript.parent.name)
    if recorded:
        return Path(recorded)
    raise OfficesimError(f"which task was {transcript} played on? pass --task TASK_DIR")


def build_app(path: str | Path, *, task: str | None = None) -> FastAPI:
    """The viewer app for ``path`` (see the module docstring)."""
    root = Path(path)
    kind = detect(root)
    app = FastAPI(title="officesim view", docs_url=None, redoc_url=None, openapi_url=None)
    worlds = Worlds()
    start = {"world": "/w/main", "task": "/task", "transcript": "/episode", "run": "/run",
             "delivery": "/delivery"}[kind]
    nav = [(start, root.name or str(root))]
    if kind == "world":
        world = World.load(root) if root.suffix in (".db", ".sqlite") else World.generate(root)
        worlds.add("main", world, root.name)
    if kind == "transcript":
        task_dir = _transcript_task(root, task)
        if not (task_dir / "task.yaml").is_file():
            raise OfficesimError(f"{task_dir} is not a task folder (no task.yaml)")

    def html(title: str, body: str) -> HTMLResponse:
        return HTMLResponse(page(title, body, nav))

    @app.get("/", include_in_schema=False)
    def index() -> RedirectResponse:
        return RedirectResponse(start)

    # ------------------------------------------------------------ worlds
    def world_nav(key: str) -> str:
        return " | ".join(link(f"/w/{key}/{s}", name) for s, name in worldpages.SECTIONS)

    @app.get("/w/{key}", response_class=HTMLResponse)
    def world_home(key: str) -> HTMLResponse:
        world, label = worlds.get(key)
        return html(f"World: {label}", f"<p>{world_nav(key)}</p>" + worldpages.overview(world, f"/w/{key}"))

    @app.get("/w/{key}/mail", response_class=HTMLResponse)
    def world_mail(key: str, q: str | None = None, folder: str | None = None) -> HTMLResponse:
        world, label = worlds.get(key)
        return html(f"Mail: {label}", f"<p>{world_nav(key)}</p>" + worldpages.mail(world, f"/w/{key}", q, folder))

    @app.get("/w/{key}/mail/thread/{thread_id}", response_class=HTMLResponse)
    def world_thread(key: str, thread_id: str) -> HTMLResponse:
        world, _ = worlds.get(key)
        return html(f"Thread {thread_id}", f"<p>{world_nav(key)}</p>" + worldpages.thread(world, thread_id))

    @app.get("/w/{key}/drive", response_class=HTMLResponse)
    def world_drive(key: str, q: str | None = None, parent: str | None = None) -> HTMLResponse:
        world, label = worlds.get(key)
        return html(f"Drive: {label}", f"<p>{world_nav(key)}</p>" + worldpages.drive(world, f"/w/{key}", q, parent))

    @app.get("/w/{key}/drive/{file_id}", response_class=HTMLResponse)
    def world_file(key: str, file_id: str) -> HTMLResponse:
        world, _ = worlds.get(key)
        return html(f"File {file_id}", f"<p>{world_nav(key)}</p>" + worldpages.drive_file(world, file_id))

    @app.get("/w/{key}/chat", response_class=HTMLResponse)
    def world_chat(key: str, q: str | None = None) -> HTMLResponse:
        world, label = worlds.get(key)
        return html(f"Chat: {label}", f"<p>{world_nav(key)}</p>" + worldpages.chat(world, f"/w/{key}", q))

    @app.get("/w/{key}/chat/{channel_id}", response_class=HTMLResponse)
    def world_channel(key: str, channel_id: str) -> HTMLResponse:
        world, _ = worlds.get(key)
        return html(f"Channel {channel_id}", f"<p>{world_nav(key)}</p>" + worldpages.channel(world, channel_id))

    @app.get("/w/{key}/calendar", response_class=HTMLResponse)
    def world_calendar(key: str, q: str | None = None, week: str | None = None) -> HTMLResponse:
        world, label = worlds.get(key)
        return html(f"Calendar: {label}",
                    f"<p>{world_nav(key)}</p>" + calendarpage.calendar(world, f"/w/{key}", q, week))

    @app.get("/w/{key}/crm", response_class=HTMLResponse)
    def world_crm(key: str, q: str | None = None) -> HTMLResponse:
        world, label = worlds.get(key)
        return html(f"CRM: {label}", f"<p>{world_nav(key)}</p>" + worldpages.crm(world, f"/w/{key}", q))

    @app.get("/w/{key}/people", response_class=HTMLResponse)
    def world_people(key: str, q: str | None = None) -> HTMLResponse:
        world, label = worlds.get(key)
        return html(f"People: {label}", f"<p>{world_nav(key)}</p>" + worldpages.people(world, f"/w/{key}", q))

    # ------------------------------------------------------------ tasks and episodes
    def task_page(task_dir: Path) -> HTMLResponse:
        loaded = load_task(task_dir)
        key = _task_world(worlds, task_dir)
        return html(f"Task {loaded.id}", f"<p>{esc(loaded.category)}, {esc(loaded.difficulty)}, family "
                                         f"{esc(loaded.family)}, group {esc(loaded.group)}</p>"
                                         f"<h2>Instruction</h2>{pre(loaded.instruction)}"
                                         f"<p>{link(f'/w/{key}', 'its start world')}</p>")

    @app.get("/task", response_class=HTMLResponse)
    def task_home() -> HTMLResponse:
        if kind != "task":
            raise HTTPException(404, "not viewing a task folder")
        return task_page(root)

    @app.get("/episode", response_class=HTMLResponse)
    def episode_home(step: int | None = None) -> HTMLResponse:
        if kind != "transcript":
            raise HTTPException(404, "not viewing a transcript")
        episode = replay_episode(task_dir, root)
        return html(f"Episode: {episode.task.id}", render_episode(episode, "/episode", step))

    # ------------------------------------------------------------ runs
    def need(wanted: str) -> None:
        if kind != wanted:
            raise HTTPException(404, f"not viewing a {wanted} folder")

    @app.get("/run", response_class=HTMLResponse)
    def run_home(q: str | None = None, category: str | None = None, passed: str | None = None) -> HTMLResponse:
        need("run")
        return html(f"Run: {root.name}", runpages.run_page(root, "/run", {"q": q, "category": category,
                                                                            "passed": passed}))

    @app.get("/run/plot.png")
    def run_plot() -> Response:
        need("run")
        return Response(runpages.run_plot(root, f"pass@1 per category: {root.name}"), media_type="image/png")

    @app.get("/run/episode/{task_id}/{attempt}", response_class=HTMLResponse)
    def run_episode(task_id: str, attempt: int, step: int | None = None) -> HTMLResponse:
        need("run")
        transcript = root / "transcripts" / task_id / f"{attempt}.json"
        recorded = ((read_run_info(root) or {}).get("tasks") or {}).get(task_id)
        if not transcript.is_file() or not recorded:
            raise HTTPException(404, f"no transcript of {task_id} attempt {attempt} in {root}")
        episode = replay_episode(Path(recorded), transcript)
        return html(f"Episode: {task_id} attempt {attempt}",
                    render_episode(episode, f"/run/episode/{task_id}/{attempt}", step))

    # ------------------------------------------------------------ deliveries
    @app.get("/delivery", response_class=HTMLResponse)
    def delivery_home() -> HTMLResponse:
        need("delivery")
        return html(f"Delivery: {root.name}", runpages.delivery_page(root, "/delivery"))

    @app.get("/delivery/files/{name}")
    def delivery_file(name: str) -> Response:
        need("delivery")
        target = root / name
        if "/" in name or target.suffix not in IMAGE_TYPES or not target.is_file():
            raise HTTPException(404, f"no image {name!r} in the delivery")
        return Response(target.read_bytes(), media_type=IMAGE_TYPES[target.suffix])

    @app.get("/delivery/split", response_class=HTMLResponse)
    def delivery_split() -> HTMLResponse:
        need("delivery")
        return html(f"Split: {root.name}", runpages.split_page(root, "/delivery"))

    @app.get("/delivery/calibration", response_class=HTMLResponse)
    def delivery_calibration() -> HTMLResponse:
        need("delivery")
        return html(f"Calibration: {root.name}", runpages.calibration_page(root))

    @app.get("/delivery/card", response_class=HTMLResponse)
    def delivery_card() -> HTMLResponse:
        need("delivery")
        return html(f"Dataset card: {root.name}", runpages.card_page(root))

    @app.get("/delivery/task/{side}/{task_id}", response_class=HTMLResponse)
    def delivery_task(side: str, task_id: str) -> HTMLResponse:
        need("delivery")
        folder = root / side / task_id
        if side not in ("tasks", "heldout") or "/" in task_id or not (folder / "task.yaml").is_file():
            raise HTTPException(404, f"no task {task_id!r} in {side}/")
        return task_page(folder)

    return app


def serve_viewer(path: str | Path, *, task: str | None = None, host: str = "127.0.0.1", port: int = 8765) -> int:
    """Serve the viewer until interrupted."""
    if not 0 < port < 65536:
        raise OfficesimError(f"--port must be between 1 and 65535, not {port}")
    app = build_app(path, task=task)
    print(f"officesim view: http://{host}:{port}/ (Ctrl-C stops)")
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0
