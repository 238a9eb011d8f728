"""The live view of a run: a Panel page on localhost that draws a run while its loop goes.

``paperlib run ... --live`` gives its recording writer a live mirror
(:class:`paperlib.recordings.LiveMirror`: the writer's chunks in shared memory-mapped files) and
starts this package as a separate program (``python -m paperlib.live --mirror DIR --port N``),
which serves the page. The page reads only the mirror, in its own process: the control loop
neither imports Panel nor waits for the page, and its recording is the same with and without it.

Modules
-------
state
    :class:`~paperlib.live.state.LiveState`: the growing record of the run and what the page draws
    (friction curves, drive-gain estimates, tracking errors, deadline statistics).
page
    :func:`~paperlib.live.page.make_page`: the Panel page of one browser session.
server
    :func:`~paperlib.live.server.serve`, and the program's command line (``python -m paperlib.live``).
"""
