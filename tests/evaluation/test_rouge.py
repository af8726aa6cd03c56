"""ROUGE against NIST's official ROUGE-1.5.5 output (DUC 2006) and golden outputs of the Perl
script for the other options (tests/fixtures/rouge/README.md says how they were made)."""
from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from textqa.cli import main
from textqa.evaluation import rouge, rouge_input, rouge_run
from textqa.runtime.paths import DATA_DIR

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "rouge"
NIST = ("-n", "4", "-w", "1.2", "-m", "-2", "4", "-u", "-c", "95", "-r", "1000", "-f", "A", "-p", "0.5",
        "-t", "0", "-d")


@pytest.fixture
def workdir(duc, tmp_path, monkeypatch) -> Path:
    """A directory laid out as the golden cases were run: peers/, models/, see/, isi/ and the configs."""
    for name, target in (("peers", duc / "peers"), ("models", duc / "models"), ("see", FIX / "see"),
                         ("isi", FIX / "isi"), ("lin2004", FIX / "lin2004")):
        (tmp_path / name).symlink_to(target)
    for f in FIX.glob("*.in"):
        (tmp_path / f.name).write_bytes(f.read_bytes())
    for f in FIX.glob("*.lst"):
        (tmp_path / f.name).write_bytes(f.read_bytes())
    monkeypatch.chdir(tmp_path)
    return tmp_path


def official_lines(duc: Path, peer: str) -> list[str]:
    return [line.rstrip("\n") for line in open(duc / "rougejk.m.out", encoding="latin-1")
            if line.split(" ", 1)[0] == peer]


@pytest.mark.parametrize("peer", ["1", "24", "A"])
def test_reproduces_nist_official_duc2006_output(duc, capsys, peer):
    """Every line NIST's ROUGE-1.5.5 printed for the peer (ROUGE-1..4, L, W-1.2 and SU4; 200
    jackknife Eval lines each and the averages with their 95% intervals) is printed identically."""
    assert main(["eval", "rouge", *NIST, str(duc / "rougejk.in"), peer, "--peer-root", str(duc / "peers"),
                 "--model-root", str(duc / "models")]) == 0
    out = [line for line in capsys.readouterr().out.splitlines() if not line.startswith(("---", "..."))]
    gold = official_lines(duc, peer)
    assert len(gold) > 100
    assert out == gold


def cases():
    for line in (FIX / "cases.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, args = line.split("\t")
            yield pytest.param(args.split(), id=name)


@pytest.mark.parametrize("args", list(cases()))
def test_golden_outputs_of_rouge_1_5_5(workdir, capsys, request, args):
    """stdout and stderr equal ROUGE-1.5.5.pl's for stopwords, length limits, -f B, -t 1/2, -U,
    -2 -1, -p/-c/-r, file lists (-z) and the SEE and ISI formats."""
    name = request.node.callspec.id
    assert main(["eval", "rouge", *args]) == 0
    got = capsys.readouterr()
    assert got.out == (FIX / "golden" / f"{name}.out").read_text(encoding="latin-1")
    assert got.err == (FIX / "golden" / f"{name}.err").read_text(encoding="latin-1")


def test_porter_stemmer_equals_rouges_on_every_duc_word():
    """ROUGE's Porter variant (step 4 tries -ement, -ment, -ent in turn) on 16,616 DUC 2006 words."""
    pairs = [line.split("\t") for line in gzip.open(FIX / "porter_golden.tsv.gz", "rt").read().splitlines()]
    assert len(pairs) > 16000
    wrong = [(w, s, rouge_input.porter_stem(w)) for w, s in pairs if rouge_input.porter_stem(w) != s]
    assert wrong == []
    # Porter (1980)'s own examples, and where ROUGE's step 4 departs from it
    for w, s in (("caresses", "caress"), ("ponies", "poni"), ("agreed", "agre"), ("hopping", "hop"),
                 ("relational", "relat"), ("conditional", "condit"), ("agreement", "agreem"),
                 ("yelling", "yell")):
        assert rouge_input.porter_stem(w) == s


def test_stemming_uses_wordnet_exceptions_before_porter():
    r = rouge_input.Resources.load()
    tok = rouge_input.Tokenizer(r, stem=True, remove_stopwords=False)
    # exception lists win (adv.exc is read after adj.exc: "better" is "well", not "good"); words of 3 letters are never stemmed
    assert tok.tokens("abetted better ran running") == ["abet", "well", "ran", "run"]
    assert rouge_input.Tokenizer(r, stem=False, remove_stopwords=True).tokens("the cat - on mats") == ["cat", "mats"]


def test_bootstrap_replays_perls_rand():
    """int(rand(200)) after srand(seed), as printed by perl 5.36 (`perl -e 'srand(7); ...'`)."""
    idx = rouge.perl_bootstrap_indices(200, 1000)
    assert idx[0, :8].tolist() == [34, 149, 19, 174, 115, 157, 138, 73]
    assert idx[1, :8].tolist() == [8, 90, 166, 67, 113, 0, 37, 198]
    assert idx[7, :8].tolist() == [53, 136, 53, 25, 98, 59, 31, 144]
    assert idx[999, :8].tolist() == [20, 127, 160, 185, 155, 107, 118, 82]


def test_lin_2004_worked_examples(workdir):
    """Lin (2004) section 3.2: r1 = w1..w5 against c1 = w1 w2 w6 w7 w8 and c2 = w1 w3 w8 w9 w5 has
    the union LCS w1 w2 w3 w5, so ROUGE-L recall 4/5.  Section 3.3: X = A..G against Y1 = A B C D H I K
    and Y2 = A H B K C I D.  The paper's ROUGE-W ranks Y1 above Y2; ROUGE-1.5.5 does not: it measures
    runs on the model's side only, where both LCSs are the run A B C D, and it weights the model's
    length twice (f(f(7)) = 49**2), so both get (16 / 49**2) ** (1/2) = 4/49.  textqa, a drop-in,
    does the same (the golden case ``lin2004`` is the Perl script's own output)."""
    o = rouge.Options(max_n=1, weight="2", per_eval=True)
    evals = rouge_input.read_file_list(Path("lin2004.lst"), "SPL", "X")
    res = {r.tag: r.per_eval for r in rouge_run.evaluate(evals, ["X"], o)}
    assert res["ROUGE-L"]["3.X"][0] == "0.80000"
    assert res["ROUGE-L"]["1.X"][0] == res["ROUGE-L"]["2.X"][0] == "0.57143"
    assert res["ROUGE-W-2"]["1.X"][0] == res["ROUGE-W-2"]["2.X"][0] == f"{(16 / 49 ** 2) ** 0.5:7.5f}"


@pytest.mark.parametrize("argv, message", [
    (["-l", "10", "-b", "10", "x.in", "1"], "not both"),
    (["-3", "HM", "x.in", "1"], "not supported"),
    (["-p", "2", "x.in", "1"], "between 0 and 1"),
    (["-w", "0", "x.in", "1"], "greater than 0"),
    (["-c", "101", "x.in", "1"], "within 0 and 100"),
    (["-n", "1", "x.in"], "system ID"),
])
def test_bad_options_are_errors_not_tracebacks(workdir, capsys, argv, message):
    (workdir / "x.in").write_text((FIX / "duc2006_8evals.in").read_text())
    assert main(["eval", "rouge", *argv]) == 2
    assert message in capsys.readouterr().err


def test_bad_configurations_name_the_file(workdir, capsys):
    (workdir / "broken.in").write_text("<ROUGE_EVAL>\n<EVAL ID='1'>\n<PEERS>\n</EVAL>\n")
    assert main(["eval", "rouge", "broken.in", "1"]) == 2
    assert "broken.in:" in capsys.readouterr().err
    (workdir / "bomb.in").write_text('<!DOCTYPE r [<!ENTITY a "aaaa">]><ROUGE_EVAL>&a;</ROUGE_EVAL>')
    assert main(["eval", "rouge", "bomb.in", "1"]) == 2
    assert "DOCTYPE" in capsys.readouterr().err
    (workdir / "missing.in").write_text((FIX / "duc2006_8evals.in").read_text().replace("D0601.M.250.A.B", "nope", 1))
    assert main(["eval", "rouge", "missing.in", "1"]) == 2
    assert "Cannot find model summary: models/nope" in capsys.readouterr().err
    (workdir / "short.lst").write_text("peers/D0601.M.250.A.1\n")
    assert main(["eval", "rouge", "-z", "SPL", "short.lst"]) == 2
    assert "short.lst:1:" in capsys.readouterr().err


def test_json_output(workdir, capsys):
    import json
    assert main(["eval", "rouge", "-n", "2", "-x", "-d", "duc2006_8evals.in", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    gold = (FIX / "golden" / "words.out").read_text()      # not the same options: only the shape here
    assert [d["measure"] for d in data] == ["ROUGE-1", "ROUGE-2"] and gold
    r1 = data[0]
    assert r1["recall_ci"][0] <= r1["recall"] <= r1["recall_ci"][1]
    assert len(r1["evaluations"]) == 8 and all(len(v) == 3 for v in r1["evaluations"].values())
    assert os.path.exists("duc2006_8evals.in")


def collapse(evals):
    """NIST's jackknifed evaluations folded back into one evaluation per topic with all its models."""
    topics = {}
    for e in evals:
        base = e.id.rsplit("-", 1)[0]
        t = topics.setdefault(base, rouge_input.Evaluation(base, e.fmt, e.peer_root, e.model_root))
        for pid, f in e.peers.items():
            t.peers.setdefault(pid, f)
        for m in e.models:
            if m not in t.models:
                t.models.append(m)
    for t in topics.values():
        t.models.sort()
    return list(topics.values())


def test_jackknife_rebuilds_nists_configuration(duc, tmp_path, capsys):
    nist = rouge_input.read_config(duc / "rougejk.in")
    rebuilt = rouge_input.jackknife(collapse(nist))
    assert [(e.id, e.peers, e.models) for e in rebuilt] == [(e.id, e.peers, e.models) for e in nist]
    # and through the command line: two topics with all four models, --jackknife
    xml = ['<ROUGE_EVAL version="1.5.5">']
    for t in collapse(nist)[:2]:
        xml.append(f'<EVAL ID="{t.id}"><PEER-ROOT>{duc / "peers"}</PEER-ROOT><MODEL-ROOT>{duc / "models"}</MODEL-ROOT>'
                   '<INPUT-FORMAT TYPE="SPL"></INPUT-FORMAT><PEERS>'
                   + "".join(f'<P ID="{p}">{f}</P>' for p, f in t.peers.items()) + "</PEERS><MODELS>"
                   + "".join(f'<M ID="{m}">{f}</M>' for m, f in t.models) + "</MODELS></EVAL>")
    (tmp_path / "topics.in").write_text("\n".join(xml + ["</ROUGE_EVAL>"]))
    assert main(["eval", "rouge", "--jackknife", "-n", "2", "-m", "-x", "-d", str(tmp_path / "topics.in"), "A"]) == 0
    evals = [l for l in capsys.readouterr().out.splitlines() if " Eval " in l]
    gold = set(official_lines(duc, "A"))
    assert len(evals) == 4 and all(l in gold for l in evals)     # A wrote for both topics: one Eval each, 2 measures
