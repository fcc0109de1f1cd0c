"""`gdl pbn`: bridge deals between rulesets and PBN files.

    gdl pbn deal DEALING_RULESET -n 8 --seed 1 --set NAME=VALUE -o boards.pbn
    gdl pbn target INVERSE_RULESET boards.pbn --seed 1 -o dealt.pbn

`deal` plays a ruleset N times (game i with seed S+i; decisions, if any, by random agents)
and writes the Deal value each game leaves in a text variable (`--var`, default
`deal_pbn`) as one board of a PBN file (stdout without `-o`).  `target` reads the Deal
values of a PBN file and plays the ruleset once per deal with the deal as an option
(`--target-option`, default `target`); it prints the text variables named by `--show`
(default: `sheet_1` and `sheet_2`, a dealing method's two sheets) and, with
`-o`, writes the boards the games dealt.  When the ruleset has an integer option named
by `--board-option` (default `board`), each game gets its board number there.
"""
from __future__ import annotations

import random
import sys

from .errors import OptionError


def add_pbn_parser(subparsers) -> None:
    """Adds `pbn deal` and `pbn target` to the `gdl` command's subparsers."""
    p = subparsers.add_parser("pbn", help="deal boards to a PBN file, or play PBN deals as "
                              "targets")
    sub = p.add_subparsers(dest="pbn_command", required=True)

    def common(q):
        q.add_argument("--seed", type=int, default=0, help="seed of the first board "
                       "(board i uses seed+i; default 0)")
        q.add_argument("--var", default="deal_pbn", help="the text variable holding each "
                       "board's Deal value (default deal_pbn)")
        q.add_argument("--board-option", default="board", help="an int option to set to "
                       "each board's number, if the ruleset has it (default board)")
        q.add_argument("--first-board", type=int, default=1, help="number of the first "
                       "board (default 1)")
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
    from interpreter.integrations.pbn import pbn_text, read_pbn_deals
    ruleset = load_ruleset(args.file)
    if args.pbn_command == "deal":
        if args.n < 1:
            raise OptionError(f"-n must be 1 or more, not {args.n}")
        states = [_play(ruleset, args, i, {}) for i in range(args.n)]
    else:
        deals = read_pbn_deals(args.pbn)
        states = [_play(ruleset, args, i, {args.target_option: deal})
                  for i, deal in enumerate(deals)]
        _show(args, states)
    text = pbn_text(states, args.first_board, var=args.var)
    if args.output:
        with open(args.output, "w", encoding="latin-1") as f:     # the standard's
            f.write(text)
        print(f"wrote {len(states)} board(s) to {args.output}", file=sys.stderr)
    elif args.pbn_command == "deal":
        print(text)
    return 0


def _play(ruleset, args, i: int, extra: dict):
    """Returns the final state of board i's game."""
    from interpreter import Game
    from interpreter.agents import AGENTS, play_out
    from interpreter.options import option_decls, parse_set_args
    options = parse_set_args(args.set)
    options.update(extra)
    decl = option_decls(ruleset).get(args.board_option)
    if decl is not None and type(decl.type).__name__ == "RangeType":
        options[args.board_option] = str(args.first_board + i)
    game = Game(ruleset, options)
    seed = args.seed + i
    state = game.new_state(seed)
    play_out(state, [AGENTS["random"]] * game.num_players, random.Random(seed))
    if not state.is_terminal():
        raise OptionError(f"board {args.first_board + i}: the game did not end")
    return state


def _show(args, states) -> None:
    names = args.show or ["sheet_1", "sheet_2"]
    for i, state in enumerate(states):
        print(f"--- board {args.first_board + i}")
        for name in names:
            print(state.game.evaluate(name, state))
