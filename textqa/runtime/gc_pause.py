"""Python's cyclic garbage collector around code that makes many long-lived objects at once (loading a
model's tables, a batch's per-token lists)."""
from __future__ import annotations

import gc
import threading
from contextlib import contextmanager

_gc_lock = threading.Lock()
_gc_state = {"holders": 0, "was_enabled": False}


@contextmanager
def gc_paused():
    """Python's cyclic garbage collector paused over a block that allocates many small objects and
    leaves no cycles (a batch's per-token lists): the collections that those allocations trigger
    took a noticeable share of a batch's time ("Figures behind the code" in
    docs/experiments/truecaser.md).  Overlapping blocks (threads) share one count: the
    collector is enabled again when the last one leaves, if it was enabled when the first entered."""
    with _gc_lock:
        if _gc_state["holders"] == 0:
            _gc_state["was_enabled"] = gc.isenabled()
            gc.disable()
        _gc_state["holders"] += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_state["holders"] -= 1
            if _gc_state["holders"] == 0 and _gc_state["was_enabled"]:
                gc.enable()


def promote_to_oldest_generation() -> None:
    """Move every object the collector tracks to its oldest generation, without examining them.

    A loaded model is many lists and dicts that live as long as the process (the truecaser's tables:
    some 560,000).  Left in the youngest generation, the first collections after loading walk them
    all, twice (generation 0, then 1), a large part of the load ("Figures behind the code" in
    docs/experiments/truecaser.md).  ``gc.freeze()`` then ``gc.unfreeze()`` splices the generations' lists into the
    oldest one in constant time; they are still collected there, in the full collections that run as
    the process allocates.  Skipped when something else has frozen objects, which ``unfreeze`` would
    release."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


def freeze_loaded(collect: bool = True) -> None:
    """Keep every object alive now (the loaded models) out of the cyclic collector's work for the rest
    of the process (``gc.freeze``).  In a process that serves or runs the models, they are never
    garbage; left to the collector, each full collection walked them all: about half a second in a
    service worker holding the four default models (millions of objects), a pause that a request
    arriving then waits for.  ``collect``: collect what is garbage first (once, at load time), so that
    it is not kept.  A later load of another model freezes its objects too."""
    if collect:
        gc.collect()
    gc.freeze()
