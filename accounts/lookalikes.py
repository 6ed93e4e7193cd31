"""Look-alike usernames: `skeleton` after Unicode's confusable detection (UTS #39).

Two names with the same skeleton look the same (a Cyrillic "ie" beside a Latin "e", "rn"
beside "m", "1" beside "l"), so a new account may not take a name whose skeleton is an
existing one's. The confusable pairs come from Unicode's own table as shipped by the
confusable-homoglyphs package; nothing here lists characters by hand.
"""

import unicodedata
from functools import cache, lru_cache

from confusable_homoglyphs.confusables import confusables_data
from django.contrib.auth import get_user_model

_LRM = "\u200e"  # the package wraps right-to-left characters in marks for display


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character -> the prototype Unicode maps it to.

    The package keeps each pair both ways: a character that stands for one other is a
    source mapped to it, a prototype lists all its sources. A prototype with a single
    source lists just that one, so the pair is read both ways; either reading gives the
    same skeleton once the pair's smaller member is taken as the prototype.
    """
    table = {
        key.strip(_LRM): [entry["c"].strip(_LRM) for entry in entries]
        for key, entries in confusables_data.items()
    }
    mapping: dict[str, str] = {}
    for source, targets in table.items():
        if len(source) != 1 or len(targets) != 1:
            continue
        target = targets[0]
        if table.get(target) == [source]:  # a pair: one is the other's only source
            mapping[source] = min(source, target)
        else:
            mapping[source] = target
    return mapping


def skeleton(text: str) -> str:
    """UTS #39's skeleton: decompose, map each character to its prototype, decompose."""
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(prototypes.get(c, c) for c in decomposed))


@lru_cache(maxsize=100_000)  # a pure function of the name: each is worked out once
def _keys(username: str) -> frozenset[str]:
    # Case too: Django refuses a name differing only in case, so "DEMO" spelt with a Cyrillic
    # capital ie must not slip past "demo" by being a look-alike of "DEMO".
    return frozenset({skeleton(username), skeleton(username.casefold())})


def lookalike_of(username: str) -> str | None:
    """An existing username that looks like `username` (but is not it), or None.

    Reads every username (about 40 ms for 10,000 accounts once their skeletons are
    worked out, 100 ms the first time): fine for sign-ups on a site of this size; a
    stored, indexed skeleton is the way on for millions of accounts.
    """
    wanted = _keys(username)
    names = get_user_model().objects.values_list("username", flat=True)
    for existing in names.iterator(chunk_size=2000):
        if existing != username and wanted & _keys(existing):
            return existing
    return None
