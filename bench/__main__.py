"""``python -m bench --status`` (``make bench-status``): which sections of ``bench/RESULTS.md`` were
measured on code that has changed since (by content: a file moved unchanged is not stale), with the
commit, the date and how long each section's benchmark took, so that only the stale ones are rerun."""
import argparse
import sys

from bench.report import ROOT, sections, stale

COMMANDS = {"truecaser": "python -m bench.truecaser", "truecase-mt": "python -m bench.truecase_mt",
            "blanc": "python -m bench.blanc", "icd9": "python -m bench.icd9", "qa": "python -m bench.qa",
            "qa-open": "python -m bench.qa_open --dev-model DIR",
            "service": "python -m bench.service", "service-overload": "python -m bench.service --overload", "batch": "python -m bench.batch", "batch-worker": "python -m bench.batch_worker", "lm_scale": "python -m bench.lm_scale",
            "rouge": "python -m bench.rouge", "metrics": "python -m bench.metrics", "wheel": "python -m bench.wheel", "first-answer": "python -m bench.first_answer"}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    p.add_argument("--status", action="store_true", help="list each section and whether it is stale")
    args = p.parse_args(argv)
    if not args.status:
        p.print_help()
        return 0
    n_stale = 0
    for name, record in sections(ROOT / "bench" / "RESULTS.md").items():
        changed = stale(record)
        n_stale += bool(changed)
        when = f"{record['commit']}, {record['date']}, took {record['seconds'] / 60:.0f} min" if record else "no record"
        state = "STALE" if changed else "current"
        print(f"{state:8s} {name:13s} ({when})  rerun: {COMMANDS.get(name, '?')}")
        for path in changed[:5]:
            print(f"         changed since: {path}")
        if len(changed) > 5:
            print(f"         ... and {len(changed) - 5} more")
    print(f"{n_stale} stale section(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
