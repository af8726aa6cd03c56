"""The instance-based QA system end to end: training artifact, textqa qa answer/select, POST /v1/qa/answer."""
import io
import json
import sys

import pytest

from textqa.service import create_app
from textqa.cli import main
from textqa.runtime.paths import DATA_DIR

DEV = DATA_DIR / "qa" / "trecqa" / "dev-less-than-40.manual-edit.xml.gz"


def _stdin(monkeypatch, data: bytes):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_artifact_records_the_evaluations(qa_artifact):
    manifest = json.loads((qa_artifact / "qa" / "manifest.json").read_text())
    m = manifest["metrics"]
    e = m["exact_answers"]
    assert e["questions"] == 82 and e["training_questions"] == 300 and e["clusters"] > 10
    assert e["mrr5"] > 0.1                     # a small model on a small collection still finds answers
    assert m["selection"]["dev_clean"]["questions"] == 65
    cv = m["answer_type_cv"]                   # --folds 2: UIUC answer-type cross-validation
    assert cv["folds"] == 2 and cv["questions"] == 5436 and 0.8 < cv["coarse_accuracy"] <= 1
    assert cv["fine_accuracy"] < cv["coarse_accuracy"]
    assert manifest["hyper_parameters"]["query_content"] is False
    assert manifest["hyper_parameters"]["extraction_C"] == 0.03            # --extraction-c's default


def test_heldout_report_is_reproduced_by_the_saved_model(qa_artifact, qa_heldout, capsys, monkeypatch):
    """--eval-questions: answer the held-out questions with the saved artifact through the CLI and judge
    the answers here with Python's re (case-insensitive search, NIST patterns): the same MRR@5."""
    import re
    held = [json.loads(l) for l in qa_heldout.read_text(encoding="utf-8").splitlines()]
    report = json.loads((qa_artifact / "qa" / "manifest.json").read_text())["metrics"]["exact_answers_heldout"]
    assert report["questions"] == len(held) == 40 and report["files"] == [str(qa_heldout)]
    lines = "".join(json.dumps({"id": q["qid"], "question": q["question"]}) + "\n" for q in held)
    _stdin(monkeypatch, lines.encode())
    assert main(["qa", "answer", "--model", str(qa_artifact / "qa"), "--top-k", "5"]) == 0
    out = [json.loads(l) for l in capsys.readouterr().out.splitlines()]
    assert [o["id"] for o in out] == [q["qid"] for q in held]
    rr = []
    for q, o in zip(held, out):
        hits = [i for i, a in enumerate(o["answers"][:5])
                if any(re.search(p, a["answer"], flags=re.IGNORECASE) for p in q["patterns"])]
        rr.append(1 / (hits[0] + 1) if hits else 0.0)
    assert report["mrr5"] == pytest.approx(sum(rr) / len(rr), abs=1e-12)
    assert report["acc1"] == pytest.approx(sum(r == 1.0 for r in rr) / len(rr), abs=1e-12)
    assert sum(rr) > 0                          # some held-out question is answered correctly


def test_answer_plain_and_jsonl(qa_artifact, tmp_path, capsys, monkeypatch):
    model = str(qa_artifact / "qa")
    _stdin(monkeypatch, b'Who is the author of the book The Iron Lady?\n{"id": "b", "question": "When did X die?"}\n')
    assert main(["qa", "answer", "--model", model, "--top-k", "3"]) == 0
    out = [json.loads(l) for l in capsys.readouterr().out.splitlines()]
    assert [o["id"] for o in out] == ["1", "b"]
    first = out[0]
    assert 1 <= len(first["answers"]) <= 3 and first["uiuc_type"].startswith("HUM")
    # TrecQA TRAIN's Iron Lady question: the author is Hugo Young, in a sentence about the book
    assert first["answers"][0]["answer"].endswith("Young") and "iron lady" in first["answers"][0]["sentence"].lower()
    top = first["answers"][0]
    assert set(top) == {"answer", "score", "sentence", "start", "end", "document", "clusters"}
    assert top["sentence"][top["start"]:top["end"]] == top["answer"] and top["document"]["id"].startswith("trecqa-pool/")
    assert " ," not in top["sentence"] and "-LRB-" not in top["sentence"]         # shown as written, not PTB tokens
    assert abs(sum(first["answer_type"].values()) - 1) < 1e-3 and "<global>" in first["clusters"]
    assert first["collection"] == "default"


@pytest.mark.parametrize("stdin, args, message", [
    (b"\n", [], "<stdin>:1: empty question"),
    (b"word " * 10000 + b"\n", [], "<stdin>:1: question of 10000 words"),
    (b'{"id": 1, "question": \n', [], "<stdin>:1: malformed JSON"),
    (b'{"id": 1}\n', [], "<stdin>:1: expected"),
    (b"Who?\n", ["--top-k", "0"], "--top-k must be between"),
])
def test_answer_bad_input(qa_artifact, capsys, monkeypatch, stdin, args, message):
    _stdin(monkeypatch, stdin)
    assert main(["qa", "answer", "--model", str(qa_artifact / "qa"), *args]) == 2
    assert message in capsys.readouterr().err


def test_answer_bad_model_path(qa_artifact, tmp_path, capsys, monkeypatch):
    _stdin(monkeypatch, b"Who?\n")
    assert main(["qa", "answer", "--model", str(tmp_path / "missing")]) == 2
    assert "not a model artifact" in capsys.readouterr().err


def test_select_writes_every_candidate(qa_artifact, capsys):
    """The saved selector scores DEV as training did: MAP and MRR of the CLI's scores equal the report's."""
    from textqa.models.qa.trecqa import read_trecqa
    from textqa.training.qa import ranking_scores
    assert main(["qa", "select", "--model", str(qa_artifact / "qa"), "--trecqa", str(DEV)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1148
    assert lines[0].split("\t")[:2] == ["1.4", "0"]
    scores: dict = {}
    for line in lines:
        qid, index, score = line.split("\t")
        scores.setdefault(qid, []).append((int(index), float(score)))
    dev = read_trecqa(DEV)
    assert [p.qid for p in dev if p.candidates] == list(scores)          # one line per candidate, file order
    per_pair = [[s for _, s in sorted(scores.get(p.qid, []))] for p in dev]
    assert all(len(s) == len(p.candidates) for s, p in zip(per_pair, dev))
    got = ranking_scores(dev, per_pair)
    report = json.loads((qa_artifact / "qa" / "manifest.json").read_text())["metrics"]["selection"]["dev_all"]
    assert got["map"] == pytest.approx(report["map"], abs=1e-9) and got["mrr"] == pytest.approx(report["mrr"], abs=1e-9)
    assert got["map"] > 0.6                     # well above a constant scorer with ties broken against it


@pytest.fixture(scope="module")
def client(qa_artifact):
    return create_app(qa_artifact, {"TESTING": True, "TEXTQA_MODELS": ["qa"]}).test_client()


def test_http_answer(client):
    r = client.post("/v1/qa/answer", json={"question": "Who is the author of the book The Iron Lady?", "top_k": 2})
    assert r.status_code == 200
    body = r.get_json()
    assert len(body["answers"]) == 2 and body["answer_type"] and body["clusters"] and body["model"]["name"] == "qa"
    assert body["answers"][0]["answer"].endswith("Young")          # Hugo Young wrote The Iron Lady


@pytest.mark.parametrize("body, field", [
    ({"question": ""}, "question"), ({"question": 5}, "question"), ({"question": "w " * 10000}, "question"),
    ({"question": "Who?", "top_k": 0}, "top_k"), ({"question": "Who?", "top_k": True}, "top_k"),
    ({"question": "Who?", "k": 3}, "k"),
])
def test_http_errors(client, body, field):
    r = client.post("/v1/qa/answer", json=body)
    assert r.status_code == 422 and r.get_json()["error"]["field"] == field


def test_answer_type_cli(qa_artifact, capsys, monkeypatch):
    questions = ["Who wrote Hamlet?", "When did Beethoven die?", "How many people live in Chile?",
                 "What does NASA stand for?", "Where is the Eiffel Tower?"]
    _stdin(monkeypatch, ("\n".join(questions) + "\n").encode())
    assert main(["qa", "answer-type", "--model", str(qa_artifact / "qa")]) == 0
    labels = capsys.readouterr().out.splitlines()
    assert [l.split(":")[0] for l in labels] == ["HUM", "NUM", "NUM", "ABBR", "LOC"]
    assert labels[:3] == ["HUM:ind", "NUM:date", "NUM:count"]


def test_training_with_query_content(tmp_path, capsys):
    """--query-content: the artifact says so, clusters carry learned expansions, and answering uses them."""
    import argparse

    from textqa.models.qa.store import load_qa
    from textqa.training.qa import add_arguments, run
    p = argparse.ArgumentParser()
    add_arguments(p)
    assert run(p.parse_args(["--folds", "0", "--collection-limit", "1500", "--max-questions", "60", "--query-content",
                             "--jobs", "1", "--wikipedia", "skip", "--artifacts", str(tmp_path)])) == 0
    model = load_qa(tmp_path / "qa")
    assert model.manifest["hyper_parameters"]["query_content"] is True and model.instance.query_content
    expansions = [f for m in model.instance.cluster_models_.values() for f in m.expansions]
    assert expansions and all(isinstance(f, str) and f for f in expansions)
    assert "exact answers" in capsys.readouterr().out


def test_training_with_no_processes_is_a_one_line_error_before_any_work(tmp_path):
    import argparse

    from textqa.training.qa import add_arguments, run
    p = argparse.ArgumentParser()
    add_arguments(p)
    with pytest.raises(SystemExit, match="^error: --jobs must be at least 1$"):
        run(p.parse_args(["--jobs", "0", "--artifacts", str(tmp_path)]))
    assert list(tmp_path.iterdir()) == []


def test_training_writes_mrr_plots_for_dev_and_held_out(qa_artifact, assert_plots):
    assert_plots(qa_artifact / "qa", ("mrr5_by_answer_type.png", "mrr5_by_cluster_size.png"))


def test_redundancy_term_is_saved_and_old_artifacts_keep_best_mention_only(qa_artifact):
    """The merging's redundancy weight travels with the artifact; an artifact written before it
    existed loads with 0 (its answers unchanged)."""
    from textqa.models.artifact import load_arrays
    from textqa.models.qa.store import _instance_from_data, load_qa
    from textqa.models.qa.system import InstanceQA
    loaded = load_qa(qa_artifact / "qa").instance
    assert loaded.redundancy == 0.05 and loaded.answer_k == 10 and loaded.retrieve_k == 20
    meta = json.loads((qa_artifact / "qa" / "instance.json").read_text())
    assert meta["params"]["redundancy"] == 0.05 and meta["params"]["answer_k"] == 10
    del meta["params"]["redundancy"], meta["params"]["answer_k"]
    old = _instance_from_data(meta, load_arrays(qa_artifact / "qa" / "instance.npz"))
    assert old.redundancy == 0.0 and old.answer_k is None
    with pytest.raises(ValueError, match="redundancy"):
        InstanceQA(redundancy=-1)
    with pytest.raises(ValueError, match="answer_k"):
        InstanceQA(answer_k=0)


def test_answers_mentioned_more_often_gain_from_redundancy(qa_artifact):
    """With the redundancy term no answer loses score and answers mentioned in several retrieved
    sentences gain (best mention only: redundancy 0)."""
    from textqa.models.qa.nlp import parse
    from textqa.models.qa.store import load_qa
    model = load_qa(qa_artifact / "qa")
    docs = parse(["When did the Berlin Wall fall?", "Who invented the telephone?", "What is the capital of Peru?"])
    uiuc = model.answer_types.distribution(docs)
    gained = 0
    for doc, u in zip(docs, uiuc):
        model.instance.redundancy = 0.05
        with_r = {a["answer"]: a["score"] for a in model.instance.answer(doc, model.index, 50, u)["answers"]}
        model.instance.redundancy = 0.0
        without = {a["answer"]: a["score"] for a in model.instance.answer(doc, model.index, 50, u)["answers"]}
        for ans in with_r.keys() & without.keys():
            assert with_r[ans] >= without[ans] - 1e-9
            gained += with_r[ans] > without[ans] + 1e-6
    assert gained > 0


def test_answers_come_from_the_answer_k_best_sentences(qa_artifact):
    """Training retrieves retrieve_k sentences per question; answering reads only the answer_k best."""
    from textqa.models.qa.nlp import parse
    from textqa.models.qa.store import load_qa
    from textqa.models.qa.system import keywords
    model = load_qa(qa_artifact / "qa")
    doc = parse(["When did the Berlin Wall fall?"])[0]
    uiuc = model.answer_types.distribution([doc])[0]
    model.instance.answer_k = 2
    top = {" ".join(s.tokens) for s in model.instance.retrieve(model.index, keywords(doc), doc, 2)}
    answers = model.instance.answer(doc, model.index, 50, uiuc)["answers"]
    assert answers and {a["sentence"] for a in answers} <= top
    model.instance.answer_k = None                       # all retrieve_k sentences: more answers
    assert len(model.instance.answer(doc, model.index, 50, uiuc)["answers"]) > len(answers)


def test_collection_sentences_reach_the_sentence_ranker_typed():
    """A collection sentence's typed candidates become B/I entity tags the ranker maps to UIUC classes;
    noun chunks carry none and an overlapping later span does not overwrite an earlier one."""
    from textqa.models.qa.candidates import Candidate
    from textqa.models.qa.selection import ner_coarse
    from textqa.models.qa.system import as_ranked_sentence
    tokens = ["Hugo", "Young", "wrote", "the", "book", "in", "1989", "."]
    cands = [Candidate("Hugo Young", 0, 2, "person"), Candidate("1989", 6, 7, "year"),
             Candidate("Young wrote", 1, 3, "organization"), Candidate("the book", 3, 5, "phrase")]
    s = as_ranked_sentence(tokens, cands)
    assert s.tokens == tokens and s.ner == ["PERSON-B", "PERSON-I", "-", "-", "-", "-", "DATE-B", "-"]
    assert [(a, b, ner_coarse(k)) for a, b, k in s.entities()] == [(0, 2, "HUM"), (6, 7, "NUM")]


def test_extraction_reads_the_sentence_ranker_and_the_fine_class(qa_artifact):
    """The saved model reads the sentence ranker's score of each candidate's sentence (two dense
    columns: its sigmoid, and 1 / (1 + rank)) and the question's UIUC fine class crossed with the
    candidate's type; QAModel passes the fine class it predicts."""
    import numpy as np

    from textqa.models.qa.nlp import parse
    from textqa.models.qa.store import load_qa
    from textqa.models.qa.system import N_DENSE, RANKER_COLUMNS, _Block, keywords, ranker_scores
    model = load_qa(qa_artifact / "qa")
    qa = model.instance
    assert qa.sentence_ranker and qa.fine_type and qa.selector is model.selector
    assert qa.global_.svm.coef_.shape[1] == N_DENSE + RANKER_COLUMNS + qa.n_hash
    doc = parse(["Who is the author of the book The Iron Lady?"])[0]
    u = model.answer_types.distribution([doc])[0]
    sents = qa.retrieve(model.index, keywords(doc), doc, 6)
    ranked = ranker_scores(qa.selector, [t.text for t in doc], sents, u)
    assert set(ranked) == {s.rowid for s in sents}
    assert sorted(r for _, r in ranked.values()) == sorted(1 / (1 + k) for k in range(len(sents)))
    best = max(sents, key=lambda s: ranked[s.rowid][0])
    assert ranked[best.rowid][1] == 1.0 and all(0 < p < 1 for p, _ in ranked.values())
    data = [(s, c) for s in sents for c in s.candidates]
    block = _Block(qa, set(keywords(doc)), data, u, None, ranked, "HUM:ind")
    assert np.array_equal(block.dense[:, -2:], np.array([ranked[s.rowid] for s, _ in data]))
    other = _Block(qa, set(keywords(doc)), data, u, None, ranked, "NUM:date")
    assert (block.hashed != other.hashed).nnz > 0                 # the fine class is a feature
    qa.fine_type = False
    assert (_Block(qa, set(keywords(doc)), data, u, None, ranked, "HUM:ind").hashed !=
            _Block(qa, set(keywords(doc)), data, u, None, ranked, "NUM:date").hashed).nnz == 0
    qa.fine_type = True
    seen = []
    answer = qa.answer
    qa.answer = lambda *a, **k: seen.append(a[4]) or answer(*a, **k)
    model.answer("Who wrote Hamlet?")
    assert seen == ["HUM:ind"]


def test_sentence_ranker_parameters_are_saved_and_old_artifacts_load_without(qa_artifact):
    from textqa.models.artifact import load_arrays
    from textqa.models.qa.store import _instance_from_data
    from textqa.models.qa.system import InstanceQA
    meta = json.loads((qa_artifact / "qa" / "instance.json").read_text())
    assert meta["params"]["sentence_ranker"] is True and meta["params"]["fine_type"] is True
    del meta["params"]["sentence_ranker"], meta["params"]["fine_type"]
    old = _instance_from_data(meta, load_arrays(qa_artifact / "qa" / "instance.npz"))
    assert old.sentence_ranker is False and old.fine_type is False and old.selector is None
    with pytest.raises(ValueError, match="sentence ranker"):
        InstanceQA().fit([], [], None)


def test_held_out_questions_meet_trecqa_questions_by_their_words():
    """TrecQA's tokenised question and TREC's raw text of it give the same key (the held-out filter
    of the sentence ranker's training pairs)."""
    from textqa.training.qa import question_key
    assert question_key("Who is the author of the book , `` The Iron Lady : A Biography '' ?") == \
        question_key('Who is the author of the book, "The Iron Lady: A Biography"?')
    assert question_key("When did Beethoven die?") != question_key("When did Mozart die?")


def test_candidates_that_restate_the_question_are_dropped(qa_artifact):
    """A candidate made of question words only (by Porter stem, split at hyphens) is no answer; one
    with a word of its own stays.  Training and answering both drop them unless drop_restated is off."""
    from textqa.models.qa.nlp import parse
    from textqa.models.qa.store import load_qa
    from textqa.models.qa.system import keywords, question_stems, restates_question
    doc = parse(["What ethnic group / race are Crip members ?"])[0]
    q = question_stems(doc)
    assert [restates_question(q, t) for t in ("Crips members", "the Crip", "Crip-members", "black",
                                              "Crip 's attitude", "the", "")] == [True, True, True, False,
                                                                                  False, False, False]
    model = load_qa(qa_artifact / "qa")
    qa = model.instance
    assert qa.drop_restated
    doc = parse(["What does AARP stand for?"])[0]
    sents = qa.retrieve(model.index, keywords(doc), doc, 20)
    kept = {c.text for _, c in qa.candidates(doc, sents)}
    every = {c.text for s in sents for c in s.candidates}
    assert "AARP" in every and "AARP" not in kept and kept < every
    assert all(not restates_question(question_stems(doc), a["answer"])
               for a in qa.answer(doc, model.index, 50)["answers"])
    qa.drop_restated = False
    assert {c.text for _, c in qa.candidates(doc, sents)} == every


def test_wordnet_checks_candidates_against_the_fine_class():
    """Kinds and instances of the class's synsets match, other nouns WordNet knows do not, and what it
    does not know (most names) or a class without synsets says nothing."""
    from textqa.models.qa.system import FINE_SYNSETS, _fine_synsets, fine_wordnet_match
    assert all(_fine_synsets(c) for c in FINE_SYNSETS)           # every name is a WordNet 3.0 synset
    assert fine_wordnet_match("ENTY:animal", "rodents") is True
    assert fine_wordnet_match("ENTY:animal", "the landscape painting") is False
    assert fine_wordnet_match("HUM:title", "the ruthless financier") is True      # its last word
    assert fine_wordnet_match("LOC:country", "France") is True
    assert fine_wordnet_match("LOC:city", "France") is False
    assert fine_wordnet_match("ENTY:color", "red") is True
    assert fine_wordnet_match("HUM:ind", "Quentaro Vilk") is None
    assert fine_wordnet_match("NUM:date", "1995") is None and fine_wordnet_match(None, "red") is None


def test_training_questions_are_typed_by_a_classifier_that_never_saw_them(monkeypatch):
    """Most TREC 8-9 questions are UIUC training questions: the classifier that types the extraction
    model's training questions is fitted without them (matched by their words), on every other one."""
    from textqa.models.qa.answer_type import AnswerTypeClassifier, read_uiuc
    from textqa.training.qa import UIUC, unseen_answer_types
    uiuc = read_uiuc(UIUC)[:300]
    fitted = {}
    monkeypatch.setattr(AnswerTypeClassifier, "fit",
                        lambda self, docs, labels: fitted.update(docs=docs, labels=labels) or self)
    questions = [{"question": uiuc[3].question.replace(" ?", "?")}, {"question": uiuc[10].question.upper()},
                 {"question": "Who founded the city of Mardotha?"}]
    unseen_answer_types(uiuc, [q.question for q in uiuc], questions)
    assert len(fitted["docs"]) == 298 and uiuc[3].question not in fitted["docs"]
    assert uiuc[10].question not in fitted["docs"] and uiuc[4].question in fitted["docs"]
    assert fitted["labels"] == [q.label for i, q in enumerate(uiuc) if i not in (3, 10)]
