"""A second class LM beside the default's: measured on dev and the news sets,
not kept.

The default decoder adds one class-based LM (600 classes over the 30,000 commonest LM tokens,
Brown et al. 1992 eq. 3) to the word LM.  Class LMs of other granularities see other regularities
(100 classes are close to parts of speech; 2,000 separate kinds of names), so this script adds the
class LM of a second artifact, trained with another ``--class-lm K`` on the same text (its word LM
is the default's, bit for bit), as a third model in the exact Python search: a state is then the
triple (word LM, class LM 1, class LM 2), and each candidate scores

    mu1 * (log10 P_1(c_1 | history) + log10 P_1(w | c_1)) + mu2 * (log10 P_2(c_2 | history) + log10 P_2(w | c_2))

beside the word LM, the OOV model and the phrase scores.  The C++ search takes one class LM, so
this runs the Python search (``TEXTQA_NATIVE_VITERBI=0``; about 20 s a setting for dev, WSJ and
the Reuters test split).  ``0.25,0`` is the default decoder (a check of the script).

    textqa train truecaser --class-lm 2000 --out /tmp/k2000/truecaser        # 4.3 minutes
    python dev/truecaser_two_class_lms.py /tmp/k2000/truecaser 0.25,0 0.25,0.1 0.25,0.2 0.15,0.15

prints, per pair of weights, dev accuracy and F1, WSJ accuracy and F1, Reuters test accuracy and F1.
"""
import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["TEXTQA_NATIVE_VITERBI"] = "0"        # the C++ search takes one class LM

from bench.truecaser import dev_sentences, score_cells, scoring_sets  # noqa: E402
from textqa.models.artifact import ArtifactError           # noqa: E402
from textqa.models.truecaser.store import load_truecaser    # noqa: E402


def weights(text: str) -> tuple[float, float]:
    try:
        mu1, mu2 = map(float, text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected two weights as MU1,MU2, got {text!r}") from None
    return mu1, mu2


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("second", type=Path, help="artifact trained with another --class-lm K")
    p.add_argument("weights", type=weights, nargs="+", metavar="MU1,MU2",
                   help="weights of the default's class LM and of the second one")
    p.add_argument("--model", type=Path, default=ROOT / "artifacts" / "truecaser", help="the default model")
    args = p.parse_args()
    try:
        from textqa.models.truecaser.experiments import ExperimentalTruecaser
        model, second = ExperimentalTruecaser.of(load_truecaser(args.model)), load_truecaser(args.second)
    except ArtifactError as e:
        p.error(str(e))
    mu2 = [0.0]
    sets = scoring_sets(dev_sentences())
    print("mu1 mu2 | dev acc, F1 | WSJ acc, F1 | Reuters test acc, F1")
    for mu1, mu2[0] in args.weights:
        model.set_params(class_lm_weight=mu1)
        model.extra_class_lms = [(second.class_lm_, second.classes_, mu2[0])] if mu2[0] > 0 else []
        t = time.perf_counter()
        print(mu1, mu2[0], "|", " ".join(score_cells(model, sets)), f"({time.perf_counter() - t:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
