"""The reference classifier of `crsim validate reactions`: what is said before an item is shown
cannot tell a verdict that only the person's reply gives away."""

import random

from environments.models import Episode, Role, TerminationReason, Turn
from simulators.validity.predictability import predictability, shown_reactions

OPENINGS = ["hi, any good comedy?", "hello! looking for a horror film", "hey, something with action please"]


def _episode(index: int, liked: bool, rnd: random.Random) -> Episode:
    item = f"m{index % 7}"
    verdict = rnd.choice(["oh I loved that one, great pick", "yes! loved it, thanks", "that one is wonderful"]) \
        if liked else rnd.choice(["no, I hated that one", "ugh, awful movie, hated it", "not for me, boring"])
    turns = [Turn(index=0, role=Role.seeker, text=rnd.choice(OPENINGS)),
             Turn(index=1, role=Role.recommender, text="Have you seen this one?", items_shown=[item]),
             Turn(index=2, role=Role.seeker, text=verdict, feedback={item: "like" if liked else "dislike"})]
    return Episode(id=f"c{index}", index=index, config_hash="x", seed=0, environment="t", turns=turns,
                   termination=TerminationReason.max_turns)


def _episodes(start: int, n: int, seed: int) -> list[Episode]:
    rnd = random.Random(seed)
    return [_episode(start + i, rnd.random() < 0.5, rnd) for i in range(n)]


def test_the_texts_around_a_reaction():
    episode = _episode(3, True, random.Random(0))
    (reaction,) = shown_reactions(episode)
    assert reaction.item == "m3" and reaction.label == "like"
    assert reaction.before.endswith("R: Have you seen this one?") and reaction.before.startswith("S: ")
    assert reaction.reply == episode.turns[2].text


def test_a_verdict_in_the_reply_only_is_found_in_the_reply_only():
    found = {ref.kind: ref for ref in predictability(_episodes(0, 60, 1), _episodes(100, 30, 2), n_resamples=50)}
    assert set(found) == {"before", "reply"}
    assert found["reply"].kappa[0] == 1.0 and found["reply"].pairs == 30 and found["reply"].trained_on == 60
    assert abs(found["before"].kappa[0]) < 0.3  # the openings say nothing of the verdict


def test_no_reference_without_two_labels_to_learn_from():
    everyone_likes = [e for e in _episodes(0, 30, 1) if e.turns[2].feedback[e.turns[1].items_shown[0]] == "like"]
    assert predictability(everyone_likes, _episodes(100, 10, 2)) == []
