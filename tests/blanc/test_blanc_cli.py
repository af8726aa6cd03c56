"""textqa blanc score and textqa eval correlate: outputs and bad input."""
import gzip
import io
import json
import sys

import pytest

from textqa.cli import main
from textqa.runtime.paths import DATA_DIR

COLING = DATA_DIR / "mt" / "coling16_toen_da_seg.tsv.gz"


@pytest.fixture
def small_tsv(tmp_path):
    """The first 90 rows of the real COLING-16 DA file (cs-en and de-en)."""
    lines = gzip.open(COLING, "rt", encoding="utf-8").read().splitlines()[:91]
    path = tmp_path / "small.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _score(argv, stdin=b"", capsys=None, monkeypatch=None):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    return main(argv)


def test_blanc_score_lines_and_corpus(blanc_artifact, tmp_path, capsys, monkeypatch):
    ref = tmp_path / "ref.txt"
    ref.write_text("The cat sat on the mat.\nA dog barked.\n", encoding="utf-8")
    model = str(blanc_artifact / "blanc")
    assert _score(["blanc", "score", "--model", model, "--refs", str(ref)],
                  b"The cat sat on the mat.\nA cat meowed.\n", monkeypatch=monkeypatch) == 0
    out = capsys.readouterr()
    scores = [float(x) for x in out.out.split()]
    assert scores[0] == pytest.approx(1.0) and 0 < scores[1] < 1
    assert "BLANC|" in out.err
    hyps = tmp_path / "hyp.txt"
    hyps.write_text("The cat sat on the mat.\nA cat meowed.\n", encoding="utf-8")
    assert main(["blanc", "score", "--model", model, "--refs", str(ref), str(ref), "--hyps", str(hyps),
                 "--corpus"]) == 0
    corpus = float(capsys.readouterr().out)
    assert min(scores) < corpus < max(scores)


@pytest.mark.parametrize("ref_text, hyp_text, message", [
    ("one\ntwo\n", "one\n", "ref.txt: 2 lines but <stdin> has 1"),
    ("one\ntwo\n", "one\n\n", "<stdin>:2: empty hypothesis"),
    ("one\n\n", "one\ntwo\n", "ref.txt:2: empty reference"),
])
def test_blanc_score_bad_input_names_file_and_line(blanc_artifact, tmp_path, capsys, monkeypatch, ref_text,
                                                   hyp_text, message):
    ref = tmp_path / "ref.txt"
    ref.write_text(ref_text, encoding="utf-8")
    assert _score(["blanc", "score", "--model", str(blanc_artifact / "blanc"), "--refs", str(ref)],
                  hyp_text.encode(), monkeypatch=monkeypatch) == 2
    assert message in capsys.readouterr().err


def test_blanc_score_non_utf8_and_missing_model(blanc_artifact, tmp_path, capsys, monkeypatch):
    ref = tmp_path / "ref.txt"
    ref.write_bytes(b"ok\n\xff\xfe bad\n")
    assert _score(["blanc", "score", "--model", str(blanc_artifact / "blanc"), "--refs", str(ref)],
                  b"ok\nfine\n", monkeypatch=monkeypatch) == 2
    assert "ref.txt:2: not valid UTF-8" in capsys.readouterr().err
    assert _score(["blanc", "score", "--model", str(tmp_path / "nowhere"), "--refs", str(ref)], b"x\n",
                  monkeypatch=monkeypatch) == 2
    assert "not a model artifact" in capsys.readouterr().err


def _rouge_l_through_files(rows, tmp):
    """ROUGE-L F of each row through ROUGE-1.5.5's file path (a -z SPL file list), not the sentence API."""
    from textqa.evaluation import rouge, rouge_input, rouge_run
    lines = []
    for i, (h, r) in enumerate(rows):
        (tmp / f"h{i}").write_text(h + "\n", encoding="utf-8")
        (tmp / f"r{i}").write_text(r + "\n", encoding="utf-8")
        lines.append(f"{tmp / f'h{i}'} {tmp / f'r{i}'}")
    (tmp / "list").write_text("\n".join(lines) + "\n")
    res = next(rouge_run.evaluate(rouge_input.read_file_list(tmp / "list", "SPL"), ["X"], rouge.Options(per_eval=True)))
    return [float(res.per_eval[f"{i + 1}.X"][2]) if h.strip() else 0.0 for i, (h, _) in enumerate(rows)]


def _independent_scores(metric, rows, tmp):
    """Each metric computed here by its own library (BLANC through its per-sentence path, ROUGE-L
    through ROUGE-1.5.5's file path)."""
    from sacrebleu.metrics import BLEU, CHRF
    bleu, chrf, chrfpp = BLEU(effective_order=True), CHRF(), CHRF(word_order=2)
    return {"blanc": [metric.sentence_score(h, [r]).score for h, r in rows],
            "sentbleu": [bleu.sentence_score(h, [r]).score for h, r in rows],
            "chrf": [chrf.sentence_score(h, [r]).score for h, r in rows],
            "chrf++": [chrfpp.sentence_score(h, [r]).score for h, r in rows],
            "rougeL": _rouge_l_through_files(rows, tmp)}


def test_correlate_equals_scipy_on_independently_computed_scores(blanc_artifact, small_tsv, capsys, tmp_path):
    from scipy.stats import pearsonr

    from textqa.models.blanc.store import load_blanc
    assert main(["eval", "correlate", "--tsv", str(small_tsv), "--model", str(blanc_artifact / "blanc"),
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == ["segment"]
    assert set(out["segment"]) == {"cs-en", "de-en", "average"}
    rows = [l.split("\t") for l in small_tsv.read_text(encoding="utf-8").splitlines()[1:]]
    metric = load_blanc(blanc_artifact / "blanc")
    for lp in ("cs-en", "de-en"):
        mine = [r for r in rows if r[0] == lp]
        human = [float(r[6]) for r in mine]
        scores = _independent_scores(metric, [(r[5], r[4]) for r in mine], tmp_path)
        assert set(out["segment"][lp]) == set(scores)
        for name, values in scores.items():
            assert out["segment"][lp][name] == pytest.approx(pearsonr(values, human).statistic, abs=1e-9), (lp, name)
    for name in scores:
        assert out["segment"]["average"][name] == pytest.approx(
            (out["segment"]["cs-en"][name] + out["segment"]["de-en"][name]) / 2, abs=1e-12)


def test_correlate_system_level_and_plot(blanc_artifact, small_tsv, tmp_path, capsys):
    png = tmp_path / "scatter.png"
    assert main(["eval", "correlate", "--tsv", str(small_tsv), "--model", str(blanc_artifact / "blanc"),
                 "--system-level", "--plot", str(png), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"segment", "system", "system_kendall"} and "average" in out["system"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # system level: each system's corpus score (sacrebleu / BLANC.corpus_score) against its mean human score
    from scipy.stats import kendalltau, pearsonr
    from sacrebleu.metrics import BLEU, CHRF

    from textqa.models.blanc.store import load_blanc
    rows = [l.split("\t") for l in small_tsv.read_text(encoding="utf-8").splitlines()[1:]]
    metric = load_blanc(blanc_artifact / "blanc")
    corpus = {"blanc": lambda h, r: metric.corpus_score(h, [[x] for x in r]).score,
              "sentbleu": lambda h, r: BLEU().corpus_score(h, [r]).score,
              "chrf": lambda h, r: CHRF().corpus_score(h, [r]).score}
    for lp in ("cs-en", "de-en"):
        systems = sorted({r[2] for r in rows if r[0] == lp})
        assert len(systems) >= 3
        groups = [[r for r in rows if r[0] == lp and r[2] == s] for s in systems]
        human = [sum(float(r[6]) for r in g) / len(g) for g in groups]
        for name, f in corpus.items():
            values = [f([r[5] for r in g], [r[4] for r in g]) for g in groups]
            assert out["system"][lp][name] == pytest.approx(pearsonr(values, human).statistic, abs=1e-9), (lp, name)
            assert out["system_kendall"][lp][name] == pytest.approx(kendalltau(values, human).statistic,
                                                                    abs=1e-9), (lp, name)


def test_correlate_system_outputs_file_at_system_level(blanc_artifact, tmp_path, capsys):
    """A slice of the real WMT22 system-outputs file (uk-en, first 40 segments of every system):
    one system has no human score (NA), which only --level system accepts."""
    lines = gzip.open(DATA_DIR / "mt" / "wmt22_toen_sys_outputs.tsv.gz", "rt", encoding="utf-8").read().splitlines()
    uk = [l for l in lines[1:] if l.startswith("uk-en\t") and int(l.split("\t")[1]) <= 40]
    assert any(l.split("\t")[6] == "NA" for l in uk)
    path = tmp_path / "sys.tsv"
    path.write_text("\n".join([lines[0]] + uk) + "\n", encoding="utf-8")
    model = str(blanc_artifact / "blanc")
    assert main(["eval", "correlate", "--tsv", str(path), "--model", model, "--json"]) == 2
    err = capsys.readouterr().err
    assert "sys.tsv:" in err and "human_score 'NA' is not a number" in err
    assert main(["eval", "correlate", "--tsv", str(path), "--model", model, "--level", "system", "--json",
                 "--metrics", "blanc", "chrf"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"system", "system_kendall"} and set(out["system"]) == {"uk-en", "average"}
    from sacrebleu.metrics import CHRF
    from scipy.stats import pearsonr
    rows = [l.split("\t") for l in uk if l.split("\t")[6] != "NA"]
    systems = sorted({r[2] for r in rows})
    human = [float(next(r[6] for r in rows if r[2] == s)) for s in systems]
    chrf = [CHRF().corpus_score([r[5] for r in rows if r[2] == s], [[r[4] for r in rows if r[2] == s]]).score
            for s in systems]
    assert out["system"]["uk-en"]["chrf"] == pytest.approx(pearsonr(chrf, human).statistic, abs=1e-9)
    assert main(["eval", "correlate", "--tsv", str(path), "--model", model, "--level", "system", "--ci",
                 "--resamples", "50", "--metrics", "blanc", "chrf"]) == 0
    text = capsys.readouterr().out
    assert "system-level Kendall tau-b" in text and "blanc - chrf:" in text and "paired 95% CI" in text


@pytest.mark.parametrize("content, message", [
    ("lang_pair\tseg_id\tsystem\tsource\treference\thypothesis\n", "small.tsv:1: header lacks column(s) human_score"),
    ("lang_pair\tseg_id\tsystem\tsource\treference\thypothesis\thuman_score\nde-en\t1\tX\ts\tr\th\n",
     "small.tsv:2: expected 7 tab-separated fields, got 6"),
    ("lang_pair\tseg_id\tsystem\tsource\treference\thypothesis\thuman_score\nde-en\t1\tX\ts\tr\th\tgood\n",
     "small.tsv:2: human_score 'good' is not a number"),
    ("lang_pair\tseg_id\tsystem\tsource\treference\thypothesis\thuman_score\nde-en\t1\tX\ts\tr\t\t0.5\n",
     "small.tsv:2: empty hypothesis"),
    ("lang_pair\tseg_id\tsystem\tsource\treference\thypothesis\thuman_score\nde-en\t1\tX\ts\t \th\t0.5\n",
     "small.tsv:2: empty reference"),
])
def test_correlate_bad_tsv_names_file_and_line(tmp_path, capsys, content, message):
    path = tmp_path / "small.tsv"
    path.write_text(content, encoding="utf-8")
    assert main(["eval", "correlate", "--tsv", str(path), "--metrics", "sentbleu"]) == 2
    assert message in capsys.readouterr().err


def test_blanc_score_allow_empty_and_details(blanc_artifact, tmp_path, capsys, monkeypatch):
    from textqa.models.blanc.store import load_blanc
    model = str(blanc_artifact / "blanc")
    ref = tmp_path / "ref.txt"
    ref.write_text("The cat sat on the mat.\nA dog barked.\nIt rained all day.\n", encoding="utf-8")
    hyps = "The cat sat on a mat today.\n\nIt was raining all day.\n"
    assert _score(["blanc", "score", "--model", model, "--refs", str(ref), "--allow-empty", "--details"],
                  hyps.encode(), monkeypatch=monkeypatch) == 0
    lines = [[float(x) for x in l.split()] for l in capsys.readouterr().out.splitlines()]
    metric = load_blanc(blanc_artifact / "blanc")
    refs = ref.read_text(encoding="utf-8").splitlines()
    assert lines[1] == [0.0, 0.0, 0.0]                                   # the empty hypothesis scores 0
    for i in (0, 2):
        s = metric.sentence_score(hyps.splitlines()[i], [refs[i]])
        assert lines[i] == pytest.approx([s.score, s.precision, s.recall], abs=1e-6)
        assert 0 < s.score < 1 and s.precision != s.recall
    assert _score(["blanc", "score", "--model", model, "--refs", str(ref), "--allow-empty", "--details", "--corpus"],
                  hyps.encode(), monkeypatch=monkeypatch) == 0
    c = metric.corpus_score(hyps.splitlines(), [[r] for r in refs])
    assert [float(x) for x in capsys.readouterr().out.split()] == pytest.approx([c.score, c.precision, c.recall],
                                                                                abs=1e-6)
    # without --allow-empty the same input is an error naming the line
    assert _score(["blanc", "score", "--model", model, "--refs", str(ref)], hyps.encode(), monkeypatch=monkeypatch) == 2
    assert "<stdin>:2: empty hypothesis" in capsys.readouterr().err


def test_correlate_pair_model_scores_each_pair_with_its_own_model(blanc_artifact, small_tsv, tmp_path, capsys):
    """--pair-model cs-en=DIR: cs-en's segments scored by that model, de-en's by --model; equal to
    correlating each pair's rows separately with its model."""
    from textqa.models.blanc.metric import BLANCParams
    from textqa.models.blanc.store import save_blanc
    other = tmp_path / "chrf-like"
    save_blanc(BLANCParams(size_weights=[], char_weights=[1.0] * 6, word_ngram_weights=[], beta_f=2.0), other,
               metrics={})
    model = str(blanc_artifact / "blanc")
    assert main(["eval", "correlate", "--tsv", str(small_tsv), "--model", model, "--pair-model", f"cs-en={other}",
                 "--metrics", "blanc", "--json"]) == 0
    mixed = json.loads(capsys.readouterr().out)["segment"]
    for lp, folder in (("cs-en", str(other)), ("de-en", model)):
        lines = small_tsv.read_text(encoding="utf-8").splitlines()
        one = tmp_path / f"{lp}.tsv"
        one.write_text("\n".join([lines[0]] + [l for l in lines[1:] if l.startswith(lp)]) + "\n", encoding="utf-8")
        assert main(["eval", "correlate", "--tsv", str(one), "--model", folder, "--metrics", "blanc", "--json"]) == 0
        assert mixed[lp]["blanc"] == pytest.approx(json.loads(capsys.readouterr().out)["segment"][lp]["blanc"],
                                                   abs=1e-12)
    assert mixed["cs-en"]["blanc"] != mixed["de-en"]["blanc"]
    for bad, message in ((["--pair-model", "cs-en"], "expected LANG_PAIR=DIR"),
                         (["--pair-model", f"xx-en={other}"], "xx-en not a language pair"),
                         (["--pair-model", f"cs-en={other}", "--level", "both"], "segment level only")):
        assert main(["eval", "correlate", "--tsv", str(small_tsv), "--model", model, *bad]) == 2
        assert message in capsys.readouterr().err
