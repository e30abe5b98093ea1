"""One error hierarchy for officesim.

Two kinds of failure exist and must never be confused:

* ``ToolError`` and its subclasses are *told to the model*: the agent asked for something the
  world cannot do (an unknown id, a forbidden file, a malformed argument).  Their messages are
  written for a model to read and say what to do instead.  The tool layer turns them into
  ``{"error": {"type": ..., "message": ...}}``.
* Every other exception is a bug in officesim and must surface (crash the call), never be handed
  to the model as text.

``OfficesimError`` covers user-facing problems outside the tool layer (a broken task file, a bad
world spec); the CLI prints them without a traceback.
"""

from __future__ import annotations


class OfficesimError(Exception):
    """A problem a user (not a model) must fix: bad spec, broken task folder, bad option."""


class SpecError(OfficesimError):
    """A world spec, task, grader or solution file is invalid; the message names file and field."""


MAX_MESSAGE = 2000  # characters of an error message; a long list or input in one is cut with a marker


class ToolError(Exception):
    """An error returned to the model as the result of a tool call."""

    type_name = "tool_error"

    def __init__(self, message: str) -> None:
        if len(message) > MAX_MESSAGE:
            message = message[:MAX_MESSAGE] + f" [... message cut at {MAX_MESSAGE} characters]"
        super().__init__(message)
        self.message = message

    def to_result(self) -> dict:
        """The JSON result a model receives instead of data."""
        return {"error": {"type": self.type_name, "message": self.message}}


class UnknownTool(ToolError):
    """The model called a tool that does not exist or is not allowed in this task."""

    type_name = "unknown_tool"


class InvalidArgument(ToolError):
    """An argument is missing, extra, of the wrong type or out of range."""

    type_name = "invalid_argument"


class NotFound(ToolError):
    """An id or name does not refer to anything the acting user can see."""

    type_name = "not_found"


class PermissionDenied(ToolError):
    """The acting user may not read or change this object."""

    type_name = "permission_denied"


class Conflict(ToolError):
    """The request clashes with the current state (already a member, name taken, ...)."""

    type_name = "conflict"


class Timeout(ToolError):
    """The call ran past its time budget and was stopped; nothing it did was kept."""

    type_name = "timeout"
