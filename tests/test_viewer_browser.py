"""The viewer in a real browser: Debian's headless Chromium driven by Playwright.

Each page must load with no console error; an episode replays step by step to its grade, where
a criterion's reason is visible; screenshots go to ``test-artifacts/viewer/`` (printed).  The
tests skip only when /usr/bin/chromium is absent (CI installs it in ``.ci/run``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from officesim.pipeline.calibrate import CalibrationConfig
from officesim.pipeline.delivery import DeliveryOptions, deliver
from officesim.pipeline.runner import AgentSpec, run
from officesim.task import find_tasks
from officesim.testing import serve_app
from officesim.view.app import build_app

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).parent.parent / "test-artifacts" / "viewer"
FIXTURES = Path(__file__).parent / "fixtures" / "runner_tasks"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: apt-get install -y chromium")
playwright_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture
def serve() -> Iterator[Callable[[Path], str]]:
    """Starts the viewer on a path (a world, a task, a transcript); every one stops after the test."""
    with contextlib.ExitStack() as running:
        yield lambda path: running.enter_context(serve_app(build_app(path), name="viewer"))


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with playwright_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield launched
        launched.close()


class Page:
    """A browser page that records console errors and failed requests."""

    def __init__(self, browser: object) -> None:
        self.page = browser.new_page()
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def open(self, url: str) -> None:
        response = self.page.goto(url)
        assert response is not None and response.status == 200, url
        self.page.wait_for_load_state("load")
        assert self.errors == [], (url, self.errors)

    def shot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        print(f"screenshot: {path}")
        return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("viewer-runs")
    run(find_tasks([FIXTURES]), AgentSpec("oracle"), 1, out / "oracle", progress=False)
    return out / "oracle"


def test_world_pages_load_and_search(browser: object, serve: callable) -> None:
    base = serve(Path(__file__).parent.parent / "worlds" / "tiny.yaml")
    page = Page(browser)
    page.open(base + "/")
    assert "Acting as" in page.page.inner_text("main")
    for section in ("mail", "drive", "chat", "calendar", "crm", "people"):
        page.open(f"{base}/w/main/{section}")
    page.open(f"{base}/w/main/calendar")
    week = page.page.inner_text("#calendar-week")
    assert "accepted" in week and "Rooms" in page.page.inner_text("main")  # attendees' answers, the rooms
    page.page.click("text=next week →")
    page.page.wait_for_load_state("load")
    assert "week=" in page.page.url and "Week of" in page.page.inner_text("main") and page.errors == []
    page.shot("world-calendar")
    page.page.fill("input[name=q]", "a")
    page.page.click("button[type=submit]")
    page.page.wait_for_load_state("load")
    assert "q=a" in page.page.url and page.errors == []
    page.open(f"{base}/w/main/mail")
    page.page.click("main table a >> nth=0")  # into a thread
    page.page.wait_for_load_state("load")
    assert "/mail/thread/" in page.page.url and page.errors == []
    page.shot("world-mail-thread")


def test_an_episode_replays_step_by_step_to_its_grade(browser: object, serve: callable, runs: Path) -> None:
    base = serve(runs)
    page = Page(browser)
    page.open(base + "/run")
    assert page.page.locator("#attempts tbody tr").count() == len(find_tasks([FIXTURES]))
    page.page.click("#attempts th >> text=score")  # sortable
    page.shot("run")
    page.open(f"{base}/run/episode/who-is-ceo/0")
    seen = []
    while page.page.locator("#next").count():
        seen.append(page.page.inner_text("#step"))
        page.page.click("#next")
        page.page.wait_for_load_state("load")
        assert page.errors == []
    assert seen and seen[0].startswith("Step 1 of") and seen[-1].startswith(f"Step {len(seen)} of {len(seen)}")
    grade = page.page.inner_text("#grade")
    assert "PASSED" in grade
    reasons = page.page.locator("#checks .reason").all_inner_texts()
    assert reasons and all(reasons)  # every gate and criterion with its reason, visible
    assert page.page.locator("#checks .reason >> nth=0").is_visible()
    page.shot("episode-grade")


def test_a_delivery_renders_report_split_and_calibration(browser: object, serve: callable, tmp_path: Path) -> None:
    result = deliver(DeliveryOptions(month="2026-09", tasks=FIXTURES, out=tmp_path, work=tmp_path / "work", n=2,
                                     heldout=0.3, calibration=CalibrationConfig(oracle_seeds=1), progress=False))
    base = serve(result.path)
    page = Page(browser)
    page.open(base + "/")
    assert "Judge status" in page.page.inner_text("main")
    images = page.page.locator("main img")
    assert images.count() >= 4
    assert all(page.page.evaluate("(img) => img.naturalWidth > 0", images.nth(i).element_handle())
               for i in range(images.count()))
    page.shot("delivery-report")
    page.open(base + "/delivery/split")
    page.open(base + "/delivery/calibration")
    assert "remove" in page.page.inner_text("#calibration")
    page.shot("delivery-calibration")
