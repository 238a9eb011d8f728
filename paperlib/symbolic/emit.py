"""Turn staged sympy expressions into numba source code.

A :class:`KernelSpec` describes one compiled function: the arrays it reads (each
entry bound to a sympy symbol), a hand-written numeric *preamble* (e.g. solving the
loop closure for the dependent coordinates and guarding a singularity), a list of
*stages* (intermediate symbols such as the entries of an implicit Jacobian), and
the output matrices written element by element into preallocated arrays.

All stage and output expressions go through one common-subexpression elimination,
and the assignments are then scheduled in dependency order, so sharing across
stages is kept while each stage symbol is assigned before it is used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import sympy as sp
from sympy.printing.pycode import PythonCodePrinter


class _NumbaPrinter(PythonCodePrinter):
    """Prints plain ``math`` calls and integer powers as products (numba-friendly)."""

    def _print_Pow(self, expr: sp.Pow, rational: bool = False) -> str:  # noqa: D102
        base, exp = expr.as_base_exp()
        if exp.is_Integer and 2 <= int(exp) <= 4:
            b = self.parenthesize(base, sp.printing.precedence.PRECEDENCE["Mul"] + 1)
            return "*".join([b] * int(exp))
        if exp.is_Integer and -4 <= int(exp) <= -1:
            b = self.parenthesize(base, sp.printing.precedence.PRECEDENCE["Mul"] + 1)
            return "1.0/(" + "*".join([b] * (-int(exp))) + ")"
        return super()._print_Pow(expr, rational=rational)

    def _print_Rational(self, expr: sp.Rational) -> str:  # noqa: D102
        return f"({float(expr.p)!r}/{float(expr.q)!r})"

    def _print_Integer(self, expr: sp.Integer) -> str:  # noqa: D102
        return f"{float(expr)!r}"

    def _print_Float(self, expr: sp.Float) -> str:  # noqa: D102
        return repr(float(expr))


_PRINTER = _NumbaPrinter({"fully_qualified_modules": True, "standard": "python3"})


def pycode(expr: sp.Expr) -> str:
    """Python/numba source of one scalar expression."""
    return _PRINTER.doprint(expr)


@dataclass
class KernelSpec:
    """One generated kernel.

    Parameters
    ----------
    name : str
        Function name.
    doc : str
        Docstring body (numpydoc, with units and shapes).
    inputs : list of (str, list of Symbol)
        Array arguments in order; entry ``i`` of the array binds to the ``i``-th symbol.
    preamble : str
        Hand-written numeric code (already indented by four spaces is not needed: it is
        indented here) defining the symbols the stages use; may ``return`` a status early.
    stages : list of (Symbol, Expr)
        Intermediate assignments; a symbol may be used by later stages and outputs.
    outputs : list of (str, Matrix)
        Output arrays written element-wise (``name[i, j] = ...`` or ``name[i] = ...``
        for column vectors declared with ``vector=True`` in ``vector_outputs``).
    vector_outputs : set of str
        Output names written as 1-D arrays.
    symmetric_outputs : set of str
        Square outputs whose lower triangle is copied from the upper one.
    """

    name: str
    doc: str
    inputs: list[tuple[str, list[sp.Symbol]]]
    preamble: str
    stages: list[tuple[sp.Symbol, sp.Expr]]
    outputs: list[tuple[str, sp.Matrix]]
    vector_outputs: set[str] = field(default_factory=set)
    symmetric_outputs: set[str] = field(default_factory=set)

    def used_stages(self) -> list[tuple[sp.Symbol, sp.Expr]]:
        """The stages that the outputs need, transitively, in their original order."""
        needed: set[sp.Symbol] = set()
        for _, mat in self.outputs:
            for e in mat:
                needed |= e.free_symbols
        keep = []
        for sym, expr in reversed(self.stages):
            if sym in needed:
                keep.append((sym, expr))
                needed |= expr.free_symbols
        return list(reversed(keep))


def _schedule(assigns: list[tuple[sp.Symbol, sp.Expr]], available: set[sp.Symbol]) -> list[tuple[sp.Symbol, sp.Expr]]:
    """Order assignments so that each one's free symbols are available before it.

    Stable: among ready assignments, the earliest in the input goes first.
    """
    pending = list(assigns)
    done = set(available)
    ordered: list[tuple[sp.Symbol, sp.Expr]] = []
    while pending:
        for i, (sym, expr) in enumerate(pending):
            if expr.free_symbols <= done:
                ordered.append((sym, expr))
                done.add(sym)
                del pending[i]
                break
        else:  # pragma: no cover - a cycle would be a bug in the derivation
            missing = {s for _, e in pending for s in e.free_symbols} - done
            raise RuntimeError(f"cannot schedule assignments; unresolved symbols {sorted(map(str, missing))}")
    return ordered


def emit_kernel(spec: KernelSpec, preamble_symbols: set[sp.Symbol]) -> tuple[str, int]:
    """Source code of one ``@njit`` kernel and its operation count after CSE.

    Parameters
    ----------
    spec : KernelSpec
        The kernel.
    preamble_symbols : set of Symbol
        Symbols the preamble defines (together with the inputs, the starting set).

    Returns
    -------
    source : str
        The function's source.
    n_ops : int
        Arithmetic operations counted by ``sympy.count_ops`` over all emitted assignments.
    """
    assigned = set(re.findall(r"^\s*([A-Za-z_]\w*)\s*=", spec.preamble, flags=re.M))
    clash = assigned & ({n for n, _ in spec.inputs} | {n for n, _ in spec.outputs})
    if clash:
        raise ValueError(f"kernel {spec.name}: preamble variables shadow arguments {sorted(clash)}")
    stages = spec.used_stages()
    flat: list[sp.Expr] = [e for _, e in stages]
    shapes: list[tuple[str, int, int]] = []
    for name, mat in spec.outputs:
        rows, cols = mat.shape
        shapes.append((name, rows, cols))
        for i in range(rows):
            for j in range(cols):
                if name in spec.symmetric_outputs and j < i:
                    continue
                flat.append(mat[i, j])
    reps, reduced = sp.cse(flat, symbols=sp.numbered_symbols("x"), optimizations="basic", order="canonical")
    n_stage = len(stages)
    stage_assigns = [(sym, reduced[k]) for k, (sym, _) in enumerate(stages)]
    out_exprs = reduced[n_stage:]

    available: set[sp.Symbol] = set(preamble_symbols)
    for _, syms in spec.inputs:
        available |= set(syms)
    ordered = _schedule(list(reps) + stage_assigns, available)

    n_ops = sum(sp.count_ops(e) for _, e in ordered) + sum(sp.count_ops(e) for e in out_exprs)
    args = ", ".join([n for n, _ in spec.inputs] + [n for n, _ in spec.outputs])
    lines = ["@nb.njit(cache=True, nogil=True, _nrt=False)", f"def {spec.name}({args}):", f'    """{spec.doc}"""']
    for arr, syms in spec.inputs:
        for k, s in enumerate(syms):
            lines.append(f"    {s} = {arr}[{k}]")
    for pl in spec.preamble.strip("\n").splitlines():
        lines.append("    " + pl if pl.strip() else "")
    for sym, expr in ordered:
        lines.append(f"    {sym} = {pycode(expr)}")
    k = 0
    for name, rows, cols in shapes:
        for i in range(rows):
            for j in range(cols):
                if name in spec.symmetric_outputs and j < i:
                    continue
                target = f"{name}[{i}]" if name in spec.vector_outputs else f"{name}[{i}, {j}]"
                lines.append(f"    {target} = {pycode(out_exprs[k])}")
                k += 1
        if name in spec.symmetric_outputs:
            for i in range(rows):
                for j in range(i):
                    lines.append(f"    {name}[{i}, {j}] = {name}[{j}, {i}]")
    lines.append("    return 0")
    return "\n".join(lines) + "\n", int(n_ops)
