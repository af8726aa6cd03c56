"""Definition and "who was" questions: the article whose title names the subject answers, with its
description or what its first sentence says the subject is (real text: the bundled vital articles and
the first articles of the bundled Wikipedia dump)."""
import json

import pytest

from textqa.models.qa.definitions import definition_answers, subject_of, title_weight, what_it_is
from textqa.models.qa.passages import build_collection, load_collection
from textqa.runtime.paths import VITAL_ARTICLES


def test_how_a_title_names_a_subject():
    assert title_weight("Galileo", "galileo") == 1.0                          # the subject itself
    assert title_weight("Galileo", "Galileo Galilei") == 0.8                  # a fuller name
    assert title_weight("Galileo", "Galileo (satellite navigation)") == 0.3   # disambiguated: weighed down
    assert title_weight("Galileo", "Galilei") == 0.0 and title_weight("Galileo", "Galileos") == 0.0
    assert subject_of("Who was Galileo?", "HUM:desc") == "Galileo"
    assert subject_of("What is a barometer?", "DESC:def") == "barometer"
    assert subject_of("What is the capital of France?", "LOC:city") is None   # not a definition question
    assert subject_of("Who directed Actrius?", "HUM:desc") is None


def test_what_a_first_sentence_says_the_subject_is():
    sentence, a, b = what_it_is("Ventura Pons is a Spanish film director. He was born in Barcelona.")
    assert sentence == "Ventura Pons is a Spanish film director." and sentence[a:b] == "a Spanish film director"


@pytest.fixture(scope="module")
def encyclopedia(tmp_path_factory):
    """The vital articles and three same-named pages of other subjects (a user's JSONL: a test fixture,
    the 2015 dump's own page for the satellite system holds the same first words)."""
    folder = tmp_path_factory.mktemp("defs")
    other = folder / "other.jsonl"
    other.write_text("\n".join(json.dumps(d) for d in [
        {"id": "g1", "title": "Galileo (satellite navigation)", "text": "Galileo is the global navigation "
         "satellite system that went live in 2016, created by the European Union through the European Space "
         "Agency."},
        {"id": "g2", "title": "Galileo Affair", "text": "The Galileo affair was a sequence of events, beginning "
         "around 1610, culminating with the trial and condemnation of Galileo Galilei."}]) + "\n", encoding="utf-8")
    build_collection(folder / "vital", "vital", [VITAL_ARTICLES])
    build_collection(folder / "other", "other", [other])
    return load_collection(folder / "vital"), load_collection(folder / "other")


def test_who_was_galileo_is_answered_from_galileo_galilei(encyclopedia):
    vital, other = encyclopedia
    got = definition_answers("Who was Galileo?", "HUM:desc", [other, vital])
    assert got[0]["document"]["title"] == "Galileo Galilei" and got[0]["document"]["collection"] == "vital"
    assert got[0]["answer"] == "Italian physicist and astronomer (1564\u20131642)"
    assert got[0]["document"]["url"] == "https://en.wikipedia.org/wiki/Galileo_Galilei"
    titles = [a["document"]["title"] for a in got]
    assert titles.index("Galileo (satellite navigation)") > titles.index("Galileo Affair") > 0
    sat = got[titles.index("Galileo (satellite navigation)")]
    assert sat["score"] == 0.3 and sat["sentence"][sat["start"]:sat["end"]] == sat["answer"]
    assert sat["answer"].startswith("the global navigation satellite system")
    assert definition_answers("Who was Marie Curie?", "HUM:desc", [vital])[0]["answer"].endswith("chemist (1867\u20131934)")
    assert definition_answers("Who was Galileo?", "HUM:ind", [vital]) == []        # not asked as a definition
