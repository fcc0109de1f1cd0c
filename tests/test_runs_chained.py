"""A draw in place from the runs of a repeated comprehension of a few constant values
(`_compiler._ends_of`) picks its value by comparing the drawn index with each run's end
in turn, the temporaries the runs text bound, and takes the last end as the count: no
`bisect_right` call.  Only where one runs text alone rendered for the draw: where two
could (either branch of an `if`), the ends in hand might be the other branch's, and the
draw bisects as before.  Each case gives what the plain closures give, draw by draw."""
from __future__ import annotations

import re

import pytest

from conftest import out_and_lines
from interpreter import load_text

CHAINED = '''
game "chained"
players 2
var left[1..9]: int = 0
var out: text = ""
def pool(strict: bool) = if strict then FIRST else SECOND
rule draws(strict: bool, n: 1..20):
    repeat n:
        random d in pool(strict)
        if d <= 9:
            left[d] -= 1
        out = out + text(d)
    out = out + ","
rule draw_all:
    for d in 1..9:
        left[d] = d % 4 + 3
    left[2] = 0
    do draws(true, 12)
    do draws(false, 4)
flow:
    do draw_all
    win p1
'''

FOUR = "[d for d in 1..4 for i in 1..left[d]]"
OTHER = "[e for e in 11..13 for j in 0..left[e - 10]]"
SEVEN = "[d for d in 1..7 for i in 1..left[d]]"


def _played(monkeypatch, first, second):
    from interpreter import _fuse
    from test_fuse import _generated_sources
    text = CHAINED.replace("FIRST", first).replace("SECOND", second)
    seen, sources = [], None
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        game = load_text(text)
        if enabled:
            sources = "\n".join(_generated_sources(game))
        runs = []
        for seed in range(16):
            runs.append(out_and_lines(game, seed))
        seen.append(runs)
    assert seen[0] == seen[1]
    return seen[0], sources


#: a pick by comparing ends, and one by `bisect_right` (passed in, as `K<n>`)
_CHAINED = re.compile(r"\(\(1\) if _t\d+ < _t\d+ else \(")
_BISECTED = re.compile(r"\[K\d+\(_t\d+, _t\d+\)\]")


def test_a_draw_from_few_runs_compares_their_ends(monkeypatch):
    runs, sources = _played(monkeypatch, FOUR, "[1, 2, 3, 4]")
    assert _CHAINED.search(sources) and not _BISECTED.search(sources)
    outs = [out for out, _ in runs]
    assert len(set(outs)) > 1 and all("2" not in out.split(",")[0] for out in outs)


@pytest.mark.parametrize("first, second", [(FOUR, OTHER), (SEVEN, "[1, 2]")])
def test_a_draw_from_runs_bisects_where_ends_may_be_another_texts_or_many(
        monkeypatch, first, second):
    # two runs texts, either of which may have drawn (the second branch's values, 11-13,
    # would be misread by the first's ends), or seven values (more than `CHAINED_RUNS`):
    # the draw bisects
    runs, sources = _played(monkeypatch, first, second)
    assert _BISECTED.search(sources) and not _CHAINED.search(sources)
    outs = [out for out, _ in runs]
    assert len(set(outs)) > 1
    if second == OTHER:
        assert all(set(out.split(",")[1]) <= set("123") and len(out.split(",")[1]) == 8
                   for out in outs)
