"""Thin, optional adapters from officesim to training frameworks.

Each adapter is its own module and imports its framework there, so ``import officesim`` never
needs one of them; nothing is imported here.

* ``officesim.integrations.gymnasium`` (``pip install 'officesim[gym]'``): ``OfficeGymEnv``, a
  ``gymnasium.Env`` over one task or many, with JSON text actions and observations, and
  ``register_tasks`` for ``gymnasium.make("officesim/<task-id>")``.
* ``officesim.integrations.dataset`` (no extra dependency): ``task_records``, plain dicts any
  trainer can turn into a dataset, and ``score_transcript`` / ``TranscriptScorer``, the reward of a
  finished chat transcript, computed by replaying its tool calls.
"""
