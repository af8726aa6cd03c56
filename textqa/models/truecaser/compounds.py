"""Casing of unseen compound words, part by part (beyond Lita et al. 2003).

The paper's classes (section 2) render a capitalised word as UC: first letter up, the rest
down.  For an unseen compound that is wrong more often than right: "Saint-Laurent-des-Combes",
"Pays-de-la-Loire", "Guy-Manuel", "O'Brien", "R&B".  Each part after the first is a word of its own
whose casing inside capitalised compounds can be counted in training: "saint", "laurent" and
"loire" are capitalised there, "des", "de", "sur" and "based" ("Ohio-based") are not.

``count_parts`` counts, over the cased training forms that are compounds and start with a capital,
how often each non-first part is capitalised and how often lowercase; ``compound_form`` cases an
unseen compound the decoder capitalised: the first part capitalised, each later part capitalised
unless training saw it lowercase more often than capitalised (a part never seen in a capitalised
compound is capitalised, as names' parts mostly are).
"""
from __future__ import annotations

import re

from .casing import capitalize_first

#: What joins the parts of a compound token (the tokenizer has already split off "'s" and "n't").
SEPARATORS = re.compile(r"([-/'&])")


def count_parts(counts: dict[str, int]) -> dict[str, list[int]]:
    """{lowercased part: [times capitalised, times lowercase]} over the non-first parts of the cased
    forms in ``counts`` ({form: occurrences}) that are compounds whose first part starts with a
    capital.  Parts with no cased letter ("2", "") are left out."""
    parts: dict[str, list[int]] = {}
    for form, c in counts.items():
        if not SEPARATORS.search(form):
            continue
        pieces = SEPARATORS.split(form)
        if not pieces[0][:1].isupper():
            continue
        for piece in pieces[2::2]:
            low = piece.lower()
            if low == piece.upper():
                continue
            entry = parts.setdefault(low, [0, 0])
            entry[0 if piece != low else 1] += c
    return parts


def compound_form(word: str, parts: dict) -> str | None:
    """The part-by-part casing of a capitalised unseen compound (lowercased ``word``), or None when
    it is not a compound or comes out as plain first-letter capitalisation."""
    pieces = SEPARATORS.split(word)
    if len(pieces) < 3:
        return None
    out = [capitalize_first(pieces[0])]
    for j in range(1, len(pieces)):
        piece = pieces[j]
        if j % 2 == 0:
            cap, low = parts.get(piece, (0, 0))
            if cap > low or cap == low == 0:
                piece = capitalize_first(piece)
        out.append(piece)
    form = "".join(out)
    return None if form == capitalize_first(word) else form


def parts_from_data(data) -> dict[str, list[int]]:
    """Check a part table read from an artifact: {str: [int, int]}; raises ValueError otherwise."""
    if not isinstance(data, dict) or not all(
            isinstance(k, str) and isinstance(v, list) and len(v) == 2 and all(type(x) is int for x in v)
            for k, v in data.items()):
        raise ValueError("the compound part table is not {part: [capitalised, lowercase]}")
    return data
