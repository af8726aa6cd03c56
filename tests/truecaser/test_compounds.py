"""Part-by-part casing of unseen compounds (textqa.models.truecaser.compounds) and its place in decoding."""
import json
import shutil

import pytest

from textqa.models.truecaser.compounds import compound_form, count_parts

# Cased forms with made-up counts (a synthetic fixture for these tests, not real data).
SYNTHETIC_COUNTS = {
    "Saint-Laurent-des-Combes": 2,
    "Pays-de-la-Loire": 3,
    "Ohio-based": 5,
    "Self-made": 1,
    "Anglo-Saxon": 4,
    "non-profit": 9,          # starts lowercase: not a capitalised compound, not counted
    "O'Brien": 2,
    "R&B": 3,
    "Hong-2": 1,              # a part without letters is left out
    "Paris": 7,               # no separator
}


def test_parts_are_counted_inside_capitalised_compounds_only():
    parts = count_parts(SYNTHETIC_COUNTS)
    assert parts["laurent"] == [2, 0] and parts["combes"] == [2, 0] and parts["des"] == [0, 2]
    assert parts["de"] == [0, 3] and parts["la"] == [0, 3] and parts["loire"] == [3, 0]
    assert parts["based"] == [0, 5] and parts["made"] == [0, 1] and parts["saxon"] == [4, 0]
    assert parts["brien"] == [2, 0] and parts["b"] == [3, 0]
    assert "profit" not in parts and "2" not in parts and "saint" not in parts     # first parts are not counted


def test_a_compound_is_cased_part_by_part():
    parts = count_parts(SYNTHETIC_COUNTS)
    assert compound_form("saint-laurent-des-combes", parts) == "Saint-Laurent-des-Combes"
    assert compound_form("noroy-sur-ourcq", parts) == "Noroy-Sur-Ourcq"          # unseen parts: capitalised
    assert compound_form("noroy-sur-ourcq", {**parts, "sur": [1, 4]}) == "Noroy-sur-Ourcq"
    assert compound_form("o'brien", parts) == "O'Brien" and compound_form("r&b", parts) == "R&B"
    assert compound_form("texas-based", parts) is None         # same as first-letter capitalisation
    assert compound_form("paris", parts) is None               # not a compound
    assert compound_form("x-la", {"la": [2, 2]}) is None       # a tie stays lowercase
    assert compound_form("x-la", {"la": [3, 2]}) == "X-La"


def _unseen_compound_lines(model, dev_sentences):
    """Dev sentences (real) with an unseen capitalised compound in them."""
    from textqa.models.truecaser.compounds import SEPARATORS
    keep = []
    for s in dev_sentences:
        toks = s.split()
        if any(SEPARATORS.search(t) and t[:1].isupper() and t.lower() not in model.casing_.forms for t in toks[1:]):
            keep.append(s)
    return keep


def test_unseen_compounds_are_cased_part_by_part_and_the_searches_agree(truecaser_copy, dev_sentences, monkeypatch):
    from textqa.evaluation.truecase import score_truecase
    model = truecaser_copy
    gold = _unseen_compound_lines(model, dev_sentences)[:400]
    assert len(gold) >= 200
    lower = [s.lower() for s in gold]
    on = model.predict(lower)
    model.set_params(compound_casing=False)
    off = model.predict(lower)
    model.set_params(compound_casing=True)
    changed = [(a, b) for x, y in zip(on, off) for a, b in zip(x.split(), y.split()) if a != b]
    assert len(changed) >= 50
    assert all(a.lower() == b.lower() and b[0].isupper() and b[1:] == b[1:].lower() for a, b in changed)
    assert score_truecase(gold, on).f1 > score_truecase(gold, off).f1 + 1.0
    monkeypatch.setattr(model, "_native", False)            # the Python search: same output
    assert model.predict(lower) == on


def test_an_artifact_without_the_part_table_renders_compounds_as_before(truecaser_artifact, tmp_path, dev_sentences):
    """A format-3 artifact (no part table) decodes as it always did; a damaged table is refused."""
    from textqa.models.artifact import ArtifactError, sha256_file
    from textqa.models.truecaser.model import load_truecaser
    dest = tmp_path / "tc"
    shutil.copytree(truecaser_artifact / "truecaser", dest)
    current = load_truecaser(dest)
    lower = [s.lower() for s in _unseen_compound_lines(current, dev_sentences)[:100]]
    current.set_params(compound_casing=False)
    plain = current.predict(lower)

    def rewrite(change):
        casing = json.loads((dest / "casing.json").read_text(encoding="utf-8"))
        change(casing)
        (dest / "casing.json").write_text(json.dumps(casing), encoding="utf-8")
        manifest = json.loads((dest / "manifest.json").read_text(encoding="utf-8"))
        manifest["files"]["casing.json"]["sha256"] = sha256_file(dest / "casing.json")
        manifest["files"]["casing.json"]["bytes"] = (dest / "casing.json").stat().st_size
        (dest / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")

    rewrite(lambda c: c.pop("compound_parts"))
    old = load_truecaser(dest)
    assert old.compound_parts_ is None and old.compound_casing
    assert old.predict(lower) == plain
    rewrite(lambda c: c.update(compound_parts={"des": [1, "x"]}))
    with pytest.raises(ArtifactError, match="casing.json"):
        load_truecaser(dest)
