"""The room kit: what every room (``paperlib/experiments/<slug>/``) uses and none copies.

:mod:`paperlib.experiments.kit.code_inputs` -- the code inputs of a pipeline rule, from the
static import closure of the modules (or notebook) it runs.
"""
