"""MASI and Krippendorff's alpha: the paper's examples, hand cases, and NLTK on real DUC 2006 data."""
from fractions import Fraction

import pytest
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import binary_distance, jaccard_distance, masi_distance

from textqa.evaluation.agreement import DISTANCES, jaccard, krippendorff_alpha, masi, monotonicity, read_agreement_tsv
from textqa.errors import InputError
from textqa.runtime.paths import DATA_DIR

F = frozenset
AGREE = DATA_DIR / "eval" / "agreement"
NLTK_DISTANCE = {"nominal": binary_distance, "jaccard": jaccard_distance, "masi": masi_distance}


def test_monotonicity_terms():
    assert monotonicity(F("ab"), F("ab")) == 1
    assert monotonicity(F("a"), F("ab")) == pytest.approx(2 / 3)
    assert monotonicity(F("ab"), F("bc")) == pytest.approx(1 / 3)
    assert monotonicity(F("a"), F("b")) == 0
    assert masi(F(), F()) == 1 and masi(F(), F("a")) == 0 and jaccard(F(), F()) == 1


def test_paper_figure_2_reproduces():
    # Passonneau 2006 figure 2: mean Jaccard 5/9, mean MASI 10/27 (coding unit kept in the sets)
    a3 = [F("xy"), F("xy"), F("x")]
    a4 = [F("xyz")] * 3
    assert sum(jaccard(p, q) for p, q in zip(a3, a4)) / 3 == pytest.approx(5 / 9)
    assert sum(masi(p, q) for p, q in zip(a3, a4)) / 3 == pytest.approx(10 / 27)


def test_paper_figure_3_partly_reproduces():
    # The paper gives mean Jaccard 4/9 (reproduced) and mean MASI 6/27; its column values
    # (J = 1/3, 2/3, 1/3) do not match its own sets, and the sets give MASI 7/27.
    a3 = [F("xy"), F("xy"), F("z")]
    a4 = [F("x"), F("yz"), F("yz")]
    mean_j = sum(Fraction(len(p & q), len(p | q)) for p, q in zip(a3, a4)) / 3
    assert mean_j == Fraction(4, 9)
    assert sum(masi(p, q) for p, q in zip(a3, a4)) / 3 == pytest.approx(7 / 27)


def test_paper_table_1_spans_does_not_reproduce():
    # Figure 4's span matrix; the paper reports nominal 0, Jaccard -.44, MASI .14.
    # Computed: nominal -4/9 (every unit disagrees); Jaccard and MASI as NLTK computes them (-0.238, -0.327).
    fig4 = [F("1234")] * 4 + [F("57"), F("6"), F("57")]
    data = [("A1", i, s) for i, s in enumerate(fig4)] + [("A2", i, F("1234567")) for i in range(7)]
    assert krippendorff_alpha(data, "nominal")["alpha"] == pytest.approx(-4 / 9)
    for distance in ("jaccard", "masi"):       # the values we get are NLTK's (its AnnotationTask, same data)
        theirs = AnnotationTask(data=data, distance=NLTK_DISTANCE[distance]).alpha()
        assert krippendorff_alpha(data, distance)["alpha"] == pytest.approx(theirs, abs=1e-12)
    assert AnnotationTask(data=data, distance=masi_distance).alpha() != pytest.approx(0.14, abs=0.01)


def test_hand_computed_alpha_with_missing_values():
    # 3 coders, unit u3 coded once (not pairable), nominal labels
    data = [("a", "u1", F("x")), ("b", "u1", F("x")), ("c", "u1", F("y")),
            ("a", "u2", F("y")), ("b", "u2", F("y")), ("a", "u3", F("x"))]
    # pairable values: x,x,y | y,y -> n = 5; Do = (2*1*2/(3*2))*3/5 = 0.4; De = 2*2*3/(5*4) = 0.6
    r = krippendorff_alpha(data, "nominal")
    assert r["alpha"] == pytest.approx(1 - 0.4 / 0.6) and r["pairable_units"] == 2 and r["units"] == 3
    perfect = [("a", u, F(u)) for u in "pqr"] + [("b", u, F(u)) for u in "pqr"]
    assert krippendorff_alpha(perfect, "masi")["alpha"] == 1.0


@pytest.mark.parametrize("distance", ["nominal", "jaccard", "masi"])
def test_equals_nltk_on_duc2006(distance):
    """Through the public API (textqa.metrics), as users and the command compute it."""
    from textqa.metrics import KrippendorffAlpha
    data = read_agreement_tsv(AGREE / "duc2006_D0631_peer_scus.tsv")
    ours = KrippendorffAlpha(distance).score(data)
    theirs = AnnotationTask(data=data, distance=NLTK_DISTANCE[distance]).alpha()
    assert ours.alpha == pytest.approx(theirs, abs=1e-9)
    assert ours.coders == 2 and ours.units == 11


def test_equals_nltk_on_artstein_poesio():
    from textqa.metrics import KrippendorffAlpha
    data = read_agreement_tsv(AGREE / "artstein_poesio_example.txt")
    ours = KrippendorffAlpha("nominal").score([(c, u, set(x)) for c, u, x in data]).alpha
    assert ours == pytest.approx(AnnotationTask(data=data).alpha(), abs=1e-9)


def test_distances_match_nltk_pairwise():
    sets = [F(), F("a"), F("ab"), F("abc"), F("bc"), F("d")]
    for p in sets[1:]:
        for q in sets[1:]:
            assert DISTANCES["masi"](p, q) == pytest.approx(masi_distance(set(p), set(q)), abs=1e-12)
            assert DISTANCES["jaccard"](p, q) == pytest.approx(jaccard_distance(set(p), set(q)), abs=1e-12)


def test_tsv_errors(tmp_path):
    f = tmp_path / "a.tsv"
    f.write_text("a\tu1\tx\nb\tu1\n")
    with pytest.raises(InputError, match=r"a.tsv:2: expected"):
        read_agreement_tsv(f)
    f.write_text("a\tu1\tx\na\tu1\ty\n")
    with pytest.raises(InputError, match=r"a.tsv:2: coder 'a' already coded unit 'u1' at line 1"):
        read_agreement_tsv(f)
