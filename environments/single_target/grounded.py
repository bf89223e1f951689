"""Grounded episodes: each episode is one real conversation of an imported corpus.

`environment=grounded environment.catalog=DIR` (a `crsim data import redial|inspired|...`
directory) runs the single-target protocol once per conversation of `dialogues.jsonl`
(of `split`, when given) that has a target in the catalog: the item the real seeker
accepted or liked (the importer's `Episode.targets`). The episode opens with the person's
first utterance, after whatever the real recommender said before it that names no item
(a greeting, "what do you like?"); the recommender moves first after it (roles recommender, seeker), so the
ranks of turn 1 are those after the person's own opening. By default (`seeker_knows:
person`) the seeker is given what that person knew when the conversation started
(`person_profile`): their opening, the items they named before the recommender did, and
their own taste words ("scary", "comedies"), plus which item is the target (to like it
when shown) but none of its attributes: people in ReDial did not know the writer or the
stars of a film they had not heard of yet. `seeker_knows: target` is 0.2.7's seeker, which
was also told the target's shown attributes (kept to compare), and nothing of the rest of
the real conversation. With `seeker_knows: transcript` the seeker is given the person's own
later turns until the target was first named (`PersonTranscript`), which `seeker=people`
says again one by one: the people's column of `crsim validate ranking`. With `seeker_knows:
history` the seeker is given that person's history instead, as a PEPPER seeker is
(`PepperProfile`: the items they knew, as above, rated as their questionnaire rated them,
their own words as the review, and their taste words), which is what `seeker=target_free`
needs. The recommender's view withholds each
grounded seeker's interaction with its target.

So one sweep gives simulated conversations beside their real counterparts (the same
conversation ids), which `crsim validate` compares on the same conversations.
"""

from __future__ import annotations

from collections import Counter
from itertools import pairwise
from dataclasses import dataclass
from typing import Any

from environments.acts.policy import mentions_by_item
from environments.base import ItemCard
from environments.catalog import Catalog, load_catalog_dir
from environments.catalog.store import DIALOGUES
from environments.episodes import pick_entry
from environments.errors import CrsimError
from environments.models import Episode, Role
from environments.multi_target.profile import PepperProfile, SeenReview
from environments.search.aspect_text import is_content, tokens
from environments.search.titles import spoken_title
from environments.search.word_stats import is_praise
from environments.single_target.profile import PersonContext, TargetBiasedProfile
from environments.target_facts import TargetKnowledge, target_knowledge
from environments.target_ranking import TargetRankingEnvironment, TargetRankingSetup

USER_KEYS = ("seeker_worker_id", "user_id", "seeker_id")  # where importers keep the real seeker's id


SEEKER_KNOWS = ("person", "target", "history", "transcript")
# What a person said they like, in words the corpus's people put right before the item noun
# before any recommendation ("scary movies", "disney movies", "older movies"), in at least
# MIN_TASTE_CONVERSATIONS conversations and at most MAX_TASTE_SHARE of them. Until 0.2.20 any
# word 5 to 15% of people said was one, and the seeker said "Really like lol movies",
# "I'm into picky movies", "Big on okay movies lately" (ReDial `heldout_data`: 122 such words,
# "okay", "haha", "did", "wait", "sorry" among them; now 28).
MIN_TASTE_CONVERSATIONS, MAX_TASTE_SHARE, MAX_TASTES = 2, 0.15, 4
CHAT_WORDS = frozenset("""
    recommend recommendation recommendations suggest suggestion suggestions watch film films show shows thanks thank
    hello today tonight weekend kind sort type sounds heard sure maybe really pretty good great nice cool awesome
    favorite favourite fan enjoy love like want need fun think know check year years time times ones help
    seen saw fine yes yeah option options hey lot lots types click day night morning evening afternoon greetings
    whats similar
""".split())
LIKED, DISLIKED = 5.0, 1.0  # a questionnaire's liked / disliked as a rating
KIND_ASPECT, MAX_KINDS_LIKED = "genre", 2  # the aspect naming what kind of item it is (movie metadata's genre)


@dataclass(frozen=True, slots=True)
class GroundedConversation:
    conversation_id: str
    target: str
    opening: tuple[tuple[str, str], ...]  # (role, text): the real turns up to the person's first utterance
    person: PersonContext
    user_id: str | None
    ratings: dict[str, float]  # the person's own like (5) / dislike (1) of items, where the corpus says
    later: tuple[str, ...] = ()  # the person's own turns after the opening, in order (`seeker_knows: transcript`)
    known: tuple[str, ...] = ()  # items the person named before the recommender did (they knew them already)
    unprompted: int | None = None  # how many `later` turns came before the target was named (`before_target`)


def grounded_conversation(episode: Episode, items: set[str]) -> GroundedConversation | None:
    """The grounding of one imported conversation; None when it has no target in the catalog
    or the seeker never speaks."""
    target = next((t for t in episode.targets if t in items), None)
    first = next((i for i, t in enumerate(episode.turns) if t.role == Role.seeker and t.text.strip()), None)
    if target is None or first is None:
        return None
    opening = tuple((t.role, t.text) for t in episode.turns[:first + 1]
                    if t.text.strip() and (t.role == Role.seeker or not t.items_shown))
    before, named = [], []
    for turn in episode.turns:
        if turn.role == Role.recommender and turn.items_shown:
            break
        if turn.role == Role.seeker and turn.text.strip():
            before.append(turn.text)
            named += [m for m in turn.metadata.get("mentioned", []) if m in items and m not in named]
    user = next((str(episode.profile[k]) for k in USER_KEYS if episode.profile.get(k) is not None), None)
    person = PersonContext(episode.id, tuple(before), tuple(named))
    ratings = {**{i: DISLIKED for i in episode.profile.get("disliked", [])},
               **{i: LIKED for i in episode.profile.get("liked", [])}}
    later = tuple(t.text for t in episode.turns[first + 1:] if t.role == Role.seeker and t.text.strip())
    return GroundedConversation(episode.id, target, opening, person, user, ratings, later,
                                known_before_shown(episode, items), before_target(episode, target, first))


def before_target(episode: Episode, target: str, first: int) -> int:
    """How many of the person's later turns came before the target was first named (suggested
    by the recommender, or named by the person): what they said before they were answering
    about it. The people's column of `crsim validate ranking` is these turns; after it, 68 of
    300 held-out ReDial people named the target in reply to their recommender ("I love The
    Shining!"), which a recommender reading the words found (dense's hit@10 0.198 against
    0.039 under simulation) and one that never suggests a named film lost."""
    said = 0
    for turn in episode.turns[first + 1:]:
        if target in turn.items_shown or target in turn.metadata.get("mentioned", []):
            break
        said += turn.role == Role.seeker and bool(turn.text.strip())
    return said


def known_before_shown(episode: Episode, items: set[str]) -> tuple[str, ...]:
    """Items the person named themselves before the recommender named them: what they knew
    when the conversation started (a film first heard of from the recommender is not)."""
    shown: set[str] = set()
    known: list[str] = []
    for turn in episode.turns:
        if turn.role == Role.seeker:
            known += [m for m in turn.metadata.get("mentioned", []) if m in items and m not in shown and m not in known]
        else:
            shown.update(turn.items_shown)
    return tuple(known)


def load_conversations(catalog: Catalog, split: str | None, limit: int | None) -> list[GroundedConversation]:
    from environments.catalog.jsonl import iter_jsonl

    if catalog.path is None or not (catalog.path / DIALOGUES).is_file():
        raise CrsimError(f"environment=grounded needs a catalog directory with {DIALOGUES} (an imported dialogue "
                         "corpus: crsim data import redial|inspired|durecdial)")
    items = set(catalog.item_ids)
    found = []
    for episode in iter_jsonl(catalog.path / DIALOGUES, Episode):
        if split is not None and episode.profile.get("split") != split:
            continue
        grounded = grounded_conversation(episode, items)
        if grounded is not None:
            found.append(grounded)
    if not found:
        which = f" of split '{split}'" if split else ""
        raise CrsimError(f"{catalog.path / DIALOGUES}: no conversation{which} with a target in the catalog "
                         "(the item its seeker accepted or liked)")
    return found[:limit]


class GroundedSetup(TargetRankingSetup):
    """One episode per real conversation; see the module docstring."""

    name = "grounded"

    def __init__(self, catalog: Catalog, *, split: str | None = None, limit: int | None = None, top_k: int = 4,
                 seeker_knows: str = "person"):
        if seeker_knows not in SEEKER_KNOWS:
            raise CrsimError(f"environment.seeker_knows={seeker_knows!r}; expected one of {', '.join(SEEKER_KNOWS)}")
        self.catalog = catalog
        self.seeker_knows = seeker_knows
        self.roles = (Role.recommender.value, Role.seeker.value)
        self.conversations = load_conversations(catalog, split, limit)
        self.recommender_catalog = catalog.without(
            interactions=[(c.user_id, c.target) for c in self.conversations if c.user_id is not None])
        self.top_k = top_k
        self.opening_question = ""  # the person's own first utterance opens each episode
        self.items_by_id = {item.id: item for item in catalog.items}
        self.taste_words = shared_taste_words(self.conversations, catalog.item_noun)
        self.popularity = mentions_by_item(catalog.items)
        self.kinds = frozenset(k.lower() for item in catalog.items
                               for k in attribute_list(item.attributes.get(KIND_ASPECT)))

    def new_episode(self) -> GroundedEnvironment:
        return GroundedEnvironment(self)

    def agent_catalog(self, role: str) -> Catalog | None:
        """The recommender ranks this view; a history-knowing seeker reads it as PEPPER's seekers do
        (a stand-in for a language model's knowledge of how people talk about items)."""
        if role == Role.recommender or (role == Role.seeker and self.seeker_knows == "history"):
            return self.recommender_catalog
        return None

    def profile_for(self, conversation: GroundedConversation) -> TargetBiasedProfile | PepperProfile | PersonTranscript:
        if self.seeker_knows == "history":
            return history_profile(conversation, self.items_by_id, self.known(conversation),
                                   self.person_tastes(conversation, self.liked(conversation)))
        if self.seeker_knows == "transcript":
            return PersonTranscript(conversation.conversation_id, conversation.later[:conversation.unprompted])
        item = self.catalog.item(conversation.target)
        if self.seeker_knows == "target":
            return self.target_profile(conversation, item)
        return self.person_profile(conversation, item)

    def target_profile(self, conversation: GroundedConversation, item: Any) -> TargetBiasedProfile:
        """`seeker_knows: target` (crsim 0.2.7's grounded seeker): the target's shown attributes
        and what the person said before the first recommendation. People did not know their
        target's writer or stars; a seeker that says them inverts the ranking of text
        recommenders (`crsim validate ranking`), so this is kept for comparison only."""
        target_title = spoken_title(item.title).lower()
        liked = tuple(self.items_by_id[i].title for i in conversation.person.named
                      if i != conversation.target and spoken_title(self.items_by_id[i].title).lower() != target_title)
        tastes = self.tastes_of(conversation.person.utterances, (*conversation.person.named, conversation.target))
        return TargetBiasedProfile(item.id, item.title, dict(item.attributes), item.description, (), "",
                                   target_knowledge(self.catalog, item), person=conversation.person, liked=liked,
                                   tastes=tastes)

    def person_profile(self, conversation: GroundedConversation, item: Any) -> TargetBiasedProfile:
        """`seeker_knows: person` (the default): what the person knew when the conversation
        started — their opening, the items they named before the recommender did (minus any
        their questionnaire says they disliked), their own taste words anywhere in the
        conversation — and nothing of the target but which it is (to like it when shown)."""
        liked_ids = self.liked(conversation)
        person = PersonContext(conversation.conversation_id, conversation.person.utterances, liked_ids)
        return TargetBiasedProfile(item.id, item.title, {}, "", (), "", TargetKnowledge(()), person=person,
                                   liked=tuple(self.items_by_id[i].title for i in liked_ids),
                                   liked_kinds={self.items_by_id[i].title: tuple(map(str, attribute_list(
                                       self.items_by_id[i].attributes.get(KIND_ASPECT)))) for i in liked_ids},
                                   tastes=self.person_tastes(conversation, liked_ids), popularity=self.popularity)

    def known(self, conversation: GroundedConversation) -> tuple[str, ...]:
        """The items the person named before the recommender did, minus their target (by id
        or by spoken title: a remake's namesake would give it away)."""
        target_title = spoken_title(self.items_by_id[conversation.target].title).lower()
        return tuple(i for i in conversation.known if i != conversation.target
                     and spoken_title(self.items_by_id[i].title).lower() != target_title)

    def liked(self, conversation: GroundedConversation) -> tuple[str, ...]:
        """The items it knew that their questionnaire does not say they disliked."""
        return tuple(i for i in self.known(conversation) if conversation.ratings.get(i) != DISLIKED)

    def person_tastes(self, conversation: GroundedConversation, liked_ids: tuple[str, ...]) -> tuple[str, ...]:
        """Their own taste words anywhere in the conversation, then the kinds their liked items share."""
        words = (*conversation.person.utterances, *conversation.later)
        tastes = self.tastes_of(words, (*conversation.known, conversation.target))
        return tuple(dict.fromkeys((*tastes, *self.kinds_liked(liked_ids))))[:MAX_TASTES]

    def tastes_of(self, utterances: tuple[str, ...], named: tuple[str, ...]) -> tuple[str, ...]:
        """The person's taste words (words many people use for what they like, or a kind the
        catalog lists: "comedies", "horror"), minus words of the titles they or the target carry."""
        titled = {w for i in named for w in tokens(self.items_by_id[i].title)}
        found = dict.fromkeys(w for w in person_words(utterances)
                              if (w in self.taste_words or plain_singular(w) in self.kinds) and w not in titled)
        return tuple(found)[:MAX_TASTES]

    def kinds_liked(self, liked: tuple[str, ...]) -> tuple[str, ...]:
        """The kinds ("comedy") that at least half the items a person named share: they know
        what their favourites are, and say so ("I like comedies like Super Troopers")."""
        counts = Counter(k for i in liked for k in attribute_list(self.items_by_id[i].attributes.get(KIND_ASPECT)))
        return tuple(k for k, n in counts.most_common(MAX_KINDS_LIKED) if liked and n >= max(1, len(liked) / 2))


@dataclass(frozen=True, slots=True)
class PersonTranscript:
    """What `seeker=people` is given: the real person's own later turns, to say them again in
    order, so a recommender can be scored on the people's words (`crsim validate ranking`)."""

    conversation_id: str
    turns: tuple[str, ...]

    def log_view(self) -> dict[str, Any]:
        return {"conversation_id": self.conversation_id, "turns": len(self.turns)}


def attribute_list(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else list(value or [])


def plain_singular(word: str) -> str:
    """"comedies" -> "comedy", "thrillers" -> "thriller" (enough to match a kind's name)."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def person_words(utterances: tuple[str, ...]) -> list[str]:
    """Content words of what a person said, in order (no chat words, no verb forms)."""
    return [w for text in utterances for w in tokens(text) if is_content(w) and w.isalpha() and w not in CHAT_WORDS
            and not w.endswith(("ing", "ed"))]


def shared_taste_words(conversations: list[GroundedConversation], item_noun: str = "movies") -> frozenset[str]:
    """Words enough of these people put before the item noun ("scary movies") before any
    recommendation, but not most of them; no praise ("good movies" says no taste)."""
    nouns = {item_noun.lower(), plain_singular(item_noun.lower())}
    counts: Counter[str] = Counter()
    for conversation in conversations:
        words = set(person_words(conversation.person.utterances))
        counts.update({a for text in conversation.person.utterances for a, b in pairwise(tokens(text))
                       if b in nouns and a in words and not is_praise(a)})
    low, high = MIN_TASTE_CONVERSATIONS, MAX_TASTE_SHARE * len(conversations)
    return frozenset(w for w, n in counts.items() if low <= n <= high)


def history_profile(conversation: GroundedConversation, items_by_id: dict[str, Any], known: tuple[str, ...],
                    tastes: tuple[str, ...] = ()) -> PepperProfile:
    """The person as a PEPPER seeker: what the person knew, as the default seeker is told it
    (`known`: the items they named before the recommender did, rated as their questionnaire
    rated them, their opening as the review; their taste words). Until 0.2.15 it was given
    only the items named before the first recommendation and no tastes: with nothing else to
    say it chatted in 47% of its turns on held-out ReDial (people: 29%) and stated a
    preference in 3%."""
    words = " ".join(conversation.person.utterances)
    seen = tuple(SeenReview(ItemCard.of(items_by_id[i]), conversation.ratings.get(i), words) for i in known)
    return PepperProfile(conversation.user_id or conversation.conversation_id, seen, (), conversation.conversation_id,
                         tastes=tastes)


def build_grounded(catalog: str | None = None, **options: Any) -> GroundedSetup:
    """Hydra factory: `catalog` must be an imported dialogue corpus."""
    if not catalog:
        raise CrsimError("environment=grounded needs environment.catalog=DIR, an imported dialogue corpus "
                         "(crsim data import redial|inspired|durecdial)")
    return GroundedSetup(load_catalog_dir(catalog), **options)


class GroundedEnvironment(TargetRankingEnvironment):
    name = "grounded"
    setup: GroundedSetup

    def __init__(self, setup: GroundedSetup):
        super().__init__(setup)
        self._conversation: GroundedConversation | None = None

    def reset(self, *, seed: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
        """Episode i is conversation i (modulo their number); `options={"conversation": id}` names one."""
        self._conversation = pick_entry(self.setup.conversations, options, "conversation",
                                        lambda c: c.conversation_id, self._start(seed), "grounded in this run")
        self._profile = self.setup.profile_for(self._conversation)
        for role, text in self._conversation.opening:
            self.dialogue.append(role, text, metadata={"opening": True})
        return {role: self.observe(role) for role in self.setup.roles}

    def target_ids(self) -> list[str]:
        assert self._conversation is not None
        return [self._conversation.target]

