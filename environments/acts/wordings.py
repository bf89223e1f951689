"""A wording bank: how people said each seeker act, taken from a corpus's training dialogues.

A simulated seeker that says each act with a few hand-written frames reads as a machine
("The first one is a no from me."). The bank holds what real seekers wrote instead, one
delexicalised utterance per act family, fitted from the *training* split(s) of a dialogue
corpus (`crsim data wordings DIR --split train_data --out FILE`) and saved as JSON:

- Every seeker turn is labelled by the act labeller (`environments.acts.labeller`); a turn
  whose acts all fall in one family (`environments.acts.policy.family_of`) is a candidate
  (a turn that reacted *and* asked for more says two things and is left out). A reaction
  is filed under how the person reacted (`REACTIONS`): seen and liked, seen and disliked,
  not seen and takes it ("sounds good, I'll check it out"), not seen and not interested,
  or only seen / not seen with no stance.
- The titles the turn names (as the labeller finds them: the turn's mentions, else shown
  titles in its text; with or without the year) become `{title}`; the catalog's kind
  values (genres: "horror", "comedies", "sci fi") become `{kind}` (singular) or `{kinds}`
  (plural); a slot opening a sentence is capitalised (`{Title}`, `{Kind}`, `{Kinds}`).
  In a reaction, an ask about a shown item or an ask for more, `{title}` is a shown item;
  in `name_liked` and `preference` ("something like {title}") one the seeker liked before,
  not on screen (a preference that turns a title down is left out); `close` and
  `chitchat` keep no `{title}`.
- An utterance is dropped when what is left still names something the slots cannot change
  (`source.dropped` counts each reason): a capitalised name ("Jim Carrey", "Netflix"), a
  year, a catalog title or person written in lower case, a URL; or when it has more than
  one title or kind slot, or fewer than 2 or more than 25 words.
- Identical wordings are merged with their count, and with how often each followed each
  recommender act (`after`: the policy's contexts, "start" before the recommender spoke).
  Words about an attribute the slots do not carry ("something scary", "older movies",
  "ghosts": the labeller's `ATTRIBUTE` cue and `TASTE`) are listed in `attributes`: such a
  wording says a taste of its own, and `say` leaves it out unless asked.

`WordingBank.say` picks one wording by the seed keys (weighted by how often people said
it; with `after`, by how often they said it after that recommender act, plus a few
pseudo-counts of how often they said it at all) among those whose slots it can fill, and
fills them. The file names the corpus, the splits and the counts.

Chit-chat and closings answer the recommender's very words ("How are you today?" -> "Good,
thanks, and you?"; "Enjoy the movie!" -> "You too!"), and most of ReDial's are bound to the
turn they answered ("He committed suicide after being arrested."). Their wordings keep the
recommender turns they answered (`replies_to`), and `say(..., replying_to=TEXT)` picks among
those that answered a turn like this one (IDF-weighted word cosine at least
`MIN_SIMILARITY`, the `NEAREST` closest); when none did, among all of them by the
recommender's act (`after`), leaving greetings out once the recommender has spoken. (Keeping
only wordings several people said lost the variety that tells people from a machine: on
ReDial's tune_data the classifier's AUC went from 0.75 to 0.80.)
"""

from __future__ import annotations

import html
import json
import re
import zlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from environments.acts.policy import read_versioned
from environments.errors import CrsimError
from environments.models import Episode, Role
from environments.search.vocabulary import indefinite_article

WORDINGS_VERSION = 1
FAMILIES = ("react", "ask_shown", "name_liked", "preference", "ask_more", "close", "chitchat")
# How a person reacted to a shown item, from the labeller's acts (see `reaction_of`).
REACTIONS = ("seen_liked", "seen_disliked", "unseen_liked", "unseen_disliked", "seen", "unseen")
# Families whose {title} is an item on screen / one the seeker liked before (in `preference`,
# "something like {title}", only without a dislike); the others keep no title.
SHOWN_TITLE_FAMILIES = frozenset({"react", "ask_shown", "ask_more"})
# Families said in answer to the recommender's words: they keep what they answered (see above).
ANSWERING_FAMILIES = frozenset({"chitchat", "close"})
MAX_REPLIES_TO = 3
MIN_SIMILARITY = 0.7  # at 0.5, "What genre are you looking for?" found "Hello, what movies are you looking for?"
NEAREST = 5
GREETING = re.compile(r"\W*(?:hi|hello|hey|hiya|howdy|greetings|good (?:morning|afternoon|evening|day))\b", re.I)
# Pseudo-counts of the whole-bank distribution added to a context's own counts (`after`): a
# context people rarely reacted in (two reactions after a question about stars) would otherwise
# make the same two wordings every time.
CONTEXT_PRIOR = 5.0
OTHER_TITLE_FAMILIES = frozenset({"name_liked", "preference"})
MIN_WORDS, MAX_WORDS = 2, 25
FOLLOWS_SELF = "self"  # the context of a seeker turn right after the seeker's own (no recommender act)
# Kind values that are everyday words too ("my family", "in short"): a slot only before a noun.
EVERYDAY_KINDS = frozenset({"family", "short", "music", "sport", "news", "history", "war", "biography", "talk-show",
                            "game-show", "reality-tv"})
# Kinds counted like nouns ("two comedies"); other kinds' plural is "<kind> <noun>" ("horror movies").
COUNT_KINDS = frozenset({"comedy", "drama", "thriller", "western", "musical", "documentary", "mystery"})
KIND_NOUNS = r"(movies?|films?|flicks?|ones?|genres?|stuff|shows?|books?|songs?|albums?|games?|type|kind)"

_TITLE_MARK, _KIND_MARK, _KINDS_MARK = "\x00T\x00", "\x00K\x00", "\x00P\x00"
_URL = re.compile(r"https?://|www\.|\.(com|net|org)\b", re.I)
_MARKUP = re.compile(r"[@#]\w|\bm?turk\b|\bhits?\b.*\b(?:worker|task|paid)\b", re.I)
_YEAR = re.compile(r"(?<!\d)(1[89]\d\d|20\d\d)(?!\d)")
# Capitalised words that are not names: "I", "I'm", shouting and interjections.
_NOT_NAMES = frozenset("""i i'm i'd i've i'll im ive id ill ok okay lol omg haha lmao yes no oh ah hi hey hello
    thanks thank tv dvd pg pg-13 rated r""".split())


class WordingSource(BaseModel):
    corpus: str = Field(description="The corpus directory's name the bank was built from.")
    splits: list[str] = Field(description="The splits (profile.split) of the dialogues used; training only.")
    conversations: int
    seeker_turns: int
    kept: int = Field(description="Seeker turns kept as a wording (before merging identical ones).")
    dropped: dict[str, int] = Field(default_factory=dict, description="Seeker turns left out, by reason.")
    labeller: str = Field(default="environments.acts.labeller", description="What labelled the turns.")


class Wording(BaseModel):
    text: str = Field(description="What a person said, with {title}, {kind}, {kinds} slots.")
    count: int = Field(ge=1, description="How many seeker turns said it.")
    after: dict[str, int] = Field(default_factory=dict, description="recommender context before it -> turns")
    attributes: list[str] = Field(default_factory=list, description="Attribute words it says beyond its slots.")
    replies_to: list[str] = Field(default_factory=list,
                                  description="chitchat / close: recommender turns it answered (at most 3).")

    @cached_property
    def reply_bags(self) -> tuple[Counter[str], ...]:
        """The words of each recommender turn it answered, counted once per bank load."""
        return tuple(_bag(r) for r in self.replies_to)

    @cached_property
    def slots(self) -> frozenset[str]:
        return frozenset(m.lower() for m in re.findall(r"\{(title|kinds?|Title|Kinds?)\}", self.text))


class WordingBank(BaseModel):
    version: int = WORDINGS_VERSION
    source: WordingSource
    item_noun: str = Field(default="movies", description="The corpus's plural item noun, for a kind's plural.")
    kinds: list[str] = Field(default_factory=list, description="The catalog's kind values ({kind} fills), lower case.")
    wordings: dict[str, list[Wording]] = Field(description="family, or react:<reaction> -> wordings, most said first")

    def keys(self, family: str, reaction: str | None = None) -> list[str]:
        if reaction is not None:
            return [f"{family}:{reaction}"]
        return [k for k in self.wordings if k == family or k.startswith(f"{family}:")]

    def candidates(self, family: str, *, title: str | None = None, kind: str | None = None,
                   reaction: str | None = None, attributes: bool = False, slotted: bool = False,
                   liking: bool | None = None) -> list[Wording]:
        """The wordings of `family` (and `reaction`) whose slots can all be filled (with
        `slotted`, only those with a slot; with `attributes`, also those with a taste of their own)."""
        have = {"title"} if title else set()
        have |= {"kind", "kinds"} if kind else set()
        found = [w for key in self.keys(family, reaction) for w in self.wordings.get(key, [])
                 if w.slots <= have and (attributes or not w.attributes) and (w.slots or not slotted)]
        if liking is None:
            return found
        from environments.acts.labeller import DISLIKE

        return [w for w in found if bool(DISLIKE.search(w.text)) != liking]

    def said(self, key: str) -> int:
        """How many training turns said `key` ("react:seen", "preference"), all its wordings together."""
        return self._said.get(key, 0)

    @cached_property
    def _said(self) -> dict[str, int]:
        """Turns per key, counted once per bank load (a reaction asks for three keys)."""
        return {key: sum(w.count for w in wordings) for key, wordings in self.wordings.items()}

    def kind_named(self, word: str) -> str | None:
        """The catalog kind a taste word names ("comedies" -> "comedy"), or None."""
        word = " ".join(word.lower().split())
        forms = {word, word[:-3] + "y" if word.endswith("ies") else word, word[:-1] if word.endswith("s") else word}
        return next((k for k in self.kinds if k in forms), None)

    def say(self, family: str, *, seed_keys: Sequence[object], title: str | None = None, kind: str | None = None,
            reaction: str | None = None, after: str | None = None, attributes: bool = False,
            slotted: bool = False, replying_to: str | None = None, liking: bool | None = None) -> str | None:
        """One wording of `family`, filled; None when none fits what is given.

        `title`: the item as the seeker names it (`react`, `ask_shown`, `ask_more`: one on
        screen; `name_liked`, `preference`: one it liked). The catalog's form ("The Shining (1980)")
        is how ReDial's people wrote titles (the site put the year in); pass
        `spoken_title(title)` for the bare name, or a position ("the second one").
        `kind`: a kind value ("horror"); `{kinds}` takes its plural ("comedies", "horror
        movies"). `after`: the recommender's last context (`policy.context_of`); wordings
        people said after it are preferred: each weighs its count after it plus `CONTEXT_PRIOR`
        pseudo-counts shared by its whole-bank share.
        `attributes`: also wordings that state a taste of their own ("something scary").
        `slotted`: only wordings with a slot ("I like {kinds}", not "Any good movie ideas?").
        `replying_to`: the recommender's last words, which chit-chat and closings answer
        (see the module docstring); any other act opens with a greeting only when they do.
        `liking`: True, only wordings that like what they name
        ("I love {kinds}"), False only those that turn it down ("I don't like {kind}.").
        In `react` and `ask_shown`, a `{kind}` is the shown item's ("is it a {kind}?"); in
        `preference`, what the seeker wants.
        The pick depends on `seed_keys` alone (crc32), never on process state.
        """
        wording = self.choose(family, seed_keys=seed_keys, title=title, kind=kind, reaction=reaction, after=after,
                              attributes=attributes, slotted=slotted, replying_to=replying_to, liking=liking)
        return None if wording is None else fill(wording.text, title=title, kind=kind, noun=self.item_noun)

    def choose(self, family: str, *, seed_keys: Sequence[object], title: str | None = None, kind: str | None = None,
               reaction: str | None = None, after: str | None = None, attributes: bool = False,
               slotted: bool = False, replying_to: str | None = None, liking: bool | None = None) -> Wording | None:
        """The wording `say` fills (its slots tell which of the values it says)."""
        if family not in FAMILIES or reaction not in (None, *REACTIONS):
            raise ValueError(f"no wordings for {family}" + (f":{reaction}" if reaction else "") +
                             f" (families: {', '.join(FAMILIES)}; reactions: {', '.join(REACTIONS)})")
        options = self.candidates(family, title=title, kind=kind, reaction=reaction, attributes=attributes,
                                  slotted=slotted, liking=liking)
        weights: Sequence[float] = []
        if family in ANSWERING_FAMILIES and replying_to is not None:
            options, weights = self._answering(options, replying_to)
        elif replying_to and not GREETING.match(replying_to):  # "Hello I am looking for {kinds}" mid-talk
            options = [w for w in options if not GREETING.match(w.text)] or options
        if not weights:
            said = sum(w.count for w in options) or 1
            weights = [self._weight(w, after, said) for w in options]
        total = sum(weights)
        if not total:
            return None
        point = zlib.crc32("\x1f".join(map(str, (family, reaction, *seed_keys))).encode()) / 2**32 * total
        for wording, weight in zip(options, weights):
            point -= weight
            if point < 0:
                return wording
        return options[-1]  # rounding at the very end

    def _weight(self, wording: Wording, after: str | None, said: int) -> float:
        """How likely `wording` is picked after the recommender's context `after`: what people
        said after it, plus `CONTEXT_PRIOR` pseudo-counts shared by its share of the options. A
        turn that did two things ("recommend+elicit": a list and a question, no context of
        the bank's) takes the wordings as often as people said them after the recommender, not
        after their own turn ("or {title}"); weighing them by what people said after either
        part instead made fewer wordings win (distinct-2 0.545 -> 0.469 on tune_data)."""
        if after is None:
            return wording.count
        if "+" in after:
            return wording.count - wording.after.get(FOLLOWS_SELF, 0) + CONTEXT_PRIOR * wording.count / said
        return wording.after.get(after, 0) + CONTEXT_PRIOR * wording.count / said

    def examples(self, family: str, *, seed_keys: Sequence[object], n: int = 3) -> list[str]:
        """`n` different wordings of `family` as people wrote them, a kind slot shown as "…",
        none naming a title, greeting or stating a taste of its own: for a language model's
        prompt, the length and tone of the corpus's people rather than words to copy. The
        choice depends on `seed_keys` alone."""
        options = [w.text for w in self.candidates(family, kind="…") if not GREETING.match(w.text)]
        options.sort(key=lambda text: zlib.crc32("\x1f".join(map(str, (*seed_keys, text))).encode()))
        return [re.sub(r"\{(kinds?|Kinds?)\}", "…", text) for text in options[:n]]

    def _closest(self, options: Sequence[Wording], replying_to: str) -> list[tuple[float, Wording]]:
        """(similarity, wording) of the `NEAREST` wordings that answered a turn like `replying_to`."""
        query = self._replies.vector(_bag(replying_to))
        if not query[0]:
            return []
        scored = sorted(((self._replies.similarity(query, w), n, w) for n, w in enumerate(options)),
                        key=lambda x: (-x[0], x[1]))
        return [(score, w) for score, _, w in scored[:NEAREST] if score >= MIN_SIMILARITY]

    def _answering(self, options: list[Wording], replying_to: str) -> tuple[list[Wording], list[float]]:
        """(wordings, weights) of an answering family: those that answered a turn like
        `replying_to`, weighted by how alike; else, once the recommender has spoken, all but
        greetings (weights left to `say`): "Hello there!" to "Which director would suit you
        best?" was a reader's giveaway."""
        close = self._closest(options, replying_to)
        if close:
            return [w for _, w in close], [score for score, _ in close]
        if not replying_to.strip():
            return options, []
        later = [w for w in options if not GREETING.match(w.text)]  # hello is said to a hello (found above)
        return (later or options), []

    @cached_property
    def _replies(self) -> _ReplyIndex:
        return _ReplyIndex([w for ws in self.wordings.values() for w in ws if w.replies_to])


class _ReplyIndex:
    """IDF-weighted word vectors of the recommender turns the bank's wordings answered, built
    once per bank: a chit-chat pick compares one turn with a thousand of them."""

    def __init__(self, wordings: Sequence[Wording]):
        import math

        documents = [set(bag) for w in wordings for bag in w.reply_bags]
        counts = Counter(word for d in documents for word in d)
        self.idf = {word: math.log((1 + len(documents)) / (1 + c)) + 1 for word, c in counts.items()}
        self.top = max(self.idf.values(), default=1.0)  # an unknown word weighs as the rarest
        self.vectors = {id(w): [self.vector(bag) for bag in w.reply_bags] for w in wordings}

    def vector(self, bag: Counter[str]) -> tuple[dict[str, float], float]:
        import math

        weighted = {word: count * self.idf.get(word, self.top) for word, count in bag.items()}
        return weighted, math.sqrt(sum(x * x for x in weighted.values()))

    def similarity(self, query: tuple[dict[str, float], float], wording: Wording) -> float:
        """The cosine of `query` with the closest turn `wording` answered (0 for none)."""
        words, norm = query
        best = 0.0
        for other, other_norm in self.vectors.get(id(wording), ()):
            if norm and other_norm:
                best = max(best, sum(x * other.get(word, 0.0) for word, x in words.items()) / (norm * other_norm))
        return best


def _bag(text: str) -> Counter[str]:
    return Counter(re.findall(r"[a-z0-9']+", text.lower()))


def fill(text: str, *, title: str | None = None, kind: str | None = None, noun: str = "movies") -> str:
    """A wording with its slots filled (a capitalised slot takes the value capitalised)."""
    values = {"title": " ".join(title.split()) if title else "", "kind": kind or "",
              "kinds": plural_kind(kind, noun) if kind else ""}
    shouted = re.sub(r"\{\w+\}", "", text)
    if any(c.isalpha() for c in shouted) and shouted.upper() == shouted:  # "A FEW GOOD {kinds}" -> "HORROR MOVIES"
        values["kind"], values["kinds"] = values["kind"].upper(), values["kinds"].upper()
    if kind and kind.lower() not in COUNT_KINDS:  # "a {kind}" is "a comedy" but "a war movie", not "a war"
        single = noun[:-1] if noun.endswith("s") else noun
        text = re.sub(rf"\b([Aa]n? (?:[a-z]+ ){{0,2}})(\{{[Kk]ind\}})(?!\s+{KIND_NOUNS}\b)", rf"\1\2 {single}", text)
    for name, value in values.items():
        for slot, said in (("{" + name + "}", value), ("{" + name.capitalize() + "}", value[:1].upper() + value[1:])):
            if slot in text and said:  # "a {kind}" -> "an action movie", "an {kind}" -> "a comedy"
                article = indefinite_article(said)
                text = re.sub(rf"\b([Aa])n? (?={re.escape(slot)})",
                              lambda m: (m.group(1) + article[1:]) + " ", text)
            text = text.replace(slot, said)
    return text


def plural_kind(kind: str, noun: str = "movies") -> str:
    """How people say a kind in the plural: "comedies", "thrillers", "horror movies"."""
    kind = " ".join(kind.split())
    if kind.lower() in COUNT_KINDS:
        return kind if kind.lower().endswith("ies") else kind[:-1] + "ies" if kind.endswith("y") else kind + "s"
    return f"{kind} {noun}"


def reaction_of(acts: Sequence[str], text: str) -> str | None:
    """How a reaction turn reacted (`REACTIONS`); None when its acts mix stances."""
    from environments.acts.labeller import SEEN

    found = set(acts)
    if found <= {"like_shown", "seen_shown"} and "like_shown" in found:
        return "seen_liked"  # liking a shown item is knowing it
    if found == {"accept"}:
        return "unseen_liked"  # takes it ("haven't seen it, sounds good" is an accept)
    if found == {"dislike_shown"}:
        return "seen_disliked" if SEEN.search(text) or _PAST_DISLIKE.search(text) else "unseen_disliked"
    if found == {"seen_shown"}:
        return "seen"
    if found == {"unseen_shown"}:
        return "unseen"
    return None


_PAST_DISLIKE = re.compile(r"\b((didn'?t|did not|didnt) (really |much |particularly )?(like|love|enjoy|care)|hated|"
                           r"disliked|(wasn'?t|was not|weren'?t|were not)\b|never (liked|cared)|"
                           r"(i|we) (did |have |had |already )?(watch|watched|saw|seen)\b|"
                           r"(was|were) (\w+ )?(boring|terrible|awful|overrated|meh|bad|disappointing))", re.I)


def _kind_forms(kinds: Iterable[str]) -> list[tuple[re.Pattern[str], str]]:
    """(pattern, mark) for every kind value, singular and plural ("comedy", "comedies",
    "horrors"), its words joined by a hyphen, a space or nothing ("sci-fi", "sci fi", "scifi");
    longest first. An everyday word (`EVERYDAY_KINDS`) counts only before a noun ("war movies")."""
    forms: set[tuple[str, str, str]] = set()
    for kind in {" ".join(k.lower().split()) for k in kinds if k and k.strip()}:
        plural = plural_kind(kind) if kind in COUNT_KINDS else kind + "s"
        forms |= {(kind, _KIND_MARK, kind), (plural, _KINDS_MARK, kind)}
    patterns = []
    for form, mark, kind in sorted(forms, key=lambda f: (-len(f[0]), f)):
        words = r"[\s-]?".join(re.escape(w) for w in re.split(r"[\s-]+", form) if w)
        body = rf"(?<![\w-]){words}(?![\w-])"
        if kind in EVERYDAY_KINDS:
            body += rf"(?=\s+{KIND_NOUNS}\b)"  # "family movies", not "my family"
        patterns.append((re.compile(body, re.I), mark))
    return patterns


def _names_index(names: Iterable[str]) -> set[str]:
    """Lower-case word sequences (2 words or more) of catalog titles or people, to find in text."""
    from environments.acts.labeller import YEAR

    out = set()
    for name in names:
        words = re.findall(r"[a-z0-9]+(?:'[a-z]+)?", YEAR.sub("", name).lower())
        if len([w for w in words if w not in _COMMON]) >= 2:  # "snow white", not "the help", "over the top"
            out.add(" ".join(words))
    return out


_COMMON = frozenset("""a an the of and or to in on at for with from by is it its it's i you me my we our he she his her
    they them this that these those be was were are am do did not no so too very all any some one two more most
    up down out over off into about like just what who how when where why which as if but then than there here
    movie movies film films kids kid good bad great new old big little love man men day night""".split())


def proper_words(names: Iterable[str], texts: Iterable[str], most: int = 2) -> frozenset[str]:
    """Words of people's names ("Ellen", "Stallone") people hardly ever write in lower case
    in `texts` (at most `most` times): a name even opening a sentence, or written lower case."""
    lower: Counter[str] = Counter(w for text in texts for w in re.findall(r"(?<![\w'])[a-z]+(?![\w'])", text))
    words = {w.lower() for name in names for w in re.findall(r"[A-Za-z]{3,}", name) if w[:1].isupper()}
    return frozenset(w for w in words if lower[w] <= most and w not in _COMMON and w not in _NOT_NAMES)


def _names_in(text: str, index: set[str]) -> str | None:
    words = re.findall(r"[a-z0-9]+(?:'[a-z]+)?", text.lower())
    for n in range(2, 7):
        for i in range(len(words) - n + 1):
            gram = " ".join(words[i:i + n])
            if gram in index:
                return gram
    return None


def leftover_name(text: str) -> str | None:
    """A capitalised name left in `text` (slots already marked): two capitalised words in a
    row, or one inside a sentence ("I like Jim Carrey", "on Netflix"); None when there is none.
    Shouting ("LOVED it"), "I" and a few interjections are not names."""
    tokens = re.findall(r"\x00[TKP]\x00|[A-Za-z][\w'.-]*|[^\sA-Za-z\x00]+", text)
    start, run = True, []  # start: the next word opens a sentence
    for token in tokens:
        if token.startswith("\x00") or not token[:1].isalpha():  # a slot, or punctuation
            run = []
            start = not token.startswith("\x00") and (start or bool(re.search(r"[.!?:]", token)))
            continue
        word = token.rstrip(".'-")
        opening, start = start, bool(re.search(r"[.!?]$", token))
        if word[:1].isupper() and len(word) > 1 and not word.isupper() and word.lower() not in _NOT_NAMES:
            run.append(word)
            if len(run) >= 2 or not opening:
                return " ".join(run)
        else:
            run = []
    return None


_CUT_OFF = re.compile(r"\b(?:haven|hasn|hadn|didn|don|doesn|isn|aren|wasn|weren|couldn|wouldn|shouldn)\W*$", re.I)


def delexicalise(text: str, named: Sequence[str], kinds: list[tuple[re.Pattern[str], str]], *,
                 names: set[str] = frozenset(), proper: frozenset[str] = frozenset()) -> tuple[str | None, str]:
    """(`text` with slots, "") or (None, why it was dropped).

    `names`: lower-case word sequences of titles and people not to find in what is left;
    `proper`: single words that are names whatever their case ("ellen", "stallone")."""
    from environments.acts.labeller import _pattern

    # ReDial's site stored what people typed HTML-escaped ("&quot;typical&quot;"): said as typed
    text = " ".join(html.unescape(text).replace("\u2019", "'").replace("\u2018", "'").split())
    if "{" in text or "}" in text or "\x00" in text:
        return None, "braces"
    if _CUT_OFF.search(text):  # "I haven": the site cut a message at its apostrophe
        return None, "cut off mid-word"
    if _URL.search(text):
        return None, "url"
    if _MARKUP.search(text):  # "@jigsaw" (the site's mention syntax typed by hand), "#DiceClay", "MTurk" talk
        return None, "markup or task talk"
    for title in sorted(set(named), key=len, reverse=True):
        pattern = _pattern(title, strict=True)
        pattern = pattern if pattern and pattern.search(text) else _pattern(title)
        if pattern:
            text = pattern.sub(_TITLE_MARK, text)
    if text.count(_TITLE_MARK) > 1:
        return None, "several titles"
    if _YEAR.search(text):
        return None, "a year or another title"
    for pattern, mark in kinds:
        text = pattern.sub(mark, text)
    if text.count(_KIND_MARK) + text.count(_KINDS_MARK) > 1:
        return None, "several kinds"
    name = leftover_name(text)
    if name:
        return None, "a capitalised name"
    if proper and any(w.lower() in proper for w in re.findall(r"[A-Za-z]+", text)):
        return None, "a name"
    if names and _names_in(text.replace(_TITLE_MARK, " , ").replace(_KIND_MARK, " , ").replace(_KINDS_MARK, " , "),
                           names):
        return None, "a title or person in lower case"
    words = len(re.sub("\x00[TKP]\x00", " X ", text).split())
    if not MIN_WORDS <= words <= MAX_WORDS:
        return None, "too short" if words < MIN_WORDS else "too long"
    for mark, slot in ((_TITLE_MARK, "title"), (_KIND_MARK, "kind"), (_KINDS_MARK, "kinds")):
        text = re.sub(rf"(^|[.!?]\s+){re.escape(mark)}", lambda m: m.group(1) + "{" + slot.capitalize() + "}", text)
        text = text.replace(mark, "{" + slot + "}")
    return text, ""


# Taste words the labeller's ATTRIBUTE cue leaves out, as ReDial's seekers used them.
TASTE = re.compile(r"\b(historical|supernatural|ghosts?|cars?|dogs?|cats?|animals?|spy|spies|heists?|space|aliens?|"
                   r"vampires?|monsters?|sharks?|dinosaurs?|christmas|holiday|teens?|high school|period|biopics?|"
                   r"sports?|dance|martial arts|kung fu|gangsters?|mafia|cops?|detectives?|psychological|twists?|"
                   r"violent|gory|gore|creepy|suspenseful|thrilling|light ?hearted|feel[- ]good|heart ?warming|sad|"
                   r"tear ?jerkers?|emotional|hilarious|silly|slapstick|dark|serious|intense|action[- ]packed|clever|"
                   r"quirky|weird|visual|adults?|mature|old|new|latest|modern|vintage|[5-9]0'?s|indie|bollywood|"
                   r"books?|novels?|comics?|marvel|dc|dreamworks|anime|clowns?|jump scares?|blood|explosions?|"
                   r"fights?|guns?|war time|wartime|biographical|musicals?)\b", re.I)


def attribute_words(text: str) -> list[str]:
    """Attribute words a wording says beyond its slots (the labeller's `ATTRIBUTE` cue, and `TASTE`)."""
    from environments.acts.labeller import ATTRIBUTE

    bare = re.sub(r"\{\w+\}", " ", text)
    return sorted({m.group(0).lower() for cue in (ATTRIBUTE, TASTE) for m in cue.finditer(bare)})


def seeker_turns(episode: Episode,
                 titles: Mapping[str, str]) -> Iterable[tuple[Any, list[str], list[str], list[bool], str, str]]:
    """(turn, acts, titles it names, whether each is on screen, the recommender's last context,
    the recommender's last words) per seeker turn: titles as the labeller finds them (the turn's
    mentions, else shown titles in its text), contexts as the policy counts them ("start"
    before the recommender spoke, with no words; `FOLLOWS_SELF` and no words for a turn right
    after the person's own: "or {title}", "and also {kinds}" go on what they just said, and
    ReDial's people opened 4.5% of such turns with "or", "and", "also", 1.2% of those right
    after the recommender: a simulated seeker always speaks after the recommender)."""
    from environments.acts.labeller import _find, _is_shown, label_episode
    from environments.acts.policy import context_of

    name = lambda i: titles.get(i, i)  # noqa: E731
    shown: list[str] = []
    context, words = "start", ""
    for turn, acts in zip(episode.turns, label_episode(episode, titles=titles)):
        if turn.role == Role.recommender:
            shown = list(dict.fromkeys([name(i) for i in turn.items_shown] + shown))
            if turn.text.strip():
                context, words = context_of(acts), " ".join(turn.text.split())
        elif turn.role == Role.seeker and turn.text.strip():
            mentioned = [name(i) for i in (turn.metadata or {}).get("mentioned", [])]
            named = mentioned or [t for t in shown if _find(turn.text, t, strict=True)]
            yield turn, acts, named, [_is_shown(t, shown) for t in named], context, words
            context, words = FOLLOWS_SELF, ""


def fit_wordings(episodes: Iterable[Episode], titles: Mapping[str, str], kinds: Iterable[str], *, corpus: str,
                 splits: Sequence[str], names: Iterable[str] = (), prose: Iterable[str] = (),
                 item_noun: str = "movies") -> WordingBank:
    """Build the bank from labelled seeker turns (see the module docstring).

    `titles`: item id -> catalog title; `kinds`: the catalog's kind values (genres);
    `names`: other catalog names (people) a kept wording must not contain, even in lower case;
    `prose`: other text of the corpus (item descriptions), whose lower-case words, with the
    dialogues', tell an everyday word ("lovely") from a name ("Stallone"). An episode of a
    split not in `splits` is an error: the bank says what it was built from.
    """
    from environments.acts.labeller import DISLIKE
    from environments.acts.policy import family_of

    episodes = list(episodes)
    kind_patterns = _kind_forms(kinds)
    names = list(names)
    index = _names_index([*titles.values(), *names])
    proper = proper_words(names, [*(t.text for e in episodes for t in e.turns), *prose])
    merged: dict[str, dict[str, Any]] = {}
    dropped: Counter[str] = Counter()
    conversations = turns = kept = 0
    for episode in episodes:
        split = episode.profile.get("split")
        if split is not None and split not in splits:
            raise CrsimError(f"{corpus}: conversation {episode.id} is of split {split}, not of {', '.join(splits)}")
        conversations += 1
        for turn, acts, named, shown, context, answered in seeker_turns(episode, titles):
            turns += 1
            families = {family_of([a]) for a in acts}
            if len(families) != 1:
                dropped["several families"] += 1
                continue
            family = families.pop()
            key = family
            if family == "react":
                reaction = reaction_of(acts, turn.text)
                if reaction is None:
                    dropped["mixed reaction"] += 1
                    continue
                key = f"react:{reaction}"
            text, why = delexicalise(turn.text, named, kind_patterns, names=index - {_key(t) for t in named},
                                     proper=proper)
            if text is None:
                dropped[why] += 1
                continue
            if "{title}" in text.lower() and not (family in SHOWN_TITLE_FAMILIES and all(shown) or
                                                  family in OTHER_TITLE_FAMILIES and not any(shown)):
                dropped["a title the family keeps no slot for"] += 1
                continue
            if "{title}" in text.lower() and family == "preference" and DISLIKE.search(text):
                dropped["a title the seeker did not like"] += 1
                continue
            kept += 1
            entry = merged.setdefault(key, {}).setdefault(text, {"count": 0, "after": Counter(), "replies_to": []})
            entry["count"] += 1
            entry["after"][context] += 1
            if family in ANSWERING_FAMILIES and answered and len(entry["replies_to"]) < MAX_REPLIES_TO:
                entry["replies_to"].append(html.unescape(answered))
    if not merged:
        raise CrsimError(f"{corpus}: no seeker turn of split(s) {', '.join(splits)} left to take wordings from")
    wordings = {key: sorted((Wording(text=t, count=e["count"], after=dict(sorted(e["after"].items())),
                                     attributes=attribute_words(t), replies_to=e["replies_to"])
                             for t, e in found.items()),
                            key=lambda w: (-w.count, w.text))
                for key, found in sorted(merged.items(), key=lambda kv: _order(kv[0]))}
    source = WordingSource(corpus=corpus, splits=list(splits), conversations=conversations, seeker_turns=turns,
                           kept=kept, dropped=dict(dropped.most_common()))
    return WordingBank(source=source, item_noun=item_noun, wordings=wordings,
                       kinds=sorted({" ".join(str(k).lower().split()) for k in kinds if str(k).strip()}))


def _key(title: str) -> str:
    from environments.acts.labeller import YEAR

    return " ".join(re.findall(r"[a-z0-9]+(?:'[a-z]+)?", YEAR.sub("", title).lower()))


def _order(key: str) -> tuple[int, int]:
    family, _, reaction = key.partition(":")
    return (FAMILIES.index(family) if family in FAMILIES else len(FAMILIES),
            REACTIONS.index(reaction) if reaction in REACTIONS else -1)


def cap_wordings(bank: WordingBank, per_key: int) -> WordingBank:
    """The bank with at most `per_key` wordings per family / reaction, the most said first."""
    return bank.model_copy(update={"wordings": {k: ws[:per_key] for k, ws in bank.wordings.items()}})


def load_wordings(path: str | Path) -> WordingBank:
    """Read a wording bank; a bad one is an error naming the file and the field."""
    return read_versioned(path, WordingBank, WORDINGS_VERSION, "wordings",
                          "build one with crsim data wordings DIR --split SPLIT")


def save_wordings(bank: WordingBank, path: str | Path) -> None:
    """Write the bank as JSON, one wording a line (a file a person can read and diff)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = bank.model_dump(mode="json", exclude={"wordings"})
    head = json.dumps(data, indent=1)[:-2]
    lines = []
    for key, wordings in bank.wordings.items():
        rows = ",\n".join("  " + json.dumps(w.model_dump(mode="json", exclude=None if w.replies_to else {"replies_to"}),
                                             ensure_ascii=False) for w in wordings)
        lines.append(f" {json.dumps(key)}: [\n{rows}\n ]")
    path.write_text(head + ',\n "wordings": {\n' + ",\n".join(lines) + "\n }\n}\n", encoding="utf-8")
