"""SemEval-2015 Task 15 (Corpus Pattern Analysis) scores, as defined on the task's evaluation page.

Task 1: per category C, F_C = 2 P_C R_C / (P_C + R_C) with P_C = Correct_C / Retrieved_C and
R_C = Correct_C / Reference_C; categories averaged within each layer (syntax, semantics), layers
averaged per verb, verbs averaged.
Task 2: B-cubed (Bagga & Baldwin 1998; Amigó et al. 2009): per item, precision = share of the
items in its run cluster that share its gold cluster (the item itself included), recall the same
with gold and run swapped; averaged over items; F per verb; verbs averaged.
Task 3: slots aligned by name per pattern: filled in both = match (correct when the semantic types
are equal, else substitution; partial credit 0.5 when the gold type is a hypernym of the run type,
0.25 when the run type is a hypernym of the gold type, the rest 1 - credit counted as
substitution), gold only = deletion, run only = insertion; P = C/(C+S+I), R = C/(C+S+D), F per verb,
verbs averaged.

Choices where the page is silent: verbs are averaged over the verbs of the run that the gold
has (``as_official`` divides by every gold verb instead, a missing verb scoring 0); a layer's
categories are those of the gold or the run (a category only the run uses scores F = 0); a
category or verb with no counts has F = 0.

``as_official=True`` reproduces the official scorer's known deviations from the page:
task 1 counts a wrong label as retrieved for the *gold* category; task 3's partial credit never
fires (a key-type bug in the scorer); the final average divides by every gold verb.
"""
from __future__ import annotations

from collections import Counter, defaultdict

from textqa.errors import InputError
from textqa.runtime.files import tsv_rows as _rows


def f_measure(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def _read_nested(path, what: str, keys, duplicate) -> dict:
    """Four-field lines -> {verb: {group: {key: value}}}; ``keys`` orders the fields as
    (verb, group, key, value); ``duplicate`` words the error for a key given twice."""
    out: dict = defaultdict(lambda: defaultdict(dict))
    for lineno, parts in _rows(path, 4, what):
        verb, group, key, value = keys(parts)
        if key in out[verb][group]:
            raise InputError(f"{path}:{lineno}: {duplicate(verb, group, key)}")
        out[verb][group][key] = value
    return out


def read_task1(path) -> dict:
    """``verb<TAB>item<TAB>layer<TAB>label`` -> {verb: {layer: {item: label}}}."""
    return _read_nested(path, "verb, item, layer, label", lambda p: (p[0], p[2], p[1], p[3]),
                        lambda v, g, k: f"item {k!r} of verb {v!r} labelled twice in layer {g!r}")


def read_task2(path) -> dict:
    """``verb<TAB>instance<TAB>cluster`` -> {verb: {instance: cluster}}."""
    out: dict = defaultdict(dict)
    for lineno, (verb, inst, cluster) in _rows(path, 3, "verb, instance, cluster"):
        if inst in out[verb]:
            raise InputError(f"{path}:{lineno}: instance {inst!r} of verb {verb!r} listed twice")
        out[verb][inst] = cluster
    return out


def read_task3(path) -> dict:
    """``verb<TAB>pattern<TAB>slot<TAB>semantic_type`` -> {verb: {pattern: {slot: type}}}."""
    return _read_nested(path, "verb, pattern, slot, semantic type", lambda p: tuple(p),
                        lambda v, g, k: f"slot {k!r} of pattern {g!r} filled twice")


def read_hierarchy(path) -> dict[str, str]:
    """``type<TAB>parent`` -> {type: parent}."""
    parents = {}
    for _, (t, parent) in _rows(path, 2, "type, parent"):
        parents[t] = parent
    return parents


def is_hypernym(a: str, b: str, parents: dict[str, str]) -> bool:
    """True when ``a`` is a proper ancestor of ``b`` in the type hierarchy."""
    seen = set()
    while b in parents and b not in seen:
        seen.add(b)
        b = parents[b]
        if b == a:
            return True
    return False


def _average_verbs(per_verb: dict, gold_verbs, as_official: bool) -> float:
    denominator = len(gold_verbs) if as_official else len(per_verb)
    return sum(per_verb.values()) / denominator if denominator else 0.0


def score_task1(gold: dict, run: dict, as_official: bool = False) -> dict:
    per_verb = {}
    detail = {}
    for verb in sorted(set(run) & set(gold)):
        layer_scores = {}
        for layer in sorted(gold[verb]):
            g, r = gold[verb][layer], run[verb].get(layer, {})
            correct, retrieved = defaultdict(int), defaultdict(int)
            reference = Counter(g.values())
            for item, label in r.items():
                gl = g.get(item)
                if gl == label:
                    correct[label] += 1
                    retrieved[label] += 1
                elif as_official and gl is not None:
                    retrieved[gl] += 1          # official scorer: the error is booked to the gold category
                else:
                    retrieved[label] += 1
            cats = set(reference) | set(retrieved)
            fs = {c: f_measure(correct[c] / retrieved[c] if retrieved[c] else 0.0,
                               correct[c] / reference[c] if reference[c] else 0.0) for c in cats}
            layer_scores[layer] = sum(fs.values()) / len(fs) if fs else 0.0
        per_verb[verb] = sum(layer_scores.values()) / len(layer_scores) if layer_scores else 0.0
        detail[verb] = {"score": per_verb[verb], "layers": layer_scores}
    return {"score": _average_verbs(per_verb, gold, as_official), "verbs": detail}


def bcubed(gold: dict[str, str], run: dict[str, str]) -> tuple[float, float]:
    """B-cubed precision and recall over the items of ``gold`` (an item missing from the run is a singleton)."""
    run = {i: run.get(i, ("__singleton__", i)) for i in gold}
    g_clusters, r_clusters = defaultdict(set), defaultdict(set)
    for i, c in gold.items():
        g_clusters[c].add(i)
    for i, c in run.items():
        r_clusters[c].add(i)
    p = sum(len(r_clusters[run[i]] & g_clusters[gold[i]]) / len(r_clusters[run[i]]) for i in gold) / len(gold)
    r = sum(len(r_clusters[run[i]] & g_clusters[gold[i]]) / len(g_clusters[gold[i]]) for i in gold) / len(gold)
    return p, r


def score_task2(gold: dict, run: dict, as_official: bool = False) -> dict:
    per_verb, detail = {}, {}
    for verb in sorted(set(run) & set(gold)):
        p, r = bcubed(gold[verb], run[verb])
        per_verb[verb] = f_measure(p, r)
        detail[verb] = {"precision": p, "recall": r, "f": per_verb[verb]}
    return {"score": _average_verbs(per_verb, gold, as_official), "verbs": detail}


def score_task3(gold: dict, run: dict, parents: dict[str, str] | None = None, as_official: bool = False) -> dict:
    parents = parents or {}
    per_verb, detail = {}, {}
    for verb in sorted(set(run) & set(gold)):
        C = S = D = I = 0.0
        for pattern in set(gold[verb]) | set(run[verb]):
            g, r = gold[verb].get(pattern, {}), run[verb].get(pattern, {})
            for slot in set(g) | set(r):
                if slot in g and slot in r:
                    if g[slot] == r[slot]:
                        credit = 1.0
                    elif as_official:
                        credit = 0.0            # official scorer: partial credit never fires
                    elif is_hypernym(g[slot], r[slot], parents):
                        credit = 0.5
                    elif is_hypernym(r[slot], g[slot], parents):
                        credit = 0.25
                    else:
                        credit = 0.0
                    C += credit
                    S += 1.0 - credit
                elif slot in g:
                    D += 1
                else:
                    I += 1
        p = C / (C + S + I) if C + S + I else 0.0
        r_ = C / (C + S + D) if C + S + D else 0.0
        per_verb[verb] = f_measure(p, r_)
        detail[verb] = {"correct": C, "substitutions": S, "deletions": D, "insertions": I,
                        "precision": p, "recall": r_, "f": per_verb[verb]}
    return {"score": _average_verbs(per_verb, gold, as_official), "verbs": detail}
