"""Contract tests: schemathesis (all its checks) against a live ``textqa serve``, run exactly as a user
would run it from the command line, bounded in examples and time; zero failures required.

The served ``/openapi.json`` is generated from the same pydantic classes that validate the requests
(``textqa/service/schemas.py``), so this fuzzes the declaration against the code: schema-valid
requests must be accepted (positive_data_acceptance), schema-invalid ones rejected with 4xx
(negative_data_rejection), responses must match their declared schemas, status codes and headers
(X-Request-ID), undeclared methods must answer 405 with Allow, and nothing may answer 5xx.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import requests

SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
CONFIG = Path(__file__).resolve().parents[2] / "schemathesis.toml"     # the repository's settings
MAX_EXAMPLES = int(os.environ.get("TEXTQA_CONTRACT_EXAMPLES", "25"))   # per operation and phase
MAX_TIME = int(os.environ.get("TEXTQA_CONTRACT_SECONDS", "50"))         # for the whole run (make test < 15 min)


def test_schemathesis_all_checks_zero_failures(service_artifacts, live_server, tmp_path):
    assert SCHEMATHESIS.exists(), f"{SCHEMATHESIS} missing: make installs the dev extra (schemathesis)"
    with live_server(service_artifacts, "--workers", "2") as server:
        server.wait_ready()
        doc = requests.get(server.base + "/openapi.json", timeout=10).json()
        assert {"/v1/truecase", "/v1/blanc/score", "/v1/icd9/code", "/v1/qa/answer"} <= set(doc["paths"])
        report = tmp_path / "report"
        cmd = [str(SCHEMATHESIS), "--config-file", str(CONFIG), "run", server.base + "/openapi.json", "--checks", "all",
               "--max-examples", str(MAX_EXAMPLES), "--max-time", str(MAX_TIME), "--workers", "2",
               "--phases", "examples,coverage,fuzzing", "--seed", "20261123", "--no-color",
               "--generation-database", "none", "--output-truncate", "true",
               "--report", "junit", "--report-dir", str(report)]
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=MAX_TIME + 120, cwd=tmp_path,
                             env={**os.environ, "SCHEMATHESIS_HOOKS": "", "NO_COLOR": "1"})
        out = run.stdout + run.stderr
        assert run.returncode == 0, f"schemathesis found failures:\n{out[-8000:]}"
        # it really ran: every API operation was exercised with many requests
        junit = next(report.glob("*.xml")).read_text()
        for path in ("/v1/truecase", "/v1/blanc/score", "/v1/icd9/code", "/v1/qa/answer"):
            assert path in junit, f"{path} not tested:\n{out[-3000:]}"
        assert "No issues found" in out or "0 failures" in out or "passed" in out.lower(), out[-3000:]
        log = server.text()
        assert "Traceback" not in log and "unhandled error" not in log, log[-5000:]
        statuses = [json.loads(l)["status"] for l in log.splitlines() if l.startswith("{\"time\"")]
        assert len(statuses) > 200 and 200 in statuses and 422 in statuses and 500 not in statuses


def test_non_empty_pattern_means_the_same_to_every_regex_engine():
    """The request classes say "has a non-space character" with one pattern; pydantic (Python re),
    schemathesis (Python re with re.ASCII), jsonschema-rs (Rust) and ECMA-262 readers must agree on
    it for every code point, and it must agree with str.isspace (what the models strip)."""
    import re

    import jsonschema_rs

    from textqa.service.schemas import NON_EMPTY

    rust = jsonschema_rs.validator_for({"type": "string", "pattern": NON_EMPTY})
    py, ascii_ = re.compile(NON_EMPTY), re.compile(NON_EMPTY, re.ASCII)
    space = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000 and (chr(c).isspace() or c == 0xFEFF)]
    for c in space + [0x41, 0x200B, 0x0301, 0x1F600, 0x10FFFF]:
        t = chr(c)
        expected = c not in space
        assert bool(py.search(t)) == bool(ascii_.search(t)) == rust.is_valid(t) == expected, hex(c)
    assert len(space) > 25
