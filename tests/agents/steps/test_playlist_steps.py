"""The playlist steps' checks: what a real model did that the steps now refuse."""

from __future__ import annotations

from agents.steps.playlist.steps import (
    PickInput, Picks, PlaylistPickStep, PlaylistSeekerStep, SeekerInput, SeekerMove, picks_up_to,
)
from agents.steps.text import whole_sentences
from environments.base import ItemCard
from environments.models import Role, Turn

SHOWN = [ItemCard(f"t{n}", f"Song {n}", "", {"artist": "Ann"}) for n in range(1, 4)]
VERDICT = "I like the tracks 'Song 1' and 'Song 2'. I don't like 'Song 3'."
DIALOGUE = tuple(Turn(index=n, role=role, text=text) for n, (role, text) in enumerate((
    (Role.seeker, "Romantic songs from the 80s, please."),
    (Role.recommender, "Here are three romantic tracks. What do you think?"),
    (Role.seeker, VERDICT),
    (Role.recommender, "Great! I added two more."))))


def seeker_input(playlist: int = 8, size: int = 15) -> SeekerInput:
    return SeekerInput("You asked: romantic songs", DIALOGUE, SHOWN[:1] * playlist, SHOWN, size,
                       SeekerMove(text="I like the first one."))


def test_the_listener_may_not_send_a_message_again():
    step = PlaylistSeekerStep()
    assert "said before" in step.check(SeekerMove(text=VERDICT.upper()), seeker_input())
    assert "said before" in step.check(SeekerMove(text=VERDICT + " And I also wa"), seeker_input())
    assert step.check(SeekerMove(text="The second one is lovely, keep it."), seeker_input()) is None


def test_the_listener_may_not_finish_a_playlist_under_half_its_size():
    step = PlaylistSeekerStep()
    early = step.check(SeekerMove(text="I'm happy with the playlist now.", done=True), seeker_input(playlist=3))
    assert early is not None and "3 tracks" in early and "15" in early
    assert step.check(SeekerMove(text="That's a great playlist.", done=True), seeker_input(playlist=8)) is None


def test_the_curator_may_not_send_a_reply_again():
    step = PlaylistPickStep()
    inputs = PickInput(DIALOGUE, (), SHOWN, 2, Picks(response="Here are some tracks."))
    answer = picks_up_to(2)
    assert "said before" in step.check(answer(add=["1"], response="Great! I added two more."), inputs)
    assert step.check(answer(add=["1"], response="Glad you liked them; how about these?"), inputs) is None
    assert "said before" in step.check(answer(add=["1"], response=VERDICT), inputs)  # the listener's, sent back
    echoed = VERDICT + " I think these will complement the playlist."  # the listener's, one sentence added
    assert "said before" in step.check(answer(add=["1"], response=echoed), inputs)
    assert step.check(answer(add=["1"], response="Great! Here are some more."), inputs) is None  # short: may recur
    capped = "Great! I added two more. These will set the mo"  # cut at the cap: sent as "Great! I added two more."
    assert "said before" in step.check(answer(add=["1"], response=capped), inputs)


def test_a_message_cut_at_its_length_cap_loses_its_broken_last_sentence():
    assert whole_sentences("I like 'Song 1'. I don't like 'Song 3', 'Song 4' and") == "I like 'Song 1'."
    assert whole_sentences("I like it! Show me more.") == "I like it! Show me more."
    assert whole_sentences("no sentence end at all") == "no sentence end at all"
    step = PlaylistSeekerStep()
    cut = step.accept(SeekerMove(text="Lovely. And also the", like=[1]), seeker_input())
    assert cut.text == "Lovely." and cut.like == [1]
    inputs = PickInput(DIALOGUE, (), SHOWN, 2, Picks(response="Here are some tracks."))
    picked = PlaylistPickStep().accept(Picks(add=["1"], response="Here you go. I also"), inputs)
    assert picked.response == "Here you go."
