"""``textqa serve``: the Flask service under gunicorn."""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from textqa.registry import NAMES
from textqa.runtime.paths import artifacts_dir

HELP = "serve the models over HTTP with gunicorn"
DESCRIPTION = "Run the Flask service under gunicorn (production WSGI server)."


def add_arguments(p) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free port, printed by gunicorn)")
    p.add_argument("--workers", type=int, default=2, help="gunicorn worker processes (default 2)")
    p.add_argument("--artifacts", type=Path, default=None, help="artifacts root (default: $TEXTQA_ARTIFACTS "
                                                                 "or ./artifacts)")
    p.add_argument("--timeout", type=int, default=120, help="worker timeout in seconds (default 120)")
    p.add_argument("--preload", action="store_true",
                   help="load models once before forking workers (shares memory; a HUP then cannot load new "
                        "artifacts: restart instead)")
    p.add_argument("--pidfile", type=Path, default=None,
                   help="write gunicorn's pid here; 'kill -HUP $(cat FILE)' replaces the workers gracefully, "
                        "loading the artifacts anew (zero-downtime model swap after 'textqa train')")
    p.add_argument("--graceful-timeout", type=int, default=30,
                   help="seconds workers get to finish in-flight requests on SIGTERM/HUP (default 30)")
    p.add_argument("--models", default=None, metavar="NAMES",
                   help="comma-separated models to load (default: all of " + ", ".join(NAMES) + ")")


def run(args) -> int:
    root = artifacts_dir(args.artifacts).resolve()
    env = dict(os.environ, TEXTQA_ARTIFACTS=str(root))
    if args.models:
        names = [n.strip() for n in args.models.split(",") if n.strip()]
        unknown = [n for n in names if n not in NAMES]
        if unknown or not names:
            print(f"textqa: error: --models: unknown model(s) {', '.join(unknown) or '(none given)'}; choose from "
                  f"{', '.join(NAMES)}", file=sys.stderr)
            return 2
        env["TEXTQA_MODELS"] = ",".join(names)
    # Prometheus multiprocess mode: a fresh, empty folder per server start (removed on exit); a folder
    # the operator chose is emptied of the previous run's files instead
    metrics_dir = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if metrics_dir:
        Path(metrics_dir).mkdir(parents=True, exist_ok=True)
        for old in Path(metrics_dir).glob("*.db"):
            old.unlink()
    else:
        metrics_dir = tempfile.mkdtemp(prefix="textqa-metrics-")
        env["TEXTQA_OWN_METRICS_DIR"] = metrics_dir
    env["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir
    cmd = [sys.executable, "-m", "gunicorn", "--bind", f"{args.host}:{args.port}", "--workers", str(args.workers),
           "--timeout", str(args.timeout), "--graceful-timeout", str(args.graceful_timeout),
           "-c", "python:textqa.service.gunicorn_conf",
           "textqa.service.wsgi:app"]    # access log: the app's JSON lines
    if args.pidfile:
        cmd[-1:-1] = ["--pid", str(args.pidfile)]
    if args.preload:
        cmd.insert(-1, "--preload")
    print(f"textqa: serving {root} on http://{args.host}:{args.port} with {args.workers} gunicorn worker(s)",
          file=sys.stderr, flush=True)
    os.execve(sys.executable, cmd, env)
    return 0  # not reached
