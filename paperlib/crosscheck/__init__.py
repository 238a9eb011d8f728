"""Cross-checks of the own twins against a second, independent simulator (MuJoCo).

The twins of :mod:`paperlib.twin` integrate the robots' own symbolic models (reduced
coordinates, the loop closure solved inside the generated kernels). The modules here build the
same robots as MuJoCo models from their robot files alone (bodies, hinges, the closed chain as an
equality constraint) and drive them with the compendium's drives, friction laws and controllers,
so that a difference in motion is a difference of the mechanics or of the integration.

The ``mujoco`` package is an optional dependency (extras ``dev`` and ``crosscheck``); it is
imported only where a model is compiled.
"""
