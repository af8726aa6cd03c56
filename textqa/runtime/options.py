"""A model's run-time option, declared once for every front end (the registry lists each model's)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Option:
    """One run-time option of a model.

    ``stage`` is ``"load"`` for options that configure the loaded model (``textqa.load(name,
    **options)``; the command line and ``textqa batch`` pass them when they load it) and ``"call"``
    for options of each call (``top_k``, ``classifier``), which the commands pass with the input.
    A boolean whose default is True appears on the command line as ``--no-NAME``, one whose default
    is False as ``--NAME``; others as ``--NAME VALUE``.  Underscores become hyphens on the command
    line.

    ``settings`` maps a load option's values to the model parameters each stands for: the loader
    then gets those parameters (``set_params`` names), not the option, so that what an option
    means is written here once for the command line, ``textqa.load``, ``textqa serve`` and the
    service's ``/v1/models``."""
    name: str
    default: Any
    help: str
    stage: str = "call"
    choices: tuple | None = None
    type: Callable | None = None
    settings: dict | None = None

    @property
    def flag(self) -> str:
        stem = self.name.replace("_", "-")
        return f"--no-{stem}" if self.default is True else f"--{stem}"

    def add_to(self, parser) -> None:
        """Add this option's flag to an argparse parser (or argument group)."""
        if isinstance(self.default, bool):
            parser.add_argument(self.flag, dest=self.name, action="store_false" if self.default else "store_true",
                                help=self.help)
        else:
            parser.add_argument(self.flag, dest=self.name, default=self.default, choices=self.choices,
                                type=self.type or type(self.default), help=self.help)
