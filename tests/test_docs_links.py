"""Every relative link in the README and in docs/ leads somewhere: the file exists and, where
the link names a heading (`page.md#some-heading`), that page has the heading.  Pages get
split and headings renamed; a reader following a dead link learns nothing."""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))
FENCE = re.compile(r"^```.*?^```", re.M | re.S)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation but `-` and `_`
    dropped, each space a hyphen."""
    heading = re.sub(r"[`*]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", heading).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The anchors of a page's headings (outside code blocks); a repeated heading's later
    copies get `-1`, `-2`, ... as on GitHub."""
    seen: Counter[str] = Counter()
    out = set()
    for match in re.finditer(r"^#{1,6} +(.*?) *#*$", FENCE.sub("", text), re.M):
        slug = _slug(match.group(1))
        out.add(slug if not seen[slug] else f"{slug}-{seen[slug]}")
        seen[slug] += 1
    return out


def links(page: Path):
    for match in LINK.finditer(FENCE.sub("", page.read_text(encoding="utf-8"))):
        target = match.group(1)
        if not re.match(r"[a-z][a-z0-9+.-]*:", target):  # not http:, mailto:, ...
            yield target


def test_the_slugs_are_githubs():
    text = "# 12. Options and `--set`\n## Twelfth round: one step, per decision\n## A\n## A\n"
    assert anchors(text) == {"12-options-and---set", "twelfth-round-one-step-per-decision",
                             "a", "a-1"}
    assert anchors("```\n# not a heading\n```\n") == set()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    dead = []
    for target in links(page):
        path, _, fragment = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            dead.append(f"{target}: no such file")
        elif fragment and dest.suffix == ".md":
            if fragment not in anchors(dest.read_text(encoding="utf-8")):
                dead.append(f"{target}: no heading #{fragment} in {dest.name}")
    assert not dead, f"{page.relative_to(ROOT)}: " + "; ".join(dead)


def test_a_gdl_excerpt_that_names_its_ruleset_is_in_it():
    # the README's Gerry excerpt had drifted: a parameter renamed, a colon lost
    found = 0
    for page in PAGES:
        for block in re.findall(r"^```gdl\n(.*?)^```", page.read_text(encoding="utf-8"),
                                re.S | re.M):
            named = re.match(r"# (rulesets/\S+\.gdl)\b", block)
            if named:
                body = block.split("\n", 1)[1]
                assert body in (ROOT / named[1]).read_text(encoding="utf-8"), page.name
                found += 1
    assert found


def test_the_reference_lists_each_builtin_as_gdl_builtins_declares_it():
    # the table says it is made from gdl/builtins.py, and `owner` and `index` had drifted
    from gdl.builtins import FUNCTIONS
    text = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    table = text.split("<!-- builtins:start -->")[1].split("<!-- builtins:end -->")[0]
    rows = {m[1]: (m[2], m[3]) for m in
            re.finditer(r"^\| `(\w+)` \| [^|]* \| (.*?) \| (.*) \|$", table, re.M)}
    results = {"lists": "list of lists", "index": "that index's type"}
    for name, (_, result, doc) in FUNCTIONS.items():
        assert rows.get(name) == (results.get(result, result.replace("|", " or ")), doc), name
