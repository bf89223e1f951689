"""Figures of hand-made dialogues, computed by hand, and the dialogue bootstrap."""

import math

from crsim_testing import make_tiny_catalog
from environments.models import Episode, Role, TargetRank, TerminationReason, Turn, TurnEvaluation
from simulators.validity.figures import compute_figures, ratio_ci
from simulators.validity.items import TitleFinder, rare_vocabulary
from simulators.validity.turns import seeker_dialogues

S, R = Role.seeker.value, Role.recommender.value


def _episode(index: int, turns: list[tuple[str, str, dict]], targets=(), ranks=(), accepted=False) -> Episode:
    logged = [Turn(index=i, role=role, text=text, **extra) for i, (role, text, extra) in enumerate(turns)]
    evaluations = [TurnEvaluation(turn=1, source_turn=1, n_candidates=24, top=[],
                                  ranks=[TargetRank(item_id=t, rank=r, n_better=r - 1, n_tied=1)
                                         for t, r in zip(targets, ranks)])] if ranks else []
    return Episode(id=f"e{index}", index=index, config_hash="x", seed=0, environment="t", targets=list(targets),
                   turns=logged, evaluations=evaluations,
                   termination=TerminationReason.accepted if accepted else TerminationReason.max_turns)


EPISODES = [
    _episode(0, [(R, "What are you looking for?", {}),
                 (S, "I love quiet places", {}),                       # 4 words, preference, after a question
                 (R, "Here are some.", {"items_shown": ["i01"]}),
                 (S, "Is Place 01 loud?", {}),                         # 4 words, question, names i01
                 (R, "No.", {}),
                 (S, "", {"feedback": {"i01": "like"}})],              # empty: skipped
             targets=["i02"], ranks=[3]),
    _episode(1, [(S, "Hello I want Place 02 please", {}),              # 6 words, preference, names the target early
                 (R, "Any budget?", {"items_shown": ["i02"]}),
                 (S, "cheap", {"feedback": {"i02": "like"}})],         # 1 word, reacted, after a question
             targets=["i02"], ranks=[12], accepted=True),
]


def test_shape_figures_by_hand():
    catalog = make_tiny_catalog()
    dialogues = seeker_dialogues(EPISODES)
    assert [len(d.turns) for d in dialogues] == [2, 2]
    figures = compute_figures(dialogues, finder=TitleFinder(catalog), rare=rare_vocabulary(catalog))
    assert math.isclose(figures["words_per_turn"].value, (4 + 4 + 6 + 1) / 4)
    assert figures["turns_per_dialogue"].value == 2.0
    assert figures["question_share"].value == 1 / 4
    assert figures["item_name_share"].value == 2 / 4
    assert figures["preference_share"].value == 2 / 4
    assert figures["reaction_share"].value == 1 / 4       # "cheap" carries feedback (and is the accepting move)
    assert figures["cooperativeness"].value == 1 / 2      # two answers to a question, one states a preference
    assert figures["target_named_early"].value == 1 / 2   # dialogue 1 names i02 before it is shown
    assert figures["target_top10_turn1"].value == 1 / 2   # ranks 3 and 12
    assert figures["words_per_turn"].n == 4 and figures["target_named_early"].n == 2


def test_rare_vocabulary_is_words_few_items_use():
    catalog = make_tiny_catalog()
    rare = rare_vocabulary(catalog)
    assert rare is not None and "quiet" not in rare and "spot" not in rare  # every item's description says them
    assert rare_vocabulary(catalog.__class__(catalog.manifest, [i.model_copy(update={"description": "",
                                                                                    "attributes": {}})
                                                                for i in catalog.items])) is None


def test_ratio_ci_resamples_dialogues():
    value, low, high, n = ratio_ci([1, 1, 1, 1], [1, 1, 1, 1])
    assert (value, low, high, n) == (1.0, 1.0, 1.0, 4)
    value, low, high, n = ratio_ci([0, 2, 0, 2], [2, 2, 2, 2], seed=1)
    assert value == 0.5 and 0.0 <= low < 0.5 < high <= 1.0 and n == 8
    assert math.isnan(ratio_ci([], [])[0])


def test_an_opening_the_environment_wrote_is_not_the_seekers():
    opened = _episode(5, [(S, "Hi I am looking for a movie like Place 01", {"metadata": {"opening": True}}),
                          (R, "Any budget?", {}), (S, "cheap", {})])
    [dialogue] = seeker_dialogues([opened])
    assert [t.text for t in dialogue.turns] == ["cheap"]


def test_rare_vocabulary_share_by_hand():
    from environments.catalog import Catalog
    from environments.models import CatalogManifest, Item

    # "zesty" is in one item's text, "food" in all three: rare = words used by 1-2 items
    items = [Item(id="a", title="A", category="x", description="zesty food"),
             Item(id="b", title="B", category="x", description="plain food"),
             Item(id="c", title="C", category="x", description="good food plain")]
    catalog = Catalog(CatalogManifest(name="t", domain="x", item_noun="things"), items)
    rare = rare_vocabulary(catalog)
    assert rare == {"zesty", "good", "plain"}
    # content words: "zesty", "food", "please" (want/something are function words) -> 1 rare of 3
    dialogues = seeker_dialogues([_episode(0, [(R, "Hi?", {}), (S, "I want zesty food please", {})])])
    figure = compute_figures(dialogues, rare=rare)["rare_vocabulary_share"]
    assert abs(figure.value - 1 / 3) < 1e-12 and figure.n == 3


def test_a_title_inside_a_longer_title_names_only_the_longer_one():
    tiny = make_tiny_catalog()
    titles = ["Police Academy (1984)", "Police Academy 2: Their First Assignment (1985)", "The Avengers (2012)",
              "Avengers: Infinity War (2018)", "Avengers: Age of Ultron (2015)"]
    items = [item.model_copy(update={"id": f"m{n}", "title": title}) for n, (item, title) in
             enumerate(zip(tiny.items, titles))]
    finder = TitleFinder(tiny.__class__(tiny.manifest, items))
    assert finder.find("I'm considering Police Academy 2 tonight") == {"m1"}
    assert finder.find("I don't like The Avengers, too serious") == {"m2"}
    assert finder.find("Police Academy was fun, so was Infinity War") == {"m0"}  # a two-word subtitle is too generic
    assert finder.find("I think Avengers was great") == {"m2", "m3", "m4"}  # a bare shared form stays ambiguous


def test_verbatim_overlap_by_hand():
    from simulators.validity.figures import verbatim_overlap

    def dialogue(index, *texts):
        return _episode(index, [(R, "What are you looking for?", {})] + [(S, t, {}) for t in texts])

    people = seeker_dialogues([
        dialogue(0, "Thank you for your help! ok", "I want a quiet place to eat tonight."),
        dialogue(1, "thank you for your HELP", "Something spicy, please."),
        dialogue(2, "I want a quiet place to eat tonight"),
    ])
    # long sentences (> 4 words): d0 "thank you for your help", "i want a quiet place ...", d1 "thank you ...",
    # d2 "i want a quiet place ...": each also said by another person -> 4 / 4; "ok", "Something spicy,
    # please" are too short to count
    own = verbatim_overlap(people, people, own_excluded=True)
    assert (own.value, own.n) == (1.0, 4)
    alone = seeker_dialogues([dialogue(0, "Thank you for your help!"), dialogue(1, "I would watch it again tonight")])
    assert verbatim_overlap(alone, alone, own_excluded=True).value == 0.0  # nobody else said either
    simulated = seeker_dialogues([dialogue(5, "Thank you for your help.", "I need a loud place to eat tonight.")])
    figure = verbatim_overlap(simulated, people, own_excluded=False)
    assert (figure.value, figure.n) == (0.5, 2)  # the thanks verbatim; the wish differs in two words
