"""A room's paper: what it is (title, authors, year, DOI or venue, the seed text) and how far it is built."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["Paper", "STATUSES"]

#: How far a room reproduces its paper.
STATUSES = ("reproduced", "partial", "planned")


@dataclass(frozen=True)
class Paper:
    """Metadata of the paper a room reproduces.

    Parameters
    ----------
    slug : str
        The room's name (``paperlib/experiments/<slug>/``, ``notebooks/<slug>/``, ...).
    title : str
        The paper's title (as in its text).
    seed_file : str
        File name of the paper's text in ``../shared/papers/`` (``NNN_<hash>.txt``); rooms are
        ordered by it.
    status : {"reproduced", "partial", "planned"}
    builds : str
        What the room builds, one line.
    authors : tuple of str
        As far as the paper's text names them (empty when it does not).
    year : int, optional
        Publication year, when the text gives it.
    doi : str, optional
        Only when the text gives it (never guessed).
    venue : str, optional
        Journal, book or publisher named by the text.
    """

    slug: str
    title: str
    seed_file: str
    status: str
    builds: str
    authors: tuple[str, ...] = field(default_factory=tuple)
    year: int | None = None
    doi: str | None = None
    venue: str | None = None

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"paper {self.slug}: status {self.status!r} is not one of {STATUSES}")

    def as_dict(self) -> dict[str, Any]:
        """Plain dict: the fields, with ``paper_file`` (= ``seed_file``) and ``authors`` as a list."""
        d = asdict(self)
        d["authors"] = list(self.authors)
        d["paper_file"] = self.seed_file
        return d

    def __getitem__(self, key: str) -> Any:
        return self.as_dict()[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.as_dict().get(key, default)
