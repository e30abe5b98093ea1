"""``python -m officesim.testing --script FILE``: serve scripted chat completions by hand."""

from officesim.testing.openai_server import main

raise SystemExit(main())
