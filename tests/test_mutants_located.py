"""Every mutant of ``dev/mutants.py`` still finds its pattern, exactly once, inside the function it
names, and its mutated file still parses: a move or an edit of guarded code cannot leave a mutant
pointing at nothing (``make mutants`` then checks that each one is killed)."""
import ast
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _mutants():
    spec = importlib.util.spec_from_file_location("mutants", ROOT / "dev" / "mutants.py")
    mutants = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mutants)
    return mutants


def test_every_mutant_pattern_occurs_once_in_its_function():
    mutants = _mutants()
    assert len(mutants.MUTANTS) >= 126
    lost, broken = [], []
    for name, target, old, new, _tests in mutants.MUTANTS:
        if not (ROOT / target.partition("::")[0]).is_file():
            lost.append((name, target, None))
            continue
        path, text, found = mutants.locate(ROOT, target, old)
        if len(found) != 1:
            lost.append((name, target, len(found)))
            continue
        changed = mutants.mutated(text, found[0], old, new)
        if changed == text:
            broken.append((name, "no change"))
        elif path.suffix == ".py":
            try:
                ast.parse(changed)
            except SyntaxError as e:
                broken.append((name, str(e)))
    assert not lost, lost
    assert not broken, broken
    names = [m[0] for m in mutants.MUTANTS]
    assert len(names) == len(set(names))
    python = [t for _, t, *_ in mutants.MUTANTS if t.partition("::")[0].endswith(".py")]
    assert sum("::" in t for t in python) >= len(python) - 2       # all but module-level code name a function


def test_a_moved_and_reindented_pattern_is_still_found_and_mutated_in_place():
    """Synthetic source (made up for this test): the pattern written for a method at one depth finds
    the same code after it moved into a nested function, re-wrapped, and the replacement lands at the
    new indentation."""
    mutants = _mutants()
    pattern, replacement = "        if chrf:\n            fix(out)", "        if False:\n            fix(out)"
    source = ("class A:\n    def f(self, out, chrf):\n        def inner():\n            if chrf:\n"
              "                fix(out)\n        return inner\n")
    regex = mutants.pattern_regex(pattern)
    scope = mutants.definitions(source)["A.f.inner"]
    assert scope == (3, 5)
    match = regex.search(source)
    changed = mutants.mutated(source, match, pattern, replacement)
    assert "            if False:\n                fix(out)\n" in changed
    ast.parse(changed)
    assert regex.search("if chrf:   fix(out)")                     # white space between words is free
    assert not regex.search("if chrf: fix(outs)")
