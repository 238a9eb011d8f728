"""The built site in a real browser: every page loads with no JavaScript error and no failed
resource, every slider view redraws its plot when its slider moves, and a screenshot of each
page is saved.

Needs the built site (``paperlib reproduce`` or ``python -m snakemake book`` writes ``results/book/``; another folder
with ``PAPERLIB_BOOK=...``) and Debian's ``chromium`` (``PAPERLIB_CHROMIUM=...`` for another
binary). Marked ``browser``: the default test run deselects it; CI runs ``pytest -m browser``
after building the site. Screenshots go to ``results/screenshots/book/`` (``PAPERLIB_SHOTS``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from paperlib.book.serve import serve
from paperlib.figures.views import VIEW_CLASS
from paperlib.provenance import REPO_ROOT

pytestmark = pytest.mark.browser

SITE = Path(os.environ.get("PAPERLIB_BOOK", REPO_ROOT / "results" / "book"))
SHOTS = Path(os.environ.get("PAPERLIB_SHOTS", REPO_ROOT / "results" / "screenshots" / "book"))
# Chromium's own GPU/driver chatter is logged as warnings; errors are what we refuse.
BAD_CONSOLE_TYPES = {"error"}


def _pages(site: Path) -> list[str]:
    pages = []
    for p in sorted(site.rglob("*.html")):
        rel = p.relative_to(site)
        if rel.parts[0] in ("_static", "_sources", "_images"):
            continue
        pages.append(rel.as_posix())
    return pages


@pytest.fixture(scope="module")
def site_url():
    if not (SITE / "index.html").is_file():
        pytest.fail(f"{SITE}/index.html missing: build the site first (paperlib reproduce, or python -m snakemake book)")
    with serve(SITE) as url:
        yield url


@pytest.fixture(scope="module")
def browser(chromium_executable):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_executable, args=["--no-sandbox", "--disable-dev-shm-usage"])
        yield b
        b.close()


#: The text a reader sees (code cells, typeset math, plots and scripts removed; notebook outputs kept) after
#: MathJax ran: any TeX command or "$$" left there is math the page failed to typeset (e.g. display math glued
#: into a paragraph), and a "|---|" row (Sphinx's smart quotes make it "|—|") is a Markdown table shown as its
#: source instead of as a table.
LEAKED_TEX_JS = r"""() => {
  const root = (document.querySelector("article") || document.body).cloneNode(true);
  root.querySelectorAll("pre, code, .highlight, .cell_input, mjx-container, iframe, script, style, svg, canvas")
      .forEach(e => e.remove());
  const text = root.textContent || "";
  return text.match(/\\(?:boldsymbol|dot|ddot|bar|begin|end|frac|mathbf|tau|pi|qquad|hat|sum)\b|\$\$|\|\s*:?(?:-{3,}|\u2014+|\u2013{2,}):?\s*\|/g) || [];
}"""


#: Papermill's parameters cells on a page: MyST-NB marks a cell with its tags as ``tag_<tag>`` classes; the
#: injected cell also starts with papermill's "# Parameters" comment.
PARAMETER_CELLS_JS = r"""() => {
  const tagged = document.querySelectorAll(".cell.tag_parameters, .cell.tag_injected-parameters").length;
  const injected = Array.from(document.querySelectorAll(".cell_input"))
      .filter(e => /^\s*# Parameters\b/.test(e.textContent || "")).length;
  return Math.max(tagged, injected);
}"""


def _shot_name(page: str) -> str:
    return page.replace("/", "__").removesuffix(".html") + ".png"


def _move_slider_and_compare(pg, frame_el, page: str, k: int) -> tuple[bool, str]:
    """Move the view's slider one step; True if the plot's canvas pixels changed."""
    frame = frame_el.content_frame()
    assert frame is not None, f"{page}: view {k} has no content frame"
    frame.wait_for_selector("canvas", timeout=30_000)
    handle = frame.locator(".noUi-handle").first
    if handle.count() == 0:
        return False, "no slider handle in the view"
    canvas = frame.locator("canvas").first
    canvas.scroll_into_view_if_needed()
    pg.wait_for_timeout(300)
    before = canvas.screenshot()
    handle.focus()
    frame.page.keyboard.press("ArrowRight")
    pg.wait_for_timeout(800)
    after = canvas.screenshot()
    if after == before:  # at the end of its range the handle cannot move right
        handle.focus()
        frame.page.keyboard.press("ArrowLeft")
        frame.page.keyboard.press("ArrowLeft")
        pg.wait_for_timeout(800)
        after = canvas.screenshot()
    return after != before, ""


def test_every_page_loads_cleanly_and_sliders_redraw(site_url, browser):
    pages = _pages(SITE)
    assert "index.html" in pages
    SHOTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    n_views = 0
    moved: list[str] = []
    for page in pages:
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        pg = ctx.new_page()
        events: list[str] = []
        pg.on("console", lambda m, page=page: events.append(f"{page}: console {m.type}: {m.text} "
                                                              f"({m.location.get('url', '')})")
              if m.type in BAD_CONSOLE_TYPES else None)
        pg.on("pageerror", lambda e, page=page: events.append(f"{page}: JavaScript error: {e}"))
        pg.on("requestfailed", lambda r, page=page: events.append(f"{page}: failed load: {r.url} ({r.failure})"))
        pg.on("response", lambda r, page=page: events.append(f"{page}: HTTP {r.status}: {r.url}")
              if r.status >= 400 else None)
        pg.goto(site_url + page, wait_until="load")
        # MathJax typesets after load; its promise resolves when the page's math is done.
        pg.evaluate("() => (window.MathJax && MathJax.startup && MathJax.startup.promise) || null")
        views = pg.locator(f"iframe.{VIEW_CLASS}")
        for k in range(views.count()):
            n_views += 1
            changed, why = _move_slider_and_compare(pg, views.nth(k).element_handle(), page, k)
            if changed:
                moved.append(f"{page}#{k}")
            else:
                problems.append(f"{page}: view {k} ({views.nth(k).get_attribute('data-view')}): plot did not change "
                                f"when its slider moved {why}")
        pg.wait_for_timeout(500)  # MathJax typesetting
        shown = pg.evaluate(PARAMETER_CELLS_JS)
        if shown:
            problems.append(f"{page}: {shown} papermill parameters cell(s) shown (the book hides them)")
        leaked = pg.evaluate(LEAKED_TEX_JS)
        if leaked:
            problems.append(f"{page}: source shown instead of typeset math or a table: {leaked[:3]}")
        pg.screenshot(path=str(SHOTS / _shot_name(page)), full_page=True)
        problems += events
        ctx.close()
    assert not problems, "\n".join(problems)
    assert n_views >= 1, "no slider view in the site (the course notebooks embed them)"
    assert moved, "no slider was moved"
