"""``paperlib rrr identify RECORDING.nc [--model kostic|coulomb-viscous] --json OUT``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from paperlib.cli_args import output_file_in_new_dir
from paperlib.experiments.rrr import identification as idf


def _identify(args: argparse.Namespace) -> int:
    from paperlib.recordings import RecordingError, read_recording
    from paperlib.robots.three_rrr import ThreeRRR

    path = Path(args.recording)
    try:
        ds = read_recording(path, require=("q", "tau_m"), analysis="3-RRR friction identification")
        if ds.attrs.get("robot") != "three_rrr":
            raise ValueError(f"{path}: robot is {ds.attrs.get('robot')!r}, not 'three_rrr'")
        data = idf.friction_data(ds, ThreeRRR.default(), cutoff_hz=args.cutoff_hz, v_gate=args.v_gate, name=str(path))
        est = idf.identify(data, args.model, n_starts=args.starts, seed=args.seed, residual=args.residual)
    except (FileNotFoundError, RecordingError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = idf.summary(est, data)
    out["recording"] = str(path)
    out["source"] = ds.attrs.get("source", "unknown")
    text = json.dumps(out, indent=2, sort_keys=True)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(text + "\n")
        print(f"wrote {args.json}: k_f = {est.k_f_:.4f} +/- {est.k_f_std_:.4f}, RMS residual {est.rms_residual_:.4g}")
    else:
        print(text)
    return 0


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``paperlib rrr ...``."""
    p = subparsers.add_parser("rrr", help="paper 002 (3-RRR): friction identification from a recording")
    sub = p.add_subparsers(dest="rrr_command", metavar="SUBCOMMAND")
    q = sub.add_parser("identify", help="fit Kostic friction and k_f (or the Coulomb+viscous baseline) to a 3-RRR recording")
    q.add_argument("recording", help="a paperlib recording of the 3-RRR with q and tau_m (.nc)")
    q.add_argument("--model", choices=("kostic", "coulomb-viscous"), default="kostic", help="friction model (default kostic)")
    q.add_argument("--json", default=None, type=output_file_in_new_dir, help="write parameters, standard deviations and residual to this JSON file")
    q.add_argument("--starts", type=int, default=8, help="NLS starts (kostic only; default 8)")
    q.add_argument("--seed", type=int, default=0, help="seed of the starts (default 0)")
    q.add_argument("--residual", choices=("task", "joint"), default="task",
                   help="task: J_a^T-projected (default, consistent under redundant actuation); joint: the paper's eq. 41")
    q.add_argument("--cutoff-hz", type=float, default=idf.DEFAULT_CUTOFF_HZ,
                   help=f"zero-phase low-pass for the derivatives of q [Hz] (default {idf.DEFAULT_CUTOFF_HZ:g})")
    q.add_argument("--v-gate", type=float, default=idf.DEFAULT_V_GATE,
                   help=f"samples used only while every drive exceeds this rate [rad/s] (default {idf.DEFAULT_V_GATE:g})")
    q.set_defaults(func=_identify)
    p.set_defaults(func=lambda a: (p.print_help(), 2)[1])
