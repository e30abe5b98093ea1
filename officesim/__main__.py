"""``python -m officesim`` runs the CLI."""

import sys

from officesim.cli import main

sys.exit(main())
