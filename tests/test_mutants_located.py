"""Every mutant of ``dev/mutants.py`` still finds its text, exactly once, in the file it names: a
move or an edit of guarded code cannot leave a mutant pointing at nothing (``make mutants`` then
checks that each one is killed)."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_mutant_text_occurs_once_in_its_file():
    spec = importlib.util.spec_from_file_location("mutants", ROOT / "dev" / "mutants.py")
    mutants = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mutants)
    assert len(mutants.MUTANTS) >= 126
    lost = [(name, path, (ROOT / path).read_text(encoding="utf-8").count(old) if (ROOT / path).is_file() else None)
            for name, path, old, _new, _tests in mutants.MUTANTS
            if not (ROOT / path).is_file() or (ROOT / path).read_text(encoding="utf-8").count(old) != 1]
    assert not lost, lost
    names = [m[0] for m in mutants.MUTANTS]
    assert len(names) == len(set(names))
