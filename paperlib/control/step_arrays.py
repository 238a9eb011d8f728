"""The arrays of the compiled control step, named once: this table generates everything else.

:data:`STEP_ARRAYS` lists, in the order :func:`paperlib.control.step.control_step` takes them
after the time and the measurement/setpoint rows, every state and work array with its buffer
(``"f"`` float64, ``"i"`` int64), its shape (an expression in the sizes of :data:`SIZES`) and its
meaning. From it come: the views of :class:`paperlib.control.controllers.Controller` into its two
buffers, :meth:`Controller.arrays`, the index constants ``A_<NAME>`` the twin's loop uses to pick
arrays out of that tuple, the generated packed call ``paperlib/control/_step_call.py``
(``python -m paperlib.codegen``; ``--check`` fails when it is stale) and the table in the step's
documentation (:func:`table_doc`). Pure data: importing it compiles nothing.
"""

from __future__ import annotations

#: Sizes the shapes are written in, in the order they sit at the start of the layout vector.
SIZES = (
    ("n", "degrees of freedom (joints of q)"),
    ("nd", "drives"),
    ("npi", "estimated parameters: nd drive gains + ni inertial + nf friction"),
    ("nf", "friction columns"),
    ("nups", "friction (relative) joints of the kernel set"),
    ("ni", "unknown inertial parameters"),
    ("nprm", "robot kernel parameters"),
    ("nconv", "convergence bookkeeping: 2 + npi + 8 per friction joint"),
)

#: Rows of the measurement/setpoint block ``meas`` (length ``max(n, nd)``; ``tau`` uses nd).
MEAS_ROWS = (
    ("q", "n", "measured joint angles [rad] (encoders)"),
    ("qd", "n", "measured joint rates [rad/s] (gyroscopes, or encoder-derived)"),
    ("qdd", "n", "measured joint accelerations [rad/s^2]"),
    ("tau", "nd", "measured drive torques [N m] (drive-reported, or a joint torque sensor)"),
    ("q_sp", "n", "setpoint angles [rad]"),
    ("qd_sp", "n", "setpoint rates [rad/s]"),
    ("qdd_sp", "n", "setpoint accelerations [rad/s^2]"),
)

#: (name, buffer, shape, meaning), in the control step's argument order.
STEP_ARRAYS = (
    ("prm", "f", "(nprm,)", "robot kernel parameters"),
    ("cols", "i", "(nf, 3)", "friction model columns (joint, power, side)"),
    ("gains", "f", "(2, n)", "K_P [N m/rad], K_D [N m s/rad] (motor side for one drive per joint)"),
    ("tau_max", "f", "(nd,)", "drive torque limits [N m]"),
    ("fcfg", "f", "(N_FCFG,)", "float settings (F_* layout)"),
    ("iflags", "i", "(N_IFLAGS,)", "int flags (I_* layout)"),
    ("conv", "f", "(nconv,)", "convergence bookkeeping"),
    ("theta", "f", "(npi,)", "EWR-RLS estimate: drive gains | inertial | friction"),
    ("P", "f", "(npi, npi)", "EWR-RLS inverse information matrix"),
    ("pi0", "f", "(npi,)", "regularization target (initial guess)"),
    ("g", "f", "(npi,)", "EWR-RLS work vector"),
    ("counters", "i", "(3,)", "samples, updates, rejected"),
    ("accum", "f", "(2,)", "sum of squared posterior / prior residuals"),
    ("Q_IG", "f", "(n,)", "known part of Q_I + Q_G [N m]"),
    ("D_m", "f", "(nd, n)", "drive map, Q_m = D_m^T tau_m"),
    ("D_ups", "f", "(nups, n)", "friction joint Jacobian"),
    ("ups_d", "f", "(nups,)", "friction joint velocities [rad/s]"),
    ("Y_I", "f", "(n, ni)", "inertial columns"),
    ("Y", "f", "(n, npi)", "regressor rows"),
    ("R", "f", "(n,)", "right-hand sides"),
    ("y_sum", "f", "(1, npi)", "summed regressor row"),
    ("r_sum", "f", "(1,)", "summed right-hand side"),
    ("work", "f", "(n, n)", "linear-solve work matrix"),
    ("tmp", "f", "(n,)", "work vector"),
    ("tmp2", "f", "(n,)", "work vector"),
    ("tmpd", "f", "(nd,)", "work vector over the drives"),
    ("parts", "f", "(3, nd)", "output: dynamic FF, friction FF, feedback parts of the command [N m]"),
    ("tau_tgt", "f", "(nd,)", "output: target drive torques [N m]"),
    ("ring", "f", "(RING, 2, nmax)", "past encoder angles and drive torques (IMU delay alignment)"),
)

#: Index of each array in :meth:`Controller.arrays` (``A_THETA`` ...), for compiled callers.
INDEX = {name: k for k, (name, _, _, _) in enumerate(STEP_ARRAYS)}


def table_doc() -> str:
    """The table as numpydoc-style text (appended to the step's docstring)."""
    lines = ["Arrays after the setpoints (generated from :data:`paperlib.control.step_arrays.STEP_ARRAYS`)::", ""]
    for name, buf, shape, meaning in STEP_ARRAYS:
        lines.append(f"    {name:9s} {buf} {shape:16s} {meaning}")
    return "\n".join(lines)


def generate_step_call() -> str:
    """Source text of ``paperlib/control/_step_call.py`` (the packed call, from the table)."""
    size_names = [s for s, _ in SIZES]
    args = []
    for name, buf, shape, _ in STEP_ARRAYS:
        k = INDEX[name]
        b = "fbuf" if buf == "f" else "ibuf"
        sl = f"{b}[o[{2 * k}]:o[{2 * k + 1}]]"
        dims = shape.strip("()").rstrip(",").split(",")
        if len([d for d in dims if d.strip()]) > 1:
            sl += f".reshape({shape})"
        args.append(f"        {sl},  # {name}")
    rows = []
    for r, (name, size, _) in enumerate(MEAS_ROWS):
        rows.append(f"meas[{r}, :{size}]")
    lines = [
        "# GENERATED FILE - DO NOT EDIT.",
        "# Generator: `python -m paperlib.codegen` (paperlib/control/step_arrays.py, the table STEP_ARRAYS).",
        '"""The packed call of the control step: few arguments, so it is cheap to call from Python."""',
        "",
        "from paperlib._jit import rt_njit",
        "from paperlib.control.step import N_FCFG, N_IFLAGS, RING, control_step",
        "",
        f"N_SIZES = {len(SIZES)}",
        "",
        "",
        "@rt_njit",
        "def control_step_packed(t, meas, fbuf, ibuf, lay):  # pragma: no cover - compiled",
        '    """:func:`paperlib.control.step.control_step` on the packed state of a ``Controller``.',
        "",
        "    ``meas`` (7, max(n, nd)) holds the rows of ``MEAS_ROWS``; ``lay`` starts with the sizes",
        "    (``SIZES``) and then holds each array's start and end offset in its buffer.",
        '    """',
        "    " + ", ".join(size_names) + f" = " + ", ".join(f"lay[{i}]" for i in range(len(size_names))),
        "    nmax = max(n, nd)",
        f"    o = lay[{len(size_names)}:]",
        "    return control_step(",
        "        t, " + ", ".join(rows) + ",",
        *args,
        "    )",
        "",
    ]
    return "\n".join(lines)
