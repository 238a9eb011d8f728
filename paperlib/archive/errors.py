"""The one error of the archive package: a release cannot be packed, verified or fetched."""

from __future__ import annotations

from typing import Iterable


class ArchiveError(ValueError):
    """A release cannot be packed, verified or fetched; ``problems`` lists every fault, each naming its file."""

    def __init__(self, problems: str | Iterable[str]):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("\n".join(self.problems))
