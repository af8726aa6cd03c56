"""Nuggeteer judgement on the real TREC 2005 key of figure 1 (Enrico Fermi, question 87.8).

The responses below are synthetic (written for this test); the nuggets are NIST's.
"""
import pytest

from textqa.evaluation.nugget import read_answer_key
from textqa.evaluation.nuggeteer import NuggetJudge, assign_nuggets, idf_table, normalize_response
from textqa.runtime.paths import DATA_DIR

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
    # the stop words (scikit-learn's English list, which has "first") go before the n-grams are
    # formed: none of "and", "the", "first", "in" is left, and "built reactor" becomes a bigram
    plain = NuggetJudge(judge.nuggets, remove_stopwords=True)
    assert plain.words("Fermi designed and built the first reactor in Chicago") == \
        ["fermi", "designed", "built", "reactor", "chicago"]
    assert judge.words("built the first") == ["built", "the", "first"]
    assert ("built", "reactor") in plain.ngrams("built the first reactor")
    assert ("built", "reactor") not in judge.ngrams("built the first reactor")
    raw = NuggetJudge(judge.nuggets, idf=judge.idf, normalize=False)
    assert raw.recall(4, RESPONSES[0]) > 1.0
    per_nugget = {g: (1.01 if g == 4 else 0.5) for g in judge.nuggets}       # unreachable for nugget 4
    assert assign_nuggets(judge, RESPONSES, threshold=per_nugget)[4] == (None, None)


def test_judged_responses_extend_the_nugget_model(judge):
    text = "Fermi thought the weapon immoral"
    assert judge.recall(2, text) < 0.1
    extended = NuggetJudge(judge.nuggets, idf=judge.idf, judged_responses={2: ["he found the weapon immoral"]})
    assert extended.recall(2, text) > judge.recall(2, text)


FIXTURE = DATA_DIR.parent / "tests" / "fixtures" / "nuggets"     # synthetic, see its README


def test_score_runs_on_fixture():
    from textqa.evaluation.nugget import official_f
    from textqa.evaluation.nuggeteer import read_judgements, read_responses, score_runs
    key = read_answer_key(DATA_DIR / "eval" / "nugget" / "trec" / "trec14answers_other")
    key = {q: key[q] for q in ("87.8", "66.8")}
    out = score_runs(key, read_responses(FIXTURE / "responses.tsv"), read_judgements(FIXTURE / "judgements.tsv"),
                     n_resamples=200)["runs"]
    a = out["runA"]["questions"]["87.8"]
    assert a["nuggets"][4] == {"response": 0, "how": "guessed"}
    assert a["nuggets"][2] == {"response": 1, "how": "judged"}          # known judgement reused
    assert a["recall"] == pytest.approx(2 / 3)                            # 2 of 3 vital nuggets
    # "Norway provides rescue assistance ..." also matches "Britain provides rescue assistance."
    # at threshold 0.5: the kind of false positive n-gram matching makes
    assert out["runA"]["questions"]["66.8"]["nuggets"][2]["how"] == "guessed"
    b = out["runB"]["questions"]["87.8"]
    assert b["nuggets"][3]["how"] == "guessed" and b["f"] == 0.0       # an okay nugget gives no recall
    assert all(n["response"] != 0 for n in b["nuggets"].values())       # judged to hold none: never guessed
    lo, hi = out["runA"]["ci95"]
    assert lo <= out["runA"]["f"] <= hi
    fs = [q["f"] for q in out["runA"]["questions"].values()]
    assert out["runA"]["f"] == pytest.approx(sum(fs) / 2)
    text_len = sum(len("".join(t.split())) for t in [
        "Fermi designed and built the first nuclear reactor in Chicago in 1942.",
        "He called the atomic bomb an evil thing.", "He was awarded the Nobel Prize in 1938."])
    assert a["f"] == pytest.approx(official_f(2, 0, 3, text_len)["f"])


def test_score_runs_pyramid_and_missing_answers():
    from textqa.evaluation.nuggeteer import score_runs
    key = {"q": {"question": None, "nuggets": {
        1: {"vital": None, "weight": 1.0, "description": "Norway provides rescue assistance"},
        2: {"vital": None, "weight": 0.5, "description": "divers confirm flooding of the submarine"}}}}
    runs = {"r": {"q": ["Norway provides rescue assistance quickly"]}, "empty": {}}
    out = score_runs(key, runs, pyramid=True, n_resamples=50)["runs"]
    assert out["r"]["questions"]["q"]["recall"] == pytest.approx(1.0 / 1.5)
    assert out["empty"]["f"] == 0.0 and out["empty"]["questions"]["q"]["nuggets"][1]["response"] is None


def test_file_errors(tmp_path):
    from textqa.errors import InputError
    from textqa.evaluation.nuggeteer import read_judgements, read_responses
    p = tmp_path / "r.tsv"
    p.write_text("q\trun\tx\ttext\n")
    with pytest.raises(InputError, match=r"r.tsv:1: response number 'x'"):
        read_responses(p)
    p.write_text("q\t1,a\ttext\n")
    with pytest.raises(InputError, match=r"r.tsv:1: nugget numbers"):
        read_judgements(p)
