"""Syntax errors from gdl.parser.parse_text: place, excerpt with caret, what was expected,
and a suggestion where a keyword was misspelt.

Each case is (gdl text, substrings of the rendered error, line, column).
"""
from __future__ import annotations

import pytest

from gdl.errors import GdlError, GdlSyntaxError
from gdl.parser import parse_text

PATH = "bad.gdl"

BAD = [
    pytest.param("players a, b\noptoin n: 1..3 = 2\n",
                 ["unexpected 'optoin'", "expected: ", "'option'", "did you mean 'option'?"],
                 2, 1, id="misspelt-keyword"),
    pytest.param("players a, b\nflow:\n",
                 ["the file ends in the middle of a construct", "expected: an indented block"],
                 2, 6, id="truncated-file"),
    pytest.param("players a, b\nflow:\n    if x",
                 ["unexpected end of line", "expected: ':'"], 3, 9, id="truncated-line"),
    pytest.param("players a, b\nflow:\n    win a\n        draw\n",
                 ["unexpected indentation", "a block may only start after a line ending in ':'",
                  "expected: ", "'draw'"], 4, 9, id="bad-indentation"),   # the indented
    pytest.param("players a, b\nflow:\n\twin a\n        draw\n",          # a tab is 4
                 ["unexpected indentation", "line 3 is indented with a tab, which counts "
                  "as 4 columns: indent with spaces"], 4, 9, id="tab-indentation"),
    pytest.param("players a, b\nvar n: int = 0\nflow:\n    if n = 3:\n        draw\n",
                 ["unexpected '='", "a comparison is written `==`", "did you mean '=='?"],
                 4, 10, id="assign-for-compare"),
    pytest.param("players a, b\nvar n: int = 0\nvar m: int = 0\nflow:\n"
                 "    m = if n = 3 then 1 else 2\n    draw\n",
                 ["a comparison is written `==`"], 5, 14, id="assign-for-compare-in-if-value"),
    pytest.param("players a, b\ndef three(x: int) = x = 3\nflow:\n    draw\n",
                 ["a comparison is written `==`"], 2, 23, id="assign-for-compare-in-def"),
    pytest.param("players a, b\nvar n: int = 0\nflow:\n    n = 3\n    draw = 3\n",
                 ["draw starts a statement here"], 5, 10, id="assign-to-keyword"),
    pytest.param("players a, b\n# a note\n\n  flow:\n    draw\n",            # line (was the
                 ["unexpected indentation"], 4, 3, id="bad-indentation-after-comment"),  # end
    pytest.param('players a, b\nvar t: text = "a\\xb"\n',                  # of the one before)
                 ["a string cannot hold the escape \\x: its escapes are"], 2, 17,
                 id="unknown-escape"),       # (an internal error: Python's escapes were read)
    pytest.param('players a, b\nvar t: text = "a\x00b"\n',
                 ["a string cannot hold the character '\\x00'"], 2, 17, id="nul-in-string"),
    pytest.param('players a, b\nvar t: text = "a\rb"\n',          # a lone CR: a line break
                 ["unexpected character '\"': a string ends on the line it starts"], 2, 15,
                 id="cr-in-string"),
    pytest.param('players a, b\nvar t: text = "C:\\"\n',           # an escaped last quote
                 ["`\\\"` inside a string is a quote, not its end"], 2, 15,
                 id="escaped-closing-quote"),
    pytest.param("# a \f form feed, a \u2028 line separator\nplayers a, b\nflow:\n    end gme\n",
                 ["unexpected 'gme'", "        end gme\n            ^"], 4, 9,
                 id="form-feed-in-a-comment"),   # the excerpt showed the line before
    pytest.param("players a, b\ndef f(n: int) = if n == 1 then 1 elif n == 2 then 2 else 3\n",
                 ["unexpected 'elif': an if ... then ... else value has no elif; write "
                  "`else if ... then ...`"], 2, 34, id="elif-in-a-value"),
    pytest.param("players a, b\nflow:\n    while true:\n        break\n",
                 ["unexpected end of line: gdl has no break statement; end the loop with "
                  "its condition"], 4, 14, id="break"),
    pytest.param("players a, b\ndef f() = [a for a in 1..3 if a > 1 for b in 1..2]\n",
                 ["unexpected 'for': a comprehension's `if` comes after all its `for`s"],
                 2, 37, id="if-before-for"),
    pytest.param("players a, b\nvar n: int = " + "9" * 5000 + "\n",   # int() refuses it
                 ["this number has 5,000 digits: gdl takes at most 30"], 2, 14,
                 id="huge-number"),
    pytest.param("players a, b $\n",
                 ["unexpected character '$'", "expected: ", "end of line"], 1, 14,
                 id="unexpected-character"),
    pytest.param("players a, b\nzone deck: pile\n",
                 ["a zone is a 'stack' or a 'set', not 'pile'", "expected: stack, set"], 2, 12,
                 id="unknown-zone-kind"),
    pytest.param("players a, b\nzone hand[player]: set, seen by everyone\n",
                 ["'seen by' takes one of owner, all, others, nobody",
                  "expected: nobody, owner, all, others"], 2, 33, id="unknown-visibility"),
    pytest.param("players a, b\nrule r\n    win a\n",
                 ["unexpected end of line", "expected: '(', ':', a quoted string"], 2, 7,
                 id="rule-without-colon"),
    pytest.param("players a, b\naction act():\n    pass\n    require true\n",
                 ["every 'require' must come before the action's statements"], 4, 5,
                 id="late-require"),
    pytest.param("players a, b\nvar x: 1 + 2\n",
                 ["a type is a name (int, bool, player, card, an enum or a zone family)"], 2, 8,
                 id="expression-as-type"),
    pytest.param("players a, b\nflow:\n    win a +\n",
                 ["unexpected end of line", "expected: ", "a name", "a number"], 3, 12,
                 id="incomplete-expression"),
    pytest.param("players a, b\nflow:\n    move top(stock) too pile\n    draw\n",
                 ["unexpected 'too'", "did you mean 'to'"], 3, 21, id="misspelt-keyword-to"),
    pytest.param("players a, b\nvar draw: int = 0\nflow:\n    draw = 1\n    win a\n",
                 ["unexpected '='", "draw starts a statement here"], 4, 10,
                 id="statement-word-assigned"),
    pytest.param("players a, b\naction x():\n    pass\nflow:\n    chose a: x\n",
                 ["unexpected 'a': a line starting with 'chose' can only assign it",
                  "a statement starts with a statement word (choose, deal,",
                  "did you mean 'choose'?"], 5, 11, id="unknown-statement-word"),
    pytest.param("players a, b\nvar n: int = 0\nflow:\n    n = 1 if n > 0 else 2\n",
                 ["unexpected 'if': a value chosen by a condition is written `if COND then A "
                  "else B`"], 4, 11, id="python-conditional"),
    pytest.param("players a, b\nenum e = \n",
                 ["unexpected end of line", "expected: a name"], 2, 10, id="empty-enum"),
]


@pytest.mark.parametrize("src, substrings, line, col", BAD)
def test_syntax_error_is_reported(src, substrings, line, col):
    with pytest.raises(GdlSyntaxError) as info:
        parse_text(src, PATH)
    text = str(info.value)
    assert text.startswith(f"{PATH}:{line}:{col}: syntax error: "), text
    carets = [l for l in text.splitlines() if l.strip() == "^"]
    assert carets and carets[0].index("^") == 4 + col - 1, f"caret not under {col}:\n{text}"
    for s in substrings:
        assert s in text, f"{s!r} not in:\n{text}"


def test_inconsistent_dedent_is_a_syntax_error():
    with pytest.raises(GdlSyntaxError) as info:
        parse_text("players a, b\nflow:\n    win a\n  draw\n", PATH)
    text = str(info.value)
    assert f"{PATH}:4:3" in text and "matches no enclosing block" in text


def test_a_keyword_out_of_place_is_not_suggested_as_itself():
    # `secret` belongs before `random`; after the domain it is unexpected, and the
    # message must not offer `secret` as what was meant.
    src = "players a, b\nzone deck: stack\nflow:\n    random c in deck secret\n"
    with pytest.raises(GdlSyntaxError) as info:
        parse_text(src, PATH)
    text = str(info.value)
    assert "unexpected 'secret'" in text and "did you mean 'secret'" not in text


def test_a_table_with_two_else_rows_and_a_variant_of_two_bases_are_refused(tmp_path):
    # each was taken silently: the first else, the first base
    from gdl.errors import GdlError
    from gdl.parser import parse_file
    from gdl.variants import merge_variant
    with pytest.raises(GdlSyntaxError, match="table t has 2 else rows") as info:
        parse_text('game "x"\nplayers 2\ntable t(k: 1..2):\n    1 => 3\n    else => 1\n'
                   '    else => 2\nflow:\n    draw\n')
    assert info.value.span.line == 6
    (tmp_path / "base.gdl").write_text('game "b"\nplayers 2\nflow:\n    draw\n')
    (tmp_path / "v.gdl").write_text('variant of "base.gdl"\nvariant of "base.gdl"\n')
    with pytest.raises(GdlError, match="a variant of one base") as info:
        merge_variant(parse_file(tmp_path / "v.gdl"), parse_file)
    assert info.value.span.line == 2


@pytest.mark.parametrize("nested, line", [
    ("def big() = " + " + ".join(["x"] * 1000), 3),                 # a long sum
    ("def big() = " + "abs(" * 200 + "x" + ")" * 200, 3),           # calls in calls
    ("flow:\n" + "".join("    " * (i + 1) + "if x > 0:\n" for i in range(160))
     + "    " * 161 + "x += 1", 3),                                  # blocks in blocks
], ids=["sum", "calls", "blocks"])
def test_rules_nested_too_deeply_are_a_syntax_error_at_their_declaration(nested, line):
    # every stage after the parser recurses: a sum of 480 terms or 200 calls in calls said
    # "the ruleset nests too deeply to evaluate", with no place
    from gdl.parser import MAX_NESTING, parse_expression
    with pytest.raises(GdlSyntaxError) as info:
        parse_text(f"players a, b\nvar x: int = 1\n{nested}\n", PATH)
    err = info.value
    assert (err.span.line, err.span.col) == (line, 1)
    assert f"this nests more than {MAX_NESTING} levels deep" in err.message
    assert "a def for part of an expression" in str(err)
    with pytest.raises(GdlSyntaxError, match="levels deep"):
        parse_expression("abs(" * 200 + "1" + ")" * 200)
    parse_text("players a, b\nvar x: int = 1\ndef big() = " + " + ".join(["x"] * 250) + "\n")


def test_reading_a_ruleset_file_sets_aside_no_more_than_the_file():
    # a read bounded by the largest ruleset allowed set aside 10 MB for every file, which
    # the memory table of benchmarks/run.py showed as every row's peak
    import tracemalloc
    from conftest import GERRY
    from gdl.parser import parse_file
    parse_file(GERRY)                               # parsed once: kept by its text
    tracemalloc.start()
    try:
        parse_file(GERRY)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, peak


def test_a_name_of_one_or_two_letters_is_not_taken_for_a_misspelt_keyword():
    # `ask p: x` suggested 'up' for p (difflib puts "p" as near "up" as its cutoff)
    with pytest.raises(GdlSyntaxError) as info:
        parse_text("players p, q\naction x():\n    pass\nflow:\n    ask p: x\n", PATH)
    assert "a line starting with 'ask' can only assign it" in str(info.value)
    assert info.value.suggestion is None


@pytest.mark.parametrize("word, suggested", [("oops", None), ("fcae", "face")])
def test_a_stray_word_is_matched_to_a_keyword_only_where_near(word, suggested):
    # a stray word after an option's default was offered 'choose' (any keyword within
    # difflib's loosest reach); a misspelt keyword of the place is still named
    with pytest.raises(GdlSyntaxError) as info:
        parse_text(f'game "x"\nplayers 2\nzone deck: stack\noption n: 1..9 = 4 {word} up\n'
                   f'flow:\n    move deck to deck {word} up\n', PATH)
    assert info.value.suggestion == suggested


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_any_line_ending_reads_alike(newline):
    # with lone CRs (old Mac files) a first comment ran to the end of the file
    text = newline.join(['# a note', 'game "t"', 'players a, b', 'var s: text = "x\\ty"',
                         'flow:', '    draw', ''])
    ruleset = parse_text(text, "endings.gdl")
    assert [type(d).__name__ for d in ruleset.decls][:2] == ["GameDecl", "PlayersDecl"]
    assert ruleset.decls[2].init.value == "x\ty"


def test_a_byte_not_utf8_is_placed_in_a_file_of_cr_lines(tmp_path):
    # its line and column were counted at \n only: 1:31 for 4:6
    from gdl.parser import parse_file
    path = tmp_path / "cr.gdl"
    path.write_bytes(b'game "t"\rplayers 2\rflow:\r    # caf\xe9\r    draw\r')
    with pytest.raises(GdlError, match=r"cr\.gdl:4:10: error: .* is not UTF-8"):
        parse_file(path)


@pytest.mark.parametrize("text", [
    "players a, b\nvar n: int = 0\nflow:\n    n == 3\n    draw\n",     # `==` split: it was
    "players a, b\ndef f(x: int) == x\nflow:\n    draw\n",             # written
    "players a, b\ncard v: 1..3\ncards into deck: card(v = i) for i in 1..3\nzone deck: stack\n"
    "flow:\n    draw\n",                                                 # `:` is meant
    "players a, b\noption k = 3\nflow:\n    draw\n",
])
def test_an_equals_sign_out_of_a_condition_is_not_called_a_comparison(text):
    # the hint "a comparison is written `==`" came where `==` was written, or `:` meant
    with pytest.raises(GdlSyntaxError) as info:
        parse_text(text, PATH)
    assert "a comparison is written" not in str(info.value)
    assert "did you mean '=='" not in str(info.value)


def test_a_file_read_again_as_no_utf8_shows_no_line_of_its_old_text(tmp_path):
    # the REPL's reload showed the old text's line under the caret
    from gdl.parser import parse_file
    path = tmp_path / "g.gdl"
    path.write_text('game "t"\nplayers 2\nflow:\n    draw\n', encoding="utf-8")
    parse_file(path)
    path.write_bytes(b'game "t"\nplayers \xff\nflow:\n    draw\n')
    with pytest.raises(GdlError) as err:
        parse_file(path)
    assert str(err.value) == f"{path}:2:9: error: {path} is not UTF-8 text (byte 0xff here)"


def test_an_expression_gets_no_hint_about_statements():
    # `eval manual manual` was told "a line starting with 'manual' can only assign it"
    from gdl.parser import parse_expression
    with pytest.raises(GdlSyntaxError) as err:
        parse_expression("manual manual")
    assert "unexpected 'manual'" in str(err.value) and "statement" not in str(err.value)
