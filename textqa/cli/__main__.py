"""``python -m textqa.cli``: the ``textqa`` command."""
import sys

from textqa.cli import main

sys.exit(main())
