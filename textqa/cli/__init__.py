"""The ``textqa`` command: train, run, evaluate and serve the models.

One module per command group, each registered the same way: ``HELP`` (one line for ``textqa
--help``), ``DESCRIPTION``, ``add_arguments(parser)`` and ``run(args) -> int``.  A group with
actions (``textqa qa answer``) adds them as subparsers whose ``func`` its ``run`` calls.  User
errors are :class:`textqa.errors.InputError`: printed as ``textqa: error: MESSAGE`` (``FILE:LINE:
...``), exit status 2, no traceback.

    textqa train all | truecaser | blanc | icd9 | qa [...]
    textqa truecase [--model DIR] [--tokenized] [--baseline] [--decoder trigram] [--no-phrases] ...
    textqa blanc score [--model DIR] --refs R1 [R2 ...] [--hyps FILE] [--corpus] [--details]
    textqa icd9 code [--model DIR] (--cmc-xml F | --jsonl F | stdin JSONL) [--classifier svm|brr]
    textqa qa answer | answer-type | select | resources | expansion [...]
    textqa eval truecase | rank | agreement | aqwv | cpa | nuggets | rouge | wer | material | correlate | icd9
    textqa batch truecase | blanc | icd9 | qa INPUT OUTPUT [--scheduler local|ADDRESS] [model options]
    textqa serve [--host --port --workers --artifacts --models]
    textqa verify ARTIFACT [...]
"""
from __future__ import annotations

import argparse
import importlib
import sys

from textqa.errors import InputError
from textqa.registry import MODELS
from textqa.version import __version__

#: command -> module, in ``textqa --help``'s order: training, each model's command (the registry's
#: verbs), then the commands over every model
COMMANDS = {"train": "textqa.cli.train", **{m.verb: m.command for m in MODELS},
            "eval": "textqa.cli.eval", "batch": "textqa.cli.batch", "serve": "textqa.cli.serve",
            "verify": "textqa.cli.verify"}


class _Version(argparse.Action):
    """``--version``: the version, and the truecaser's search (read only when asked: it loads numpy)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from textqa.models.truecaser import native  # deferred: loads numpy
        print(f"textqa {__version__}\ntruecaser search: {native.status()}")
        parser.exit()


def build_parser(argv=None) -> argparse.ArgumentParser:
    """The command line's parser (``argv``, default ``sys.argv[1:]``, tells ``textqa train`` which
    model's own arguments to add)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    p = argparse.ArgumentParser(prog="textqa", description="Train, run, evaluate and serve textqa models.")
    p.add_argument("--version", action=_Version, nargs=0,
                   help="show the version and which truecaser search decodes (native C++ or Python), and exit")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # a command names itself first: only its module is imported (each imports what it runs, and the
    # others' imports would delay its first output); otherwise every command, for --help and errors
    named = argv[0] if argv and argv[0] in COMMANDS else None
    for name, module_name in COMMANDS.items():
        if named is not None and name != named:
            continue
        module = importlib.import_module(module_name)
        cp = sub.add_parser(name, help=module.HELP, description=module.__doc__ if name == "batch"
                            else module.DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
                            if name in ("batch", "eval") else argparse.HelpFormatter)
        if name == "train":
            module.add_arguments(cp, argv)
        else:
            module.add_arguments(cp)
        cp.set_defaults(func=module.run)
    return p


def main(argv=None) -> int:
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except InputError as e:     # user errors (file, line and problem): no traceback, exit status 2
        print(f"textqa: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("textqa: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
