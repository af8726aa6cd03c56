"""Question frames and clusters (Lita & Carbonell 2004, section 5, figure 1)."""
from textqa.models.qa.frames import FrameClusters, question_frames
from textqa.models.qa.nlp import parse


def test_paper_example_frames():
    frames = question_frames(parse(["When did Beethoven die?"])[0])
    # the frames the paper lists for this question
    assert {"when did <NNP> die", "when did <NNP> <VB>", "when did <NNP> <Q>", "when did <NP> <Q>",
            "when did <Q>"} <= frames
    assert "when did beethoven die" in frames and not any("<VB> <NNP>" in f for f in frames)
    assert all(f.startswith("when ") for f in frames)        # the wh-word stays a word
    assert "when <VB> <Q>" not in frames                      # auxiliaries stay words


def test_clusters_need_more_than_min_questions_and_match_by_granularity():
    questions = ["When did Beethoven die?", "When did Mozart die?", "When did Lincoln die?",
                 "When did Elvis die?", "When did Gandhi live?", "Who wrote Hamlet?"]
    fc = FrameClusters(min_questions=3).fit(parse(questions))
    assert "when did <NNP> die" in fc.clusters_ and len(fc.clusters_["when did <NNP> die"]) == 4
    assert "when did <NNP> <VB>" in fc.clusters_ and len(fc.clusters_["when did <NNP> <VB>"]) == 5
    assert not any(f.startswith("who") for f in fc.clusters_)              # one question: no cluster
    found = fc.match(parse(["When did Chopin die?"])[0])
    # every matching cluster, most specific (fewest members) first, ties by frame text
    assert found == ["when did <NNP> die", "when did <NP> die", "when <Q>", "when did <NNP> <Q>",
                     "when did <NNP> <VB>", "when did <NP> <Q>", "when did <NP> <VB>", "when did <Q>"]
    assert [len(fc.clusters_[f]) for f in found] == [4, 4, 5, 5, 5, 5, 5, 5]
    assert fc.match(parse(["Why is the sky blue?"])[0]) == []
