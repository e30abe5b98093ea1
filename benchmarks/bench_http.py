"""HTTP benchmark: oracle episodes through ``officesim serve http`` against the same episodes in process.

Run: ``python benchmarks/bench_http.py [--tasks tasks] [--limit 40] [--seconds 4] [--json FILE]``.

* the server is ``python -m officesim serve http`` in its own process, with its defaults (access
  log off; uvicorn's ``auto`` stack: httptools and uvloop when installed), and, for comparison,
  with the pure-Python stack (``--http h11 --loop asyncio``);
* an episode = ``POST /sessions`` + the reference solution's steps + ``submit`` + ``DELETE``,
  played by 1 client and by 8 concurrent clients (threads, one ``httpx.Client`` each);
* server CPU per episode = the server process's user+system time (``/proc/PID/stat``) over the
  measurement divided by the episodes played; the baseline is the CPU time of the very same
  episodes played in this process with ``OfficeEnv`` (reset, steps, grading), measured in the
  same run: in ``ROUNDS`` rounds that each time the baseline and both client counts back to back,
  so a drift in the machine's speed weighs on both sides alike;
* bytes per step = the mean size of a step response's body (the reset's is printed apart: it
  carries the tool list, which steps no longer repeat).

Target (issue 12): server CPU per episode within 3x of in-process.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]  # this checkout

import httpx
from timing import Clock, Figures, fmt_ms

from officesim import OfficeEnv, load_task
from officesim.agents.scripted import OracleAgent
from officesim.env import play
from officesim.task import Task, find_tasks

ROOT = Path(__file__).resolve().parent.parent
TICKS = os.sysconf("SC_CLK_TCK")
ROUNDS = 4  # interleaved rounds per server stack (see run)


def spread(tasks: list[Task], limit: int) -> list[Task]:
    """Up to ``limit`` tasks, round-robin over families (so every family is represented)."""
    by_family: dict[str, list[Task]] = {}
    for task in tasks:
        by_family.setdefault(task.family, []).append(task)
    sample: list[Task] = []
    while len(sample) < limit and any(by_family.values()):
        for family in sorted(by_family):
            if by_family[family] and len(sample) < limit:
                sample.append(by_family[family].pop(0))
    return sample


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def actions(task: Task) -> list[dict[str, Any]]:
    steps = [{"name": s.name, "arguments": s.arguments} for s in task.solution.steps]
    return [*steps, {"name": "submit", "arguments": {"answer": task.solution.answer}}]


def episode(client: httpx.Client, task: Task, sizes: list[int] | None = None) -> float:
    """One oracle episode over HTTP; returns the final reward."""
    created = client.post("/sessions", json={"task": task.id})
    created.raise_for_status()
    sid = created.json()["session_id"]
    reward = 0.0
    for action in actions(task):
        response = client.post(f"/sessions/{sid}/step", json=action)
        response.raise_for_status()
        if sizes is not None:
            sizes.append(len(response.content))
        reward = response.json()["reward"]
    client.delete(f"/sessions/{sid}").raise_for_status()
    return reward


class Server:
    """``officesim serve http`` in a child process, on a free port."""

    def __init__(self, tasks_dir: str, extra: list[str]) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "officesim", "serve", "http", "--tasks", tasks_dir, "--port", str(self.port),
             "--max-sessions", "64", *extra], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                httpx.get(self.url + "/tasks", timeout=1).raise_for_status()
                return
            except httpx.HTTPError:
                time.sleep(0.2)
        self.stop()
        raise SystemExit("the server did not start within 120 s")

    def cpu(self) -> float:
        return process_cpu(self.proc.pid)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


@dataclass
class Tally:
    """Episodes, wall seconds and CPU seconds summed over a measurement's rounds."""

    episodes: int = 0
    wall: float = 0.0
    cpu: float = 0.0

    def add(self, episodes: int, wall: float, cpu: float) -> None:
        self.episodes += episodes
        self.wall += wall
        self.cpu += cpu

    @property
    def rate(self) -> float:
        return self.episodes / self.wall

    @property
    def cpu_per_episode(self) -> float:
        return self.cpu / self.episodes


def measure(server: Server, sample: list[Task], clients: int, seconds: float, tally: Tally) -> None:
    """Oracle episodes over HTTP with ``clients`` concurrent clients for ``seconds``, added to ``tally``
    (the server process's CPU time)."""
    counts = [0] * clients
    stop = time.monotonic() + seconds
    errors: list[BaseException] = []

    def worker(index: int) -> None:
        try:
            with httpx.Client(base_url=server.url, timeout=60) as client:
                i = index
                while time.monotonic() < stop:
                    episode(client, sample[i % len(sample)])
                    counts[index] += 1
                    i += clients
        except BaseException as exc:  # reported below; a benchmark must not hide a failed request
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
    cpu0, wall0 = server.cpu(), time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall, cpu = time.perf_counter() - wall0, server.cpu() - cpu0
    if errors:
        raise SystemExit(f"an HTTP episode failed: {errors[0]!r}")
    tally.add(sum(counts), wall, cpu)


def in_process(envs: list[tuple[OfficeEnv, OracleAgent]], seconds: float, tally: Tally) -> None:
    """The same oracle episodes played with ``OfficeEnv`` in this process for ``seconds``, added to ``tally``."""
    episodes = 0
    with Clock() as clock:
        stop = time.perf_counter() + seconds
        while time.perf_counter() < stop:
            for env, agent in envs:
                play(env, agent)
                episodes += 1
    tally.add(episodes, clock.wall, clock.cpu)


def run(tasks_dir: str, limit: int, seconds: float, figures: Figures) -> None:
    sample = spread([t for t in map(load_task, find_tasks([tasks_dir])) if t.solution is not None], limit)
    print(f"== HTTP: oracle episodes of {len(sample)} tasks from {len({t.family for t in sample})} families, "
          f"{ROUNDS} interleaved rounds ==")
    envs = [(OfficeEnv(t), OracleAgent(t)) for t in sample]
    for env, agent in envs:  # warm-up: every task's start state built, every statement prepared
        play(env, agent)
    stacks = [("default", [], "httptools+uvloop, no access log"), ("h11", ["--http", "h11", "--loop", "asyncio"],
                                                                     "h11+asyncio, no access log")]
    local_all = Tally()
    for name, extra, label in stacks:
        server = Server(tasks_dir, extra)
        try:
            with httpx.Client(base_url=server.url, timeout=120) as client:
                sizes: list[int] = []
                for task in sample:  # warm-up: the server loads every task once
                    if episode(client, task, sizes) < 1.0:
                        raise SystemExit(f"the oracle fails {task.id} over HTTP")
                reset_bytes = len(client.post("/sessions", json={"task": sample[0].id}).content)
            # The machine's speed drifts by tens of percent within a minute: each round measures the
            # in-process baseline and both client counts back to back, and the figures sum the rounds.
            local, remote = Tally(), {1: Tally(), 8: Tally()}
            for _ in range(ROUNDS):
                in_process(envs, seconds / ROUNDS, local)
                for clients, tally in remote.items():
                    measure(server, sample, clients, seconds / ROUNDS, tally)
            local_all.add(local.episodes, local.wall, local.cpu)
            print(f"  in process (OfficeEnv), beside {name}: {local.rate:7.0f} episodes/s   CPU "
                  f"{fmt_ms(local.cpu_per_episode)} per episode")
            for clients, tally in remote.items():
                ratio = tally.cpu_per_episode / local.cpu_per_episode
                print(f"  HTTP {label:<31} {clients} client(s): {tally.rate:6.0f} episodes/s   server CPU "
                      f"{fmt_ms(tally.cpu_per_episode)} per episode ({ratio:.2f}x in process)")
                if name == "default":
                    figures.add(f"http_rate_{clients}", tally.rate, unit="episodes/s",
                                what=f"HTTP oracle episodes/s, {clients} client(s)")
                    figures.add(f"http_cpu_ratio_{clients}", ratio, unit="x", target="<= 3x", ok=ratio <= 3,
                                what=f"HTTP server CPU per episode / in-process CPU per episode ({clients} "
                                f"client(s))", shown=f"{fmt_ms(tally.cpu_per_episode)} vs "
                                f"{fmt_ms(local.cpu_per_episode)} ({ratio:.2f}x)")
            if name == "default":
                step_bytes = statistics.mean(sizes)
                print(f"  bytes per step response: {step_bytes:,.0f} (mean); session creation (with the tool list) "
                      f"{reset_bytes:,}")
                figures.add("http_bytes_per_step", step_bytes, unit="bytes", what="HTTP bytes per step response",
                            shown=f"{step_bytes:,.0f} B (reset with the tool list: {reset_bytes:,} B)")
        finally:
            server.stop()
    figures.add("inprocess_cpu_per_episode", local_all.cpu_per_episode * 1e3, unit="ms",
                what="in-process CPU per oracle episode (HTTP sample)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", default=str(ROOT / "tasks"), help="the task library")
    parser.add_argument("--limit", type=int, default=40, help="tasks in the sample (spread over families)")
    parser.add_argument("--seconds", type=float, default=4.0, help="time per measurement")
    parser.add_argument("--json", help="merge the figures into this JSON file")
    args = parser.parse_args()
    figures = Figures("http")
    run(args.tasks, args.limit, args.seconds, figures)
    figures.write(args.json)


if __name__ == "__main__":
    main()
