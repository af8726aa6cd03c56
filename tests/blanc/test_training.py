"""BLANC training on real judgments (COLING-16 DA, small and fast)."""
import argparse
import json

import numpy as np
import pytest

from models.blanc.store import load_blanc
from textqa.paths import DATA_DIR
from training.blanc import GRIDS, JudgedPairs, _Objective, _start, add_arguments, correlations, hill_climb, run

COLING = DATA_DIR / "mt" / "coling16_toen_da_seg.tsv.gz"


def _args(*argv):
    p = argparse.ArgumentParser()
    add_arguments(p)
    return p.parse_args(list(argv))


def test_trained_artifact_records_parameters_and_correlations(blanc_artifact):
    manifest = json.loads((blanc_artifact / "blanc" / "manifest.json").read_text())
    assert manifest["name"] == "blanc" and manifest["training_data_fingerprint"]
    train = manifest["metrics"]["train"]
    assert set(train) >= {"coling16:cs-en", "coling16:es-en", "average"}
    assert train["average"] > 0.25            # BLANC correlates with real human judgments
    metric = load_blanc(blanc_artifact / "blanc")
    assert metric.params.alpha in GRIDS["alpha"] and metric.params.beta in GRIDS["beta"]
    assert metric.signature().startswith("BLANC|")


def test_hill_climbing_never_decreases_and_beats_its_start():
    from models.blanc.metric import BLANCParams
    data = JudgedPairs([COLING], BLANCParams(size_weights=[1.0] * 3))
    objective = _Objective(data, 3, "max", "segment", "pearson")
    start = _start(1, np.random.default_rng(0), 3, True)
    state, value = hill_climb(objective, start, max_steps=6)
    assert value >= objective(start) - 1e-12
    assert value == pytest.approx(objective(state))
    # the same seed gives the same result
    assert hill_climb(objective, start, max_steps=6) == (state, value)


def test_system_level_correlations_are_computed_per_group():
    from models.blanc.metric import BLANCParams
    data = JudgedPairs([COLING], BLANCParams(size_weights=[1.0] * 2))
    stats = data.batch.stats(0.0, 0.2, 0.5, 2)
    seg = correlations(data, stats, (0.5, 0.5), 1.0, "segment")
    sysl = correlations(data, stats, (0.5, 0.5), 1.0, "system")
    assert set(seg) == set(sysl) and -1 <= sysl["average"] <= 1 and seg != sysl


def test_failed_training_leaves_the_previous_artifact_untouched(blanc_artifact, tmp_path):
    before = (blanc_artifact / "blanc" / "params.json").read_text()
    bad = tmp_path / "bad.tsv"
    bad.write_text("lang_pair\tseg_id\tsystem\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="bad.tsv:1: header lacks column"):
        run(_args("--train", str(bad), "--test", "--artifacts", str(blanc_artifact), "--restarts", "1"))
    assert (blanc_artifact / "blanc" / "params.json").read_text() == before
