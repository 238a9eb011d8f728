"""``make check-results`` fails on a tree where nothing was built: the other checks here are
parametrized over what a build left, so with nothing built they would collect no case and pass."""

from __future__ import annotations

import pytest

from built_results import built_rooms, figure_sidecars, parameter_files

pytestmark = pytest.mark.results


def test_a_build_left_tables_figures_and_parameter_files():
    missing = [what for what, found in (("room results (results/<slug>/*.json)", built_rooms()),
                                        ("figure sidecars (figures/<room>/*.json)", figure_sidecars()),
                                        ("parameter files (results/**/params/*.yaml)", parameter_files())) if not found]
    assert not missing, (f"nothing to check: no {', no '.join(missing)}; build first (make reproduce, make smoke "
                         f"or paperlib reproduce PAPER), then make check-results")
