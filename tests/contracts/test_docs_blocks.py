"""Every code block of ``docs/*.md`` runs, or says here why it does not.

- ```python blocks are executed in a scratch folder, in order per page, with the arrays their text
  says the reader brings (``q``, ``tau_s``, ``qd``: made here, small and smooth);
- each command line of a ```bash / ```sh block is either run (in-process ``paperlib.cli.main``, in a
  scratch folder, on small files it makes first; lines of one block share that folder) or listed in
  :data:`NOT_RUN` with the reason; a new line, or a table entry whose line is gone from the docs, fails
  :func:`test_every_docs_command_is_run_or_has_a_reason`;
- the other blocks are checked for what they state: the sweep YAML loads as a sweep, the C declaration
  of the IMU packet has the sizes its comments and ``paperlib.hardware`` give, the hex example is
  checked byte for byte by ``tests/layers/hardware/test_imu_link.py``.

Default run: the Python blocks, the bearing commands and the static blocks (about half a minute of
one core); the commands that simulate a closed-loop twin or call Snakemake are marked ``slow``.
"""

from __future__ import annotations

import re
import shlex
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


@dataclass(frozen=True)
class Block:
    doc: str
    index: int  # of the block in its page
    lang: str
    text: str

    @property
    def lines(self) -> list[str]:
        """Command lines without their trailing comments (a ``#`` after whitespace)."""
        out = []
        for line in self.text.splitlines():
            cmd = re.split(r"\s+#", line, maxsplit=1)[0].strip()
            if cmd and not cmd.startswith("#"):
                out.append(cmd)
        return out


def doc_blocks() -> list[Block]:
    out = []
    for page in sorted(DOCS.glob("*.md")):
        for i, m in enumerate(_BLOCK.finditer(page.read_text())):
            out.append(Block(page.name, i, m.group(1), m.group(2)))
    return out


#: Command lines run by the test, per page, in the order of the page; a value rewrites the line
#: (stated here) where the docs' own would take long or touch the repository.
RUN: dict[str, dict[str, str | None]] = {
    "bearing.md": {
        "paperlib bearing twin --kind no-load --seed 1 --output noload.nc": None,
        "paperlib bearing twin --kind bearing --seed 11 --output trial.nc": None,
        "paperlib bearing fit noload.nc --json model.json": None,
        "paperlib bearing inspect --model model.json trial.nc --threshold 1.05 --json out.json": None,
    },
    "beyond.md": {  # on REC.nc = a 5-s closed-loop twin recording made first
        "paperlib identify REC.nc --kinematics encoder": None,
        "paperlib identify REC.nc --kinematics encoder:observer": None,
        "paperlib identify REC.nc --kinematics encoder:kalman:jerk_psd=1e5": None,
        "paperlib identify REC.nc --model auto": None,
        "paperlib identify REC.nc --model auto --auto-criterion cv": None,
    },
    "cluster.md": {
        "paperlib sweep config/sweeps/mems.yaml --dry-run": None,
    },
    "sensitivity.md": {
        "paperlib sensitivity check config/sensitivity/mems.yaml": None,
    },
    "hardware.md": {  # 0.5 s instead of 40 s: the same command, shorter
        "paperlib run --rig twin --controller AC --duration 40 --output twin.nc":
            "paperlib run --rig twin --controller AC --duration 0.5 --output twin.nc",
        "paperlib run --rig twin --controller AC --duration 40 --output twin.nc --live":
            "paperlib run --rig twin --controller AC --duration 0.5 --output twin.nc --live",
    },
}
#: How a page's commands are prepared for (a file they read), and whether they are slow.
PREPARE = {"beyond.md": "paperlib record --rig twin --controller AC --duration 5 --seed 1 --output REC.nc"}
SLOW = {"beyond.md", "cluster.md", "hardware.md"}

_BUILD = "a build of whole rooms (minutes and ~1 GB): the build tests and CI run it"
#: Command lines not run by this test, with the reason.
NOT_RUN: dict[tuple[str, str], str] = {
    ("archive.md", "paperlib reproduce rrr --cores 1"): _BUILD,
    ("archive.md", "paperlib archive pack rrr --output release/"): "needs a build of rrr; pack and verify are "
        "run on a built room by tests/contracts/test_archive_roundtrip.py (marker archive)",
    ("archive.md", "paperlib archive verify release/"): "as pack: tests/contracts/test_archive_roundtrip.py",
    ("archive.md", "paperlib archive resolve https://host/path/release/"): "a placeholder URL (needs a published "
        "release); resolve is tested on a local server in tests/layers/archive/",
    ("bearing.md", "paperlib reproduce bearing"): _BUILD,
    ("book.md", "paperlib reproduce textbook --archive DIR --results-dir /tmp/tb/results --figures-dir /tmp/tb/figures"):
        _BUILD + "; DIR is a release folder",
    ("book.md", "paperlib reproduce textbook"): _BUILD,
    ("book.md", "paperlib reproduce"): _BUILD,
    ("book.md", "python -m snakemake book --cores 2 --config config_file=config/textbook_only.yaml"): _BUILD,
    ("book.md", "paperlib book serve --site results/book --port 8000"): "a server that runs until stopped; "
        "paperlib.book.serve is exercised by the browser test",
    ("book.md", "pytest -m browser"): "the browser test itself (CI runs it after the course build)",
    ("cluster.md", "paperlib sweep config/sweeps/mems.yaml"): "100 twin campaigns (454 s on 2 cores); the "
        "dry run of the same sweep is run",
    ("cluster.md", "paperlib sweep config/sweeps/mems.yaml --cores 8"): "as the sweep above, on 8 cores",
    ("sensitivity.md", "paperlib sensitivity run config/sensitivity/mems.yaml"): "157 twin campaigns (minutes on 2 "
        "cores); tests/layers/sensitivity/test_resume.py runs the same command on a toy room's cheap runner, twice",
    ("sensitivity.md", "paperlib sensitivity run config/sensitivity/mems.yaml --profile config/profiles/slurm"):
        "needs a SLURM cluster; a study's stages are sweeps, whose SLURM run tests/layers/sweeps/test_sweep_slurm.py "
        "checks",
    ("sensitivity.md", "python -m paperlib.comparison --paper mems --results results/mems/*.json --csv t.csv --md t.md "
                       "--sensitivity results/mems/sensitivity/assumptions/summary.json"):
        "needs a build of mems and the study; the pipeline's room_table rule runs it, "
        "tests/layers/sensitivity/test_study.py checks the notes",
    ("cluster.md", "paperlib sweep config/sweeps/mems.yaml --profile config/profiles/slurm"): "needs a SLURM "
        "cluster: CI starts one and runs tests/layers/sweeps/test_sweep_slurm.py",
    ("hardware.md", "paperlib run --rig hardware --config config/rig.toml --controller AC --duration 40 --output run.nc [--seed 1]"):
        "needs the robot (EtherCAT drives and the IMU board)",
    ("hardware.md", "paperlib run --rig hardware --config config/rig.toml --duration 40 --output run.nc --live "
                    "--live-port 8800 --live-linger 120"):
        "needs the robot; the live page of a twin run is run above and opened in Chromium by "
        "tests/layers/live/test_live_page_browser.py (marked browser)",
    ("hardware.md", "paperlib compare --reference results/rrr/paper_comparison.csv --other RIG/rrr/paper_comparison.csv "
                    "--md rig_vs_twin.md"): "needs a twin build and a rig build of rrr (minutes, root); "
        "tests/layers/comparison/test_between_builds.py runs the same command on tables the table builder wrote",
    ("hardware.md", "paperlib hardware probe --interface enp3s0"): "needs an EtherCAT network interface",
    ("hardware.md", "sudo paperlib hardware selftest --duration 12 --json selftest.json"): "needs root "
        "(network namespaces): tests marked root run it (in lock step)",
    ("hardware.md", "sudo paperlib hardware selftest --rig-file config/rigs/five_bar.toml"): "as the selftest above",
    ("hardware.md", "sudo paperlib hardware selftest --rig config/rigs/bearing.toml --lockstep --json out.json"):
        "needs root (network namespaces): tests/layers/hardware/test_bearing_rig.py runs it (marked root)",
    ("thermal.md", "sudo .venv/bin/python -m paperlib.experiments.industrial.thermal record --day r1_d1 --output "
                   "r1_d1.nc --rig-config config/rigs/tx40_thermal.toml --emulate-rig [--cycles N] [--duration S]"):
        "needs root (network namespaces) and about 11 min a day (free-running): "
        "tests/rooms/industrial/test_industrial_rig_days.py records 4 s (marked root)",
    ("hardware.md", "sudo paperlib hardware selftest --rig config/rigs/tx40_thermal.toml --lockstep --duration 20 "
                    "--json out.json"):
        "needs root (network namespaces): tests/layers/hardware/test_arm_rig.py runs it (marked root)",
    ("hardware.md", "sudo paperlib reproduce bearing --source hardware --rig-config config/rigs/bearing.toml "
                    "--emulate-rig --cores 1"):
        "needs root (network namespaces) and minutes: tests/rooms/bearing/test_bearing_hardware_source.py builds the "
        "room from the emulated rig (marked root and build)",
    ("hardware.md", "sudo paperlib hardware selftest --rig config/rigs/three_rrr.toml --lockstep --duration 5 --json out.json"):
        "needs root (network namespaces): tests/layers/hardware/test_three_rrr_rig.py runs it (marked root)",
    ("hardware.md", "sudo paperlib reproduce rrr --source hardware --rig-config config/rigs/three_rrr.toml "
                    "--emulate-rig --cores 1"):
        "needs root (network namespaces) and ~10 min: tests/rooms/rrr/test_rrr_hardware_source.py runs the room's "
        "sampling run on the emulated rig, shortened (marked root); the full build's numbers are in docs/rrr.md",
    ("hardware.md", "paperlib hardware calibrate-imu pd_run.nc --output imu_calibration.toml"): "needs a PD run "
        "recorded with the IMU stream (pd_run.nc); tested in tests/layers/hardware/",
    ("notebooks.md", "make kernel"): "makes the environment this test runs in",
    ("notebooks.md", ".venv/bin/jupyter lab"): "an interactive server",
    ("robots.md", "paperlib serial identify my_run.nc --robot path/to/my_arm.urdf --json out.json"): "placeholders "
        "for the reader's recording and URDF; serial identification is tested in tests/layers/robots/ and on "
        "the TX40 recording by the industrial room",
    ("robots.md", "paperlib serial identify my_run.nc --robot mobile_manipulator.urdf --tip-link bracelet_link"):
        "placeholders for the reader's files; the same command on a wheeled base with an arm runs in "
        "tests/layers/cli/test_cli_robot_recipe.py",
    ("thermal.md", "paperlib thermal fit r1_d1.nc r1_d2.nc r1_d3.nc --json model.json"): "needs warm-up days "
        "(two-hour twin campaigns, ~85 MB each) made by the industrial room's build",
    ("thermal.md", "paperlib thermal monitor --model model.json r1_d4.nc --json alarms.json [--no-thermal]"):
        "needs the warm-up days, as thermal fit does",
}

#: Blocks of other languages: how each is checked.
OTHER = {("cluster.md", "yaml"): "loads as a sweep", ("imu_packet.md", "c"): "struct sizes",
         ("imu_packet.md", ""): "tests/layers/hardware/test_imu_link.py checks the example byte for byte"}


def _shell_blocks() -> list[Block]:
    return [b for b in doc_blocks() if b.lang in ("bash", "sh")]


def test_every_docs_command_is_run_or_has_a_reason() -> None:
    seen, unknown = set(), []
    for b in _shell_blocks():
        for line in b.lines:
            seen.add((b.doc, line))
            if line not in RUN.get(b.doc, {}) and (b.doc, line) not in NOT_RUN:
                unknown.append(f"{b.doc}: {line}")
    assert not unknown, "docs commands this test neither runs nor explains (add them to RUN or NOT_RUN):\n" + \
        "\n".join(unknown)
    listed = {(d, line) for d, lines in RUN.items() for line in lines} | set(NOT_RUN)
    assert not listed - seen, f"entries for lines no longer in the docs: {sorted(listed - seen)}"
    other = {(b.doc, b.lang) for b in doc_blocks() if b.lang not in ("bash", "sh", "python")}
    assert other == set(OTHER), f"blocks of other languages without a check: {sorted(other - set(OTHER))}"
    for reason in NOT_RUN.values():
        assert len(reason) > 20


def _paperlib(line: str, capsys) -> str:
    from paperlib.cli import main

    words = shlex.split(line)
    assert words[0] == "paperlib", line
    rc = main(words[1:])
    out = capsys.readouterr()
    assert rc == 0, f"{line}: exit {rc}\n{out.out[-2000:]}\n{out.err[-2000:]}"
    for opt in ("--output", "--json"):
        if opt in words:
            assert Path(words[words.index(opt) + 1]).exists(), f"{line}: wrote no {words[words.index(opt) + 1]}"
    return out.out


@pytest.mark.parametrize("doc", [pytest.param(d, marks=pytest.mark.slow) if d in SLOW else d for d in RUN])
def test_docs_commands_run(doc: str, tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(ROOT if doc in ("cluster.md", "sensitivity.md") else tmp_path)  # files named from the repository
    if doc in PREPARE:
        _paperlib(PREPARE[doc], capsys)
    in_docs = [line for b in _shell_blocks() if b.doc == doc for line in b.lines]
    for line, rewrite in RUN[doc].items():
        assert line in in_docs
        _paperlib(rewrite or line, capsys)


def _reader_arrays() -> dict[str, np.ndarray]:
    """What recordings.md's reader brings: a two-joint motion in rad, its torque [N m] and rate [rad/s]."""
    fs, n = 1000.0, 2000
    t = np.arange(n) / fs
    q = np.stack([0.5 * np.sin(2 * np.pi * 0.5 * t), 0.3 * np.sin(2 * np.pi * 0.8 * t + 0.4)], axis=1)
    qd = np.stack([0.5 * np.pi * np.cos(2 * np.pi * 0.5 * t), 0.48 * np.pi * np.cos(2 * np.pi * 0.8 * t + 0.4)],
                  axis=1)
    return {"q": q, "qd": qd, "tau_s": 0.2 * np.tanh(qd / 0.05) + 0.05 * qd}


@pytest.mark.parametrize("doc", sorted({b.doc for b in doc_blocks() if b.lang == "python"}))
def test_docs_python_blocks_run(doc: str, tmp_path: Path, monkeypatch, capsys) -> None:
    from paperlib.cli import main

    monkeypatch.chdir(tmp_path)
    ns: dict = dict(_reader_arrays())
    for b in [b for b in doc_blocks() if b.doc == doc and b.lang == "python"]:
        exec(compile(b.text, f"docs/{doc} block {b.index}", "exec"), ns)  # noqa: S102 - the docs' own code
        if Path("run.nc").exists():  # the page says: then `paperlib validate run.nc`
            assert main(["validate", "run.nc"]) == 0, capsys.readouterr().out
    if doc == "recordings.md":
        ds = ns["ds"]
        assert ds["qdd"].attrs["origin"] == "encoder-derived" and ds["qd"].attrs.get("origin") == "tachometer"
        # the derived acceleration is the true one of the reader's sines (away from the ends)
        fs = float(ds.attrs["sample_rate_hz"])
        t = np.arange(ds.sizes["time"]) / fs
        qdd1 = -0.5 * (2 * np.pi * 0.5) ** 2 * np.sin(2 * np.pi * 0.5 * t)
        mid = slice(200, -200)
        assert np.max(np.abs(ds["qdd"].values[mid, 0] - qdd1[mid])) < 0.01 * np.max(np.abs(qdd1))


def test_docs_sweep_yaml_loads_as_a_sweep(tmp_path: Path) -> None:
    from paperlib.sweeps.config import load_sweep

    [block] = [b for b in doc_blocks() if (b.doc, b.lang) == ("cluster.md", "yaml")]
    path = tmp_path / "seeds100.yaml"
    path.write_text(block.text)
    sweep = load_sweep(path)
    assert sweep.name == "seeds100" and sweep.paper == "mems"


_C_TYPES = {"uint8_t": "B", "int8_t": "b", "char": "c", "uint16_t": "H", "int16_t": "h", "uint32_t": "I",
            "int32_t": "i", "uint64_t": "Q"}


def test_docs_imu_packet_declaration_has_the_stated_sizes() -> None:
    from paperlib.hardware.imu_link import PACKET_SIZE

    [block] = [b for b in doc_blocks() if (b.doc, b.lang) == ("imu_packet.md", "c")]
    sizes: dict[str, int] = {}
    for body, name, stated in re.findall(r"typedef struct \{(.*?)\}\s*(\w+);\s*/\*\s*(\d+) bytes", block.text, re.S):
        fmt = "<"
        for ctype, _field, count in re.findall(r"^\s*(\w+)\s+(\w+)(?:\[(\d+)\])?;", body, re.M):
            if ctype in sizes:
                fmt += f"{int(count or 1) * sizes[ctype]}x"
            else:
                fmt += f"{count or ''}{_C_TYPES[ctype]}"
        sizes[name] = struct.calcsize(fmt)
        assert sizes[name] == int(stated), f"{name}: {sizes[name]} bytes, the comment says {stated}"
    assert sizes == {"plim_imu_t": 16, "plim_packet_t": PACKET_SIZE}
