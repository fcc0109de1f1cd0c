"""The engine knows no game: nothing in gdl/ or interpreter/ names a seed game, a classic
of rulesets/classics/, or their rules."""
from __future__ import annotations

import re

from conftest import ROOT

FORBIDDEN = re.compile(
    r"gerry|double[ _-]?down|double[ _-]?dealing|evil[ _-]?deal|pescetti|free[ _-]?ride|"
    r"red[ _-]card|chips?\b|trump|kuhn|leduc|whist|caller|king of hearts|gerrymander",
    re.IGNORECASE)


def engine_files():
    for package in ("gdl", "interpreter"):
        for path in sorted((ROOT / package).rglob("*")):
            if path.suffix in (".py", ".lark") and "__pycache__" not in path.parts:
                yield path


def test_engine_sources_name_no_game():
    files = list(engine_files())
    assert len(files) > 10
    hits = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if FORBIDDEN.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert hits == []


def test_the_pattern_catches_what_it_must():
    for text in ("Gerry", "double_down", "Double Dealing", "free ride", "red card", "chips",
                 "trump", "Whist", "EvilDeal"[:4] + " " + "Deal"):
        assert FORBIDDEN.search(text), text
