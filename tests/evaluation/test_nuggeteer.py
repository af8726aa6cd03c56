"""Nuggeteer judgement on the real TREC 2005 key of figure 1 (Enrico Fermi, question 87.8).

The responses below are synthetic (written for this test); the nuggets are NIST's.
"""
import pytest

from evaluation.nugget import read_answer_key
from evaluation.nuggeteer import NuggetJudge, assign_nuggets, idf_table, normalize_response
from textqa.paths import DATA_DIR

RESPONSES = [
    "Fermi designed and built the first nuclear reactor in Chicago.",
    "He called the atomic bomb an evil thing after the war.",
    "The weather in Rome was sunny that year.",
]


@pytest.fixture(scope="module")
def judge():
    key = read_answer_key(DATA_DIR / "eval" / "nugget" / "trec" / "trec14answers_other")
    nuggets = {n: v["description"] for n, v in key["87.8"]["nuggets"].items()}
    assert nuggets[4] == "Designed and built the first nuclear reactor"          # figure 1, nugget 4
    return NuggetJudge(nuggets, idf=idf_table(RESPONSES + list(nuggets.values())))


def test_informativeness_eq2(judge):
    # "the" occurs in several nugget descriptions: less informative than "reactor" (one nugget)
    assert judge.informativeness_[("reactor",)] > judge.informativeness_[("the",)]
    n = len(judge.nuggets)
    assert judge.informativeness_[("reactor",)] == pytest.approx(1 - 1 / n)


def test_recall_eq3_ranks_the_right_nugget(judge):
    r = {g: judge.recall(g, RESPONSES[0]) for g in judge.nuggets}
    assert max(r, key=r.get) == 4 and r[4] > 0.5
    assert judge.recall(4, RESPONSES[2]) < 0.2
    assert judge.recall(4, "designed and built the first nuclear reactor") == pytest.approx(1.0)


def test_assignment_first_response_wins_and_known_judgements(judge):
    got = assign_nuggets(judge, RESPONSES + [RESPONSES[0]], threshold=0.5)
    assert got[4] == (0, "guessed") and got[2] == (1, "guessed")
    assert got[7] == (None, None)
    # a person judged response 0 to contain nothing: never guessed, the copy at index 3 neither
    known = {normalize_response(RESPONSES[0]): set()}
    got = assign_nuggets(judge, RESPONSES + ["  FERMI designed and built the first nuclear reactor in chicago. "],
                         threshold=0.5, known=known)
    assert got[4] == (None, None)
    known = {normalize_response(RESPONSES[2]): {5}}
    assert assign_nuggets(judge, RESPONSES, threshold=0.5, known=known)[5] == (2, "judged")


def test_options(judge):
    stemmed = NuggetJudge(judge.nuggets, stem=True, remove_stopwords=True)
    assert stemmed.recall(4, "designing and building the first nuclear reactors") > \
        judge.recall(4, "designing and building the first nuclear reactors")
    raw = NuggetJudge(judge.nuggets, idf=judge.idf, normalize=False)
    assert raw.recall(4, RESPONSES[0]) > 1.0
    per_nugget = {g: (1.01 if g == 4 else 0.5) for g in judge.nuggets}       # unreachable for nugget 4
    assert assign_nuggets(judge, RESPONSES, threshold=per_nugget)[4] == (None, None)


def test_judged_responses_extend_the_nugget_model(judge):
    text = "Fermi thought the weapon immoral"
    assert judge.recall(2, text) < 0.1
    extended = NuggetJudge(judge.nuggets, idf=judge.idf, judged_responses={2: ["he found the weapon immoral"]})
    assert extended.recall(2, text) > judge.recall(2, text)
