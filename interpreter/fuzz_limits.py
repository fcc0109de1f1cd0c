"""The fuzzer's default limits, in a module of their own so that `gdl fuzz --help` can
show them without loading the engine."""

#: seconds a `fuzz` run spends, exploring and then shrinking
DEFAULT_BUDGET = 10.0
#: a playthrough longer than this many steps is endless play
DEFAULT_MAX_STEPS = 10_000
#: states of the bounded breadth-first walk
DEFAULT_MAX_STATES = 20_000
