"""``officesim view``: a local, read-only web viewer of worlds, episodes, runs and deliveries.

Server-side HTML (FastAPI routes returning strings built with ``html.escape``); no external
assets and no build step, so it works offline and installs with the package.
"""
