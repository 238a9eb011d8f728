"""``python -m paperlib.live --mirror DIR --port N``: serve the live page of a run (see :mod:`paperlib.live.server`)."""

import sys

from paperlib.live.server import main

sys.exit(main())
