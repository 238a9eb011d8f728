"""The live page's server as ``paperlib run --live`` starts it (no browser): it comes up on its port,
serves the page of a finished run's mirror (the page is built on the server for each request: an
error there is an HTTP 500), and stopping it ends the process and removes the mirror folder."""

from __future__ import annotations

import urllib.request

import numpy as np

from paperlib import recordings as R
from paperlib.estimation.config import EstimatorConfig
from paperlib.hardware.live_launch import LivePage
from paperlib.live.page import PAGE_TITLE


def _finished_run(folder) -> None:
    names = ["pi_pds,1", "pi_pds,2"] + EstimatorConfig(model=3).friction_model.param_names()
    with R.RecordingWriter(folder.parent / "run.nc", [1, 2], robot="five_bar", source="twin", sample_rate_hz=4000.0,
                           controller="AC", seed=1, truth={"pi_pds": [0.9, 1.1]}, writer=None,
                           config={"estimator": EstimatorConfig(model=3).to_dict()},
                           origins={"qd": "gyroscope", "qdd": "accelerometer"}, torque_side="motor",
                           extra_channels={"pi_hat": R.Channel("estimate", "1", dims=("param",)),
                                           "lateness": R.Channel("start lateness", "s", dims=())},
                           coords={"param": names}, preallocate=400, mirror=R.LiveMirror(folder)) as w:
        for k in range(400):
            t = k / 4000.0
            q = np.array([np.sin(t), np.cos(t)])
            w.append(t, q=q, qd=q, qdd=q, tau_m=q, tau_tgt=q, q_sp=q, qd_sp=q, qdd_sp=q,
                     pi_hat=np.r_[1.0, 1.0, 0.1 * np.arange(8)], lateness=1e-6)


def test_the_server_serves_the_page_and_cleans_up():
    live = LivePage(interval_s=0.5).start()
    base = live.mirror.parent
    try:
        _finished_run(live.mirror)
        assert live.wait_ready(300.0), (live.log.read_text() if live.log.exists() else "no server log")[-3000:]
        with urllib.request.urlopen(live.url, timeout=120) as r:
            html = r.read().decode()
            assert r.status == 200
        assert f"<title>{PAGE_TITLE}</title>" in html
    finally:
        live.stop()
    assert not live.running() and not base.exists()
