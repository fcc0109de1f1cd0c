"""`gdl pbn`: bridge deals between rulesets and PBN files.

    gdl pbn deal DEALING_RULESET -n 8 --seed 1 --set NAME=VALUE -o boards.pbn
    gdl pbn target INVERSE_RULESET boards.pbn --seed 1 -o dealt.pbn

`deal` plays a ruleset once per board (decisions, if any, by random agents) and writes
the Deal value each game leaves in a text variable (`--var`, default `deal_pbn`) as one
board of a PBN file (stdout without `-o`).  `target` reads the boards of a PBN file and
plays the ruleset once per board with its Deal as an option (`--target-option`, default
`target`); it prints the text variables named by `--show` (default: `sheet_1` and
`sheet_2`, a dealing method's two sheets) as each board is played and, with `-o`, writes
the boards the games dealt, under the file's own Board, Dealer and Vulnerable.  When the
ruleset has an integer option named by `--board-option` (default `board`), each game gets
its board number there.  A board's game has a seed made from the run's seed and the
board's number (`board_seed`); without `--seed` the run's seed is drawn and told.
"""
from __future__ import annotations

import random
import sys

from .errors import GdlError, OptionError


def add_pbn_parser(subparsers) -> None:
    """Adds `pbn deal` and `pbn target` to the `gdl` command's subparsers."""
    p = subparsers.add_parser("pbn", help="deal boards to a PBN file, or play PBN deals as "
                              "targets")
    sub = p.add_subparsers(dest="pbn_command", required=True)

    def common(q):
        q.add_argument("--seed", type=int, default=None, help="seed of the run: a board's "
                       "game has a seed made from it and the board's number (default: "
                       "drawn, and told on stderr)")
        q.add_argument("--var", default="deal_pbn", help="the text variable holding each "
                       "board's Deal value (default deal_pbn)")
        q.add_argument("--board-option", default="board", help="an int option to set to "
                       "each board's number, if the ruleset has it (default board)")
        q.add_argument("--first-board", type=int, default=1, help="number of the first "
                       "board (default 1; with target, for boards the file does not number)")
        q.add_argument("-o", "--output", help="write the PBN file here (default: stdout)")
        q.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                       help="override an option (repeatable)")
        q.set_defaults(func=run_pbn)

    q = sub.add_parser("deal", help="play a ruleset N times and write its deals as PBN")
    q.add_argument("file", help="a ruleset that deals bridge hands")
    q.add_argument("-n", type=int, default=1, help="number of boards (default 1)")
    common(q)

    q = sub.add_parser("target", help="play a ruleset once per Deal of a PBN file")
    q.add_argument("file", help="a ruleset with a text option for the target Deal value")
    q.add_argument("pbn", help="the PBN file of target deals")
    q.add_argument("--target-option", default="target", help="the text option that takes "
                   "the target Deal value (default target)")
    q.add_argument("--show", action="append", metavar="VAR", help="print this text "
                   "variable for each board (repeatable; default sheet_1, sheet_2)")
    common(q)


def run_pbn(args) -> int:
    """Runs `gdl pbn deal|target ...`; returns the exit code."""
    from interpreter import load_ruleset
    from interpreter.integrations.pbn import normal_deal, pbn_text, read_pbn_boards
    if args.first_board < 1:
        raise OptionError(f"--first-board is a board number from 1, not {args.first_board}")
    ruleset = load_ruleset(args.file)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    if args.seed is None:       # told first: a board that fails is played again with it
        print(f"seed {seed} (drawn): `--seed {seed}` deals these boards again",
              file=sys.stderr)
    if args.pbn_command == "deal":
        if args.n < 1:
            raise OptionError(f"-n must be 1 or more, not {args.n}")
        boards = [{"board": args.first_board + i} for i in range(args.n)]
    else:
        boards = read_pbn_boards(args.pbn)
        for i, board in enumerate(boards):
            board.setdefault("board", args.first_board + i)
        _no_two_alike(args.pbn, boards)
    written = []
    for board in boards:        # one at a time: each game's state is let go once played
        extra = {args.target_option: normal_deal(board["deal"])} if "deal" in board else {}
        state = _play(ruleset, args, board["board"], seed, extra)
        if args.pbn_command == "target":
            _show(args, board["board"], state)
        written.append({**board, "deal": _dealt(state, args)})
    text = pbn_text(written, var=args.var)
    if args.output:
        with open(args.output, "w", encoding="latin-1") as f:     # the standard's
            f.write(text)
        print(f"wrote {len(written)} board(s) to {args.output}", file=sys.stderr)
    elif args.pbn_command == "deal":
        print(text)
    if args.pbn_command == "deal" and len(written) > 1 and \
            len({w["deal"] for w in written}) == 1:
        print(f"note: the {len(written)} boards are all the same deal: with these options "
              f"the ruleset deals no random boards (does an option choose random deals?)",
              file=sys.stderr)
    return 0


def _no_two_alike(path, boards) -> None:
    """Refuses a file whose boards, numbered by the file or in order, share a number."""
    from interpreter.integrations.pbn import PbnError
    seen = {}
    for i, board in enumerate(boards, 1):
        if board["board"] in seen:
            raise PbnError(f"{path}: boards {seen[board['board']]} and {i} are both Board "
                           f"{board['board']} (give each a Board tag, or none)")
        seen[board["board"]] = i


def _play(ruleset, args, board: int, seed: int, extra: dict):
    """Returns the final state of a board's game."""
    from interpreter import Game
    from interpreter.agents import AGENTS, play_out
    from interpreter.integrations.pbn import board_seed
    from interpreter.options import option_decls, parse_set_args
    options = parse_set_args(args.set)
    options.update(extra)
    decl = option_decls(ruleset).get(args.board_option)
    if decl is not None and type(decl.type).__name__ == "RangeType":
        options[args.board_option] = str(board)
    try:
        game = Game(ruleset, options)
        state = game.new_state(board_seed(seed, board))
        play_out(state, [AGENTS["random"]] * game.num_players,
                 random.Random(board_seed(seed, board)))
    except GdlError as err:                 # which board's game
        err.notes += (f"in the game of board {board}",)
        raise
    if not state.is_terminal():
        raise OptionError(f"board {board}: the game did not end")
    return state


def _dealt(state, args) -> str:
    """The Deal value a board's game left, from North in order."""
    from interpreter.integrations.pbn import PbnError, deal_text
    try:
        return deal_text(state, args.var)
    except PbnError as err:
        raise PbnError(f"the ruleset's {args.var}: {err.message}") from None


def _show(args, board: int, state) -> None:
    names = args.show or ["sheet_1", "sheet_2"]
    print(f"--- board {board}")
    for name in names:
        print(state.game.evaluate(name, state))
    sys.stdout.flush()
