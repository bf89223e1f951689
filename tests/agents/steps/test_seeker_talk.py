"""How an offline seeker reacts, asks and names items: varied, short, never a product code."""

from __future__ import annotations

from agents.steps.seeker import talk
from simulators.validity.language import skeleton


def test_titles_are_said_as_people_write_them():
    assert talk.spoken_title("Superbad  (2007)") == "Superbad"
    assert talk.speakable("Police Academy") and not talk.speakable("B000068NZG")


def test_an_item_is_referred_to_by_position_or_title_never_a_forbidden_title():
    refs = {talk.refer(1, "Golden Wok", seed) for seed in range(40)}
    assert refs == {"the second one", "Golden Wok"}
    assert {talk.refer(0, "Casa Verde", seed, may_name=False) for seed in range(40)} == {"the first one"}
    assert {talk.refer(2, "B000068NZG", seed) for seed in range(40)} == {"the third one"}


def test_moves_are_short_and_their_wordings_many():
    makers = (lambda k: talk.like_shown("the second one", k), lambda k: talk.pass_shown("the first one", k),
              lambda k: talk.ask_shown("Golden Wok", k), lambda k: talk.name_liked("The Honest Fox (2001)", k),
              lambda k: talk.unknown_shown("the third one", k))
    for make in makers:
        said = [make(k) for k in range(300)]
        assert all(len(s.split()) <= 12 for s in said)
        assert len({skeleton(s) for s in said}) >= 6  # no one sentence frame dominates
    assert all(s.endswith("?") for s in (talk.ask_shown("it", k) for k in range(50)))
    assert all("(2001)" not in talk.name_liked("The Honest Fox (2001)", k) for k in range(50))


def test_a_reason_is_worded_in():
    assert "somewhere quiet" in talk.pass_shown("the first one", 3, want="somewhere quiet").lower()
    assert "somewhere quiet" in talk.ask_shown("the first one", 3, want="somewhere quiet").lower()


def test_each_seeker_keeps_its_own_typing_habit():
    line = "I haven't tried the first one yet."
    tidy = [s for s in range(200) if talk.STYLES[__import__("zlib").crc32(f"{s}-style".encode()) % 3][0] == 0.1]
    casual = [s for s in range(200) if talk.STYLES[__import__("zlib").crc32(f"{s}-style".encode()) % 3][0] == 0.9]
    dropped = lambda seeds: sum(not talk.styled(line, s, t).endswith(".") for s in seeds for t in range(10))  # noqa: E731
    assert dropped(casual) > 5 * dropped(tidy)
    assert talk.styled("Golden Wok looks good.", 3, 1)[0] == "G"  # a title is never lower-cased
    assert talk.styled(line, 7, 2) == talk.styled(line, 7, 2)


def test_the_items_on_screen_together_are_never_pointed_at_by_place():
    from simulators.validity.language import points_by_position

    said = [talk.pass_all(k) for k in range(100)] + [talk.pass_all(k, want="a longer cable") for k in range(100)]
    said += [talk.ask_all(k) for k in range(100)] + [talk.ask_all(k, want="sturdy plugs") for k in range(100)]
    assert not any(points_by_position(s) for s in said) and all(len(s.split()) <= 12 for s in said)
    assert all("a longer cable" in talk.pass_all(k, want="a longer cable").lower() for k in range(20))
    assert all(s.endswith("?") for s in (talk.ask_all(k, want="sturdy plugs") for k in range(20)))


def test_what_is_wanted_agrees_with_its_verb():
    said = [f(k, want=w) for f in (talk.pass_all, talk.ask_all) for k in range(100) for w in ("some tight sleeves",)]
    said += [f("the first one", k, want="some tight sleeves") for f in (talk.pass_shown, talk.ask_shown)
             for k in range(100)]
    assert any(" matter " in s for s in said) and any(" are " in s for s in said)
    assert not any("sleeves matters" in s or "sleeves is" in s for s in said)
    single = [talk.ask_all(k, want="a longer cable") for k in range(100)]
    single += [talk.ask_all(k, want="a spot off the main streets") for k in range(100)]
    assert any("cable matters" in s for s in single) and not any("cable matter " in s for s in single)
    assert not any("streets are" in s or "streets matter " in s for s in single)
