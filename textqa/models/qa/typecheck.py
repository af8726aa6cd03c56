"""Answer-type checks of a candidate (Lita & Carbonell 2004, 4.3's extraction features): against the
question's UIUC coarse class, and in WordNet against the question's informer word or its UIUC fine
class (Lita, Hunt & Nyberg 2004's WordNet as an answer-type check)."""
from __future__ import annotations

from functools import lru_cache

from textqa.runtime.wordnet import wordnet

WN_SENSES = 3

UIUC_TYPES = {"HUM": {"person", "organization"}, "LOC": {"location"},
              "NUM": {"year", "decade", "date", "number", "quantity"}, "ENTY": {"entity", "phrase"},
              "DESC": {"phrase"}, "ABBR": {"phrase", "entity"}}


def uiuc_match(uiuc: dict | None, cand_type: str) -> float:
    """P(the question's UIUC coarse class admits the candidate's answer type)."""
    if not uiuc:
        return 0.0
    return sum(p for coarse, p in uiuc.items() if cand_type in UIUC_TYPES.get(coarse, ()))


@lru_cache(maxsize=4096)
def _focus_synsets(focus: str) -> frozenset:
    return frozenset(wordnet().synsets(focus, "n")[:WN_SENSES])


@lru_cache(maxsize=200_000)
def _ancestors(text: str) -> frozenset:
    """Every hypernym (instance hypernyms included, transitively) of the first noun senses of
    ``text`` as one WordNet lemma ("mississippi", "new_york_city")."""
    out: set = set()
    for s in wordnet().synsets(text.lower().replace(" ", "_"), "n")[:WN_SENSES]:
        out.update(s.closure(lambda x: x.hypernyms() + x.instance_hypernyms(), depth=12))
    return frozenset(out)


def wordnet_type_match(focus: str | None, text: str) -> float:
    """1.0 when WordNet has the candidate as a kind or an instance of the question's informer
    ("Mississippi" for "What river ...", "red" for "What color ...", Lita, Hunt & Nyberg 2004's
    WordNet as an answer-type check), else 0.0."""
    if not focus or not text:
        return 0.0
    targets = _focus_synsets(focus)
    return float(bool(targets and targets & _ancestors(text)))    # no senses of the focus: no look-up of the text


# the WordNet noun synsets whose kinds and instances answer a UIUC fine class (Li & Roth 2002's
# class definitions); classes with no such synset (descriptions, numbers, abbreviations) are absent
FINE_SYNSETS = {
    "ENTY:animal": ("animal.n.01",), "ENTY:body": ("body_part.n.01",),
    "ENTY:color": ("chromatic_color.n.01", "color.n.01"), "ENTY:currency": ("currency.n.01",),
    "ENTY:dismed": ("disease.n.01", "medicine.n.02", "drug.n.01"), "ENTY:event": ("event.n.01",),
    "ENTY:food": ("food.n.01", "food.n.02"), "ENTY:instru": ("musical_instrument.n.01",),
    "ENTY:lang": ("language.n.01",), "ENTY:plant": ("plant.n.02",), "ENTY:religion": ("religion.n.01",),
    "ENTY:sport": ("sport.n.01",), "ENTY:substance": ("substance.n.01", "material.n.01"),
    "ENTY:veh": ("vehicle.n.01",), "HUM:ind": ("person.n.01",), "HUM:title": ("person.n.01",),
    "HUM:desc": ("person.n.01",), "HUM:gr": ("organization.n.01", "social_group.n.01"),
    "LOC:city": ("city.n.01",), "LOC:country": ("country.n.02",), "LOC:state": ("state.n.01",),
    "LOC:mount": ("mountain.n.01",), "LOC:other": ("location.n.01",),
}
_DETERMINERS = {"the", "a", "an", "this", "that", "these", "those", "its", "his", "her", "their", "our"}


@lru_cache(maxsize=64)
def _fine_synsets(fine: str) -> frozenset:
    return frozenset(wordnet().synset(n) for n in FINE_SYNSETS.get(fine, ()))


def fine_wordnet_match(fine: str | None, text: str) -> bool | None:
    """True when WordNet has the candidate (the whole phrase without a leading determiner, else its
    last word: "the tennis player" -> "player") as a kind or an instance of what the question's UIUC
    fine class asks for ("rodents" for ENTY:animal, "the financier" for HUM:title): the type check of
    Lita, Hunt & Nyberg 2004's WordNet analysis, driven by the answer-type classifier instead of the
    question's informer word.  False when WordNet knows the phrase as something else; None when it
    does not know it (most names) or the class has no synsets."""
    targets = _fine_synsets(fine) if fine else frozenset()
    words = [w for w in text.split() if any(ch.isalnum() for ch in w)]
    if not targets or not words:
        return None
    if words[0].lower() in _DETERMINERS:
        words = words[1:]
    for form in dict.fromkeys([" ".join(words), words[-1]] if words else []):
        found = _ancestors(form)
        if found:
            return bool(found & targets)
    return None
