"""What a seeker does next and how it reacts, from a policy fitted on people (`seeker.policy=FILE`).

A hand-set rate ("react a quarter of the time") was not taken from anyone. With a fitted
policy (`environments.acts.policy`, `crsim data policy`) the seeker instead draws its next
act family from what people did after the same recommender act at the same point of the
conversation, among the families it can perform now (it cannot react with nothing on
screen, nor name a liked item it has already named). Its reaction to a shown item comes
from what it knows: its target looks right, an item the person named themselves was seen
and liked (never turned down), any other was seen as often as people had seen items that
popular, and liked as often as people liked what they were suggested. With a wording bank
(`seeker.wordings`, `crsim data wordings`) it says each act as a person of the training
dialogues said it (`people_said`), not in a hand-written frame.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from environments.acts.answer_wordings import AnswerWordings, load_answer_wordings
from environments.acts.labeller import label_recommender_turn
from environments.acts.policy import ReactionRates, SeekerPolicy, contexts_of
from environments.acts.wordings import Wording, WordingBank, fill, load_wordings
from environments.base import ItemCard, SeekerObservation
from environments.models import Role

if TYPE_CHECKING:
    from agents.steps.seeker.answer import SeekerAnswer


POLICIES = Path(__file__).resolve().parent.parent / "policies"
GROUNDED_POLICY = "redial"  # `policy: auto` in grounded episodes: fitted on ReDial's training dialogues


def shipped(setting: str, suffix: str = "") -> Path:
    """A file a setting names: a path, or the name of one shipped in agents/policies/
    (`<name><suffix>.json`)."""
    path = Path(setting)
    return path if path.suffix or path.is_file() else POLICIES / f"{setting}{suffix}.json"


def policy_path(policy: str) -> Path:
    """A policy file: a path, or the name of one shipped in agents/policies/ ("redial")."""
    return shipped(policy)


def wordings_path(wordings: str) -> Path:
    """A wording bank: a path, or the name of a shipped policy whose bank is beside it
    ("redial": agents/policies/redial_wordings.json, `crsim data wordings`)."""
    return shipped(wordings, "_wordings")


def load_bank(setting: str | None) -> WordingBank | None:
    """`seeker.wordings`: null (the seeker's own frames), `auto` (the grounded policy's bank), a file."""
    if not setting:
        return None
    return load_wordings(wordings_path(GROUNDED_POLICY if setting == "auto" else setting))


def load_answer_bank(setting: str | None) -> AnswerWordings | None:
    """`seeker.answer_wordings`: null (crsim's frames), the name of a shipped bank ("sgd":
    agents/policies/sgd_answer_wordings.json), or a file from `crsim data answer-wordings`."""
    if not setting:
        return None
    return load_answer_wordings(shipped(setting, "_answer_wordings"))


def people_said(bank: WordingBank | None, family: str, obs: SeekerObservation, keys: Sequence[object], *,
                title: str | None = None, kind: str | None = None, reaction: str | None = None,
                slotted: bool = False, liking: bool | None = None) -> str | None:
    """The move said as a person of the training dialogues said it (a delexicalised turn of
    that act, filled with this episode's title or kind; people said after this recommender
    act preferred), or None: no bank, or no wording of it that these values fill."""
    wording = people_wording(bank, family, obs, keys, title=title, kind=kind, reaction=reaction, slotted=slotted,
                             liking=liking)
    return None if wording is None or bank is None else fill(wording.text, title=title, kind=kind,
                                                              noun=bank.item_noun)


def people_wording(bank: WordingBank | None, family: str, obs: SeekerObservation, keys: Sequence[object], *,
                   title: str | None = None, kind: str | None = None, reaction: str | None = None,
                   slotted: bool = False, liking: bool | None = None) -> Wording | None:
    """The wording `people_said` fills, unfilled: its slots say which of the values it says."""
    if bank is None:
        return None
    return bank.choose(family, seed_keys=keys, title=title, kind=kind, reaction=reaction, slotted=slotted,
                       after="+".join(recommender_contexts(obs)), replying_to=recommender_words(obs), liking=liking)


def people_preference(bank: WordingBank | None, result: SeekerAnswer, obs: SeekerObservation,
                      keys: Sequence[str], liked: tuple[str, str, Sequence[str]] | None = None
                      ) -> tuple[str, list[str]] | None:
    """A taste the answer states that is one of the catalog's kinds, said as a person of the
    training dialogues stated one ("I'm looking for comedies to watch."), with the facts it
    states; None: no bank, no such taste, or no wording for it. The answer's own frames
    ("Not fussed about that. Comedy, mostly"; the target-free seeker's "Preferably romance")
    were a blind reader's surest giveaway. Only wordings that like what they name: "I don't
    like {kind}." said of a liked kind turned a horror fan against horror.

    `liked`: (title, fact key, its kinds) of an item the seeker liked and has not named yet.
    People's preferences often name one ("I like {kinds} like {title}", "Something like
    {title}": a third of ReDial's training wordings with a slot), and that is how a person who
    knew films told the recommender about them; without it the grounded seeker named 33 of
    the 197 films it knew in 100 conversations, people 144 in the same number of turns. It is
    offered only with a kind it is of ("an action movie like Fargo" gave the seeker away)."""
    if bank is None:
        return None
    offered, liked_key, liked_kinds = liked or (None, None, ())
    for aspect, value, sign in (tuple(c) for c in result.claims):
        kind = bank.kind_named(str(value)) if int(sign) > 0 else None
        # the fact the claim states, as each seeker keys it ("genre:war"; PEPPER's "pref:genre=war")
        key = next((k for k in keys if k == f"{aspect}:{value}" or k.endswith(f":{aspect}={value}")), None)
        if not (kind and key):
            continue
        title = offered if kind in {bank.kind_named(k) for k in liked_kinds} else None
        wording = people_wording(bank, "preference", obs, (obs.episode_seed, len(obs.dialogue), kind), kind=kind,
                                 title=title, slotted=True, liking=True)
        if wording is not None:
            said = [key] if wording.slots & {"kind", "kinds"} else []
            return (fill(wording.text, title=title, kind=kind, noun=bank.item_noun),
                    said + ([liked_key] if title and liked_key and "title" in wording.slots else []))
    return None


def recommender_words(obs: SeekerObservation) -> str:
    """The recommender's last words ('' before it spoke)."""
    return next((t.text for t in reversed(obs.dialogue) if t.role != Role.seeker and t.text.strip()), "")



def reaction_wording(reaction: Reaction, bank: WordingBank | None = None, keys: Sequence[object] = ()) -> str:
    """The bank's reaction a view is said as: taking it ("I'll check it out"), seen or not, liked or not.

    With a `bank`, seen or not alone ("I haven't seen that one") as often as the bank's people
    said so without a like or dislike: on ReDial's training dialogues 22% of reactions to a
    seen film and 35% to an unseen one. Always saying a stance made "I loved X" 69% of the
    grounded target-biased seeker's reactions on tune_data (people: 18%)."""
    if reaction.accept:
        return "unseen_liked"
    side = "seen" if reaction.seen else "unseen"
    if bank is not None:
        plain = bank.said(f"react:{side}")
        stance = bank.said(f"react:{side}_liked") + bank.said(f"react:{side}_disliked")
        draw = zlib.crc32("-".join(map(str, (*keys, "stance"))).encode()) / 2**32
        if plain and draw < plain / (plain + stance):
            return side
    return f"{side}_{'liked' if reaction.like else 'disliked'}"


@dataclass(frozen=True, slots=True)
class Reaction:
    item: ItemCard
    position: int
    seen: bool
    like: bool
    accept: bool = False


def seeker_turn(obs: SeekerObservation) -> int:
    """Which turn of the seeker's this is, counting the person's opening as the first."""
    return 1 + sum(1 for t in obs.dialogue if t.role == Role.seeker and t.text.strip())


def recommender_contexts(obs: SeekerObservation) -> tuple[str, ...]:
    """The policy's context: all the recommender's last turn did, as the labeller reads it —
    its items on screen, and its words alone (a question asked beside a list is still asked)."""
    last = next((t for t in reversed(obs.dialogue) if t.role != Role.seeker), None)
    if last is None:
        return ("other",)
    titles = {card.id: card.title for card in obs.shown}
    return _turn_contexts(last.text, tuple(titles.get(i, i) for i in last.items_shown))


@lru_cache(maxsize=4096)
def _turn_contexts(text: str, shown_titles: tuple[str, ...]) -> tuple[str, ...]:
    """`recommender_contexts` of one turn, labelled once: a seeker turn asks for them for its
    act, then again for each wording and reaction it says."""
    shown = label_recommender_turn(text, items_shown=list(shown_titles))
    return contexts_of(sorted({*shown, *label_recommender_turn(text)}))


def choose_family(policy: SeekerPolicy, contexts: Sequence[str], turn: int, feasible: Sequence[str],
                  rnd: random.Random) -> str:
    """A draw from P(family | contexts, turn), renormalised over the families possible now."""
    weights = policy.distribution_for(contexts, turn)
    options = [f for f in policy.families if f in feasible]
    if not options:
        return "chitchat"
    return rnd.choices(options, weights=[weights[f] for f in options])[0]


def decide_reaction(card: ItemCard, position: int, *, target_id: str, known: Sequence[str],
                    rates: ReactionRates | None, mentions: Mapping[str, float], seed: int) -> Reaction:
    """Seen / liked for one shown item, from what the seeker knows (see the module docstring)."""
    if card.id == target_id:
        return Reaction(card, position, seen=False, like=True, accept=True)
    if card.id in known:
        return Reaction(card, position, seen=True, like=True)
    if rates is None:  # a corpus that records no reactions: nothing known of it, not for me
        return Reaction(card, position, seen=False, like=False)
    seen = rates.seen_probability(mentions.get(card.id, 0.0)) >= 0.5
    draw = zlib.crc32(f"{seed}-like-{card.id}".encode()) / 2**32
    return Reaction(card, position, seen=seen, like=draw < rates.like_share)
