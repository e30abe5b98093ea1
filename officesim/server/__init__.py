"""Thin adapters that serve officesim to remote agents: HTTP (FastAPI) and MCP (stdio).

Both call the same registry and ``OfficeEnv`` as the in-process path; no business logic lives
here.  ``officesim.server.mcp_server`` needs the optional ``mcp`` extra and is not imported here.
"""

from officesim.server.http import create_app

__all__ = ["create_app"]
