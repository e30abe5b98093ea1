"""The offline pipeline: runs, metrics, calibration, self-tests, splits and deliveries.

Built on the core (worlds, tools, tasks, grading, the env), never under it: nothing in the core
imports this package.
"""
