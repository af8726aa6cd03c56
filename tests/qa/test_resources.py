"""Resource analysis for QA (Lita, Hunt & Nyberg 2004): WordNet and gazetteers as answer sources,
on real TREC questions and their NIST patterns."""
import json

import pytest

from textqa.cli import main
from textqa.models.qa import resources as R
from textqa.runtime.paths import english_stopwords

STOP = english_stopwords()


def test_question_terms_are_wordnet_lemmas_longest_first():
    terms = R.question_terms("Where is the Taj Mahal?", stopwords=STOP)
    assert terms[0] == "taj_mahal" and "where" not in terms and "the" not in terms
    assert "statue_of_liberty" in R.question_terms("Where is the Statue of Liberty?", stopwords=STOP)
    assert R.question_terms("When did the submarine sink?", "Russian submarine Kursk sinks", stopwords=STOP)[-1]


def test_wordnet_answers_real_trec_questions_by_relation():
    q = R.Question("90", "Who is the founder of Scientology?", ["Hubbard"], 1999)   # TREC 8, NIST pattern
    found = R.wordnet_found(q, stopwords=STOP)
    assert "Hubbard" in found["gloss"] and found["syns"] is None
    q = R.Question("67", "What is the longest river in the United States?", ["Mississippi"], 1999)
    assert R.wordnet_found(q, stopwords=STOP)["hyper"] == "Mississippi"              # a hyponym of river
    # a pattern the question itself matches is no evidence (synthetic question)
    q = R.Question("x", "Is Mississippi the longest river?", ["Mississippi"])
    assert R.wordnet_found(q, stopwords=STOP) == {"gloss": None, "syns": None, "hyper": None}


@pytest.mark.parametrize("question, target, answer", [
    ("What is the capital of Uruguay?", None, "Montevideo"),                         # TREC 8 q132
    ("What country is Berlin in?", None, "Germany"),                                 # TREC 2002 q1496
    ("Where is South Bend?", None, "Indiana"),                                        # a US city: its state
    ("What continent is Bolivia on?", None, "South America"),
    ("What is the currency used in China?", None, "Yuan Renminbi"),
    ("In what country is it located?", "Luxor", "Egypt"),                            # the series target
])
def test_gazetteer_extractor(question, target, answer):
    got = R.gazetteer_answer(R.Question("q", question, [], target=target), R.gazetteer())
    assert got is not None and answer in got


@pytest.mark.parametrize("question", [
    "Where is Georgetown University?",             # a place name inside a longer name is not the place
    "How many people died when the Estonia sank in 1994?",   # no gazetteer question form
    "Who was the first Taiwanese President?",
])
def test_gazetteer_extractor_abstains(question):
    assert R.gazetteer_answer(R.Question("q", question, []), R.gazetteer()) is None


def test_tables_count_what_the_questions_found():
    qs = [R.Question("1", "a", ["x"], 1999), R.Question("2", "b", ["y"], 1999), R.Question("3", "c", ["z"], 2000)]
    qs[0].found = {"wn_gloss": "x", "wn_hyper": "x", "gaz_countries": ("x", True), "gaz_all": ("x", True)}
    qs[1].found = {"wn_syns": "y", "gaz_countries": ("w", False), "gaz_all": ("w", False)}
    qs[2].found = {}
    wn = {r["group"]: r for r in R.wordnet_table(qs)}
    assert wn[1999] == {"group": 1999, "questions": 2, "all": 2, "gloss": 1, "syns": 1, "hyper": 1}
    assert wn[2000]["all"] == 0
    gaz = {r["group"]: r for r in R.gazetteer_table(qs)}
    assert gaz[1999]["countries_R"] == 1 and gaz[1999]["countries_P"] == 0.5 and gaz[2000]["all_P"] is None
    qs[0].answer_type, qs[1].answer_type, qs[2].answer_type = "LOC", "LOC", "NUM"
    assert R.by_type_table(qs)[0] == {"type": "LOC", "questions": 2, "wordnet": 2, "gazetteers": 1}


def test_resources_command_with_the_answer_types(qa_artifact, capsys):
    assert main(["qa", "resources", "--model", str(qa_artifact / "qa"), "--sets", "trec8", "--limit", "60",
                 "--json", "--details", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    (row,) = out["wordnet"]
    assert row["group"] == 1999 and row["questions"] == 60 and 0 < row["all"] <= 60
    assert row["all"] <= row["gloss"] + row["syns"] + row["hyper"]
    assert sum(r["questions"] for r in out["by_type"]) == 60
    assert {r["type"] for r in out["by_type"]} <= {"ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM"}
    assert out["paper"]["wordnet"]["1999"] == [200, 32, 22, 7, 13]
    assert len(out["questions"]) == 60
    assert main(["qa", "resources", "--sets", "trec2002", "--limit", "20", "--no-types", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "paper:  500  112" in text and "By answer type" not in text


@pytest.mark.parametrize("limit", ["0", "-3", "x"])
def test_resources_command_refuses_a_bad_limit(limit, capsys):
    with pytest.raises(SystemExit) as e:
        main(["qa", "resources", "--no-types", "--sets", "trec8", "--limit", limit])
    assert e.value.code == 2 and "--limit" in capsys.readouterr().err
