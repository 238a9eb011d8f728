"""``paperlib run --rig twin --live`` in a real browser: the page comes up, its plots fill and change
while the run goes, the page raises no JavaScript error, and the run ends with a valid recording and
its live mirror removed.

Needs Debian's ``chromium`` (``PAPERLIB_CHROMIUM=...`` for another binary), as the book's browser test.
Marked ``browser``: the default test run deselects it; CI runs ``pytest -m browser``. No time is
asserted: the test polls the page with generous bounds and asserts on what the page holds (the number
of plotted points and a checksum of the plots' data, read from the page's Bokeh document; the sample
count in its status line). A screenshot goes to ``results/screenshots/live/`` (``PAPERLIB_SHOTS``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from paperlib.hardware.live_launch import free_port
from paperlib.provenance import REPO_ROOT
from paperlib.recordings import read_recording

pytestmark = pytest.mark.browser

SHOTS = Path(os.environ.get("PAPERLIB_SHOTS", REPO_ROOT / "results" / "screenshots")) / "live"
#: The run's length [s]: the loop keeps real time (it cannot end sooner), long enough for the page to
#: be opened and read twice while it goes even on a loaded 2-core machine.
RUN_S = 40.0
#: Bounds of the polls [s] (generous: a first run compiles the controller's kernels).
PAGE_UP_S, LOOP_UP_S, CHANGE_S, RUN_END_S = 300.0, 400.0, 120.0, 600.0

#: Every ColumnDataSource of the page's Bokeh documents: how many points, and a checksum of their values.
PLOTS_JS = r"""() => {
  if (!window.Bokeh || !Bokeh.documents || !Bokeh.documents.length) return null;
  let points = 0, sum = 0, sources = 0;
  for (const doc of Bokeh.documents) {
    for (const m of doc.all_models) {
      if (m.type !== "ColumnDataSource" || !m.data) continue;
      sources += 1;
      for (const [key, col] of Object.entries(m.data)) {
        if (!col || col.length === undefined) continue;
        if (["t_s", "v_rad_s", "tau_F_Nm", "pi_pds", "error_mrad"].includes(key)) {
          points += col.length;
          for (let i = 0; i < col.length; i++) { const x = Number(col[i]); if (isFinite(x)) sum += x * ((i % 97) + 1); }
        }
      }
    }
  }
  return {points, sum, sources};
}"""

#: The texts of the page's Markdown panes (Panel keeps them in the Bokeh document as model properties).
TEXTS_JS = r"""() => {
  const out = [];
  for (const doc of (window.Bokeh && Bokeh.documents) || [])
    for (const m of doc.all_models) if (typeof m.text === "string") out.push(m.text);
  return out.join("\n");
}"""


def _poll(what: str, bound_s: float, fn, every_s: float = 0.5):
    """``fn()`` until it returns something true (returned), failing after ``bound_s`` seconds."""
    end = time.monotonic() + bound_s
    while True:
        got = fn()
        if got:
            return got
        if time.monotonic() > end:
            pytest.fail(f"{what}: not seen within {bound_s:g} s")
        time.sleep(every_s)


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status == 200
    except OSError:
        return False


def _samples(text: str) -> int | None:
    m = re.search(r"(\d+) samples", text)
    return int(m.group(1)) if m else None


def test_the_live_page_follows_a_twin_run(tmp_path, chromium_executable):
    from playwright.sync_api import sync_playwright

    port = free_port()
    url = f"http://localhost:{port}/"
    out, log = tmp_path / "run.nc", tmp_path / "run.log"
    cmd = [sys.executable, "-m", "paperlib", "run", "--rig", "twin", "--controller", "AC", "--duration", str(RUN_S),
           "--seed", "2", "--output", str(out), "--live", "--live-port", str(port), "--live-interval", "0.5"]
    with open(log, "w") as f:
        run = subprocess.Popen(cmd, cwd=REPO_ROOT, stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
    errors: list[str] = []
    try:
        _poll("the live page answering", PAGE_UP_S, lambda: _answers(url) or run.poll() is not None)
        assert run.poll() is None, "the run ended before its page came up:\n" + log.read_text()[-3000:]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_executable, args=["--no-sandbox", "--disable-dev-shm-usage"])
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("pageerror", lambda e: errors.append(f"JavaScript error: {e}"))
            page.on("console", lambda m: errors.append(f"console error: {m.text}") if m.type == "error" else None)
            page.goto(url, wait_until="load")

            def running_with_points():
                plots, text = page.evaluate(PLOTS_JS), page.evaluate(TEXTS_JS)
                n = _samples(text)
                return (plots, n) if plots and plots["points"] > 0 and n and "Running." in text else None

            first, n1 = _poll("plotted points while the run goes", LOOP_UP_S, running_with_points)

            def changed():
                plots, text = page.evaluate(PLOTS_JS), page.evaluate(TEXTS_JS)
                n = _samples(text)
                return (plots, n) if plots and n and n > n1 and (plots["points"], plots["sum"]) != (
                    first["points"], first["sum"]) else None

            second, n2 = _poll("the plots changing as samples come in", CHANGE_S, changed)
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / "live_page.png"), full_page=True)
            print(f"\nlive page: {first['sources']} data sources; {first['points']} points at {n1} samples, "
                  f"{second['points']} at {n2} samples")
            browser.close()
        run.wait(timeout=RUN_END_S)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, 15)
            run.wait(timeout=60)
    text = log.read_text()
    print("\n".join(line for line in text.splitlines() if line.startswith(("deadlines:", "live page:"))))
    assert run.returncode == 0, text[-3000:]
    assert not errors, "\n".join(errors)
    assert n2 > n1 > 0 and second["points"] >= first["points"]
    ds = read_recording(out)
    assert ds.sizes["time"] == int(RUN_S * 4000) and ds.attrs["source"] == "twin"
    mirror = re.search(r"server log (\S+)/server\.log", text)
    assert mirror and not Path(mirror.group(1)).exists(), "the live mirror was left behind"
