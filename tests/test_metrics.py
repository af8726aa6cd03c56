"""``textqa.metrics``: the documented examples, WER and CER against jiwer where both define them,
sclite's counts through the API, and the errors of bad input."""
from __future__ import annotations

import doctest
import gzip
import random
from pathlib import Path

import jiwer
import pytest

import textqa.metrics
import textqa.metrics.agreement
import textqa.metrics.aqwv
import textqa.metrics.cpa
import textqa.metrics.mteval
import textqa.metrics.nuggets
import textqa.metrics.rank
import textqa.metrics.rouge
import textqa.metrics.significance
import textqa.metrics.truecase
import textqa.metrics.wer
import textqa.models.blanc.metric
from textqa.cli.eval import wer as wer_command
from textqa.evaluation import wer as sclite
from textqa.metrics import CER, WER, MetricInputError
from textqa.runtime.paths import DATA_DIR

FIX = Path(__file__).resolve().parent / "fixtures" / "wer"


@pytest.mark.parametrize("module", [textqa.metrics, textqa.metrics.wer, textqa.metrics.mteval, textqa.metrics.rouge,
                                    textqa.metrics.rank, textqa.metrics.agreement, textqa.metrics.truecase,
                                    textqa.metrics.significance, textqa.metrics.aqwv, textqa.metrics.cpa,
                                    textqa.metrics.nuggets, textqa.models.blanc.metric])
def test_the_documented_examples_hold(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def wmt18_segments() -> tuple[list[str], list[str]]:
    """The project's WER data (real ASR-style segments): each scored segment's reference and the
    hypothesis words sclite assigns to it."""
    kept = sclite.scored_segments(sclite.read_reference(FIX / "wmt18.stm"), sclite.read_ctm(FIX / "wmt18.ctm"))
    return [" ".join(s.hyp) for s in kept], [" ".join(s.words) for s in kept]


def test_corpus_score_gives_sclite_counts_as_textqa_eval_wer_does():
    hyps, refs = wmt18_segments()
    api = WER().corpus_score(hyps, refs)
    overall = wer_command.score(sclite.read_reference(FIX / "wmt18.stm"), sclite.read_ctm(FIX / "wmt18.ctm"))[0]["overall"]
    assert (api.correct, api.substitutions, api.deletions, api.insertions, api.reference_words) == \
        (overall["correct"], overall["substitutions"], overall["deletions"], overall["insertions"],
         overall["reference_words"])
    assert api.rate == overall["wer"] and api.segments == overall["segments"]


def _jiwer_words(hyps, refs):
    o = jiwer.process_words(refs, hyps)
    return o.wer, o.hits, o.substitutions, o.deletions, o.insertions


def test_levenshtein_costs_equal_jiwer_on_the_wer_data():
    hyps, refs = wmt18_segments()
    hyps, refs = zip(*[(h, r) for h, r in zip(hyps, refs) if r.strip()])       # jiwer refuses empty references
    ours = WER(costs="levenshtein", case_sensitive=True).corpus_score(hyps, refs)
    rate, hits, s, d, i = _jiwer_words(list(hyps), list(refs))
    assert (ours.correct, ours.substitutions, ours.deletions, ours.insertions) == (hits, s, d, i)
    assert ours.rate == pytest.approx(rate, abs=1e-12)


def test_levenshtein_costs_equal_jiwer_on_random_strings():
    rng = random.Random(3)
    alphabet = ["a", "b", "c", "A", "dd", "é", "x"]
    for _ in range(300):
        n = rng.randrange(1, 15)
        refs = [" ".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 9))) for _ in range(n)]
        hyps = [" ".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 9))) for _ in range(n)]
        ours = WER(costs="levenshtein", case_sensitive=True).corpus_score(hyps, refs)
        rate, hits, s, d, i = _jiwer_words(hyps, refs)
        assert (ours.correct, ours.substitutions, ours.deletions, ours.insertions) == (hits, s, d, i)
        assert ours.rate == pytest.approx(rate, abs=1e-12)
        chars = CER(costs="levenshtein", case_sensitive=True).corpus_score(hyps, refs)
        assert chars.rate == pytest.approx(jiwer.cer(refs, hyps), abs=1e-12)


def chinese_sample(n: int = 200) -> list[str]:
    """Chinese sentences: the sources of the WMT18 zh-en test set (real text, data/mt)."""
    out = []
    with gzip.open(DATA_DIR / "mt" / "wmt18_toen_sys_outputs.tsv.gz", "rt", encoding="utf-8") as f:
        for line in f:
            cols = line.split("\t")
            if cols[0] == "zh-en" and cols[3] not in out:
                out.append(cols[3])
                if len(out) == n:
                    break
    return out


def test_cer_equals_jiwer_on_chinese():
    """Real Chinese sentences against copies with edits made at random (the edits are synthetic):
    CER with unit costs equals jiwer's, and the mixed unit scores Chinese by character."""
    refs = chinese_sample()
    rng = random.Random(5)
    hyps = []
    for r in refs:
        chars = list(r)
        for _ in range(rng.randrange(0, 6)):
            k = rng.randrange(len(chars))
            op = rng.choice("sdi")
            if op == "s":
                chars[k] = rng.choice(r)
            elif op == "d" and len(chars) > 1:
                del chars[k]
            else:
                chars.insert(k, rng.choice(r))
        hyps.append("".join(chars))
    ours = CER(costs="levenshtein", case_sensitive=True).corpus_score(hyps, refs)
    assert 0.01 < ours.rate < 0.2
    assert ours.rate == pytest.approx(jiwer.cer(refs, hyps), abs=1e-12)
    # no spaces in Chinese: as words, a clause is one unit; by the mixed unit, each Chinese character is one
    mixed = WER(unit="mixed", costs="levenshtein", case_sensitive=True).corpus_score(hyps, refs)
    assert WER().corpus_score(hyps, refs).reference_words == sum(len(r.split()) for r in refs)
    assert mixed.rate == pytest.approx(ours.rate, abs=0.01) and mixed.reference_words > 8_000


def test_sclite_and_levenshtein_costs_can_split_errors_differently():
    """"b c" for "a b": unit costs take two substitutions (2) as readily as a deletion and an insertion
    (2), and RapidFuzz's alignment (jiwer's) reports the substitutions; sclite's costs (4 a
    substitution, 3 an insertion or a deletion) make the deletion and insertion cheaper (6 < 8) and
    keep "b" as correct.  The same number of errors, split differently: what the docs say."""
    s = WER().sentence_score("b c", "a b")
    lev = WER(costs="levenshtein").sentence_score("b c", "a b")
    assert s.errors == lev.errors == 2 and s.rate == lev.rate == 1.0
    assert (s.correct, s.substitutions, s.deletions, s.insertions) == (1, 0, 1, 1)
    assert (lev.correct, lev.substitutions, lev.deletions, lev.insertions) == (0, 2, 0, 0)
    # over the project's WER data the two split the errors of some segments differently
    hyps, refs = wmt18_segments()
    assert any(WER().sentence_score(h, r).substitutions != WER(costs="levenshtein").sentence_score(h, r).substitutions
               for h, r in zip(hyps, refs))


def test_empty_references_and_rates_above_one():
    assert WER().sentence_score("", "").rate == 0.0
    empty = WER().sentence_score("a b", "")
    assert empty.rate == float("inf") and empty.insertions == 2 and empty.reference_words == 0
    assert WER().corpus_score(["a b", "x"], ["", "x"]).rate == 2.0          # the empty one adds its insertions
    assert WER().sentence_score("a b c d", "a").rate == 3.0
    assert CER().sentence_score("", "").rate == 0.0


def test_case_and_signature():
    assert WER().sentence_score("The Cat", "the cat").rate == 0.0
    assert WER(case_sensitive=True).sentence_score("The Cat", "the cat").rate == 1.0
    assert WER(costs="levenshtein", case_sensitive=True).sentence_score("The Cat", "the cat").rate == 1.0
    assert WER().signature.startswith("WER|costs:sclite|case:no|unit:word|version:textqa-")
    assert CER(costs="levenshtein").signature.startswith("CER|costs:levenshtein|case:no|version:")


def test_corpus_score_streams_one_segment_at_a_time():
    def gen(n, text):
        for _ in range(n):
            yield text
    result = WER().corpus_score(gen(50_000, "a b c"), gen(50_000, "a b d"))
    assert result.segments == 50_000 and result.substitutions == 50_000


@pytest.mark.parametrize("call, message", [
    (lambda: WER().corpus_score(["a", "b"], ["a"]), "2 hypotheses but 1 references"),
    (lambda: WER().corpus_score(["a"], ["a", "b", "c"]), "3 references but 1 hypotheses"),
    (lambda: WER().corpus_score("a b", ["a b"]), "a single string was given"),
    (lambda: WER().corpus_score(["a", 3], ["a", "b"]), "hypotheses[1] is int, not a string"),
    (lambda: WER().corpus_score(["a"], [["a", 1]]), "references[0] holds int 1: its units must be strings"),
    (lambda: WER().corpus_score(["a"], [{"a"}]), "references[0] is set, not a string"),
    (lambda: WER().sentence_score(None, "a"), "hypothesis is NoneType"),
    (lambda: WER(costs="fast"), "costs must be one of sclite, levenshtein"),
    (lambda: WER(unit="byte"), "unit must be one of word, char, mixed"),
])
def test_bad_input_is_named(call, message):
    with pytest.raises(MetricInputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        call()


def test_the_alignment_report():
    a = WER().alignment("the dog sat is on", "the cat sat on the")
    assert [r["op"] for r in a.as_dict()] == ["C", "S", "C", "I", "C", "D"]
    assert a.as_dict()[3] == {"op": "I", "ref": None, "hyp": "is"}
    plain = a.as_text().replace("\u2068", "").replace("\u2069", "")
    assert plain.splitlines() == ["REF:  the cat sat *** on the", "HYP:  the dog sat is  on ***",
                                  "Eval:     S       I      D"]
    # its counts are the score's, for both alignments and every unit
    rng = random.Random(11)
    for metric in (WER(), WER(costs="levenshtein"), CER(), WER(unit="mixed")):
        for _ in range(200):
            ref = " ".join(rng.choice(["a", "b", "東京", "c"]) for _ in range(rng.randrange(0, 7)))
            hyp = " ".join(rng.choice(["a", "b", "東京", "d"]) for _ in range(rng.randrange(0, 7)))
            ops = [r["op"] for r in metric.alignment(hyp, ref).as_dict()]
            s = metric.sentence_score(hyp, ref)
            assert (ops.count("C"), ops.count("S"), ops.count("D"), ops.count("I")) == \
                (s.correct, s.substitutions, s.deletions, s.insertions)


def test_the_alignment_keeps_columns_for_wide_and_right_to_left_words():
    text = WER(unit="mixed").alignment("東京 タワー", "東京のタワー").as_text()
    ref, hyp, ev = (line.replace("\u2068", "").replace("\u2069", "") for line in text.splitlines())
    assert ref.split() == ["REF:", "東", "京", "の", "タ", "ワ", "ー"] and "***" in hyp and ev.split() == ["Eval:", "D"]
    rtl = WER().alignment("שלום עולם x", "שלום y").as_text()
    assert rtl.count("\u2068") == 2 * 3 and rtl.count("\u2069") == 2 * 3     # every unit isolated, both lines


def test_eval_wer_shows_alignments(capsys):
    from textqa.cli import main
    assert main(["eval", "wer", str(FIX / "edges.stm"), str(FIX / "edges.ctm"), "--alignment", "--json"]) == 0
    import json
    out = json.loads(capsys.readouterr().out)
    first = out["alignments"][0]
    assert first["file"] == "EDGE_1" and first["line"] == 2
    assert sum(r["op"] != "C" for a in out["alignments"] for r in a["rows"]) == out["overall"]["errors"]
    assert main(["eval", "wer", str(FIX / "edges.stm"), str(FIX / "edges.ctm"), "--alignment"]) == 0
    text = capsys.readouterr().out
    assert f"{FIX / 'edges.stm'}:2 (EDGE_1)\nREF:" in text and "Eval:" in text and "overall" in text


D = DATA_DIR / "eval" / "bleu_nist" / "newstest2015-100sents-enru-"


def _newstest():
    from textqa.evaluation.mteval import read_sgml
    test, ref = read_sgml(f"{D}google.ru.sgm"), read_sgml(f"{D}ref.ru.sgm")
    keys = list(ref)
    return [test[k] for k in keys], [ref[k] for k in keys]


def test_bleu_and_nist_reproduce_mteval_through_the_api():
    """mteval-13a.output shipped with the data: NIST = 5.0564, BLEU = 0.2318, 1998/1862 words."""
    from textqa.metrics import BLEU, NIST
    hyps, refs = _newstest()
    bleu = BLEU().corpus_score(hyps, [[r] for r in refs])
    nist = NIST().corpus_score(hyps, refs)                  # a plain string per segment: one reference
    assert round(bleu.score, 4) == 0.2318 and [round(p, 4) for p in bleu.precisions] == [0.5415, 0.2972, 0.1752, 0.1025]
    assert round(nist.score, 4) == 5.0564 and [round(x, 4) for x in nist.information] == [4.4488, 0.5554, 0.0477,
                                                                                          0.0045, 0.0]
    assert (nist.hypothesis_words, nist.reference_words) == (1998, 1862)
    assert BLEU().signature.startswith("BLEU|order:4|lowercase:yes|tok:13a|impl:mteval-v13a|version:textqa-")


def test_references_per_segment_vary_and_the_transposed_layout_is_named():
    from textqa.metrics import BLEU
    hyps, refs = _newstest()
    hyps, refs = hyps[:10], refs[:10]
    varied = [[r] if i % 2 else [r, hyps[i]] for i, r in enumerate(refs)]      # 1 or 2 references
    assert BLEU().corpus_score(hyps, varied).score > BLEU().corpus_score(hyps, [[r] for r in refs]).score
    with pytest.raises(MetricInputError, match="sacrebleu's layout.*zip"):
        BLEU().corpus_score(hyps, [refs, refs])                      # two streams of 10: transposed
    with pytest.raises(MetricInputError, match="10 hypotheses but references for 9 segments"):
        BLEU().corpus_score(hyps, [[r] for r in refs[:9]])
    with pytest.raises(MetricInputError, match=r"references\[2\]\[0\] is int"):
        BLEU().corpus_score(hyps[:3], [["a"], ["b"], [3]])
    with pytest.raises(MetricInputError, match=r"references\[1\] is empty"):
        BLEU().corpus_score(hyps[:2], [["a"], []])
    with pytest.raises(MetricInputError, match="hypotheses is a single string"):
        BLEU().corpus_score("a b", [["a b"]])


@pytest.mark.parametrize("peer", ["1", "A"])
def test_rouge_corpus_score_reproduces_nist_official_duc2006_averages(duc, peer):
    """The peer's Average_R/P/F and their 95% intervals for ROUGE-1..4, L, W-1.2 and SU4, as NIST's
    ROUGE-1.5.5 printed them (rougejk.m.out), from strings through the API: the jackknifed evaluations
    of the official configuration, their sentences read from its files, its ids given."""
    from textqa.evaluation.rouge_input import read_config, read_sentences
    from textqa.metrics import ROUGE
    evals = [e for e in read_config(duc / "rougejk.in", str(duc / "peers"), str(duc / "models")) if peer in e.peers]
    hyps = [read_sentences(e.peer_path(peer), e.fmt) for e in evals]
    refs = [[read_sentences(m, e.fmt) for m in e.model_paths()] for e in evals]
    scores = ROUGE(n=4, w="1.2", skip=4, unigrams=True, stem=True).corpus_score(hyps, refs, ids=[e.id for e in evals])
    official = {}
    for line in open(duc / "rougejk.m.out", encoding="latin-1"):
        f = line.split()
        if len(f) == 8 and f[0] == peer and f[2].startswith("Average_"):    # 1 ROUGE-1 Average_R: R (95%-conf.int. L - U)
            official[(f[1], f[2][-2])] = (float(f[3]), float(f[5]), float(f[7].rstrip(")")))
    assert len(official) == 21
    for (tag, k), (avg, lo, hi) in official.items():
        got = scores[tag]
        value, ci = {"R": (got.recall, got.recall_ci), "P": (got.precision, got.precision_ci),
                     "F": (got.f, got.f_ci)}[k]
        assert (value, ci) == (avg, (lo, hi)), (tag, k)


def test_rouge_sentence_score_equals_the_per_evaluation_lines(duc):
    """Eval lines of rougejk.m.out (R, P, F of one evaluation) from sentence_score."""
    from textqa.evaluation.rouge_input import read_config, read_sentences
    from textqa.metrics import ROUGE
    e = next(e for e in read_config(duc / "rougejk.in", str(duc / "peers"), str(duc / "models")) if "24" in e.peers)
    got = ROUGE(n=4, w="1.2", skip=4, unigrams=True, stem=True).sentence_score(
        read_sentences(e.peer_path("24"), e.fmt), [read_sentences(m, e.fmt) for m in e.model_paths()])
    lines = [line.split() for line in open(duc / "rougejk.m.out", encoding="latin-1")
             if line.startswith(f"24 ROUGE-") and f" Eval {e.id}.24 " in line]
    assert len(lines) == 7
    for f in lines:
        r, p, fv = (float(x.split(":")[1]) for x in f[4:7])
        assert (got[f[1]].recall, got[f[1]].precision, got[f[1]].f) == (r, p, fv)


def test_rouge_input_errors():
    from textqa.metrics import ROUGE
    with pytest.raises(MetricInputError, match="sacrebleu's layout"):
        ROUGE().corpus_score(["a", "b", "c"], [["a", "b", "c"]])
    with pytest.raises(MetricInputError, match=r"references\[0\]\[1\] is int"):
        ROUGE().corpus_score(["a"], [["a", 1]])
    with pytest.raises(MetricInputError, match="w must be a weight above 0"):
        ROUGE(w="-1")
    with pytest.raises(MetricInputError, match="average must be one of"):
        ROUGE(average="tokens")
    with pytest.raises(MetricInputError, match="one distinct id per segment"):
        ROUGE().corpus_score(["a", "b"], ["a", "b"], ids=["x", "x"])
    with pytest.raises(MetricInputError, match="no measure asked for"):
        ROUGE(n=0, lcs=False)


def test_rank_and_agreement_input_errors():
    from textqa.metrics import KrippendorffAlpha, TrecEval
    with pytest.raises(MetricInputError, match=r"run\['q1'\]\['d1'\] is 'high': give a number"):
        TrecEval().score({"q1": {"d1": 1}}, {"q1": {"d1": "high"}})
    with pytest.raises(MetricInputError, match=r"qrels\['q1'\] is list"):
        TrecEval().score({"q1": ["d1"]}, {"q1": {"d1": 1.0}})
    with pytest.raises(MetricInputError, match=r"qrels\['q1'\]\['d1'\] is 0.5: give an integer"):
        TrecEval().score({"q1": {"d1": 0.5}}, {"q1": {"d1": 1.0}})
    with pytest.raises(MetricInputError, match="ks must be positive integers"):
        TrecEval(ks=(0,))
    with pytest.raises(MetricInputError, match=r"annotations\[1\]: coder 'a' already coded unit 'u'"):
        KrippendorffAlpha().score([("a", "u", "x"), ("a", "u", "y")])
    with pytest.raises(MetricInputError, match="at least one unit coded by two coders"):
        KrippendorffAlpha().score([("a", "u", "x")])
    with pytest.raises(MetricInputError, match="distance must be one of"):
        KrippendorffAlpha("cosine")
    # a plain string is one label: nominal alpha over strings equals the one over sets
    data = [("a", "u1", "x"), ("b", "u1", "x"), ("a", "u2", "x"), ("b", "u2", "y"), ("a", "u3", "y"), ("b", "u3", "y")]
    assert KrippendorffAlpha("nominal").score(data).alpha == \
        KrippendorffAlpha("nominal").score([(c, u, {x}) for c, u, x in data]).alpha


def test_truecasing_scores_as_textqa_eval_truecase_does():
    """The dev set's first 2,000 sentences (Wikipedia, true case; real data) against a baseline that
    capitalises each sentence's first token only: the API's numbers are the command's."""
    from textqa.evaluation.truecase import score_truecase
    from textqa.metrics import Truecasing
    with gzip.open(DATA_DIR / "truecase" / "val_input.txt.gz", "rt", encoding="utf-8") as f:
        gold = [next(f).rstrip("\n") for _ in range(2000)]
    pred = [" ".join(t.capitalize() if i == 0 else t.lower() for i, t in enumerate(line.split())) for line in gold]
    ours = Truecasing().corpus_score(pred, gold)
    theirs = score_truecase(gold, pred)
    assert (ours.tokens, ours.accuracy, ours.precision, ours.recall) == \
        (theirs.tokens, round(theirs.accuracy, 2), round(theirs.precision, 2), round(theirs.recall, 2))
    assert ours.f1 == theirs.f1 and 20 < ours.f1 < 60 and ours.tokens > 40_000      # the baseline: F1 32.6
    with pytest.raises(MetricInputError, match=r"predictions\[1\]: token 2 'Dog' is not a casing of 'cat'"):
        Truecasing().corpus_score(["a b", "the Dog"], ["a b", "the cat"])
    with pytest.raises(MetricInputError, match=r"predictions\[0\]: 1 tokens, but references\[0\] has 2"):
        Truecasing().corpus_score(["a"], ["a b"])


def _wmt22_de_en(names):
    """Three real MT systems of WMT22 de-en (1,984 segments) and the references (data/mt)."""
    from collections import defaultdict
    rows, refs = defaultdict(dict), {}
    with gzip.open(DATA_DIR / "mt" / "wmt22_toen_sys_outputs.tsv.gz", "rt", encoding="utf-8") as f:
        next(f)
        for line in f:
            c = line.rstrip("\n").split("\t")
            if c[0] == "de-en" and c[2] in names:
                rows[c[2]][int(c[1])] = c[5]
                refs[int(c[1])] = c[4]
    keys = sorted(refs)
    return {n: [rows[n][k] for k in keys] for n in names}, [refs[k] for k in keys]


@pytest.mark.parametrize("test", ["bs", "ar"])
def test_paired_tests_agree_with_sacrebleu_on_bleu(test):
    """sacrebleu's --paired-bs and --paired-ar on the same systems: the same BLEU, the same p-values
    (same seed, same draws), the same bootstrap means and intervals."""
    from sacrebleu.metrics import BLEU as SacreBLEU
    from sacrebleu.significance import PairedTest

    from textqa.metrics import BLEU, approximate_randomization, paired_bootstrap
    names = ["Online-A", "Online-B", "LT22"]
    systems, refs = _wmt22_de_en(names)
    ours = (paired_bootstrap if test == "bs" else approximate_randomization)(
        BLEU(lowercase=False), systems, [[r] for r in refs])["BLEU"]
    _, theirs = PairedTest([(n, systems[n]) for n in names], {"BLEU": SacreBLEU()}, [refs], test_type=test,
                           n_samples=1000 if test == "bs" else 10000)()
    for name, t in zip(names, theirs["BLEU"]):
        o = ours[name]
        assert 100 * o.score == pytest.approx(t.score, abs=1e-9)
        assert o.p_value == (None if t.p_value is None else pytest.approx(t.p_value, abs=1e-12))
        if test == "bs":
            assert (100 * o.mean, 100 * o.ci) == (pytest.approx(t.mean, abs=1e-3), pytest.approx(t.ci, abs=1e-3))
    assert ours["Online-B"].p_value > 0.05 and ours["LT22"].p_value < 0.01      # a tie, and a clear loss


def test_paired_tests_serve_wer_and_rouge():
    from textqa.metrics import ROUGE, WER, approximate_randomization, paired_bootstrap
    systems, refs = _wmt22_de_en(["Online-A", "LT22"])
    systems = {k: v[:300] for k, v in systems.items()}
    refs = refs[:300]
    w = paired_bootstrap(WER(), systems, refs, resamples=300)["WER"]
    assert w["Online-A"].score == WER().corpus_score(systems["Online-A"], refs).rate
    assert w["LT22"].p_value < 0.05 and w["LT22"].score > w["Online-A"].score
    r = approximate_randomization(ROUGE(n=1, lcs=False), systems, [[x] for x in refs], trials=500)["ROUGE-1"]
    assert 0 < r["Online-A"].score < 1 and r["LT22"].p_value is not None
    with pytest.raises(MetricInputError, match="two systems or more"):
        paired_bootstrap(WER(), {"a": refs}, refs)
    with pytest.raises(MetricInputError, match="baseline 'x' is not one of the systems"):
        paired_bootstrap(WER(), systems, refs, baseline="x")
    with pytest.raises(MetricInputError, match="system 'LT22': 299 hypotheses but 300 references|system 'LT22'"):
        paired_bootstrap(WER(), {"Online-A": systems["Online-A"], "LT22": systems["LT22"][:299]}, refs)


def _write_lines(path: Path, lines) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_eval_bleu_paired_is_the_api_test_and_sacrebleus_decision(tmp_path, capsys):
    """``textqa eval bleu --paired bs --json`` on two real WMT22 systems gives the API's numbers, and
    the decision and p-value of sacrebleu's --paired-bs on the same files."""
    import json

    from sacrebleu.metrics import BLEU as SacreBLEU
    from sacrebleu.significance import PairedTest

    from textqa.cli import main
    from textqa.metrics import BLEU, paired_bootstrap
    names = ["Online-A", "LT22"]
    systems, refs = _wmt22_de_en(names)
    systems, refs = {k: v[:400] for k, v in systems.items()}, refs[:400]
    ref = _write_lines(tmp_path / "ref.txt", refs)
    files = [_write_lines(tmp_path / f"{n}.txt", systems[n]) for n in names]
    assert main(["eval", "bleu", str(ref), "-i", *map(str, files), "--case-sensitive", "--paired", "bs", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["measures"]["BLEU"]
    api = paired_bootstrap(BLEU(lowercase=False), dict(zip(map(str, files), systems.values())), [[r] for r in refs])
    _, theirs = PairedTest([(n, systems[n]) for n in names], {"BLEU": SacreBLEU()}, [refs], test_type="bs",
                           n_samples=1000)()
    for f, t in zip(files, theirs["BLEU"]):
        assert got[str(f)]["score"] == api["BLEU"][str(f)].score == pytest.approx(t.score / 100, abs=1e-12)
        assert got[str(f)]["p_value"] == (None if t.p_value is None else pytest.approx(t.p_value, abs=1e-12))
    assert got[str(files[1])]["p_value"] < 0.05
    short = _write_lines(tmp_path / "short.txt", refs[:3])
    assert main(["eval", "bleu", str(short), "-i", str(files[0])]) == 2
    assert f"{short}: 3 lines but {files[0]} has 400" in capsys.readouterr().err


def test_eval_wer_rouge_and_blanc_compare_systems(tmp_path, capsys, duc, blanc_artifact):
    """``--paired`` on the other commands: WER over sclite's segments (the project's WER data against
    a copy with every seventh word dropped, a labelled synthetic second system), ROUGE over three DUC
    2006 peers, BLANC over two WMT22 systems; each says which system differs from the baseline."""
    import json

    from textqa.cli import main
    dropped = _write_lines(tmp_path / "dropped.ctm", [l for i, l in enumerate(
        (FIX / "wmt18.ctm").read_text(encoding="utf-8").splitlines(), start=1) if i % 7])
    assert main(["eval", "wer", str(FIX / "wmt18.stm"), str(FIX / "wmt18.ctm"), str(dropped), "--paired", "ar",
                 "--json"]) == 0
    wer = json.loads(capsys.readouterr().out)["measures"]["WER"]
    base = WER().corpus_score(*wmt18_segments()).rate
    assert wer[str(FIX / "wmt18.ctm")]["score"] == pytest.approx(base)
    assert wer[str(dropped)]["score"] > base and wer[str(dropped)]["p_value"] < 0.05
    assert main(["eval", "wer", str(FIX / "wmt18.stm"), str(FIX / "wmt18.ctm"), str(dropped)]) == 2
    assert "give --paired bs or --paired ar" in capsys.readouterr().err

    assert main(["eval", "rouge", "-n", "1", "-x", "--peer-root", str(duc / "peers"), "--model-root",
                 str(duc / "models"), str(duc / "rougejk.in"), "1", "2", "--paired", "bs", "--json"]) == 0
    rouge = json.loads(capsys.readouterr().out)["measures"]["ROUGE-1"]
    assert set(rouge) == {"1", "2"} and rouge["2"]["p_value"] < 0.05 and rouge["1"]["p_value"] is None

    names = ["Online-A", "LT22"]
    systems, refs = _wmt22_de_en(names)
    ref = _write_lines(tmp_path / "ref.txt", refs[:200])
    files = [str(_write_lines(tmp_path / f"{n}.txt", systems[n][:200])) for n in names]
    assert main(["blanc", "score", "--model", str(blanc_artifact / "blanc"), "--refs", str(ref), "--hyps", *files,
                 "--paired", "bs", "--paired-n", "300"]) == 0
    out = capsys.readouterr().out
    assert "paired bootstrap resampling, 300 samples" in out and "BLANC|" in out
    assert out.count(files[0]) == 2 and out.count(files[1]) == 1      # the baseline: in the header and its row


def test_nuggeteer_and_cpa_through_the_api_are_the_commands(capsys):
    """A NIST answer key (TREC 2005 "other", real) with the labelled synthetic responses of the nugget
    fixture, and the CPA task 2 fixture: the API's numbers are the command's, and bad input is named."""
    import json

    from textqa.cli import main
    from textqa.evaluation.cpa import read_task2
    from textqa.evaluation.nugget import read_answer_key
    from textqa.evaluation.nuggeteer import read_judgements, read_responses
    from textqa.metrics import CPA, Nuggeteer
    key_file = DATA_DIR / "eval" / "nugget" / "trec" / "trec14answers_other"
    fix = Path(__file__).resolve().parent / "fixtures"
    assert main(["eval", "nuggets", "--key", str(key_file), "--responses", str(fix / "nuggets" / "responses.tsv"),
                 "--judgements", str(fix / "nuggets" / "judgements.tsv"), "--questions", "87.8", "66.8",
                 "--json"]) == 0
    command = json.loads(capsys.readouterr().out)
    key = {q: v for q, v in read_answer_key(key_file).items() if q in ("87.8", "66.8")}
    judgements = {q: {text: set(nos) for text, nos in known.items()}
                  for q, known in read_judgements(fix / "nuggets" / "judgements.tsv").items()}
    api = Nuggeteer().score(key, read_responses(fix / "nuggets" / "responses.tsv"), judgements)
    assert {r: s.f for r, s in api.runs.items()} == {r: s["f"] for r, s in command["runs"].items()}
    assert api.runs["runA"].f > api.runs["runB"].f
    for bad, message in [({"q": {"nuggets": {1: "text"}}}, r"key\['q'\]\['nuggets'\]\[1\]: give"),
                         ({"q": {"nuggets": {"1": {"description": "x", "vital": True}}}}, "integers"),
                         ({"q": {"nuggets": {1: {"description": "x", "vital": None}}}}, "pyramid=True")]:
        with pytest.raises(MetricInputError, match=message):
            Nuggeteer().score(bad, {"r": {"q": ["x"]}})
    with pytest.raises(MetricInputError, match=r"runs\['r'\]\['q'\]: give a list"):
        Nuggeteer().score(key, {"r": {"q": "a single string"}})
    with pytest.raises(MetricInputError, match="threshold"):
        Nuggeteer(threshold="high")

    assert main(["eval", "cpa", "--task", "2", str(fix / "cpa" / "task2_gold.tsv"), str(fix / "cpa" / "task2_run.tsv"),
                 "--json"]) == 0
    command = json.loads(capsys.readouterr().out)
    score = CPA(task=2).score(read_task2(fix / "cpa" / "task2_gold.tsv"), read_task2(fix / "cpa" / "task2_run.tsv"))
    assert score.score == command["score"] == pytest.approx((11 / 15 + 10 / 14) / 2)
    with pytest.raises(MetricInputError, match=r"gold\['v'\]\['a'\] is 1, not a string"):
        CPA(task=2).score({"v": {"a": 1}}, {"v": {"a": "x"}})
    with pytest.raises(MetricInputError, match="task must be 1, 2 or 3"):
        CPA(task=4)


@pytest.mark.parametrize("flags, kwargs", [(["-t", "1"], {"average": "token"}), (["-t", "2"], {"average": "counts"}),
                                           (["-2", "4", "-U"], {"skip": 4, "both": True})])
def test_rouge_script_options_give_the_command_s_numbers(duc, capsys, flags, kwargs):
    """-t 1 (pooled counts), -t 2 (counts only) and -U (ROUGE-S and -SU) through the API, on peer 1's
    evaluations of NIST's DUC 2006 configuration, equal what ``textqa eval rouge`` prints."""
    import json

    from textqa.cli import main
    from textqa.evaluation.rouge_input import read_config, read_sentences
    from textqa.metrics import ROUGE
    assert main(["eval", "rouge", "-n", "1", "-x", *flags, "--peer-root", str(duc / "peers"), "--model-root",
                 str(duc / "models"), str(duc / "rougejk.in"), "1", "--json"]) == 0
    command = {r["measure"]: r for r in json.loads(capsys.readouterr().out)}
    evals = [e for e in read_config(duc / "rougejk.in", str(duc / "peers"), str(duc / "models")) if "1" in e.peers]
    api_all = ROUGE(n=1, lcs=False, **kwargs).corpus_score(
        [read_sentences(e.peer_path("1"), e.fmt) for e in evals],
        [[read_sentences(m, e.fmt) for m in e.model_paths()] for e in evals], ids=[e.id for e in evals])
    assert set(api_all) == set(command) >= {"ROUGE-1"}
    for tag, r in command.items():
        got = api_all[tag]
        if kwargs.get("average") == "counts":
            assert (got.model_count, got.peer_count, got.hits) == (r["model_count"], r["peer_count"], r["hit_count"])
            assert got.recall is None
        else:
            assert (got.recall, got.precision, got.f) == (r["recall"], r["precision"], r["f"])
            assert list(got.f_ci) == r["f_ci"]


def _public_scorers() -> list[type]:
    """Every class ``textqa.metrics`` exports that scores: what has a ``signature``."""
    return [obj for name in textqa.metrics.__all__ for obj in [getattr(textqa.metrics, name)]
            if isinstance(obj, type) and "signature" in dir(obj) and obj not in
            (textqa.metrics.Metric, textqa.metrics.SegmentMetric, textqa.metrics.SetMetric)]


def test_every_public_scorer_is_a_metric_with_the_contract():
    """Each scorer names its shape as a base, and has that shape's methods; the segment scorers'
    ``segment_statistics`` sum to their ``corpus_score``, and ``sentence_score`` is the corpus score of
    one segment."""
    import inspect

    from textqa.metrics import Metric, SegmentMetric, SetMetric
    scorers = _public_scorers()
    assert {c.__name__ for c in scorers} == {"AQWV", "BLANC", "BLEU", "CER", "CPA", "KrippendorffAlpha", "NIST",
                                             "Nuggeteer", "ROUGE", "RankedAQWV", "TrecEval", "Truecasing", "WER"}
    for cls in scorers:
        assert Metric in cls.__mro__, cls
        assert (SegmentMetric in cls.__mro__) != (SetMetric in cls.__mro__), cls
        shape = SegmentMetric if SegmentMetric in cls.__mro__ else SetMetric
        for method in ("signature", "sentence_score", "corpus_score", "segment_statistics") \
                if shape is SegmentMetric else ("signature", "score"):
            owner = next(c for c in cls.__mro__ if method in vars(c))
            assert owner not in (Metric, SegmentMetric, SetMetric), (cls, method)   # the scorer's, not the stub
            assert inspect.isfunction(getattr(cls, method)) or isinstance(vars(owner)[method], property)
        metric = cls(**{"CPA": {"task": 2}, "RankedAQWV": {"threshold": 0.5, "collection_size": 100}}.get(
            cls.__name__, {}))
        assert isinstance(metric, shape) and isinstance(metric.name, str) and metric.name
        assert metric.signature.split("|")[-1].startswith("version:textqa-")
    texts = ["the cat sat on the mat today", "a dog barked at the moon", "It Rained in Paris ."]
    refs = ["the cat sat on a mat today", "the dog barked at the moon", "It rained in Paris ."]
    for cls in scorers:
        if SegmentMetric not in cls.__mro__:
            continue
        metric, hyps = cls(), texts
        many = [[r] for r in refs] if cls.__name__ not in ("WER", "CER", "Truecasing") else refs
        if cls.__name__ == "Truecasing":            # a truecaser's output is the reference's tokens, recased
            hyps = ["The Cat sat on a mat Today", "the dog barked at the Moon", "It Rained in Paris ."]
        corpus = metric.corpus_score(hyps, many)
        for measure, (stats, score) in metric.segment_statistics(hyps, many).items():
            assert stats.shape[0] == len(hyps)
            whole = _headline(corpus)
            whole = whole[measure] if isinstance(whole, dict) else whole
            assert float(score(stats.sum(0))[0]) == pytest.approx(whole, abs=1e-4), cls   # ROUGE prints 5 digits
        assert _headline(metric.sentence_score(hyps[1], many[1])) == _headline(metric.corpus_score(hyps[1:2], many[1:2]))


def _headline(result):
    """A result's score: ROUGE's F per measure, the truecasing F1, the exact WER."""
    if isinstance(result, dict):
        return {k: v.f for k, v in result.items()}
    return getattr(result, "f1", None) if hasattr(result, "f1") else getattr(result, "rate", None) or result.score


def test_significance_takes_a_segment_metric_and_refuses_the_rest():
    from textqa.metrics import TrecEval, paired_bootstrap
    with pytest.raises(MetricInputError, match="TrecEval is not a scorer of segments"):
        paired_bootstrap(TrecEval(), {"a": ["x"], "b": ["y"]}, ["x"])


def test_bleu_sentence_score_is_sacrebleus_sentence_bleu_with_mtevals_smoothing():
    """Where the settings agree (13a tokens, case kept, the 'exp' smoothing that is mteval's, hypotheses of
    four words or more, a word matched): the same sentence BLEU on real WMT22 segments, zero matches of an
    order included."""
    from sacrebleu.metrics import BLEU as SacreBLEU

    from textqa.metrics import BLEU
    systems, refs = _wmt22_de_en(["LT22"])
    theirs = SacreBLEU(smooth_method="exp", effective_order=True)
    ours = BLEU(lowercase=False)
    smoothed = 0
    for h, r in list(zip(systems["LT22"], refs))[:400]:
        if len(h.split()) < 6:
            continue
        s = ours.sentence_score(h, r)
        if s.precisions[0] == 0:        # no word matches: sacrebleu stops at 0, mteval smooths every order
            continue
        smoothed += 0 in s.precisions
        assert 100 * s.score == pytest.approx(theirs.sentence_score(h, [r]).score, abs=1e-9), h
    assert smoothed > 10                         # the smoothing is exercised, not only the plain precisions


def test_nist_segment_statistics_sum_to_the_corpus_score():
    from textqa.metrics import NIST, paired_bootstrap
    systems, refs = _wmt22_de_en(["Online-A", "LT22"])
    systems, refs = {k: v[:200] for k, v in systems.items()}, [[r] for r in refs[:200]]
    stats, score = NIST().segment_statistics(systems["LT22"], refs)["NIST"]
    assert float(score(stats.sum(0))[0]) == pytest.approx(NIST().corpus_score(systems["LT22"], refs).score, abs=1e-12)
    result = paired_bootstrap(NIST(), systems, refs, resamples=200)["NIST"]
    assert result["LT22"].score == pytest.approx(NIST().corpus_score(systems["LT22"], refs).score)


def test_metrics_and_evaluation_import_no_private_name_of_the_other():
    """Each scorer's computation lives in ``textqa.evaluation``, its objects in ``textqa.metrics``;
    neither reaches into the other's private names."""
    import ast
    root = Path(textqa.metrics.__file__).resolve().parent.parent
    found = []
    for room, other in (("metrics", "textqa.evaluation"), ("evaluation", "textqa.metrics")):
        for path in sorted((root / room).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(other):
                    found += [f"{path.name}: {node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
                if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__") \
                        and isinstance(node.value, ast.Name) and node.value.id in ("aligner", "mteval", "cpa"):
                    found.append(f"{path.name}: {node.value.id}.{node.attr}")
    assert found == []
