"""CRAG's language steps: offline answers, and how answers are mapped back onto the items asked about."""

from __future__ import annotations

import pytest
from crsim_testing import make_movie_catalog

from agents.steps.crag.entity_linking import TextLinker
from agents.steps.crag.steps import (
    ContextReflectStep, Judgement, Judgements, ItemsInDialogue, Rating, Ratings,
    RecommendInput, RecommendStep, ReflectLinksInput, ReflectLinksStep, RerankStep, TitleChoice, TitleChoices,
    fit_to_score, rerank,
)
from environments.models import Turn
from environments.search.titles import TitleIndex

DIALOGUE = [Turn(index=0, role="seeker", text="I loved The Conjuring, anything as scary?")]


@pytest.fixture(scope="module")
def catalog():
    return make_movie_catalog(interactions=False)


def items(catalog, *titles):
    return [next(i for i in catalog.items if i.title == t) for t in titles]


def test_rerank_sorts_by_score_and_keeps_the_order_among_equal_scores():
    ratings = Ratings(ratings=[Rating(title=t, score=s) for t, s in zip("abcde", [0, 2, 0, -1, 2])])
    assert rerank(list("abcde"), ratings) == ["b", "e", "a", "c", "d"]
    assert [fit_to_score(f) for f in (0.0, 0.19, 0.2, 0.5, 0.79, 0.8, 0.999)] == [-2, -2, -1, 0, 1, 2, 2]


def test_unrated_items_count_as_neutral_and_titles_match_loosely(catalog):
    step = RerankStep()
    asked = ItemsInDialogue(DIALOGUE, items(catalog, "Annabelle (2014)", "Scream (1996)", "Elf (2003)"),
                            [0.1, 0.2, 0.3], "movies")
    answer = Ratings(ratings=[Rating(title="scream", score=2), Rating(title="Annabelle", score=-1),
                              Rating(title="Not asked about", score=2)])
    assert [r.score for r in step.accept(answer, asked).ratings] == [-1, 2, 0]  # years and case do not matter
    listed = step.prompt_variables(asked)["items"].splitlines()
    described = next(line for line in listed if line.startswith("- Scream (1996)"))
    copied = Ratings(ratings=[Rating(title=described[2:], score=1)])  # the title copied with what follows it
    assert [r.score for r in step.accept(copied, asked).ratings] == [0, 1, 0]
    assert [r.score for r in step.offline(asked).ratings] == [-2, -1, -1]


def test_context_reflection_keeps_only_items_judged_relevant(catalog):
    step = ContextReflectStep()
    asked = ItemsInDialogue(DIALOGUE, items(catalog, "Insidious (2010)", "Elf (2003)", "Scream (1996)"),
                            [0.9, 0.2, 0.5], "movies", threshold=0.5)
    assert [j.relevant for j in step.offline(asked).judgements] == [True, False, True]
    answer = Judgements(judgements=[Judgement(title="Insidious (2010)", relevant=True)])
    assert [j.relevant for j in step.accept(answer, asked).judgements] == [True, False, False]  # unjudged: dropped


def test_link_reflection_falls_back_to_the_tie_rule_for_names_the_model_skipped(catalog):
    linker = TextLinker(TitleIndex(catalog))
    typo, numbered = linker.candidates("the notebok"), linker.candidates("kill bill 2")
    titles = linker.index.titles
    assert titles[typo.fuzzy.item] == "The Notebook (2004)" and titles[numbered.bm25.item] == "Kill Bill: Vol. 2 (2004)"
    step = ReflectLinksStep(linker)
    asked = ReflectLinksInput("I hated the notebok; kill bill 2 is fine", [typo, numbered], linker.index.titles, "movies")
    answer = TitleChoices(choices=[TitleChoice(name="KILL BILL 2", title="none")])
    decided = step.accept(answer, asked).decisions
    assert [d.method for d in decided] == [step.offline(asked).decisions[0].method, "none"]
    picked = step.accept(TitleChoices(choices=[TitleChoice(name="kill bill 2", title="kill bill: vol. 2 (2004)")]), asked)
    assert picked.decisions[1].method == "bm25"  # the title chosen, read back as the method that found it
    listed = step.prompt_variables(asked)["candidates"]
    assert '"Kill Bill: Vol. 2 (2004)"' in listed and "fuzzy" not in listed and "bm25" not in listed


def test_recommend_prompt_says_how_to_use_the_retrieved_items():
    def prompt(guidance: str, retrieved: tuple[str, ...]) -> str:
        asked = RecommendInput(DIALOGUE, retrieved, guidance, 20, "movies", ["Scream (1996)"])
        return RecommendStep().prompt_variables(asked)["retrieved"]

    assert "background only" in prompt("rag", ("Annabelle (2014)",))
    assert "candidates" in prompt("rec", ("Annabelle (2014)",)) and "Annabelle (2014)" in prompt("rec", ("Annabelle (2014)",))
    assert prompt("rag", ()) == "(nothing retrieved)"
    assert RecommendStep().offline(RecommendInput(DIALOGUE, (), "none", 1, "movies", ["A", "B"])).titles == ["A"]


def test_remakes_sharing_a_name_are_told_apart_by_year(catalog):
    asked = ItemsInDialogue(DIALOGUE, items(catalog, "It (1990)", "It (2017)"), [0.5, 0.5], "movies")
    answer = Judgements(judgements=[Judgement(title="It (1990)", relevant=False),
                                    Judgement(title="It (2017)", relevant=True)])
    assert [j.relevant for j in ContextReflectStep().accept(answer, asked).judgements] == [False, True]
