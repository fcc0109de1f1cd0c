"""The OpenSpiel adapter: every seed ruleset passes OpenSpiel's own random simulation test,
the game types say what the rulesets are, Kuhn and Leduc poker have OpenSpiel's trees,
and CFR through the adapter finds Kuhn poker's value, -1/18.

Skipped where `pyspiel` does not import (the `openspiel` extra)."""
from __future__ import annotations

import random
from collections import defaultdict

import pytest

from conftest import RULESETS

pyspiel = pytest.importorskip("pyspiel")

from interpreter.integrations.openspiel import load_openspiel_game, short_name_for  # noqa: E402

KUHN = RULESETS / "classics" / "kuhn_poker.gdl"
LEDUC = RULESETS / "classics" / "leduc_poker.gdl"
GT = pyspiel.GameType

# Every seed ruleset at full size, and small variants.
SIM_CASES = [
    (KUHN, {}),
    (LEDUC, {}),
    (RULESETS / "gerry.gdl", {"size": 3, "turns_each": 2}),
    (RULESETS / "gerry.gdl", {}),
    (RULESETS / "double_dealing_shuffle.gdl", {"deck_size": 4, "shuffles": 1, "max_rounds": 5}),
    (RULESETS / "double_dealing_shuffle.gdl", {}),
    (RULESETS / "double_down.gdl", {"players": 2}),
    (RULESETS / "double_down.gdl", {"players": 7}),
    (RULESETS / "evil_deal.gdl", {}),
    (RULESETS / "evil_deal.gdl", {"target": 1}),
    (RULESETS / "pescetti.gdl", {}),
    (RULESETS / "pescetti.gdl", {"mode": "random"}),
    (RULESETS / "pescetti_inverse.gdl", {}),
    (RULESETS / "variants" / "dds_full_visibility.gdl", {"deck_size": 3, "max_rounds": 3}),
    (RULESETS / "variants" / "gerry_adjacent.gdl", {"size": 3, "turns_each": 2}),
]


@pytest.mark.parametrize("path,options", SIM_CASES,
                         ids=[f"{p.stem}-{'-'.join(map(str, o.values())) or 'default'}"
                              for p, o in SIM_CASES])
def test_random_sim_test(path, options):
    """OpenSpiel's RandomSimTest: legal actions sorted and in range, chance outcomes sum to
    1, clones equal, observations and information states for every player, returns
    within bounds and summing as the utility says, and serialisation round trips."""
    game = load_openspiel_game(path, options, seed=1)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_sampled_chance_mode():
    """chance=sampled draws chance inside the state: no chance nodes, states still clone
    and serialise (OpenSpiel cannot serialise a Python game's RNG with the game, so the
    simulation test runs without `serialize`)."""
    game = load_openspiel_game(RULESETS / "gerry.gdl", {"size": 3, "turns_each": 2},
                               chance="sampled", seed=3)
    assert game.get_type().chance_mode == GT.ChanceMode.SAMPLED_STOCHASTIC
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)
    state = game.new_initial_state()
    assert not state.is_chance_node()
    state.apply_action(state.legal_actions()[0])
    copy = game.deserialize_state(state.serialize())
    assert str(copy) == str(state) and copy.history() == state.history()
    twin = state.clone()
    while not state.is_terminal():
        action = state.legal_actions()[-1]
        state.apply_action(action)
        twin.apply_action(action)
    assert str(twin) == str(state) and twin.returns() == state.returns()


def test_a_state_of_another_game_or_other_options_is_not_deserialised():
    # a Kuhn state went into a Leduc game without a word: Leduc's type, Kuhn's cards
    from interpreter.integrations._actions import IntegrationError
    kuhn, leduc = load_openspiel_game(KUHN), load_openspiel_game(LEDUC)
    state = kuhn.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    text = state.serialize()
    assert str(load_openspiel_game(KUHN, seed=9).deserialize_state(text)) == str(state)
    with pytest.raises(IntegrationError, match=r"serialised from .*kuhn_poker.gdl with no "
                                               r"options, not from this game \(.*leduc"):
        leduc.deserialize_state(text)
    small = load_openspiel_game(RULESETS / "gerry.gdl", {"size": 3})
    with pytest.raises(IntegrationError, match="size=3.*not from this game.*size=4"):
        load_openspiel_game(RULESETS / "gerry.gdl", {"size": 4}).deserialize_state(
            small.new_initial_state().serialize())


@pytest.mark.parametrize("path,options,expected", [
    (KUHN, {}, dict(dynamics=GT.Dynamics.SEQUENTIAL, chance=GT.ChanceMode.EXPLICIT_STOCHASTIC,
                    information=GT.Information.IMPERFECT_INFORMATION,
                    utility=GT.Utility.ZERO_SUM, actions=2, outcomes=3, utilities=(-2, 2))),
    (LEDUC, {}, dict(dynamics=GT.Dynamics.SEQUENTIAL, utility=GT.Utility.ZERO_SUM,
                     actions=3, outcomes=6, utilities=(-13, 13))),
    (RULESETS / "double_dealing_shuffle.gdl", {},
     dict(dynamics=GT.Dynamics.SIMULTANEOUS, chance=GT.ChanceMode.DETERMINISTIC,
          utility=GT.Utility.ZERO_SUM, outcomes=0)),
    (RULESETS / "gerry.gdl", {}, dict(chance=GT.ChanceMode.EXPLICIT_STOCHASTIC, outcomes=52,
                                     utility=GT.Utility.ZERO_SUM, utilities=(-1, 1))),
    (RULESETS / "evil_deal.gdl", {"target": 1},
     dict(dynamics=GT.Dynamics.SIMULTANEOUS, utility=GT.Utility.ZERO_SUM)),
    (RULESETS / "double_down.gdl", {"players": 7},
     dict(utility=GT.Utility.ZERO_SUM, utilities=(pytest.approx(-1 / 6), 1), players=7)),
])
def test_game_type(path, options, expected):
    game = load_openspiel_game(path, options)
    t = game.get_type()
    checks = {"dynamics": t.dynamics, "chance": t.chance_mode, "information": t.information,
              "utility": t.utility, "actions": game.num_distinct_actions(),
              "outcomes": game.max_chance_outcomes(), "players": game.num_players(),
              "utilities": (game.min_utility(), game.max_utility())}
    for name, want in expected.items():
        assert checks[name] == want, name
    assert t.short_name == short_name_for(path)


def test_load_by_name_with_options():
    """Once registered, a ruleset loads by its short name with options as parameters."""
    load_openspiel_game(RULESETS / "gerry.gdl")
    game = pyspiel.load_game("python_gdl_gerry(size=2,turns_each=1,line_rule=plurality)")
    state = game.new_initial_state()
    assert "cell[2,*]" in str(state) and "cell[3,*]" not in str(state)
    again = pyspiel.load_game(str(game))
    assert str(again) == str(game)


def test_options_are_read_as_the_engine_reads_them():
    # a bool option "on" was false, a misspelt "ture" false with no word, 4.9 was 4
    from gdl.errors import OptionError
    dds = RULESETS / "double_dealing_shuffle.gdl"
    game = load_openspiel_game(dds, {"allow_identity_shuffle": "on", "deck_size": "4"})
    assert game.get_parameters()["allow_identity_shuffle"] is True
    assert game.get_parameters()["deck_size"] == 4
    for wrong, said in (({"allow_identity_shuffle": "ture"}, "is true or false"),
                        ({"deck_size": 4.9}, "takes a whole number, not '4.9'")):
        with pytest.raises(OptionError, match=said):
            load_openspiel_game(dds, wrong)
    from interpreter.integrations._actions import IntegrationError
    with pytest.raises(IntegrationError, match="max_game_length takes a whole number"):
        load_openspiel_game(dds, max_game_length=4.9)      # was cut to 4


def test_action_strings_are_move_texts():
    """An action's string is its move's text: the same at every state, and the legal
    actions are exactly the legal moves."""
    game = load_openspiel_game(RULESETS / "double_dealing_shuffle.gdl", {"deck_size": 4})
    state = game.new_initial_state()
    moves = state.gdl_state().legal_moves("p1")
    actions = state.legal_actions(0)
    assert sorted(state.action_to_string(0, a) for a in actions) == sorted(m.text
                                                                          for m in moves)
    assert all(state.action_to_string(1, a) == state.action_to_string(0, a) for a in actions)
    texts = [state.action_to_string(0, a) for a in range(game.num_distinct_actions())]
    assert len(set(texts)) == len(texts)


def test_kuhn_tree_matches_openspiel():
    """The adapter's Kuhn and Leduc poker have OpenSpiel's numbers of histories (chance
    and terminal ones included), and Kuhn's information states group states with the
    same legal actions: 6 per player."""
    from open_spiel.python.algorithms.get_all_states import get_all_states
    for path, native in ((KUHN, "kuhn_poker"), (LEDUC, "leduc_poker")):
        ours = get_all_states(load_openspiel_game(path), include_terminals=True,
                              include_chance_states=True)
        theirs = get_all_states(pyspiel.load_game(native), include_terminals=True,
                                include_chance_states=True)
        assert len(ours) == len(theirs)
    infosets = defaultdict(set)
    for state in get_all_states(load_openspiel_game(KUHN), include_terminals=False).values():
        player = state.current_player()
        infosets[player, state.information_state_string()].add(tuple(state.legal_actions()))
    assert sorted(p for p, _ in infosets) == [0] * 6 + [1] * 6
    assert all(len(actions) == 1 for actions in infosets.values())


def test_cfr_finds_kuhn_value():
    """OpenSpiel's CFR on the ruleset converges to Kuhn poker's value, -1/18 for the
    first player (Kuhn 1950), and the uniform policy's exploitability is 11/24."""
    from open_spiel.python import policy
    from open_spiel.python.algorithms import cfr, expected_game_score, exploitability
    game = load_openspiel_game(KUHN)
    uniform = exploitability.exploitability(game, policy.UniformRandomPolicy(game))
    assert uniform == pytest.approx(11 / 24)
    solver = cfr.CFRSolver(game)
    for _ in range(200):
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    value = expected_game_score.policy_value(game.new_initial_state(), [average] * 2)
    assert value[0] == pytest.approx(-1 / 18, abs=1e-2)
    assert value[0] + value[1] == pytest.approx(0)
    assert exploitability.exploitability(game, average) < 1e-2


def test_long_information_states_are_digests():
    """Past READABLE_STEPS steps the information state is a digest chained over the
    engine's perfect-recall entries: built step by step, it equals the digest of the same
    history built at once (a deserialised state), and differs between the players."""
    from interpreter.integrations.openspiel import READABLE_STEPS
    game = load_openspiel_game(RULESETS / "evil_deal.gdl")
    state = game.new_initial_state()
    rng = random.Random(5)
    while len(state.gdl_state().history) <= READABLE_STEPS + 5:
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        elif state.is_simultaneous_node():
            state.apply_actions([rng.choice(state.legal_actions(p)) for p in (0, 1)])
        else:
            state.information_state_string(0)
            state.apply_action(rng.choice(state.legal_actions()))
    key = state.information_state_string(0)
    assert "sha256" in key and len(key) < 200
    assert game.deserialize_state(state.serialize()).information_state_string(0) == key
    assert state.information_state_string(1) != key
    assert state.clone().information_state_string(0) == key


def test_truncation_at_max_game_length():
    """A game longer than max_game_length decisions ends there with returns of 0."""
    game = load_openspiel_game(RULESETS / "gerry.gdl", {"size": 3, "turns_each": 2},
                               max_game_length=3)
    state = game.new_initial_state()
    rng = random.Random(0)
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        else:
            state.apply_action(state.legal_actions()[0])
            decisions += 1
    assert decisions == 3 and state.returns() == [0.0, 0.0]


def test_big_shuffle_is_dealt_card_by_card():
    """A 50-card shuffle becomes single draws from the top, uniform over the cards left,
    and the gdl state takes the whole order once it is forced."""
    game = load_openspiel_game(RULESETS / "gerry.gdl")
    state = game.new_initial_state()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 50 and sum(p for _, p in outcomes) == pytest.approx(1)
    first = outcomes[7][0]
    text = state.action_to_string(pyspiel.PlayerId.CHANCE, first)
    assert "card 1 from the top is" in text
    state.apply_action(first)
    assert len(state.chance_outcomes()) == 49
    for _ in range(48):
        state.apply_action(state.chance_outcomes()[0][0])
    gdl = state.gdl_state()
    assert text.endswith(gdl.history[0][1].split(": ")[1].split()[0])


# (ruleset, options, adapter parameters, a kind of node its games must reach)
QUERY_CASES = [
    (KUHN, {}, {}, pyspiel.PlayerId.CHANCE),
    (RULESETS / "double_dealing_shuffle.gdl", {"deck_size": 4, "shuffles": 1}, {},
     pyspiel.PlayerId.SIMULTANEOUS),
    (RULESETS / "gerry.gdl", {"size": 3, "turns_each": 2}, {"max_game_length": 3}, 1),
    (RULESETS / "double_down.gdl", {"players": 3}, {"chance": "sampled"}, 2),
]


@pytest.mark.parametrize("path,options,adapter,reached", QUERY_CASES,
                         ids=[p.stem for p, _, _, _ in QUERY_CASES])
def test_the_adapters_own_answers_to_openspiels_queries_are_openspiels(
        path, options, adapter, reached):
    """A Python caller's is_chance_node(), legal_actions() and the like are answered by
    the adapter without crossing into C++ (which asks the state its player through
    pybind11 each time): at every state of random games, chance, simultaneous, a
    truncated end and sampled chance included, they answer as OpenSpiel's own do."""
    game = load_openspiel_game(path, options, **adapter)
    rng = random.Random(7)
    kinds = set()
    for _ in range(6):
        state = game.new_initial_state()
        while True:
            for query in ("is_chance_node", "is_player_node", "is_simultaneous_node",
                          "legal_actions"):
                assert getattr(state, query)() == getattr(pyspiel.State, query)(state), query
            for player in range(game.num_players()):
                assert state.legal_actions(player) == \
                    pyspiel.State.legal_actions(state, player)
            kinds.add(state.current_player())
            if state.is_terminal():
                break
            if state.is_chance_node():
                state.apply_action(rng.choice(state.legal_actions()))
            elif state.is_simultaneous_node():
                state.apply_actions([rng.choice(state.legal_actions(p))
                                     for p in range(game.num_players())])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    assert pyspiel.PlayerId.TERMINAL in kinds and reached in kinds


def test_information_states_asked_late_are_those_of_a_state_logged_from_the_start():
    """A state logs what each seat sees only once an information state is asked for
    (playouts that ask none skip it): the log so far is made by replay then, and the
    state and its clones keep it as they go, so every answer is the full one."""
    from interpreter.observe import infoset_key
    game = load_openspiel_game(LEDUC)
    rng = random.Random(3)
    for _ in range(5):
        state = game.new_initial_state()
        for _ in range(rng.randrange(2, 6)):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
        assert state.gdl_state().obs is None
        asked = [state.information_state_string(p) for p in range(2)]
        assert state.gdl_state().obs is not None
        logged = game.new_initial_state()          # logging from the first step
        logged.information_state_string(0)
        for action in state.history():
            logged.apply_action(action)
        assert asked == [logged.information_state_string(p) for p in range(2)]
        later = state.clone()
        while not later.is_terminal():
            later.apply_action(rng.choice(later.legal_actions()))
            seats = later.gdl_state().game.seats
            assert later.gdl_state().obs is not None
            fresh = later.gdl_state().clone()
            fresh.obs = None                       # the replay's answer
            assert [later.information_state_string(p) for p in range(2)] == \
                [infoset_key(fresh, seat) for seat in seats]


def test_answers_kept_for_later_states_are_handed_out_as_copies():
    """A `random` draw's outcomes (ids, texts, float probabilities) and a list of legal
    moves numbered are worked out once and kept for every state that meets them again;
    a caller gets its own list each time, so changing one leaves the next state's answer
    (and this state's next one) as it was; each probability is the float of the exact
    one."""
    from fractions import Fraction
    game = load_openspiel_game(KUHN)
    first, second = game.new_initial_state(), game.new_initial_state()
    outcomes = first.chance_outcomes()
    assert outcomes == [(i, float(Fraction(1, 3))) for i in range(3)]
    assert first.chance_outcomes() is not outcomes
    outcomes[0] = (0, 0.0)
    outcomes.append((3, 1.0))
    assert second.chance_outcomes() == [(i, float(Fraction(1, 3))) for i in range(3)]
    assert first.legal_actions() == [0, 1, 2]
    for state in (first, second):
        state.apply_action(0)
        state.apply_action(1)
    assert first.current_player() == 0
    actions = first.legal_actions()
    assert actions == [0, 1] and first.legal_actions() is not actions
    actions.clear()
    assert first.legal_actions() == second.legal_actions() == [0, 1]
    assert [first.action_to_string(0, a) for a in (0, 1)] == ["bet", "pass"]


@pytest.mark.parametrize("path,options", [
    (LEDUC, {}),
    (RULESETS / "double_dealing_shuffle.gdl", {"deck_size": 4, "shuffles": 1, "max_rounds": 3}),
], ids=["leduc", "dds-simultaneous"])
def test_a_clone_answers_as_its_original_until_either_moves_on(path, options):
    """A clone starts with what its original worked out for their node (the player, each
    seat's legal actions, the chance outcomes): once one of them moves on, the other
    still answers for the node it is at, and the one that moved answers as a state
    replayed to the same point does."""
    game = load_openspiel_game(path, options)
    rng = random.Random(5)

    def answers(state):
        if state.is_chance_node():
            return state.current_player(), state.chance_outcomes()
        return state.current_player(), [state.legal_actions(p)
                                        for p in range(game.num_players())]

    for _ in range(4):
        state = game.new_initial_state()
        while not state.is_terminal():
            before = answers(state)
            twin = state.clone()
            if state.is_simultaneous_node():
                twin.apply_actions([rng.choice(state.legal_actions(p)) if state.legal_actions(p)
                                    else 0 for p in range(game.num_players())])
            else:
                twin.apply_action(rng.choice(state.legal_actions()))
            assert answers(state) == before
            replayed = game.new_initial_state()
            for action in twin.history():
                if replayed.is_simultaneous_node():
                    break
                replayed.apply_action(action)
            else:
                assert answers(twin) == answers(replayed)
            state = twin


def test_a_sampled_game_loaded_again_deals_as_the_first_did():
    # the generator lived with the game's shared data: a second load went on from the
    # first one's draws
    def deals():
        game = load_openspiel_game(RULESETS / "classics" / "kuhn_poker.gdl", {},
                                   chance="sampled", seed=3)
        return [str(game.new_initial_state()) for _ in range(5)]
    assert deals() == deals()


def test_misused_actions_are_integration_errors():
    from interpreter.integrations import IntegrationError
    kuhn = load_openspiel_game(RULESETS / "classics" / "kuhn_poker.gdl")
    state = kuhn.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    with pytest.raises(IntegrationError, match="the game is over"):
        state.apply_action(0)
    # apply_actions at a chance node or one seat's decision did nothing in gdl and was
    # recorded in pyspiel's history all the same
    state = kuhn.new_initial_state()
    with pytest.raises(IntegrationError, match="every player moves at once, and chance "
                                               "acts here: use apply_action"):
        state.apply_actions([1, 1])
    state.apply_action(0)
    state.apply_action(0)
    with pytest.raises(IntegrationError, match="this game's players move one at a time"):
        state.apply_actions([0, 1])
    assert state.history() == [0, 0] and len(state.gdl_state().trace_texts()) == 2
    with pytest.raises(IntegrationError, match="chance is auto or sampled"):
        load_openspiel_game(RULESETS / "classics" / "kuhn_poker.gdl", chance="bogus")
    dds = load_openspiel_game(RULESETS / "double_dealing_shuffle.gdl", {"deck_size": 4})
    state = dds.new_initial_state()
    assert state.is_simultaneous_node()
    with pytest.raises(IntegrationError, match="apply_actions takes one action per player"):
        state.apply_action(state.legal_actions(0)[0])
    with pytest.raises(IntegrationError, match=r"one action per player \(2\), not 1"):
        state.apply_actions([state.legal_actions(0)[0]])
    assert state.is_simultaneous_node() and state.legal_actions(0)


#: two seats and a deck of three cards, for rulesets written in a test
THREE_CARDS = '''players pa, pb
card n: 1..3
cards into deck: card(n: i) for i in 1..3
zone deck: stack
'''


def test_a_count_of_joined_lists_is_bounded_by_both_parts(tmp_path):
    # `count` of a list of cards was taken to be at most the game's cards: `go 4` fell
    # outside the numbered values, an error in the middle of play
    rules = tmp_path / "joined.gdl"
    rules.write_text('game "joined"\n' + THREE_CARDS + '''var t: text = ""
action go(x: 1..count([c for c in deck] + [top(deck)] + [c for c in deck for d in deck]
                     + [top(deck) for i in 1..2])):
    require x > 11
    t = text(x)
flow:
    choose pa: go
    end game
''')
    game = load_openspiel_game(str(rules))
    state = game.new_initial_state()
    # 3 + 1 + 9 + 2: a comprehension over a range counted by the range (it was refused)
    assert [state.action_to_string(a) for a in state.legal_actions()] == [
        "go 12", "go 13", "go 14", "go 15"]


def test_a_parameter_taking_lists_is_refused_as_lists(tmp_path):
    # it was told to give a range whose ends are numbers
    from gdl.errors import GdlError
    rules = tmp_path / "lists.gdl"
    rules.write_text('game "lists"\n' + THREE_CARDS + '''zone pile: stack
action take(s: combinations(deck, 2)):
    move s to pile
flow:
    choose pa: take
    end game
''')
    with pytest.raises(GdlError, match=r"cannot number the values of parameter s of action "
                                       r"take: they are lists \(of card\)") as info:
        load_openspiel_game(str(rules))
    assert "choose one item a move" in str(info.value)


def test_what_the_adapter_lacks_is_an_error_as_in_openspiels_own_games():
    # chance_outcomes at a decision was [] and at the end an IndexError; the information
    # state tensor (not provided) read as shape []; an observer without the public
    # information was the full view
    from open_spiel.python.observation import make_observation
    from interpreter.integrations._actions import IntegrationError
    game = load_openspiel_game(KUHN)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    with pytest.raises(IntegrationError, match="for chance nodes; this is a decision"):
        state.chance_outcomes()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    with pytest.raises(IntegrationError, match="this is the end of the game"):
        state.chance_outcomes()
    assert not game.get_type().provides_information_state_tensor
    with pytest.raises(IntegrationError, match="no information-state tensor"):
        game.information_state_tensor_shape()
    with pytest.raises(IntegrationError, match="no information-state tensor"):
        game.new_initial_state().information_state_tensor(0)
    assert state.information_state_string(0)            # the string is there
    private_only = pyspiel.IIGObservationType(
        public_info=False, perfect_recall=False,
        private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER)
    with pytest.raises(ValueError, match="public_info=False"):
        make_observation(game, private_only)


def test_rl_environment_steps_a_game_of_both_kinds_of_node_to_its_end():
    # apply_actions at a `choose` of a simultaneous game was refused for a round: the
    # environment steps such a game by apply_actions alone
    from open_spiel.python import rl_environment
    game = load_openspiel_game(RULESETS / "evil_deal.gdl")
    env = rl_environment.Environment(game, seed=1)
    step, rng, n = env.reset(), random.Random(1), 0
    while not step.last() and n < 2000:
        step = env.step([rng.choice(step.observations["legal_actions"][p] or [0])
                         for p in range(game.num_players())])
        n += 1
    assert step.last() and n > 10


def test_twins_facing_two_ways_are_apart_in_a_shuffle_listed_or_dealt(tmp_path):
    # the face-up twin among face-down ones: three outcomes listed (by text), and dealt
    # card by card (a deck too large to list) it is an outcome of its own
    rules = tmp_path / "tw.gdl"
    rules.write_text('game "t"\nplayers a, b\ncard n: 1..9\n'
                     'cards into src: card(n: 1) for i in 1..3\n'
                     'cards into big: card(n: k) for k in 2..9\n'
                     'zone src: stack\nzone pile: stack\nzone big: stack\n'
                     'action go() "go":\n    pass\nflow:\n'
                     '    move top(src) to pile face up\n'
                     '    move top(src) to pile face down\n'
                     '    move top(src) to pile face down\n'
                     '    shuffle pile\n'
                     '    move top(pile) to big face up\n'
                     '    shuffle big\n'
                     '    choose a: go\n    draw\n')
    state = load_openspiel_game(rules).new_initial_state()
    listed = [state.action_to_string(pyspiel.PlayerId.CHANCE, a)
              for a, _ in state.chance_outcomes()]
    assert listed == ["shuffle pile: 1 (1) (1)", "shuffle pile: (1) 1 (1)",
                      "shuffle pile: (1) (1) 1"]
    state.apply_action(state.chance_outcomes()[0][0])          # the face-up 1 to big
    dealt = [state.action_to_string(pyspiel.PlayerId.CHANCE, a)
             for a, _ in state.chance_outcomes()]
    assert len(dealt) == 9 and sum(t.endswith(" is 1") for t in dealt) == 1 and \
        sum(t.endswith(")") for t in dealt) == 8          # the face-down ones bracketed


def test_a_drawn_card_is_numbered_alike_whichever_twin_is_left(tmp_path):
    # one twin of two in hand and the other in a deck too large to list: the draw of
    # the twin left was numbered by its id, so two positions with one key (either twin
    # in hand) gave the same outcome two numbers
    from interpreter import load
    from interpreter.integrations.openspiel import _restore
    rules = tmp_path / "tw.gdl"
    rules.write_text('game "t"\nplayers a, b\ncard n: 1..9\n'
                     'cards into deck: card(n: 1) for i in 1..2\n'
                     'cards into deck: card(n: k) for k in 2..9\n'
                     'zone deck: stack\nzone hand[player]: stack\n'
                     'action go() "go":\n    pass\nflow:\n    shuffle deck\n'
                     '    move top(deck) to hand[a]\n    shuffle deck\n'
                     '    choose a: go\n    draw\n')
    seen = []
    for top in (0, 1):                          # the twin that went to hand[a]
        s = load(str(rules)).new_state()
        bottom_first = [i for i in range(10) if i != top] + [top]
        s.apply_chance(s.outcome_from_data("shuffle", tuple(bottom_first)))
        handle = _restore(str(rules), {}, s.trace(), 0, None, [])
        seen.append((s.key(), [(i, text) for i, text, _, _ in handle.chance_list()]))
    assert seen[0][0] == seen[1][0]
    assert seen[0][1] == seen[1][1] and len(seen[0][1]) == 9
    assert seen[0][1][0] == (0, "shuffle deck: card 1 from the top is 1")


TWIN_RANDOM = """game "t"
players p1, p2
enum rank = ra "A", rb "B"
card rank: rank
cards into deck: card(rank: r) for r in [ra, rb, ra]
zone deck: stack, face up
zone hand[player]: set, seen by owner
zone pile: stack, face up
action go() "go":
    pass
flow:
    FIRST
    choose p1: go
    random c in DOMAIN
    move c to pile face up
    if TEST:
        win [p1]
    else:
        win [p2]
"""


@pytest.mark.parametrize("first,domain,test,texts", [
    # one A in p1's hand, the other in the deck: the draw of either A is not one outcome
    ("move top(deck) to hand[p1]", "card", "count(hand[p1]) > 0",
     ["random A (in deck)", "random A (in hand[p1])", "random B"]),
    # both in one face-up stack: which A goes changes the order left
    ("pass", "cards(deck)", "top(deck).rank == ra", ["random A", "random B", "random A #2"]),
])
def test_twins_that_lead_to_different_positions_are_different_random_outcomes(
        tmp_path, first, domain, test, texts):
    # their values' texts were merged into one outcome of 2/3, applied as the first A:
    # the game's value came out +1 or -1/3 for p1 where it is +1/3 (gdl's enumeration)
    from interpreter import load
    from interpreter.enumerate import enumerate_states
    rules = tmp_path / ("twin_zones.gdl" if "hand" in first else "twin_stack.gdl")
    rules.write_text(TWIN_RANDOM.replace("FIRST", first).replace("DOMAIN", domain)
                     .replace("TEST", test))
    exact = enumerate_states(load(str(rules))).outcomes
    assert sum(p * r[0] for r, p in exact.items()) == pytest.approx(1 / 3)
    game = load_openspiel_game(rules)
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    assert [state.action_to_string(pyspiel.PlayerId.CHANCE, a)
            for a, _ in state.chance_outcomes()] == texts
    assert game.max_chance_outcomes() >= 3
    values = pyspiel.expected_returns(game.new_initial_state(),
                                      pyspiel.UniformRandomPolicy(game), -1, True)
    assert values == pytest.approx([1 / 3, -1 / 3])
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_a_named_twin_is_an_outcome_of_its_own_to_the_last_draw(tmp_path):
    # a deck of B, A, C, C, the top C named: once B and A were drawn no chance node was
    # left (the two Cs placed by id, the named one always in one place), and a draw
    # listed the named and the unnamed C under one action string
    rules = tmp_path / "named.gdl"
    rules.write_text('game "t"\nplayers p1, p2\nenum rank = ra "A", rb "B", rc "C"\n'
                     'card rank: rank\n'
                     'cards into deck: card(rank: r) for r in [rb, ra, rc, rc]\n'
                     'zone deck: stack\nzone pile: stack, face up\n'
                     'var marked: card? = none\naction go() "go":\n    pass\nflow:\n'
                     '    marked = top(deck)\n    choose p1: go\n    shuffle deck\n'
                     '    move bottom(deck) to pile face up\n'
                     '    if zone_of(marked) == pile:\n        win [p1]\n'
                     '    else:\n        win [p2]\n')
    game = load_openspiel_game(rules)
    values = pyspiel.expected_returns(game.new_initial_state(),
                                      pyspiel.UniformRandomPolicy(game), -1, True)
    assert values == pytest.approx([-1 / 2, 1 / 2])         # p1 wins 1/4 of the orders
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    texts = [state.action_to_string(pyspiel.PlayerId.CHANCE, a)
             for a, _ in state.chance_outcomes()]
    assert len(set(texts)) == len(texts) == 4 and texts[-1].endswith(" is C #2")
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_a_state_pickled_before_one_outcome_events_were_steps_loads(tmp_path):
    # its trace (gdl-trace-1) lacks them: the state was rebuilt step by step without
    # them, and stopped at the first ("chance acts here, not a player")
    from interpreter import load
    from interpreter.integrations.openspiel import _restore
    rules = tmp_path / "t.gdl"
    rules.write_text('game "t"\nplayers a, b\ncard n: 1..2\n'
                     'cards into deck: card(n: k) for k in 1..2\n'
                     'cards into pair: card(n: 1) for i in 1..2\n'
                     'zone deck: stack\nzone pair: stack\nzone hand[player]: stack\n'
                     'action take() "take":\n    move top(deck) to hand[me]\nflow:\n'
                     '    shuffle deck\n    shuffle pair\n    choose a: take\n'
                     '    choose b: take\n    draw\n')
    state = load(str(rules)).new_state()
    while not state.is_terminal() and len(state.history) < 3:
        state.apply(state.chance_outcomes()[0][0] if state.is_chance()
                    else state.legal_moves()[0])
    trace = state.trace()
    assert [s.get("chance", "").split(":")[0] for s in trace["steps"]] == \
        ["shuffle deck", "shuffle pair", ""]
    old = dict(trace, format="gdl-trace-1", steps=trace["steps"][:1] + trace["steps"][2:])
    restored = _restore(str(rules), {}, old, 1, None, [])
    assert restored.state.key() == state.key()


def test_a_game_pickles_into_another_process(tmp_path):
    # the class `register` makes could not be looked up: PicklingError (OpenSpiel's own
    # Python games pickle, and worker pools hand games over so)
    import pickle
    import subprocess
    import sys
    game = load_openspiel_game(RULESETS / "double_dealing_shuffle.gdl", {"deck_size": 4})
    (tmp_path / "g.pickle").write_bytes(pickle.dumps(game))
    code = ("import pickle, sys; g = pickle.loads(open(sys.argv[1], 'rb').read()); "
            "print(g.get_parameters()['deck_size'], g.new_initial_state().is_chance_node())")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "g.pickle")],
                          capture_output=True, text=True, timeout=60, cwd=str(tmp_path))
    assert done.stdout.split() == ["4", str(game.new_initial_state().is_chance_node())], \
        done.stderr
