"""The cased-phrase table (textqa.models.truecaser.phrases) and its place in the Viterbi search."""
import json
import math
from collections import Counter

import numpy as np
import pytest

from textqa.models.truecaser import phrase_counts as ph
from textqa.models.truecaser.phrases import PhraseTable

# A small synthetic corpus (made up for these tests, not real data).
SYNTHETIC = [
    "we read the Lord of the Rings again .",
    "she read The Lord of the Rings twice .",
    "a lord of the rings is not a king .",
    "they saw the Lord of the Rings films .",
    "Lord of the Rings starts a sentence here .",          # sentence starts are not counted
    "the Washington Post said so .",
    "the Washington Post said no .",
    "the washington post office is closed .",
]


def test_runs_are_capitalised_at_both_ends_and_not_at_a_sentence_start():
    runs = ph.run_counts(SYNTHETIC)
    assert runs["Lord of the Rings"] == 3          # the sentence-initial one is not counted
    assert runs["Washington Post"] == 2
    assert runs["The Lord"] == 1 and runs["The Lord of the Rings"] == 1
    assert "Lord of the" not in runs and "the Lord" not in runs           # last / first token lowercase
    assert all(2 <= k.count(" ") + 1 <= ph.MAX_N for k in runs)


def test_every_casing_of_a_kept_phrase_is_counted():
    table = PhraseTable.build(SYNTHETIC, min_count=2)
    assert set(table.to_data()["phrases"]) == {"lord of the rings", "washington post"}
    total, positions = table.positions("lord of the rings")
    assert total == 4 and positions == [{"Lord": 3, "lord": 1}, {"of": 4}, {"the": 4}, {"Rings": 3, "rings": 1}]
    assert table.positions("washington post") == (3, [{"Washington": 2, "washington": 1}, {"Post": 2, "post": 1}])
    assert table.positions("lord of the") is None


def reference_run_counts(sentences, max_n=ph.MAX_N):
    """The runs counted token by token, as the module's docstring defines them (the vectorised
    counting must give exactly these)."""
    counts = {}
    for toks in (s.split() for s in sentences):
        for i in range(1, len(toks) - 1):
            if toks[i][:1].isupper():
                for j in range(i + 1, min(i + max_n, len(toks))):
                    if toks[j][:1].isupper():
                        key = " ".join(toks[i:j + 1])
                        counts[key] = counts.get(key, 0) + 1
    return counts


def reference_variant_counts(sentences, keys, max_n=ph.MAX_N):
    counts = {}
    for toks in (s.split() for s in sentences):
        low = [t.lower() for t in toks]
        for i in range(1, len(toks) - 1):
            for j in range(i + 2, min(i + max_n, len(toks)) + 1):
                if " ".join(low[i:j]) in keys:
                    key = " ".join(toks[i:j])
                    counts[key] = counts.get(key, 0) + 1
    return counts


def test_the_counts_are_those_of_counting_token_by_token(wiki_sentences):
    runs = ph.run_counts(wiki_sentences)
    assert runs == reference_run_counts(wiki_sentences) and len(runs) > 1000
    keys = ph.phrase_keys(runs, 2) | {"united states", "of the", "not a key anywhere", "the"}
    variants = ph.variant_counts(wiki_sentences, keys)
    assert variants == reference_variant_counts(wiki_sentences, keys)
    assert variants["of the"] > 100 and any(k.islower() for k in variants)
    tokens = [s.split() for s in wiki_sentences[:500]]                      # token lists, as fit gives them
    assert ph.run_counts(tokens) == reference_run_counts(wiki_sentences[:500])
    assert ph.run_counts([]) == {} and ph.variant_counts([], keys) == {} and ph.variant_counts(tokens, frozenset()) == {}
    assert ph.run_counts(["A", "a B", "a B C"]) == {"B C": 1}


def test_the_counts_are_exact_when_the_row_hashes_collide(wiki_sentences, monkeypatch):
    """Windows are grouped by a 64-bit hash of their word ids, checked exact; with a multiplier of 0
    every row hashes to its last word id, and the exact fallback must give the same counts."""
    sentences = wiki_sentences[:3000]
    runs = reference_run_counts(sentences)
    keys = ph.phrase_keys(runs, 2)
    monkeypatch.setattr(ph, "HASH_P", 0)
    assert ph.run_counts(sentences) == runs
    assert ph.variant_counts(sentences, keys) == reference_variant_counts(sentences, keys)


def test_counting_in_parts_and_merging_gives_the_whole(wiki_sentences):
    """What ``textqa train truecaser --scheduler`` relies on: the two passes add up over partitions."""
    a, b = wiki_sentences[:len(wiki_sentences) // 3], wiki_sentences[len(wiki_sentences) // 3:]
    runs = ph.merge_counts(ph.run_counts(a), ph.run_counts(b))
    assert runs == ph.run_counts(wiki_sentences)
    keys = ph.phrase_keys(runs, 2)
    assert len(keys) > 200
    merged = PhraseTable.from_variants(ph.merge_counts(ph.variant_counts(a, keys), ph.variant_counts(b, keys)))
    assert merged.to_data() == PhraseTable.build(wiki_sentences, 2).to_data()


def test_the_longest_covering_phrase_wins_and_scores_are_smoothed_log_shares():
    table = PhraseTable.build(SYNTHETIC, min_count=1)
    assert table.positions("the lord of the rings") == (3, [{"the": 2, "The": 1}, {"Lord": 3}, {"of": 3}, {"the": 3},
                                                           {"Rings": 3}])
    low = "we saw the lord of the rings at the washington post .".split()
    cover = table.covering(low)
    assert [i for i, c in enumerate(cover) if c is None] == [0, 1, 7, 8, 11]
    assert cover[2] == (3, {"the": 2, "The": 1})           # "the lord of the rings" (5 tokens), not "the lord"
    assert cover[3] == (3, {"Lord": 3}) and cover[6] == (3, {"Rings": 3})
    assert cover[9] == (3, {"Washington": 2, "washington": 1})
    assert table.covering(["lord", "of", "the", "rings"])[0] is None          # a sentence's first token
    forms_of = lambda w: ["lord", "Lord"] if w == "lord" else [w]
    scores = table.scores(low, forms_of)
    # log10((n(f) + 1/2) / (N + k/2)) with N = 3 occurrences, k = 2 candidates
    assert scores[3] == pytest.approx([math.log10(0.5 / 4), math.log10(3.5 / 4)])
    assert list(scores) == [3]                                                # one candidate: no score
    assert table.scores(low, forms_of, weight=0.5) == {3: [0.5 * x for x in scores[3]]}
    # a form the table has never seen at that place scores as a count of 0; so does one it never saw at all
    odd = lambda w: ["the", "The", "THE"] if w == "the" else ["lord", "LORD"] if w == "lord" else [w]
    got = table.scores(low, odd)
    assert got[2] == pytest.approx([math.log10(2.5 / 4.5), math.log10(1.5 / 4.5), math.log10(0.5 / 4.5)])
    assert got[3] == pytest.approx([math.log10(0.5 / 4), math.log10(0.5 / 4)])
    # a batch of sentences: no phrase crosses from one into the next
    two = "she saw the washington".split() + "post today .".split()
    assert table.covering_keys(two, [0, 4, 7]) == [None] * 7
    assert table.covering_keys(two, [0, 7])[3:5] == [("washington post", 0), ("washington post", 1)]


def test_the_table_round_trips_through_json_and_rejects_junk():
    table = PhraseTable.build(SYNTHETIC, min_count=1)
    data = table.to_data()
    assert data["phrases"]["washington post"] == [3, [{"Washington": 2, "washington": 1}, {"Post": 2, "post": 1}]]
    again = PhraseTable.from_data(json.loads(json.dumps(data)))
    assert again.to_data() == data and again.max_n == table.max_n
    # the entry strings of formats 3 to 7 (every casing of the phrase, counted whole) read as the same table
    strings = PhraseTable.from_data({"max_n": table.max_n, "phrases": {
        "washington post": "3\tWashington Post\t2\twashington post\t1", "lord of the rings": "1\tLord of the Rings\t1"}})
    assert strings.positions("washington post") == table.positions("washington post")
    assert again.covering("we saw the lord of the rings .".split()) == table.covering("we saw the lord of the rings .".split())
    for junk in ({}, {"max_n": "five", "phrases": {}}, [], {"max_n": 5, "phrases": {"a b": 3}},
                 {"max_n": 5, "phrases": ["a b"]}, {"max_n": 99, "phrases": {}}, {"max_n": 5, "phrases": {"ab": "1\tAb\t1"}}):
        with pytest.raises(ValueError, match="not a phrase table"):
            PhraseTable.from_data(junk)
    # an entry that does not parse, or whose forms are not its phrase, is no phrase (never an exception)
    odd = PhraseTable.from_data({"max_n": 5, "phrases": {
        "a b": "x", "c d": "2\tC D", "e f": "2\tG H\t2", "k l": "-3\tK L\t-4", "m n": "1\tM N\t2",
        "o p": [1, [{"O": 1}]], "q r": [1, [{"Q": 1}, {"X": 1}]], "s t": [1, [{"S": 2}, {"T": 2}]],
        "u v": [1, [{"U": -1}, {"V": 1}]], "w x": [1, [{}, {"X": 1}]], "i j": "3\tI J\t3", "y z": [2, [{"Y": 1}, {"z": 1}]]}})
    keys = ("a b", "c d", "e f", "k l", "m n", "o p", "q r", "s t", "u v", "w x", "i j", "y z")
    assert [odd.positions(k) for k in keys] == [None] * 10 + [(3, [{"I": 3}, {"J": 3}]), (2, [{"Y": 1}, {"z": 1}])]
    assert odd.covering("x a b c d e f k l m n o p q r s t u v w x".split())[1:] == [None] * 20


def test_the_table_round_trips_through_arrays_and_rejects_junk(wiki_sentences, dev_sentences, tmp_path):
    """The artifact's form (arrays, no object per phrase at load) is the same table: the same entries,
    the same phrases found in real sentences, the same entry for any phrase asked for by name."""
    from textqa.models.artifact import load_arrays, save_arrays
    from textqa.models.truecaser.baseline import CasingTable
    table = PhraseTable.build(wiki_sentences[:3000], min_count=2)
    # the forms are stored as places in the casing table's forms, followed by those it lacks
    casing = CasingTable.from_counts(Counter(t for s in wiki_sentences[:2000] for t in s.split())).arrays()[1]
    meta, arrays = table.to_arrays(casing)
    assert meta["casing_forms"] == len(casing) and 0 < len(bytes(arrays["extra_forms"]).split(b"\n")) < len(casing)
    save_arrays(tmp_path / "p.npz", arrays)
    again = PhraseTable.from_arrays(json.loads(json.dumps(meta)), load_arrays(tmp_path / "p.npz"), casing)
    assert again.bound_to(casing) and not table.bound_to(casing)
    low = [t.lower() for s in dev_sentences[:300] for t in s.split()]
    assert again.covered(low) == table.covered(low) and len(table.covered(low)) > 20
    assert again.to_data() == table.to_data() and len(again) == len(table) > 400
    forms_of = lambda w: sorted({w, w.capitalize(), w.upper()})
    assert again.scores(low, forms_of) == table.scores(low, forms_of) and len(table.scores(low, forms_of)) > 20
    meta2, arrays2 = again.to_arrays(casing)                        # saved again: the same arrays
    assert meta2 == meta and all(np.array_equal(arrays2[k], arrays[k]) for k in arrays)
    with pytest.raises(ValueError, match="not a phrase table of this casing table"):
        PhraseTable.from_arrays(meta, arrays, casing[:-1])
    key = next(iter(table.to_data()["phrases"]))
    fresh = PhraseTable.from_arrays(meta, arrays, casing)           # a phrase asked for before any search
    assert fresh.positions(key) == table.positions(key) and fresh.positions("no such phrase") is None
    assert _covering_by_brute_force(fresh, low[:400]) == fresh.covering_keys(low[:400])
    # the search's hashes and filter are stored (read at load, not made): the same as made from the ids
    made = PhraseTable.from_arrays(meta, {k: v for k, v in arrays.items() if not k.startswith("search_")}, casing)
    assert made.covered(low) == again.covered(low)
    assert all(np.array_equal(made.search_arrays()[k], again.search_arrays()[k]) for k in made.search_arrays())
    swapped = arrays["search_index"].copy()
    swapped[[0, -1]] = swapped[[-1, 0]]                         # two phrases of different lengths swapped
    bad = [dict(arrays, search_index=swapped),
           dict(arrays, search_index=arrays["search_index"] + np.uint32(len(table))),
           dict(arrays, search_bits=arrays["search_bits"][:-1]),
           dict(arrays, search_hashes=arrays["search_hashes"][::-1].copy()),dict(arrays, ids=arrays["ids"] + np.uint32(len(table._words))),          # an id past the words
           dict(arrays, lengths=arrays["lengths"][:-1]),                           # one phrase short
           dict(arrays, ids=arrays["ids"].astype(np.int64)),
           dict(arrays, words=np.frombuffer(b"a b\nc", dtype=np.uint8)),
           dict(arrays, totals=arrays["totals"][:-1]), dict(arrays, totals=arrays["totals"] * 0),
           dict(arrays, pos_n=arrays["pos_n"][:-1]), dict(arrays, pos_n=arrays["pos_n"] * 0),
           dict(arrays, pos_forms=arrays["pos_forms"] + np.uint32(len(casing) + 10 ** 6)),
           dict(arrays, pos_counts=arrays["pos_counts"][:-1]), dict(arrays, pos_forms=arrays["pos_forms"].astype(np.int64))]
    for junk in bad:
        with pytest.raises(ValueError, match="not a phrase table"):
            PhraseTable.from_arrays(meta, junk, casing)
    with pytest.raises(ValueError, match="not a phrase table"):
        PhraseTable.from_arrays({"max_n": 5}, arrays, casing)
    # a token's forms out of order are found at the first scoring, not used
    swapped = PhraseTable.from_arrays(meta, dict(arrays, pos_forms=arrays["pos_forms"][::-1].copy()), casing)
    with pytest.raises(ValueError, match="not a phrase table"):
        swapped.scores(low, forms_of)


def test_the_entry_strings_of_formats_8_and_9_read_as_the_same_table(wiki_sentences):
    """Before format 10 each phrase's entry was stored as its string (every casing of the phrase with
    its count); such arrays are parsed into the same per-position counts."""
    variants = ph.variant_counts(wiki_sentences[:3000], ph.phrase_keys(ph.run_counts(wiki_sentences[:3000]), 2))
    table = PhraseTable.from_variants(variants)
    grouped = {}
    for form, c in variants.items():
        grouped.setdefault(form.lower(), []).append((form, c))
    keys = sorted(grouped)
    words = list(dict.fromkeys(w for k in keys for w in k.split(" ")))
    place = {w: i + 1 for i, w in enumerate(words)}
    line = lambda xs: np.frombuffer("\n".join(xs).encode("utf-8"), dtype=np.uint8)
    entries = ["\t".join([str(sum(c for _, c in grouped[k]))] + [x for f, c in grouped[k] for x in (f, str(c))])
               for k in keys]
    old = {"words": line(words), "ids": np.array([place[w] for k in keys for w in k.split(" ")], dtype=np.uint32),
           "lengths": np.array([k.count(" ") + 1 for k in keys], dtype=np.uint8), "entries": line(entries)}
    again = PhraseTable.from_arrays({"max_n": table.max_n, "phrases": len(keys)}, old, [])
    assert again.to_data() == table.to_data() and len(again) == len(table) > 400


def test_phrase_scores_change_the_search_and_weight_zero_is_the_trigram_decoder(truecaser_copy, dev_sentences,
                                                                                 monkeypatch):
    from tests.truecaser.test_native import _both
    model = truecaser_copy
    assert model.phrases_ is not None and len(model.phrases_) > 1000 and model.phrase_weight == 0.5
    lowered = [s.lower() for s in dev_sentences[:1500]]
    with_phrases = model.predict(lowered)
    model.set_params(phrase_weight=0.0)
    trigram = model.predict(lowered)
    table, model.phrases_ = model.phrases_, None
    assert model.predict(lowered) == trigram           # weight 0 is the model without a table
    model.phrases_ = table
    assert sum(a != b for a, b in zip(with_phrases, trigram)) >= 1
    model.set_params(phrase_weight=2.0)                # a strong weight: the C++ and Python searches still agree
    python, fast = _both(model, lowered, monkeypatch)
    assert fast == python and sum(a != b for a, b in zip(fast, trigram)) >= 5 and fast != with_phrases


def test_a_damaged_phrase_table_is_an_artifact_error(truecaser_artifact, tmp_path):
    """A changed phrases.json fails its checksum; one whose checksum was updated too (hand-made)
    fails as a phrase table, naming the file."""
    import shutil

    from textqa.models.artifact import ArtifactError, sha256_file
    from textqa.models.truecaser.store import load_truecaser
    dest = tmp_path / "tc"
    shutil.copytree(truecaser_artifact / "truecaser", dest)
    table = dest / "phrases.json"
    table.write_text('{"max_n": 5, "phrases": {"a b": 3}}', encoding="utf-8")
    with pytest.raises(ArtifactError, match="phrases.json"):
        load_truecaser(dest)
    manifest = json.loads((dest / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"]["phrases.json"] = {"sha256": sha256_file(table), "bytes": table.stat().st_size}
    (dest / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ArtifactError, match="cannot read the phrase table"):
        load_truecaser(dest)


def test_bad_phrase_parameters_are_refused():
    from textqa.models.truecaser.model import Truecaser
    for bad in ({"phrase_weight": -1.0}, {"phrase_weight": float("nan")}, {"phrase_min_count": 0}):
        with pytest.raises(ValueError, match="phrase"):
            Truecaser(**bad).fit(["a b ."])



def _covering_by_brute_force(table, low):
    """The definition, spelled out: every window of 2..max_n tokens not at the start, longest first."""
    best = [None] * len(low)
    for length in range(table.max_n, 1, -1):
        for i in range(1, len(low) - length + 1):
            key = " ".join(low[i:i + length])
            e = table.positions(key)
            if e is not None:
                for p in range(length):
                    cur = best[i + p]
                    if cur is None or (cur[0] == length and cur[1] < e[0]):
                        best[i + p] = (length, e[0], key, p)
    return [None if b is None else (b[2], b[3]) for b in best]


def test_the_batch_search_is_the_definition_on_real_sentences(small_truecaser, dev_sentences):
    """The numpy rolling-hash search over a whole batch (sentence boundaries given) finds, for every
    token, what trying every window of every sentence finds."""
    from itertools import accumulate
    table = small_truecaser.phrases_
    sents = [s.lower().split() for s in dev_sentences[:3000]] + [[], ["one"], ["two", "words"]]
    off = list(accumulate(map(len, sents), initial=0))
    batch = table.covering_keys([t for s in sents for t in s], off)
    expected = [c for s in sents for c in _covering_by_brute_force(table, s)]
    assert batch == expected and sum(c is not None for c in batch) > 500


def test_short_texts_find_what_the_batch_search_finds(small_truecaser, dev_sentences, monkeypatch):
    """Below ``SMALL`` tokens the windows are looked up one by one in Python (a service request's
    sentence); the matches and the choice among them are the batch search's, sentence by sentence
    and for two sentences at once."""
    table = small_truecaser.phrases_
    lows = [s.lower().split() for s in dev_sentences[:600]]
    small = [table.covered(low) for low in lows]
    pairs = [table.covered(a + b, [0, len(a), len(a) + len(b)]) for a, b in zip(lows[::2], lows[1::2])]
    monkeypatch.setattr(type(table), "SMALL", 0)                 # the vectorised search for every length
    assert small == [table.covered(low) for low in lows] and sum(map(len, small)) > 200
    assert pairs == [table.covered(a + b, [0, len(a), len(a) + len(b)]) for a, b in zip(lows[::2], lows[1::2])]


def test_a_long_batch_is_covered_as_its_sentences_are_one_by_one():
    """Past ``SMALL`` tokens the search is vectorised over the whole batch: each sentence's cover is
    the one it gets alone (the longest phrase wins, no phrase crosses into the next sentence)."""
    table = PhraseTable.build(SYNTHETIC, min_count=1)
    sentences = ["we saw the lord of the rings at the washington post .".split(), "she saw the washington".split(),
                 "post today .".split(), "the lord of the rings and the lord .".split()] * 6
    low = [t for s in sentences for t in s]
    offsets = [0]
    for s in sentences:
        offsets.append(offsets[-1] + len(s))
    assert len(low) > PhraseTable.SMALL
    expected = {}
    for s, start in zip(sentences, offsets):
        expected.update({start + i: c for i, c in table.covered(s).items()})
    got = table.covered(low, offsets)
    assert got == expected
    assert any(c[0] == "the lord of the rings" for c in got.values())          # the 5-token phrase, not "the lord"
