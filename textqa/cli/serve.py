"""``textqa serve``: the Flask service under gunicorn."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from textqa.registry import MODELS, NAMES
from textqa.runtime import training_state
from textqa.runtime.process_pool import ONE_THREAD
from textqa.runtime.paths import artifacts_dir

from .background import BackgroundTraining, to_train

HELP = "serve the models over HTTP with gunicorn"
DESCRIPTION = "Run the Flask service under gunicorn (production WSGI server)."


def add_arguments(p) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free port, printed by gunicorn)")
    p.add_argument("--workers", type=int, default=2, help="gunicorn worker processes (default 2)")
    p.add_argument("--artifacts", type=Path, default=None, help="artifacts root (default: $TEXTQA_ARTIFACTS "
                                                                 "or ./artifacts)")
    p.add_argument("--timeout", type=int, default=120,
                   help="gunicorn's worker timeout in seconds, the last resort: a worker whose main loop has not "
                        "answered for this long is killed (default 120); a request's own limit is --request-timeout")
    p.add_argument("--max-inflight", type=int, default=None, metavar="N",
                   help="model requests the server takes at once per model, over all workers (each computes one "
                        "at a time); one more is answered at once with 503 'overloaded' and Retry-After "
                        "(default: 4 a worker)")
    p.add_argument("--request-timeout", type=float, default=30.0, metavar="SECONDS",
                   help="a model request's deadline: past it the work stops where it can, or its answer is "
                        "dropped, and the client gets 504 'deadline_exceeded' (default 30; 0: none)")
    p.add_argument("--threads", type=int, default=None,
                   help="threads per worker (gthread): the model requests it takes and, always with a thread to "
                        "spare, /healthz, /readyz and /metrics (default: --max-inflight + 2)")
    p.add_argument("--preload", action="store_true",
                   help="load models once before forking workers (shares memory; a HUP then cannot load new "
                        "artifacts: restart instead)")
    p.add_argument("--pidfile", type=Path, default=None,
                   help="write gunicorn's pid here; 'kill -HUP $(cat FILE)' replaces the workers gracefully, "
                        "loading the artifacts anew (zero-downtime model swap after 'textqa train')")
    p.add_argument("--graceful-timeout", type=int, default=30,
                   help="seconds workers get to finish in-flight requests on SIGTERM/HUP (default 30)")
    p.add_argument("--train-missing", action="store_true",
                   help="serve at once and train the missing default artifacts in the background, cheapest first; "
                        "each model goes live when its artifact is written, and answers 503 with its state until "
                        "then (what 'make run' does)")
    p.add_argument("--models", default=None, metavar="NAMES",
                   help="comma-separated models to load (default: all of " + ", ".join(NAMES) + ")")
    for m in MODELS:                        # each model's load-time options, as 'textqa VERB' takes them
        load = [o for o in m.options if o.stage == "load"]
        if load:
            group = p.add_argument_group(f"{m.label} options (as 'textqa {m.verb}' takes them; /v1/models shows them)")
            for option in load:
                option.add_to(group)


def run(args) -> int:
    root = artifacts_dir(args.artifacts).resolve()
    for name, value, least in (("--workers", args.workers, 1), ("--max-inflight", args.max_inflight, 1),
                               ("--threads", args.threads, 2), ("--request-timeout", args.request_timeout, 0)):
        if value is not None and value < least:
            print(f"textqa: error: {name} must be at least {least}", file=sys.stderr)
            return 2
    max_inflight = args.max_inflight or 4 * args.workers
    # a worker may hold every admitted request, and has two threads beyond them for the health checks
    # and the refusals: they never wait behind model work
    threads = args.threads or max_inflight + 2
    if threads <= max_inflight:
        print(f"textqa: error: --threads must be more than --max-inflight ({max_inflight}): a thread beyond "
              f"the model requests answers the health checks", file=sys.stderr)
        return 2
    env = dict(os.environ, TEXTQA_ARTIFACTS=str(root), TEXTQA_WORKERS=str(args.workers),
               TEXTQA_MAX_INFLIGHT=str(max_inflight), TEXTQA_REQUEST_TIMEOUT=str(args.request_timeout),
               TEXTQA_INFLIGHT_DIR=tempfile.mkdtemp(prefix="textqa-inflight-"))
    if args.models:
        names = [n.strip() for n in args.models.split(",") if n.strip()]
        unknown = [n for n in names if n not in NAMES]
        if unknown or not names:
            print(f"textqa: error: --models: unknown model(s) {', '.join(unknown) or '(none given)'}; choose from "
                  f"{', '.join(NAMES)}", file=sys.stderr)
            return 2
        env["TEXTQA_MODELS"] = ",".join(names)
    defaults = {m.name: m.option_values({}, "load") for m in MODELS}
    chosen = {m.name: {k: v for k, v in m.option_values(args, "load").items() if v != defaults[m.name][k]}
              for m in MODELS}
    chosen = {name: opts for name, opts in chosen.items() if opts}
    if chosen:
        env["TEXTQA_LOAD_OPTIONS"] = json.dumps(chosen)
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
    # one BLAS/OpenMP thread a worker, unless the operator chose otherwise: set before gunicorn starts,
    # since its master loads numpy (and with it OpenBLAS's thread count) when it reads the app's config
    env = {**ONE_THREAD, **env}
    cmd = [sys.executable, "-m", "gunicorn", "--bind", f"{args.host}:{args.port}", "--workers", str(args.workers),
           "--worker-class", "textqa.service.gunicorn_worker.Worker", "--threads", str(threads), "--keep-alive", "0",
           "--timeout", str(args.timeout), "--graceful-timeout", str(args.graceful_timeout),
           "-c", "python:textqa.service.gunicorn_conf",
           "textqa.service.wsgi:app"]    # access log: the app's JSON lines
    if args.pidfile:
        cmd[-1:-1] = ["--pid", str(args.pidfile)]
    if args.preload:
        cmd.insert(-1, "--preload")
    limit = f"a deadline of {args.request_timeout:g} s" if args.request_timeout else "no deadline"
    print(f"textqa: serving {root} on http://{args.host}:{args.port} with {args.workers} gunicorn worker(s) of "
          f"{threads} threads; at most {max_inflight} requests in flight per model, each with {limit}",
          file=sys.stderr, flush=True)
    if args.train_missing:
        selected = [m for m in MODELS if not args.models or m.name in env["TEXTQA_MODELS"].split(",")]
        todo, no_data = to_train(root, selected)
        for name, why in no_data.items():
            print(f"textqa: {name}: not trained, {why}", file=sys.stderr)
        if todo:
            return _serve_and_train(cmd, env, root, todo, no_data)
    os.execve(sys.executable, cmd, env)
    return 0  # not reached


def _serve_and_train(cmd: list, env: dict, root: Path, todo: list, no_data: dict) -> int:
    """gunicorn in a child process while the missing models train, one at a time, in another."""
    state_dir = Path(tempfile.mkdtemp(prefix="textqa-training-"))
    env[training_state.ENV] = str(state_dir / "state.json")
    print(f"textqa: training in the background, cheapest first: {', '.join(m.name for m in todo)} "
          f"(logs in {root / '.logs'}); each model answers once its artifact is written", file=sys.stderr, flush=True)
    training = BackgroundTraining(root, todo, no_data, Path(env[training_state.ENV]))

    def _terminate(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, _terminate)
    signal.signal(signal.SIGINT, _terminate)        # also where a shell started us with SIGINT ignored
    server = subprocess.Popen(cmd, env=env)
    result = {}
    worker = threading.Thread(target=lambda: result.setdefault("status", training.run()), daemon=True)
    worker.start()
    try:
        while worker.is_alive() and server.poll() is None:
            worker.join(0.5)
        if server.poll() is not None:                 # the server could not start, or was stopped
            training.stop()
            worker.join()
            print(f"textqa: the server exited (status {server.returncode}); training stopped, no partial artifact "
                  f"is left", file=sys.stderr, flush=True)
            return server.returncode or 1
        if result.get("status"):
            print(f"textqa: training failed for {', '.join(training.failed)}: see {root / '.logs'}; the other "
                  f"models are served", file=sys.stderr, flush=True)
        else:
            print("textqa: every model is trained and served", file=sys.stderr, flush=True)
        return server.wait()
    except KeyboardInterrupt:
        training.stop()
        if server.poll() is None:
            server.send_signal(signal.SIGINT)
        worker.join(60)
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:
            server.kill()
        print("textqa: stopped; no partial artifact is left, and the trainings' caches are kept for the next run",
              file=sys.stderr, flush=True)
        return 130
    finally:
        shutil.rmtree(state_dir, ignore_errors=True)
