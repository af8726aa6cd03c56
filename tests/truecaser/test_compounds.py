"""Part-by-part casing of unseen compounds (textqa.models.truecaser.compounds) and its place in decoding."""
import gzip
import json
import shutil

import pytest

from textqa.models.truecaser.casing import capitalize_first
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
    # mostly a capitalised compound rendered part by part; the rest are the search's own choices, as
    # the capitalised candidate is scored by the OOV model's UC-or-MC evidence (next test)
    rendered = [(a, b) for a, b in changed if b == capitalize_first(b.lower()) and a == compound_form(a.lower(), model.compound_parts_)]
    assert len(rendered) >= 100 and len(rendered) >= 0.5 * len(changed)
    assert all(a.lower() == b.lower() for a, b in changed)
    assert score_truecase(gold, on).f1 > score_truecase(gold, off).f1 + 1.0
    monkeypatch.setattr(model, "search", "python")          # the Python search: same output
    assert model.predict(lower) == on


def test_an_unseen_compounds_capital_is_scored_as_uc_or_mc(truecaser_copy, dev_sentences):
    """The capitalised candidate of an unseen compound with a part-by-part form is that form, with the
    LM's UNKNOWN_UC token and the OOV model's evidence for UC or MC together; the paper's decoder
    (``compound_casing=False``) keeps the UC candidate and UC's evidence alone."""
    from textqa.models.truecaser.oov import CAPITALISED
    model = truecaser_copy
    words = sorted({t.lower() for s in _unseen_compound_lines(model, dev_sentences) for t in s.split()[1:]
                    if t.lower() not in model.casing_.forms and t.lower() not in model.rare_mc_
                    and compound_form(t.lower(), model.compound_parts_) is not None})
    assert len(words) >= 50
    for w in words[:50]:
        lc, cap, ca = model.candidates(w)
        assert lc == (w, "UNKNOWN_LC", "LC") and ca == (w.upper(), "UNKNOWN_CA", "CA")
        assert cap == (compound_form(w, model.compound_parts_), "UNKNOWN_UC", CAPITALISED)
    model.set_params(compound_casing=False)
    assert model.candidates(words[0])[1] == (capitalize_first(words[0]), "UNKNOWN_UC", "UC")
    model.set_params(compound_casing=True)


def test_the_capital_evidence_is_the_union_of_uc_and_mc(truecaser_copy):
    """log10_ratio's UC|MC entry is log10 of (P(UC|chars) + P(MC|chars)) / (P(UC) + P(MC)), between
    the two classes' own ratios, exactly when both are known."""
    import numpy as np

    from textqa.models.truecaser.oov import CAPITALISED
    oov = truecaser_copy.oov_
    words = ["alpes-maritimes", "saint-julien-de-mailloc", "drug-sales", "o'brien", "ohio-based"]
    P = oov.predict_proba(words)
    idx = list(oov.classes_)
    for w, row, ratios in zip(words, P, oov.log10_ratio(words)):
        pr = oov.prior_
        expect = np.log10(row[idx.index("UC")] + row[idx.index("MC")]) - np.log10(pr["UC"] + pr["MC"])
        assert ratios[CAPITALISED] == pytest.approx(expect, abs=1e-9), w
        assert min(ratios["UC"], ratios["MC"]) - 1e-9 <= ratios[CAPITALISED] <= max(ratios["UC"], ratios["MC"]) + 1e-9


def test_an_artifact_without_the_part_table_renders_compounds_as_before(truecaser_artifact, tmp_path, dev_sentences):
    """A format-3 artifact (no part table) decodes as it always did; a damaged table is refused."""
    from textqa.models.artifact import ArtifactError, sha256_file
    from textqa.models.truecaser.store import load_truecaser
    dest = tmp_path / "tc"
    shutil.copytree(truecaser_artifact / "truecaser", dest)
    current = load_truecaser(dest)
    lower = [s.lower() for s in _unseen_compound_lines(current, dev_sentences)[:100]]
    current.set_params(compound_casing=False)
    plain = current.predict(lower)

    def rewrite(change):
        table = dest / "casing.json.gz"
        casing = json.loads(gzip.decompress(table.read_bytes()))
        change(casing)
        table.write_bytes(gzip.compress(json.dumps(casing).encode("utf-8")))
        manifest = json.loads((dest / "manifest.json").read_text(encoding="utf-8"))
        manifest["files"]["casing.json.gz"]["sha256"] = sha256_file(table)
        manifest["files"]["casing.json.gz"]["bytes"] = table.stat().st_size
        (dest / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")

    rewrite(lambda c: c.pop("compound_parts"))
    old = load_truecaser(dest)
    assert old.compound_parts_ is None and old.compound_casing
    assert old.predict(lower) == plain
    rewrite(lambda c: c.update(compound_parts={"des": [1, "x"]}))
    with pytest.raises(ArtifactError, match="casing.json"):
        load_truecaser(dest)


def test_a_chosen_capital_of_an_unseen_compound_with_a_rare_spelling_is_cased_part_by_part(truecaser_copy):
    """An unseen compound that also has a rare mixed-case spelling keeps the paper's capitalised
    candidate ("Alpes-maritimes") beside that spelling; when the search picks it, the compound casing
    renders it part by part ("Alpes-Maritimes") in both searches, and ``compound_casing=False``
    keeps the paper's form.  An emission scorer (the experiments' subclass) makes the search pick it."""
    from textqa.models.truecaser.experiments import ExperimentalTruecaser
    model = ExperimentalTruecaser.of(truecaser_copy)
    parts = model.compound_parts_
    key = next(w for w in (f"{a}-{b}" for a in sorted(parts)[:300] for b in sorted(parts)[300:600])
               if w not in model.casing_.forms and compound_form(w, parts) not in (None, capitalize_first(w))
               and len(compound_form(w, parts)) == len(w))
    model.rare_mc_[key] = key[:-1] + key[-1].upper()            # a rare spelling: the MC candidate
    forms = model.candidate_forms(key)
    assert forms[1] == capitalize_first(key) and len(forms) == 4

    def pick_the_capital(low, sent_off):
        return {i: [0.0, 50.0, 0.0, 0.0] for i, w in enumerate(low) if w == key}
    model.add_emission_scorer(pick_the_capital)
    sentence = [f"the {key} area ."]
    for search in ("native", "python"):
        model.search = search
        model.set_params(compound_casing=True)
        assert model.predict(sentence)[0].split()[1] == compound_form(key, parts), search
        model.set_params(compound_casing=False)
        assert model.predict(sentence)[0].split()[1] == capitalize_first(key), search
