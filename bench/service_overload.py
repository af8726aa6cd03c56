"""The service under overload (``python -m bench.service --overload``; part of ``python -m bench.service``).

``textqa serve --workers 2`` on the default artifacts, and 32 clients, each on its own keep-alive
connection, sending requests never sent before (QA: Natural Questions open dev questions, each
once; truecasing, which keeps no answers: the lowercased dev sentences, cycled) for 30 s, against
the bound on the requests in flight (``--max-inflight``, default 4 a worker):

- a client that is refused waits what ``Retry-After`` says before its next request, as a client
  that reads the header does (:class:`Clients`); 503 ``overloaded`` and 504 ``deadline_exceeded``
  are counted apart from other failures, and every latency is the client's own;
- beside them, a separate client (a process of its own) polls ``/healthz`` and ``/readyz`` 10 times
  a second each and, in the overload runs, posts a model request twice a second, timing each answer
  from its side: the health checks' p99, and how fast a refusal comes;
- the same load from 4 clients (what the answered requests' p99 is compared with), and from 32
  with the bound lifted (``--max-inflight 1000``: every request queues), for the throughput without
  shedding.

The clients are Python threads on the same 2 cores as the server, so their cost is in every number.
"""
from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from types import SimpleNamespace

class Clients:
    """``connections`` clients, each a thread with one keep-alive connection sending its share of
    ``requests_`` (client k every k-th request, so none is sent twice) one after the other, and
    after a 503 with ``Retry-After`` waiting that long first, as a client that reads the header does.
    Each request's status and latency are recorded from the client's side.  (wrk cannot do this:
    its scripts' ``delay`` is per thread, not per connection, so a refused connection's wait would
    fall on whichever connection of the thread writes next.)"""

    def __init__(self, base: str, requests_: list, connections: int):
        from urllib.parse import urlsplit
        self.host, self.port = urlsplit(base).hostname, urlsplit(base).port
        self.requests, self.connections = requests_, connections
        self.results: list[tuple[int, float]] = []           # (status, seconds), appended by the clients
        self._stop = threading.Event()

    def _client(self, k: int) -> None:
        import http.client
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        mine = self.requests[k::self.connections]
        i = 0
        while not self._stop.is_set() and mine:
            path, body = mine[i % len(mine)]
            i += 1
            data = json.dumps(body).encode()
            t = time.perf_counter()
            try:
                conn.request("POST", path, data, {"Content-Type": "application/json"})
                r = conn.getresponse()
                r.read()
                status, wait = r.status, r.getheader("Retry-After")
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
                status, wait = 0, None
            self.results.append((status, time.perf_counter() - t))
            if status == 503 and wait:
                self._stop.wait(float(wait))
        conn.close()

    def run(self, seconds: float) -> None:
        threads = [threading.Thread(target=self._client, args=(k,)) for k in range(self.connections)]
        for t in threads:
            t.start()
        self._stop.wait(seconds)
        self._stop.set()
        for t in threads:
            t.join()


class SideClient:
    """Polls ``/healthz`` and ``/readyz`` 10 times a second each, and posts ``probe`` (a model request;
    None: none) twice a second, timing each answer from the client's side."""

    def __init__(self, base: str, probe: tuple[str, dict] | None):
        self.base, self.probe = base, probe
        self.times: dict[str, list] = {"/healthz": [], "/readyz": [], "refused": [], "answered": []}
        self.statuses: dict[str, list] = {"/healthz": [], "/readyz": []}
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._poll, args=(p,)) for p in ("/healthz", "/readyz")] + \
            ([threading.Thread(target=self._post)] if probe else [])

    def _poll(self, path: str) -> None:
        import requests
        s = requests.Session()
        while not self._stop.is_set():
            t = time.perf_counter()
            try:
                code = s.get(self.base + path, timeout=30).status_code
            except requests.RequestException:
                code = 0
            self.times[path].append(time.perf_counter() - t)
            self.statuses[path].append(code)
            self._stop.wait(max(0.1 - (time.perf_counter() - t), 0))

    def _post(self) -> None:
        import requests
        path, body = self.probe
        while not self._stop.is_set():
            t = time.perf_counter()
            r = requests.post(self.base + path, json=body, timeout=60)
            took = time.perf_counter() - t
            if r.status_code == 503 and r.json()["error"]["code"] == "overloaded" and "Retry-After" in r.headers:
                self.times["refused"].append(took)
            elif r.status_code == 200:
                self.times["answered"].append(took)
            self._stop.wait(max(0.5 - took, 0))

    def __enter__(self):
        self._stop.clear()
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        for t in self._threads:
            t.join()


def p(values: list, q: float) -> float | None:
    """The ``q``-quantile of ``values`` (nearest rank), None when there are none."""
    if not values:
        return None
    v = sorted(values)
    return v[min(int(q * len(v)), len(v) - 1)]


def _side_client(base: str, probe, seconds: float, out) -> None:
    """:class:`SideClient` for ``seconds``, in a process of its own (``out``: a queue for its timings)."""
    with SideClient(base, probe) as side:
        time.sleep(seconds)
    out.put((side.times, side.statuses))


def run(server, requests_: list, seconds: int, connections: int, probe) -> dict:
    """:class:`Clients` on ``requests_`` with the side client alongside, in another process (so that
    the clients' threads do not delay its timings)."""
    import multiprocessing
    ctx = multiprocessing.get_context("fork")           # before any client thread starts
    queue = ctx.Queue()
    watcher = ctx.Process(target=_side_client, args=(server.base, probe, seconds, queue))
    watcher.start()
    clients = Clients(server.base, requests_, connections)
    clients.run(seconds)
    times, health = queue.get(timeout=seconds + 120)
    watcher.join(60)
    side = SimpleNamespace(times=times, statuses=health)
    statuses: dict[int, int] = {}
    for status, _ in clients.results:
        statuses[status] = statuses.get(status, 0) + 1
    answered = [t * 1e3 for status, t in clients.results if status == 200]
    refused = [t * 1e3 for status, t in clients.results if status == 503]
    return {"connections": connections, "seconds": seconds, "statuses": statuses,
            "answered_per_s": statuses.get(200, 0) / seconds,
            "answered_p50": p(answered, 0.5), "answered_p99": p(answered, 0.99),
            "refused_p99": p(refused, 0.99),
            "healthz_p99": p(side.times["/healthz"], 0.99) * 1e3, "readyz_p99": p(side.times["/readyz"], 0.99) * 1e3,
            "health_failed": sum(c != 200 for c in side.statuses["/healthz"] + side.statuses["/readyz"]),
            "health_polls": len(side.times["/healthz"]) + len(side.times["/readyz"]),
            "refused_client_p99": None if not side.times["refused"] else p(side.times["refused"], 0.99) * 1e3,
            "refused_client_n": len(side.times["refused"]), "socket_errors": statuses.pop(0, 0)}


def workloads(n_questions: int = 6000) -> dict[str, list]:
    """{"qa": NQ open dev questions, "truecase": lowercased dev sentences}: requests, none repeated."""
    from bench.service import ROOT
    from textqa.models.qa.questions import read_training_questions
    from textqa.training.corpus import read_lines
    from textqa.training.qa_reader import NQ_DEV
    qs = [q.question for q in read_training_questions(NQ_DEV)][:n_questions]
    dev = [line.strip().lower() for line in read_lines(ROOT / "data" / "truecase" / "val_input.txt.gz") if line.strip()]
    return {"qa": [("/v1/qa/answer", {"question": q, "top_k": 5}) for q in qs],
            "truecase": [("/v1/truecase", {"text": s, "tokenized": True}) for s in dev]}


def overload(artifacts, scratch: Path, seconds: int = 30) -> list[dict]:
    """The runs (module doc), each on its own slice of the requests: none is sent twice."""
    from bench.service import Server
    loads = workloads()
    results = []
    plans = [("qa", 32, ()), ("qa", 4, ()), ("qa", 32, ("--max-inflight", "1000")),
             ("truecase", 32, ()), ("truecase", 4, ())]
    slices = {"qa": 0}
    for bound in ((), ("--max-inflight", "1000")):                 # the same order as ``plans``
        server = Server(artifacts, "--workers", "2", "--models", "qa,truecaser", *bound,
                        log=scratch / f"overload-{len(bound)}.log")
        try:
            server.wait_ready(deadline_s=300)
            for kind, connections, extra in plans:
                if extra != bound:
                    continue
                reqs = loads[kind]
                if kind == "qa":            # each run its own questions: 60 a second, more than it answers
                    part = reqs[slices[kind]:slices[kind] + 60 * seconds]
                    slices[kind] += len(part)
                else:                       # truecasing keeps no answers: the dev sentences, cycled
                    part = reqs
                probe = reqs[-1] if connections > 4 else None    # at 4 connections nothing else comes
                r = run(server, part, seconds, connections, probe)
                r.update(kind=kind, bound="none" if extra else "default")
                results.append(r)
                print(f"bench: overload {kind} c{connections} bound={r['bound']}: {r['answered_per_s']:.1f} answered/s, "
                      f"statuses {r['statuses']}, answered p99 {r['answered_p99']} ms, healthz p99 "
                      f"{r['healthz_p99']:.1f} ms", flush=True)
            results[-1]["tracebacks"] = server.text().count("Traceback")
        finally:
            server.stop()
    return results


def lines_for(results: list[dict], seconds: int) -> list[str]:
    """The RESULTS.md lines of the runs."""
    out = ["", f"`textqa serve --workers 2 --models qa,truecaser` with the default bound (8 requests in flight per "
           f"model over the 2 workers, 4 a worker); {seconds} s of requests never sent before from each number of clients, each on "
           "one keep-alive connection, a refused client waiting `Retry-After` (`bench/service_overload.py`). "
           "Latencies are the clients'. The health checks' are a separate client's, polling each 10 times a "
           "second while it posts a model request twice a second in the 32-client runs (the last column: that "
           "client's refusals).", "",
           "| requests | clients | bound | answered/s | answered p50 ms | answered p99 ms | 503 overloaded | "
           "504 | other errors | `/healthz` p99 ms | `/readyz` p99 ms | a refusal, p99 ms |",
           "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        st = r["statuses"]
        other = sum(c for s, c in st.items() if s not in (200, 503, 504)) + r["socket_errors"] + r["health_failed"]
        fmt = lambda x: "-" if x is None else f"{x:,.1f}"
        out.append(f"| {'QA: NQ open dev questions' if r['kind'] == 'qa' else 'truecase: one dev sentence'} | "
                   f"{r['connections']} | {r['bound']} | {r['answered_per_s']:.1f} | {fmt(r['answered_p50'])} | "
                   f"{fmt(r['answered_p99'])} | {st.get(503, 0):,} | {st.get(504, 0):,} | {other:,} | "
                   f"{r['healthz_p99']:.1f} | {r['readyz_p99']:.1f} | {fmt(r['refused_client_p99'])} |")
    return out
