"""Bridge deals to and from PBN (Portable Bridge Notation) files.

    write_pbn([state1, state2], "boards.pbn")      # states whose `deal_pbn` holds a Deal
    deals = read_pbn_deals("targets.pbn")           # ["N:AKQ.... ...", ...]

A PBN Deal value is a seat letter, a colon, and four hands clockwise from that seat, each
`spades.hearts.diamonds.clubs` with ranks `AKQJT98765432` (`N:.63.AKQ987.A9732 A8654...`).
The engine knows nothing of bridge: a ruleset that deals a board writes the
Deal value into a text variable, `deal_pbn` by default, and this module reads it with
`game.evaluate`.  Each board gets the Board, Dealer and Vulnerable of the standard
16-board cycle (board 1: North deals, nobody vulnerable) unless a board says otherwise.
No optional package is needed; `endplay` reads the files in the tests.
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Union

from gdl.errors import GdlError

SEATS = "NESW"
RANKS = "AKQJT98765432"
#: Vulnerability of boards 1..16; the cycle repeats (PBN standard, section 3.4.10).
VULNERABLE = ("None", "NS", "EW", "All", "NS", "EW", "All", "None",
              "EW", "All", "None", "NS", "All", "None", "NS", "EW")


class PbnError(GdlError):
    """A PBN file or Deal value that cannot be read or written."""
    kind = "PBN error"


def board_dealer(board: int) -> str:
    """Returns the dealer of a board number: N, E, S, W in turn from board 1."""
    return SEATS[(board - 1) % 4]


def board_vulnerable(board: int) -> str:
    """Returns the vulnerability of a board number (None, NS, EW or All)."""
    return VULNERABLE[(board - 1) % 16]


def board_seed(seed: int, board: int) -> int:
    """The seed of a board's game: a hash of the run's seed and the board's number, so
    that no two seeds share a board's deal (with seed + board, seed 2 dealt seed 1's
    boards 2, 3, ... again as boards 1, 2, ...)."""
    digest = hashlib.sha256(f"gdl-pbn:{seed}:{board}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def parse_deal(text: str) -> Dict[str, List[str]]:
    """Returns {seat letter: [spades, hearts, diamonds, clubs]} of a full Deal value, or
    raises PbnError saying what is wrong."""
    first, colon, rest = text.strip().partition(":")
    if not colon or first.upper() not in SEATS or len(first) != 1:
        raise PbnError(f"the Deal {text!r} must start with N:, E:, S: or W:")
    hands = rest.split()
    if len(hands) != 4:
        raise PbnError(f"the Deal {text!r} has {len(hands)} hands, not 4")
    start = SEATS.index(first.upper())
    out, seen = {}, set()
    for j, hand in enumerate(hands):
        seat = SEATS[(start + j) % 4]
        if hand == "-":
            raise PbnError(f"the Deal {text!r} leaves {seat}'s hand out ('-'): a board here "
                           f"needs all four hands")
        suits = hand.upper().split(".")
        if len(suits) != 4:
            raise PbnError(f"{seat}'s hand {hand!r} has {len(suits)} suits, not 4 "
                           f"(spades.hearts.diamonds.clubs)")
        for suit, holding in zip("SHDC", suits):
            for r in holding:
                if r not in RANKS:
                    raise PbnError(f"{seat}'s hand {hand!r} holds {r!r}, not a rank of "
                                   f"{RANKS}")
                if (suit, r) in seen:
                    raise PbnError(f"the Deal {text!r} names {r}{suit} twice")
                seen.add((suit, r))
        out[seat] = ["".join(sorted(s, key=RANKS.index)) for s in suits]
    if len(seen) != 52:
        raise PbnError(f"the Deal {text!r} names {len(seen)} cards, not 52")
    for seat, holdings in out.items():
        held = sum(map(len, holdings))
        if held != 13:
            raise PbnError(f"the Deal {text!r} gives {seat} {held} cards, not 13")
    return out


def normal_deal(text: str) -> str:
    """Returns a Deal value from North with each suit's ranks in order."""
    hands = parse_deal(text)
    return "N:" + " ".join(".".join(hands[s]) for s in SEATS)


def deal_text(item, var: str = "deal_pbn") -> str:
    """Returns the Deal value of a board: a Deal text, a mapping with "deal", or a gdl
    state whose text variable `var` holds one."""
    if isinstance(item, str):
        text = item
    elif isinstance(item, Mapping):
        text = item["deal"]
    else:
        text = item.game.evaluate(var, item)
        if not isinstance(text, str) or not text:
            raise PbnError(f"the state's {var} is {text!r}, not a Deal value; is the game "
                           f"over?")
    return normal_deal(text)


def pbn_text(boards: Iterable, first_board: int = 1, event: str = "",
             var: str = "deal_pbn") -> str:
    """Returns a PBN file (import format) of the boards, numbered from `first_board`."""
    lines = ["% PBN 2.1", "% IMPORT", "% Creator: gdl", ""]
    for i, item in enumerate(boards):
        extra = item if isinstance(item, Mapping) else {}
        board = int(extra.get("board", first_board + i))
        if board < 1:
            raise PbnError(f"board numbers start at 1, not {board}")
        tags = [("Event", event), ("Site", ""), ("Date", "????.??.??"), ("Board", str(board)),
                ("Dealer", extra.get("dealer", board_dealer(board))),
                ("Vulnerable", extra.get("vulnerable", board_vulnerable(board))),
                ("Deal", deal_text(item, var))]
        lines.extend(f'[{name} "{_quoted(name, value)}"]' for name, value in tags)
        lines.append("")
    return "\n".join(lines)


def _quoted(name: str, value: str) -> str:
    """A tag's value as a PBN string holds it (section 3.2: a quote or a backslash escaped
    by a backslash); characters a PBN file cannot hold (Latin-1, one line) are refused."""
    if value == "#":                # read back, it would be the previous game's value
        raise PbnError(f"the {name} tag's value cannot be '#' alone: in PBN it stands for "
                       f"the previous game's value")
    bad = next((c for c in value if c < " " or c > "\xff"), None)
    if bad is not None:
        raise PbnError(f"the {name} tag's value {value!r} holds {bad!r}: a PBN file holds "
                       f"one line of Latin-1 (ISO 8859-1) characters per value")
    return value.replace("\\", "\\\\").replace('"', '\\"')


def write_pbn(boards: Iterable, path: Union[str, Path], first_board: int = 1,
              event: str = "", var: str = "deal_pbn") -> int:
    """Writes the boards (Deal texts, mappings or gdl states) as a PBN file; returns how
    many boards it wrote."""
    boards = list(boards)
    Path(path).write_text(pbn_text(boards, first_board, event, var), encoding="latin-1")
    return len(boards)


def read_pbn_tags(path: Union[str, Path]) -> List[Dict[str, str]]:
    """Returns the tags of each game of a PBN file, in order, read as the standard's import
    format has it (section 3): a tag may span lines, a value's `\\"` and `\\\\` are a
    quote and a backslash, a tag a game already has is ignored, `;` comments run to the
    end of their line and `{...}` ones as far as their `}` (braces mean nothing inside a
    `;` comment or a value), and a `#` value repeats the previous game's."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise PbnError(f"cannot read {path}: {err.strerror}") from None
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # UTF-16 with its mark ("Unicode" files)
        text = data.decode("utf-16")
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:      # the PBN standard's own character set: Latin-1
            text = data.decode("latin-1")
    games: List[Dict[str, str]] = []
    previous: Dict[str, str] = {}
    for number, pairs in enumerate(_games(text), 1):
        current: Dict[str, str] = {}
        for name, value in pairs:
            if name not in current:
                current[name] = previous.get(name, "") if value == "#" else value
            elif name == "Board" and value not in ("#", current[name]):
                raise PbnError(f"{path}, game {number}: it holds Board {current[name]} and "
                               f"Board {value}: an empty line ends each board")
        games.append(current)
        previous = current
    return games


_BLANK_OR_ESCAPE = re.compile(r"[ \t\r\f\v]*(?:\n|$)|%[^\n]*(?:\n|$)")
_TAG_START = re.compile(r'\[\s*(\w+)\s*"')
_VALUE_END = re.compile(r'((?:[^"\\]|\\.)*)"\s*\]', re.S)


def _games(text: str) -> List[List[tuple]]:
    """The (name, value) tag pairs of each game, in the order written; an empty line
    outside a comment ends a game (an escape line, `%` first, is skipped)."""
    games: List[List[tuple]] = []
    pairs: List[tuple] = []
    i, n, line_start = 0, len(text), True
    while i < n:
        if line_start:
            line_start = False
            blank = _BLANK_OR_ESCAPE.match(text, i)
            if blank and blank.end() > i:
                if text[i] != "%" and pairs:        # an empty line: the game ends
                    games.append(pairs)
                    pairs = []
                i, line_start = blank.end(), True
                continue
        c = text[i]
        if c == "\n":
            i, line_start = i + 1, True
        elif c == ";":                              # to the end of the line
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif c == "{":                              # to its `}`, over lines
            end = text.find("}", i + 1)
            i = n if end < 0 else end + 1
        elif c == "[" and (tag := _TAG_START.match(text, i)) and \
                (value := _VALUE_END.match(text, tag.end())):
            pairs.append((tag[1], re.sub(r"\\(.)", r"\1", value[1], flags=re.S)))
            i = value.end()
        else:
            i += 1
    if pairs:
        games.append(pairs)
    return games


def read_pbn_boards(path: Union[str, Path]) -> List[Dict[str, object]]:
    """Returns each board of a PBN file as a dict: its Deal value (`deal`, as written)
    and, where the file gives them, its number (`board`, an int), `dealer` and
    `vulnerable`.  A game without a Deal is skipped if it names no board (a header of
    Event and Site), and refused if it does; a board number given twice, or a file with
    no Deal at all, is refused too."""
    boards: List[Dict[str, object]] = []
    seen: Dict[int, int] = {}
    for number, tags in enumerate(read_pbn_tags(path), 1):
        where = f"{path}, game {number}" + (f", Board {tags['Board']}" if tags.get("Board")
                                            else "")
        if not tags.get("Deal"):
            if tags.get("Board"):
                raise PbnError(f"{where}: the board has no Deal")
            continue
        try:
            parse_deal(tags["Deal"])
        except PbnError as err:
            raise PbnError(f"{where}: {err.message}") from None
        board: Dict[str, object] = {"deal": tags["Deal"].strip()}
        if tags.get("Board"):
            text = tags["Board"].strip()
            if not text.isdigit() or int(text) < 1:
                raise PbnError(f"{where}: a board's number is a whole number from 1")
            if int(text) in seen:
                raise PbnError(f"{where}: game {seen[int(text)]} is Board {text} too")
            seen[int(text)] = number
            board["board"] = int(text)
        for tag, key in (("Dealer", "dealer"), ("Vulnerable", "vulnerable")):
            if tags.get(tag):
                board[key] = tags[tag].strip()
        boards.append(board)
    if not boards:
        raise PbnError(f"{path} holds no board with a Deal (is it a PBN file?)")
    return boards


def read_pbn_deals(path: Union[str, Path]) -> List[str]:
    """Returns the Deal value of every game of a PBN file that has one, in order."""
    deals = []
    for number, tags in enumerate(read_pbn_tags(path), 1):
        if tags.get("Deal"):
            try:
                parse_deal(tags["Deal"])
            except PbnError as err:     # which of the file's games
                board = f", Board {tags['Board']}" if tags.get("Board") else ""
                raise PbnError(f"{path}, game {number}{board}: {err.message}") from None
            deals.append(tags["Deal"].strip())
    return deals


__all__ = ["write_pbn", "read_pbn_boards", "read_pbn_deals", "read_pbn_tags", "pbn_text",
           "parse_deal", "normal_deal", "deal_text", "board_dealer", "board_vulnerable",
           "board_seed", "PbnError"]
