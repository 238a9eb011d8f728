"""The room's notebook outputs: the kit's one writer (:class:`paperlib.experiments.kit.outputs.Outputs`).

Kept as an alias during the move to the kit; new code imports
``from paperlib.experiments.kit.outputs import Outputs``.
"""

from __future__ import annotations

from paperlib.experiments.kit.outputs import Outputs

__all__ = ["Outputs"]
