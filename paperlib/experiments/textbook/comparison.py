"""The textbook notes' claims as comparison rows (``python -m paperlib.comparison --paper textbook``).

The notes give no numbers; they make claims. Each claim becomes a yes/no finding (kind
``choice``) measured on the planar twin by a stated rule, so the table says whether the twin
bears the claim out. The numbers behind each finding are in the lesson's results file.
"""

from __future__ import annotations

from paperlib.comparison import Headline, dig

__all__ = ["HEADLINES", "TITLE"]

TITLE = "The textbook notes' claims, measured on the planar arm twin"

HEADLINES: list[Headline] = [
    Headline("linear_in_params", "tau = Y(q, qd, qdd) pi: Y pi matches Newton-Euler within 1e-9 N m", "-", True,
             "choice", "", "01_linear_model", dig("findings", "linear_in_params")),
    Headline("full_regressor_singular", "only base parameters are identifiable: Y^T Y of the full regressor is singular",
             "-", True, "choice", "", "03_base_parameters", dig("full_regressor_singular")),
    Headline("pinv_recovers_base", "the left pseudo-inverse recovers the base parameters (relative error < 1 %)",
             "-", True, "choice", "", "02_least_squares", dig("findings", "recovers_base_within_1pct")),
    Headline("zero_phase_better", "anti-causal (zero-phase) qdd reconstruction gives a smaller estimate error than "
             "the causal one at the same cut-off", "-", True, "choice", "", "05_acceleration",
             dig("findings", "zero_phase_smaller_error")),
    Headline("sequential_accumulates", "the sequential (joint n to 1) procedure predicts joint 1's torque worse than "
             "the global one (mean over repetitions)", "1", True, "choice", "", "06_sequential_vs_global",
             dig("findings", "sequential_worse_joint1")),
]
