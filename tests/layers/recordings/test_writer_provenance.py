"""Which recordings carry paperlib's version and commit: paperlib's own (any of its modules), never another
program's data."""

from __future__ import annotations

import numpy as np
import pytest

from paperlib import provenance
from paperlib.recordings import from_arrays


@pytest.mark.parametrize("writer, stamped", [
    (None, True),
    ("paperlib.experiments.bearing.runs (twin: paperlib.twin.robots.torque_joint)", True),
    ("paperlib 0.1.0", True),
    ("lab_logger 1.3", False),
    ("paperlibre-logger 2", False),
])
def test_commit_is_stamped_only_for_paperlibs_own_writers(writer, stamped):
    q = np.zeros((10, 1))
    ds = from_arrays(q, sample_rate_hz=100.0, robot="r", source="hardware", writer=writer)
    assert ("git_commit" in ds.attrs) is stamped and ("paperlib_version" in ds.attrs) is stamped
    if stamped:
        assert ds.attrs["git_commit"] == provenance.git_commit()
    assert "created" in ds.attrs
    if writer is not None:
        assert ds.attrs["writer"] == writer
