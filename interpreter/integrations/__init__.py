"""Bridges from gdl rulesets to outside tools; each needs its optional package.

- `interpreter.integrations.openspiel`: any ruleset as an OpenSpiel game (`open_spiel`).
- `interpreter.integrations.pettingzoo`: any ruleset as a PettingZoo AEC environment
  (`pettingzoo`, `gymnasium`, `numpy`).
- `interpreter.integrations.pbn`: bridge deals to and from PBN files (no package needed;
  `endplay` reads the files back in the tests).

This package imports none of them, so `import interpreter.integrations` always works;
import the submodule you need.  `ActionTable` (integer indices for move texts) and
`game_kind` (what kind of game a ruleset is) need no optional package either.
"""
from ._actions import ActionTable, IntegrationError
from ._kind import GameKind, game_kind

__all__ = ["ActionTable", "IntegrationError", "GameKind", "game_kind"]
