# GENERATED FILE - DO NOT EDIT.
# Generator: `python -m paperlib.codegen` (paperlib/control/step_arrays.py, the table STEP_ARRAYS).
"""The packed call of the control step: few arguments, so it is cheap to call from Python."""

from paperlib._jit import rt_njit
from paperlib.control.step import N_FCFG, N_IFLAGS, RING, control_step

N_SIZES = 8


@rt_njit
def control_step_packed(t, meas, fbuf, ibuf, lay):  # pragma: no cover - compiled
    """:func:`paperlib.control.step.control_step` on the packed state of a ``Controller``.

    ``meas`` (7, max(n, nd)) holds the rows of ``MEAS_ROWS``; ``lay`` starts with the sizes
    (``SIZES``) and then holds each array's start and end offset in its buffer.
    """
    n, nd, npi, nf, nups, ni, nprm, nconv = lay[0], lay[1], lay[2], lay[3], lay[4], lay[5], lay[6], lay[7]
    nmax = max(n, nd)
    o = lay[8:]
    return control_step(
        t, meas[0, :n], meas[1, :n], meas[2, :n], meas[3, :nd], meas[4, :n], meas[5, :n], meas[6, :n],
        fbuf[o[0]:o[1]],  # prm
        ibuf[o[2]:o[3]].reshape((nf, 3)),  # cols
        fbuf[o[4]:o[5]].reshape((2, n)),  # gains
        fbuf[o[6]:o[7]],  # tau_max
        fbuf[o[8]:o[9]],  # fcfg
        ibuf[o[10]:o[11]],  # iflags
        fbuf[o[12]:o[13]],  # conv
        fbuf[o[14]:o[15]],  # theta
        fbuf[o[16]:o[17]].reshape((npi, npi)),  # P
        fbuf[o[18]:o[19]],  # pi0
        fbuf[o[20]:o[21]],  # g
        ibuf[o[22]:o[23]],  # counters
        fbuf[o[24]:o[25]],  # accum
        fbuf[o[26]:o[27]],  # Q_IG
        fbuf[o[28]:o[29]].reshape((nd, n)),  # D_m
        fbuf[o[30]:o[31]].reshape((nups, n)),  # D_ups
        fbuf[o[32]:o[33]],  # ups_d
        fbuf[o[34]:o[35]].reshape((n, ni)),  # Y_I
        fbuf[o[36]:o[37]].reshape((n, npi)),  # Y
        fbuf[o[38]:o[39]],  # R
        fbuf[o[40]:o[41]].reshape((1, npi)),  # y_sum
        fbuf[o[42]:o[43]],  # r_sum
        fbuf[o[44]:o[45]].reshape((n, n)),  # work
        fbuf[o[46]:o[47]],  # tmp
        fbuf[o[48]:o[49]],  # tmp2
        fbuf[o[50]:o[51]],  # tmpd
        fbuf[o[52]:o[53]].reshape((3, nd)),  # parts
        fbuf[o[54]:o[55]],  # tau_tgt
        fbuf[o[56]:o[57]].reshape((RING, 2, nmax)),  # ring
    )
