"""The one error type every front end treats as the user's: bad input, named by file and line."""
from __future__ import annotations


class InputError(ValueError):
    """An input (file, line, option or artifact) is unreadable or malformed; the message names it.

    The command line prints it as ``textqa: error: MESSAGE`` and exits with status 2; ``textqa
    batch`` reports the first partition's; no traceback is shown."""
