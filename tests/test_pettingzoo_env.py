"""The PettingZoo adapter: every seed ruleset passes PettingZoo's own `api_test`, games
played through the environment end with the engine's returns as rewards, masks are the
legal moves, and observations hide what the view hides.

Skipped where `pettingzoo` (with gymnasium and numpy) does not import."""
from __future__ import annotations

import random
import warnings

import pytest

from conftest import RULESETS

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")
np = pytest.importorskip("numpy")

from pettingzoo.test import api_test  # noqa: E402

from interpreter.integrations.pettingzoo import make_aec_env  # noqa: E402

CASES = [
    (RULESETS / "classics" / "kuhn_poker.gdl", {}),
    (RULESETS / "classics" / "leduc_poker.gdl", {}),
    (RULESETS / "gerry.gdl", {}),
    (RULESETS / "double_dealing_shuffle.gdl", {}),
    (RULESETS / "double_down.gdl", {"players": 2}),
    (RULESETS / "double_down.gdl", {"players": 7}),
    (RULESETS / "evil_deal.gdl", {"target": 1}),
    (RULESETS / "pescetti.gdl", {}),
    (RULESETS / "pescetti.gdl", {"mode": "random"}),
    (RULESETS / "pescetti_inverse.gdl", {}),
    (RULESETS / "variants" / "dds_full_visibility.gdl", {}),
    (RULESETS / "variants" / "gerry_adjacent.gdl", {}),
]
IDS = [f"{p.stem}-{'-'.join(map(str, o.values())) or 'default'}" for p, o in CASES]


@pytest.mark.parametrize("path,options", CASES, ids=IDS)
def test_api_test(path, options):
    """PettingZoo's api_test.  Its warnings about dict observations and agent names
    (`p1`, not `player_0`) are expected: masks need a dict, seats keep their names."""
    env = make_aec_env(path, options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env, num_cycles=300)


def play(env, seed: int):
    """Plays one episode with random legal actions; returns (rewards, decisions)."""
    env.reset(seed=seed)
    rng = random.Random(seed)
    totals = {a: 0.0 for a in env.possible_agents}
    decisions = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert sorted(legal) == sorted(i for i, _ in env.legal_moves(agent))
        env.step(int(legal[rng.randrange(len(legal))]))
        decisions += 1
    return totals, decisions


@pytest.mark.parametrize("path,options", CASES, ids=IDS)
def test_episodes_end_with_the_engine_returns(path, options):
    """Each agent's rewards add up to its return in the final state; win/draw games sum
    to 0."""
    env = make_aec_env(path, options)
    for seed in range(2):
        totals, decisions = play(env, seed)
        assert env.gdl_state.is_terminal()
        returns = dict(zip(env.possible_agents, env.gdl_state.returns()))
        assert totals == pytest.approx(returns)
        assert sum(totals.values()) == pytest.approx(0)
        assert decisions >= 1


def test_seeded_resets_replay_the_same_game():
    env = make_aec_env(RULESETS / "gerry.gdl")
    first = [play(env, 7), env.gdl_state.trace()]
    second = [play(env, 7), env.gdl_state.trace()]
    assert first == second


def test_simultaneous_agents_act_in_turn():
    """At a `simultaneously`, p1 commits, then p2 (who does not see p1's commit), then the
    engine resolves both."""
    env = make_aec_env(RULESETS / "double_dealing_shuffle.gdl", {"deck_size": 4})
    env.reset(seed=0)
    assert env.agent_selection == "p1"
    before = env.observe("p2")["observation"].copy()
    env.step(int(np.flatnonzero(env.observe("p1")["action_mask"])[0]))
    assert env.agent_selection == "p2"
    assert env.gdl_state.committed() == [env.game.seat("p1")]
    assert env.gdl_state.is_simultaneous()
    after = env.observe("p2")["observation"]
    changed = {t for t in np.flatnonzero(before != after)}
    assert changed, "the status line shows that p1 committed"
    env.step(int(np.flatnonzero(env.observe("p2")["action_mask"])[0]))
    assert env.gdl_state.committed() == [] and len(env.gdl_state.history) == 2


def test_observation_hides_the_opponents_card():
    """Kuhn poker: p1's observation is the same for every card p2 may hold."""
    env = make_aec_env(RULESETS / "classics" / "kuhn_poker.gdl")
    seen = {}
    for seed in range(40):
        env.reset(seed=seed)
        mine = env.gdl_state.cards_in("hand[p1]")[0].text
        theirs = env.gdl_state.cards_in("hand[p2]")[0].text
        seen.setdefault(mine, {})[theirs] = env.observe("p1")["observation"].tobytes()
    assert all(len(by_theirs) == 2 for by_theirs in seen.values())
    assert all(len(set(by_theirs.values())) == 1 for by_theirs in seen.values())
    assert len({next(iter(v.values())) for v in seen.values()}) == 3


def test_no_decisions_means_one_proceed_action():
    """Pescetti has no actions: the env offers one, 0, which ends the episode."""
    env = make_aec_env(RULESETS / "pescetti.gdl", {"mode": "random"})
    env.reset(seed=3)
    assert env.action_space(env.agent_selection).n == 1
    assert list(env.observe(env.agent_selection)["action_mask"]) == [1]
    assert env.gdl_state.is_terminal()
    env.step(0)
    assert all(env.terminations.values())
    with pytest.raises(ValueError):
        env.reset(seed=3)
        env.step(1)


def test_illegal_action_is_refused_with_the_legal_moves():
    env = make_aec_env(RULESETS / "classics" / "kuhn_poker.gdl")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="legal"):
        env.step(env.action_space("p1").n + 5)


def test_an_action_that_is_not_a_whole_number_is_refused():
    env = make_aec_env(RULESETS / "gerry.gdl")
    env.reset(seed=0)
    for action in (None, 1.7, True, "1"):
        with pytest.raises(ValueError, match="is a whole number"):
            env.step(action)
    env.step(np.int64(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])))


def test_steps_before_reset_and_an_unknown_agent_are_said_so():
    # an AttributeError ('agent_selection') and a KeyError ('p9')
    env = make_aec_env(RULESETS / "classics" / "kuhn_poker.gdl")
    with pytest.raises(RuntimeError, match=r"reset\(\) needs to be called before step\(\)"):
        env.step(0)
    with pytest.raises(RuntimeError, match="before observe"):
        env.observe("p1")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="no agent 'p9': the agents are p1, p2"):
        env.observe("p9")


def test_the_engine_state_leaves_pettingzoos_state_method_alone():
    # `env.state` held the gdl State, hiding AECEnv.state(): "'State' object is not
    # callable"; PettingZoo's own answer is that no global state is implemented
    env = make_aec_env(RULESETS / "classics" / "kuhn_poker.gdl")
    env.reset(seed=1)
    assert not env.gdl_state.is_terminal()
    with pytest.raises(NotImplementedError):
        env.state()
