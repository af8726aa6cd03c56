"""A successful ``textqa train truecaser`` run on small real data: overlap removal, the dev report
(recomputed from the saved artifact), the dev perplexity, and the KenLM binary branch."""
import argparse
import json
import math

import pytest

from textqa.evaluation.truecase import score_truecase
from textqa.models.truecaser import lm as lmmod
from textqa.models.truecaser.store import load_truecaser
from textqa.training.corpus import HeldoutOverlap, drop_heldout_paragraphs, drop_overlap, normalize_for_overlap


def test_drop_overlap_by_hand():
    dev = ["The United States -LRB- U.S. -RRB- signed the treaty in 1991 .", "It rained ."]
    train = ["the united states ( u.s. ) signed the treaty in 1991",      # same after normalisation: dropped
             "THE UNITED STATES, U.S., SIGNED THE TREATY IN 1991!",       # dropped
             "The United States signed the treaty in 1992 .",             # one digit differs: kept
             "it rained",                                                  # equal, but under 30 characters: kept
             "Café society met in Paris in the summer of 1920 ."]
    kept, dropped = drop_overlap(train, dev + ["Cafe society met in Paris in the summer of 1920"])
    assert dropped == 3 and kept == [train[2], train[3]]
    assert normalize_for_overlap("-LRB- Café , 12 -RRB-") == "cafe12"


def _brute_touches(text: str, heldout: list[str], min_chars: int = 30, window: int = 50) -> bool:
    """data/truecase/SOURCES.md's two checks, written out: a whole held-out sentence (of ``min_chars``
    or more) inside the text, or any ``window`` characters in common, after normalisation."""
    t = normalize_for_overlap(text)
    for k in (normalize_for_overlap(h) for h in heldout):
        if len(k) < min_chars:
            continue
        if k in t or any(k[j:j + window] in t for j in range(len(k) - window + 1)):
            return True
    return False


def test_heldout_overlap_by_hand():
    dev = ["The 1896 Summer Olympics , officially known as the Games of the I Olympiad , was held in Athens .",
           "Paris is the capital of France ; it rained ."]           # 33 characters: checked whole only
    overlap = HeldoutOverlap(dev)
    assert overlap.touches("In 1896 the Summer Olympics, officially known as the Games of the I Olympiad, "
                           "were a success.")                     # an edited version: 50 characters shared
    assert overlap.touches("Summer Olympics, officially known as the Games of the I Olympiad")        # 53
    assert not overlap.touches("The Olympics, officially known as the Games of the I Olympiad.")      # 47
    assert overlap.touches("He said that Paris is the capital of France; it rained all day.")
    assert not overlap.touches("Paris is the capital of France; it snowed.")
    assert not HeldoutOverlap(["It rained ."]) and not HeldoutOverlap(["It rained ."]).touches("It rained.")


def test_heldout_overlap_equals_brute_force():
    """The block index finds exactly what comparing every window finds, on real dev sentences and on
    training-like texts that repeat a random stretch of one (of every length around the thresholds,
    at every offset), or none."""
    import random
    from bench.truecaser import dev_sentences
    rng = random.Random(5)
    dev = rng.sample(dev_sentences(), 60)
    overlap = HeldoutOverlap(dev)
    filler = "the river flows north through several small towns before it reaches the sea".split()
    texts = []
    for _ in range(400):
        d = normalize_for_overlap(rng.choice(dev))
        n = rng.choice([25, 29, 30, 31, 45, 49, 50, 51, 60, len(d)])
        start = rng.randrange(0, max(1, len(d) - n + 1))
        left = " ".join(rng.choices(filler, k=rng.randrange(0, 12)))
        right = " ".join(rng.choices(filler, k=rng.randrange(0, 12)))
        texts.append(f"{left} {d[start:start + n]} {right}")
    texts += [" ".join(rng.choices(filler, k=30)) for _ in range(50)]
    got = [overlap.touches(t) for t in texts]
    assert got == [_brute_touches(t, dev) for t in texts]
    assert 100 < sum(got) < 400                               # both kinds occur


def test_drop_heldout_paragraphs_drops_whole_paragraphs():
    dev = ["According to the United States Census Bureau , the town has a total area of 5.2 square miles ."]
    paras = [["The town was founded in 1850 .", "According to the Census Bureau, the town has a total area of 3 "
              "square miles ."],                                  # 46 shared characters: kept
             ["It grew .", "According to the United States Census Bureau , the town has a total area of 9.1 square "
              "miles .", "It is small ."],                         # dropped, with its two other sentences
             ["Nothing here ."]]
    kept, dropped = drop_heldout_paragraphs(paras, dev)
    assert kept == paras[0] + paras[2] and dropped == 3


@pytest.fixture(scope="module")
def trained(wiki_sentences, dev_sentences, tmp_path_factory):
    """Train on 3,000 real Wikipedia sentences plus 40 planted dev sentences; dev = 300 real dev sentences."""
    from textqa.training.truecaser import add_arguments, run
    folder = tmp_path_factory.mktemp("tc-train")
    dev = dev_sentences[:300]
    planted = dev[:40]
    (folder / "train.txt").write_text("\n".join(wiki_sentences[:3000] + planted) + "\n", encoding="utf-8")
    (folder / "dev.txt").write_text("\n".join(dev) + "\n", encoding="utf-8")
    p = argparse.ArgumentParser()
    add_arguments(p)
    args = p.parse_args(["--data", str(folder / "train.txt"), "--pretokenized", "--dev", str(folder / "dev.txt"),
                         "--no-cache", "--jobs", "1", "--artifacts", str(folder / "artifacts")])
    assert run(args) == 0
    return folder / "artifacts" / "truecaser", dev


def test_planted_dev_sentences_are_dropped(trained, wiki_sentences):
    path, dev = trained
    metrics = json.loads((path / "manifest.json").read_text())["metrics"]
    natural = sum(normalize_for_overlap(s) in {normalize_for_overlap(d) for d in dev} for s in wiki_sentences[:3000])
    assert natural == 0                                  # so every drop below is a planted sentence
    assert metrics["training_sentences_dropped_dev_overlap"] == 40
    assert metrics["training_sentences"] == 3000


def test_dev_report_is_reproduced_by_the_saved_model(trained):
    path, dev = trained
    metrics = json.loads((path / "manifest.json").read_text())["metrics"]
    model = load_truecaser(path)
    assert model.fold_accents is True                    # the CLI's default, kept in the artifact
    lower = [s.lower() for s in dev]
    viterbi = score_truecase(dev, model.predict(lower))
    baseline = score_truecase(dev, model.baseline_.predict(lower))
    assert metrics["dev_sentences"] == 300 and metrics["dev_tokens"] == viterbi.tokens
    for name, s in (("viterbi", viterbi), ("unigram_baseline", baseline)):
        for k in ("accuracy", "precision", "recall", "f1"):
            assert metrics[name][k] == pytest.approx(round(getattr(s, k), 2), abs=1e-9), (name, k)
    assert metrics["viterbi"]["f1"] > metrics["unigram_baseline"]["f1"]
    assert metrics["decode_tokens_per_second"] > 0


def test_dev_perplexity_from_kenlm_full_scores(trained):
    """Perplexity = 10^(-sum log10 P / (tokens + </s>)), words the model does not know as their UNKNOWN class token."""
    from textqa.models.truecaser.casing import NONE, UNKNOWN_TOKENS, case_class
    from textqa.models.truecaser.vocabulary import UNKNOWN_NONE
    path, dev = trained
    model = load_truecaser(path)
    known = {f for forms in model.casing_.forms.values() for f, _ in forms}
    total, n = 0.0, 0
    for s in dev:
        toks = [t if t in known else (UNKNOWN_NONE if case_class(t) == NONE else UNKNOWN_TOKENS[case_class(t)])
                for t in s.split()]
        total += sum(logp for logp, _, _ in model.lm_.full_scores(" ".join(toks)))
        n += len(toks) + 1
    expected = 10 ** (-total / n)
    reported = json.loads((path / "manifest.json").read_text())["metrics"]["dev_perplexity"]
    assert reported == pytest.approx(round(expected, 2), abs=1e-9)
    assert 10 < reported < 10_000 and math.isfinite(reported)


def test_the_kenlm_binary_branch_ran(trained):
    """make builds KenLM's build_binary; with it, the artifact holds the mmap binary LM, not ARPA."""
    path, _ = trained
    assert lmmod.find_build_binary() is not None, "build_binary missing: run 'make venv'"
    assert (path / "lm.binary").is_file() and not (path / "lm.arpa").exists()
    assert (path / "lm.binary").read_bytes()[:6] != b"\n\\data"          # not an ARPA text file
    manifest = json.loads((path / "manifest.json").read_text())
    assert "lm.binary" in json.dumps(manifest["files"])


def test_arpa_fallback_is_reported(wiki_sentences, tmp_path, monkeypatch, caplog):
    from textqa.models.truecaser.model import Truecaser
    monkeypatch.setattr(lmmod, "find_build_binary", lambda: None)
    with caplog.at_level("WARNING"):
        tc = Truecaser(oov_model="none", work_dir=str(tmp_path)).fit(wiki_sentences[:500])
    assert tc.lm_path_.endswith(".arpa") and "build_binary not found" in caplog.text


def test_reuters_test_documents_are_never_trained_on():
    """Lewis's test split (LEWISSPLIT="TEST", the ModApte test set) of the real Reuters-21578 file
    reut2-014 (177 test and 823 training documents) is held out of training text."""
    from textqa.runtime.paths import DATA_DIR
    from textqa.training.corpus import paragraphs, reuters_paragraphs
    path = DATA_DIR / "truecase" / "reuters21578" / "reut2-014.sgm.gz"
    train, test, both = (list(reuters_paragraphs(path, split=s)) for s in ("train", "test", "all"))
    assert len(train) == 2009 and len(test) == 989 and sorted(train + test) == sorted(both)
    # (some stories were filed twice, once in each split: bench.truecaser drops such test sentences)
    assert list(paragraphs(path)) == train                                # training's default
    with pytest.raises(ValueError, match="split"):
        list(reuters_paragraphs(path, split="dev"))


def test_training_writes_the_dev_plots_into_the_artifact(trained, assert_plots):
    """The confusion heat map and F1 by frequency band are PNGs in the artifact, checksummed."""
    assert_plots(trained[0], ("confusion.png", "f1_by_frequency.png"))


def test_scores_by_frequency_band_add_up_to_the_whole():
    from textqa.evaluation.truecase import score_by_frequency
    gold = ["The Cat saw Paris .", "NASA flew ."]
    pred = ["The cat saw Paris .", "Nasa flew ."]
    freq = {"the": 50, "cat": 3, "saw": 12, "paris": 0, ".": 1000, "nasa": 0, "flew": 5}
    bands = dict(score_by_frequency(gold, pred, freq.get))
    whole = score_truecase(gold, pred)
    assert sum(b.tokens for b in bands.values()) == whole.tokens == 8
    assert sum(b.correct_cased for b in bands.values()) == whole.correct_cased
    assert bands["unseen"].tokens == 2 and bands["unseen"].gold_cased == 2 and bands["unseen"].correct_cased == 1
    assert bands["1-9"].gold_cased == 1 and bands["1-9"].correct_cased == 0        # "Cat" missed
    assert bands["1,000-9,999"].tokens == 2 and "10,000+" in bands


def small_training_run(wiki_sentences, dev_sentences, tmp_path):
    """The parser of ``textqa train truecaser``, arguments training on 3,000 real Wikipedia sentences
    and scoring on 300 dev sentences (written under ``tmp_path``), and those dev sentences."""
    from textqa.training.truecaser import add_arguments
    dev = dev_sentences[:300]
    (tmp_path / "train.txt").write_text("\n".join(wiki_sentences[:3000]) + "\n", encoding="utf-8")
    (tmp_path / "dev.txt").write_text("\n".join(dev) + "\n", encoding="utf-8")
    p = argparse.ArgumentParser()
    add_arguments(p)
    return p, ["--data", str(tmp_path / "train.txt"), "--pretokenized", "--dev", str(tmp_path / "dev.txt"),
               "--no-cache", "--jobs", "1"], dev


def test_an_order_4_lm_is_trained_saved_and_decoded_exactly(wiki_sentences, dev_sentences, tmp_path, monkeypatch):
    """``--order 4``: the artifact's LM is a 4-gram model, and the C++ and Python
    searches (both recombining on KenLM's state, now three words long) give the same output."""
    from textqa.training.truecaser import run
    p, base, dev = small_training_run(wiki_sentences, dev_sentences, tmp_path)
    with pytest.raises(SystemExit, match="deleted interpolation .* is a trigram model"):
        run(p.parse_args(base + ["--order", "4", "--smoothing", "deleted_interpolation", "--out", str(tmp_path / "di")]))
    assert not (tmp_path / "di").exists()
    assert run(p.parse_args(base + ["--order", "4", "--out", str(tmp_path / "tc4")])) == 0
    manifest = json.loads((tmp_path / "tc4" / "manifest.json").read_text())
    assert manifest["hyper_parameters"]["order"] == 4 and manifest["lm"]["order"] == 4
    assert sorted(manifest["ngram_counts"]) == ["1", "2", "3", "4"] and manifest["ngram_counts"]["4"] > 50_000
    assert manifest["lm"]["prune"] == [0, 0, 1, 1]            # the default: orders 3 and up seen once
    assert manifest["lm"]["kept"]["4"] < manifest["ngram_counts"]["4"] / 2
    model = load_truecaser(tmp_path / "tc4")
    assert model.lm_.order == 4
    lowered = [s.lower() for s in dev]
    monkeypatch.setattr(model, "search", "python")
    python = model.predict(lowered)
    monkeypatch.setattr(model, "search", "native")
    assert model.native_decoder() is not None and model.predict(lowered) == python
    assert manifest["metrics"]["viterbi"]["f1"] == pytest.approx(round(score_truecase(dev, python).f1, 2))
    assert manifest["metrics"]["viterbi"]["f1"] > manifest["metrics"]["unigram_baseline"]["f1"]


def test_a_pruned_lm_is_trained_saved_and_decoded_exactly(wiki_sentences, dev_sentences, tmp_path, monkeypatch):
    """``--prune`` (lmplz's count pruning, in the project's estimator): the artifact's LM lacks the
    bigrams seen once and the 3- and 4-grams seen at most twice, says so in its manifest, and both
    searches agree on it; bad thresholds are a one-line error that writes nothing."""
    from textqa.training.truecaser import run
    p, base, dev = small_training_run(wiki_sentences, dev_sentences, tmp_path)
    base += ["--order", "4"]
    for bad, error in ((["--prune", "1"], "unigrams cannot be pruned"), (["--prune", "0", "2", "1"], "non-decreasing"),
                       (["--prune", "0", "0", "1", "--order", "3", "--smoothing", "deleted_interpolation"],
                        "kneser_ney smoothing only")):
        with pytest.raises(SystemExit, match=error):
            run(p.parse_args(base + bad + ["--out", str(tmp_path / "bad")]))
        assert not (tmp_path / "bad").exists()
    assert run(p.parse_args(base + ["--prune", "0", "1", "2", "--out", str(tmp_path / "tc")])) == 0
    manifest = json.loads((tmp_path / "tc" / "manifest.json").read_text())
    assert manifest["hyper_parameters"]["prune"] == [0, 1, 2] and manifest["lm"]["prune"] == [0, 1, 2, 2]
    counted, kept = manifest["ngram_counts"], manifest["lm"]["kept"]
    assert kept["2"] < counted["2"] / 2 and kept["3"] < counted["3"] / 5 and kept["4"] < counted["4"] / 5
    model = load_truecaser(tmp_path / "tc")
    assert model.prune == [0, 1, 2] and model.lm_.order == 4
    lowered = [s.lower() for s in dev]
    monkeypatch.setattr(model, "search", "python")
    python = model.predict(lowered)
    monkeypatch.setattr(model, "search", "native")
    assert model.native_decoder() is not None and model.predict(lowered) == python
    assert manifest["metrics"]["viterbi"]["f1"] > manifest["metrics"]["unigram_baseline"]["f1"]


def test_the_default_model_has_a_class_lm_which_the_discriminative_pass_turns_off(trained, wiki_sentences,
                                                                                   dev_sentences, tmp_path, capsys):
    """``textqa train truecaser`` trains the class LM by default (600 classes, order 3, a quantised KenLM trie:
    the module's default training, ``trained``);
    ``--discriminative``, which cannot be combined with it, trains without it and says so, and asking
    for both is a one-line error.  The sentence-context model's settings reach the artifact (the
    defaults, C = 3 and |w| > 0.3 kept), as does the OOV model's default weight (2), and a bad value of
    any of them is a one-line error that writes nothing."""
    from textqa.models.truecaser.classes import DEFAULT_CLASSES
    from textqa.models.truecaser.context import DEFAULT_C, DEFAULT_MIN_WEIGHT
    from textqa.models.truecaser.model import DEFAULT_OOV_WEIGHT
    from textqa.training.truecaser import run
    p, base, dev = small_training_run(wiki_sentences, dev_sentences, tmp_path)
    default, _ = trained
    hp = json.loads((default / "manifest.json").read_text())["hyper_parameters"]
    assert (hp["class_lm"], hp["class_lm_order"], hp["class_lm_binary"]) == (DEFAULT_CLASSES, 3, "trie-q8")
    assert (hp["context_C"], hp["context_min_weight"]) == (DEFAULT_C, DEFAULT_MIN_WEIGHT) == (3.0, 0.3)
    assert hp["oov_weight"] == DEFAULT_OOV_WEIGHT == 2.0
    for bad, name in ((["--context-min-weight", "-1"], "context_min_weight"), (["--context-C", "0"], "context_C"),
                      (["--oov-weight", "nan"], "oov_weight"), (["--oov-weight", "-1"], "oov_weight")):
        with pytest.raises(SystemExit, match=f"{name} must be a finite number"):
            run(p.parse_args(base + bad + ["--out", str(tmp_path / "bad")]))
        assert not (tmp_path / "bad").exists()
    model = load_truecaser(default)
    assert model.class_lm_.order == 3 and model.scores().class_lm_active()
    assert run(p.parse_args(base + ["--discriminative", "local", "--out", str(tmp_path / "disc")])) == 0
    assert "training without the class LM, which --discriminative cannot be combined with" in capsys.readouterr().err
    assert json.loads((tmp_path / "disc" / "manifest.json").read_text())["hyper_parameters"]["class_lm"] == 0
    with pytest.raises(SystemExit, match="cannot be combined"):
        run(p.parse_args(base + ["--discriminative", "local", "--class-lm", "50", "--out", str(tmp_path / "both")]))
    assert not (tmp_path / "both").exists()


@pytest.mark.parametrize("name, cut", [("reut2-000.sgm.gz", 150_000), ("enwiki_part2.txt.xz", 3_000_000), ("noise.txt.gz", 0)])
def test_a_truncated_or_corrupt_compressed_corpus_is_a_one_line_error(name, cut, tmp_path, capsys):
    """A real training file cut short (a .gz Reuters file, the .xz Wikipedia part), or bytes that are
    no gzip stream, give ``textqa train truecaser`` a one-line error naming the file (exit status 2),
    not a traceback, and no artifact."""
    from textqa.cli import main
    from textqa.runtime.paths import DATA_DIR
    bad = tmp_path / name
    if cut:
        src = DATA_DIR / "truecase" / ("reuters21578/" + name if name.startswith("reut") else name)
        with open(src, "rb") as f:
            bad.write_bytes(f.read(cut))
    else:
        bad.write_bytes(b"not a gzip stream " * 100)     # synthetic: arbitrary bytes
    assert main(["train", "truecaser", "--data", str(bad), "--no-cache", "--out", str(tmp_path / "tc")]) == 2
    err = capsys.readouterr().err
    assert f"textqa: error: {bad}: truncated or corrupt compressed file" in err and "Traceback" not in err
    assert not (tmp_path / "tc").exists()
