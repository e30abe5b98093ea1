"""The verifiers environment package ``officesim-verifiers``: officesim tasks for ``verifiers.v1``.

verifiers resolves a taskset id to a top-level module and takes the ``Taskset`` subclass it exports
in ``__all__``; this package re-exports ``officesim.integrations.verifiers`` under that id.
"""

from officesim.integrations.verifiers import (
    OfficesimConfig,
    OfficesimData,
    OfficesimState,
    OfficesimTask,
    OfficesimTaskset,
    OfficesimToolset,
    grade_calls,
    load_environment,
)

__all__ = ["OfficesimConfig", "OfficesimData", "OfficesimState", "OfficesimTask", "OfficesimTaskset",
           "OfficesimToolset", "grade_calls", "load_environment"]
