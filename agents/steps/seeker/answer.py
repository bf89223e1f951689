"""Answer the recommender's question as a target-biased seeker that talks like a user.

The seeker's profile is a list of facts: its target's values (each with the seeker's own
wordings, vaguer ones, and values it could say it does not want), signature details, and
paraphrased review facts. Offline, each turn:

- now and then (`dont_know_rate`) it is unsure and says so, stating nothing;
- it finds the fact the question asks about *by meaning* (sentence embeddings of the
  question against each fact's description; never by matching a schema key), target
  values first, review facts only when no value answers; if that fact was said
  before, it says so;
- it adds one or two other things it wants (one to three aspects in all, weighted by
  how much people care about each), so an open question ("anything else?") or a question
  its target has nothing to say about still moves the conversation ("Not fussed about
  that. Somewhere snug and warm, ideally.");
- it picks a wording per fact: plain, vague ("nothing too pricey") or negative ("anything
  but loud"); each records the claim it makes (aspect, value, +1/-1) in the reply's
  private metadata, which the evaluator and the fidelity report check against the truth.

Randomness comes from the episode seed and the turn, so the same seed gives the same
conversation.

The LLM path words the same choice: the offline turn decides what is said (at most
`LLM_WISHES` facts), the model is given only those, with a few messages people wrote in a
corpus's training dialogues for their tone and length, and a reply that lists more wishes
or runs long is refused. Given every fact and left to choose, Qwen2.5-1.5B recited its
whole profile in its first message (21 words a turn). A turn with nothing to state
(unsure, nothing left) is the offline one: there is nothing for a model to word.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, Field

from agents.steps.base import LanguageStep, note_step_inputs
from agents.steps.text import capitalised, normalised, pick, question_part, render_dialogue
from environments.models import Role, Turn

NOT_THAT_BUT = (
    "Not fussed about that.",
    "That doesn't matter much to me.",
    "No strong feelings there.",
)
DONT_KNOW = (
    "Hmm, I'm not sure, to be honest.",
    "I don't know, I haven't thought about that.",
    "Good question, I really can't say.",
)
NOTHING_LEFT = (
    "I think I've told you everything I'm after.",
    "That's about all I can think of.",
    "Nothing else comes to mind.",
    "That's it from me, really.",
    "I've said what I want, I think.",
    "Can't think of anything else.",
)
# With nothing to say before it said anything, "Nothing else comes to mind" answers no one
# (a rater's nonsense in 0.2.19, a Musical Instruments target with no kind and no fact).
NOTHING_YET = ("Not sure yet, just looking around.", "I'm just browsing, really.", "Not sure, what do you have?")
# Asked again about something it said: it says it again, as people do ("like I said, cheap").
# ("Like I said, that part's covered." followed by new wishes read as nonsense to a reader.)
RESTATED = ("Like I said,", "As I said,", "Like I mentioned,")
GIVING_UP = (  # after NOTHING_LEFT twice the target-biased seeker ends the conversation (seeker_quit)
    "I don't think I can add anything more, I'll have a look on my own. Thanks anyway.",
    "We're going in circles; I'll leave it here, thanks.",
)
# People answer a question about what they want with that alone ("comedies", "Tarmac",
# "Around 1000nok") about one time in five: of 195 seeker replies in ReDial's `train_data` to a
# recommender question about a kind or attribute ("what kind of movies...", "any preference
# on ...", "which genre ..."), 36 were three words or fewer (0.185). crsim's seeker did so in
# 2% of such replies on Musical Instruments and on Clothing (0.2.18), MG-ShopDial's shoppers in 26%.
TERSE_ANSWER = 0.185
# How many aspects one reply states: 1, 2 or 3 (answering what was asked, and one or two more).
EXTRA_ASPECTS = ((0, 1, 2), (0.5, 0.35, 0.15))
# Asked about nothing it has a view on (or about something it said), at most this many wishes
# in all: three ("Not fussed about that. Gig bag is a big thing for me. Previous reviewer
# matters most to me") read as a list to a blind reader.
MAX_WISHES = 2

Claim = tuple[str, str, int]  # (aspect, value, +1 wants / -1 does not want)


@dataclass(frozen=True, slots=True)
class Wording:
    """One way to say a fact, and what it then claims."""

    text: str
    claim: Claim | None = None


@dataclass(frozen=True, slots=True)
class Fact:
    """One thing the seeker knows and may say: matched by `match_text`, said as `utterance`
    (or one of `alternatives`, picked per turn); `claim` is what the plain utterance states."""

    key: str
    match_text: str
    utterance: str
    aspect: str | None = None
    claim: Claim | None = None
    alternatives: tuple[Wording, ...] = ()
    salience: float = 0.3
    phrase: str = ""  # the bare wanted thing ("somewhere quiet"), for "is the second one ...?"; "" if none


class SeekerAnswer(BaseModel):
    answer: str = Field(description="The seeker's reply.")
    has_preference: bool = Field(description="False when the reply states no preference.")
    fact_key: str | None = Field(default=None, description="The first profile fact used, if known.")
    fact_keys: list[str] = Field(default_factory=list, description="Every profile fact used, if known.")
    claims: list[list[str | int]] = Field(default_factory=list,
                                          description="[aspect, value, +1/-1] per stated preference, if known.")


REPEATED_REPLY = "the reply repeats a message you already sent; answer the latest question with something new"

# A chat message, not an essay: with a grammar from the schema a model cannot run past it
# (a 1.5B model repeating one sentence until its token cap cut the JSON off).
MAX_REPLY_CHARS = 200
LLM_WISHES = 2  # facts a model is given to say in one turn (people state one or two)
MAX_REPLY_WORDS = 20  # a longer model reply is refused (the prompt asks for 3 to 12 words)
TOO_MANY_WISHES = "you listed {n} wishes; say at most {most}: only what is under 'Say now'"
TOO_LONG = "that is {n} words; a chat message of at most 12 words"
# Where a list goes on: two of these in one reply join three things or more ("a budget-friendly
# Indian restaurant in the city center with a set menu and rustic ambiance"), whether or not
# `facts_said` can read each one off its words.
LIST_JOINTS = re.compile(r",|\b(?:and|with|or|plus)\b", re.IGNORECASE)


def new_sentences(reply: str, sent: Sequence[str]) -> str:
    """`reply` without the sentences already sent (in an earlier message, or earlier in this
    one): a small model opens each turn with its previous message and adds the new part."""
    known = [normalised(s) for message in sent for s in re.split(r"(?<=[.!?])\s+", message)]
    kept: list[str] = []
    for sentence in re.split(r"(?<=[.!?])\s+", reply.strip()):
        words = normalised(sentence)
        if words and not any(len(k) > 10 and k in words for k in known):
            kept.append(sentence)
            known.append(words)
    if len(kept) > 1 and not kept[-1].rstrip().endswith((".", "!", "?")):
        kept.pop()  # cut off at the length cap
    return " ".join(kept)


class SeekerReplyText(BaseModel):
    """What a language model writes for the seeker: the reply, and whether it states a
    preference. (Asked for fact keys too, a 1.5B model listed every fact of the profile
    until its token cap cut the JSON off; the keys are bookkeeping the offline path keeps.)"""

    answer: str = Field(description="Your chat message, in the first person.", max_length=MAX_REPLY_CHARS)
    has_preference: bool = Field(description="False when the reply states no preference.")


def _one_frame_each(facts: list[Fact], wordings: list[Wording]) -> tuple[list[Fact], list[Wording]]:
    """The facts of one reply whose wordings open differently and name different values: a
    second "Mostly I care about ..." or "I'm thinking ..." in one message ("Mostly I care
    about drive sound. Mostly I care about tube amps"), or the same value under another
    attribute ("General Petite" as category and as division), is left for a later turn."""
    kept: list[tuple[Fact, Wording]] = []
    for fact, wording in zip(facts, wordings):
        opening = normalised(wording.text).split()[:2]
        value = normalised(str(wording.claim[1])) if wording.claim is not None else None
        if not any(normalised(w.text).split()[:2] == opening
                   or value is not None and w.claim is not None and normalised(str(w.claim[1])) == value
                   for _, w in kept):
            kept.append((fact, wording))
    return [f for f, _ in kept], [w for _, w in kept]


def _ended(text: str) -> str:
    """A sentence with its full stop, before another: people's wordings may end without one
    ("I want {value}"), and "I want a patch cable I would like a foot length." ran two together."""
    return text if text.rstrip().endswith((".", "!", "?")) else f"{text.rstrip()}."


def _mid_sentence(text: str) -> str:
    """`text` after a comma: its first letter in lower case, unless it is "I" ("I'm", "I'd")."""
    first = text.split(" ", 1)[0]
    return text if first == "I" or first.startswith("I'") else text[:1].lower() + text[1:]


def facts_said(text: str, facts: Sequence[Fact]) -> list[str]:
    """Keys of the facts whose value words all occur in `text` ("price range: cheap" in "somewhere
    cheap"); words of the aspect's own name do not count ("room: room quiet" needs "quiet")."""
    words = set(normalised(text).split())
    said = []
    for fact in facts:
        aspect, _, value = fact.match_text.rpartition(": ")
        wanted = {w for w in normalised(value).split() if len(w) > 2} - set(normalised(aspect).split())
        if wanted and wanted <= words:
            said.append(fact.key)
    return said


@dataclass(frozen=True, slots=True)
class AnswerInput:
    question: str
    facts: Sequence[Fact]
    stated: frozenset[str]
    dialogue: Sequence[Turn]
    item_noun: str
    target_title: str
    open_question: bool = False
    seed: int = 0
    liked: Sequence[str] = ()  # titles of items it liked before (the LLM may name one)
    shown: Sequence[str] = ()  # titles on screen now, in order (the LLM may react to or ask about one)
    # False when a policy fitted on people has already chosen to state a preference: the
    # `dont_know_rate` draw then only adds crsim's own "Hmm, I'm not sure" on top of it
    may_not_know: bool = True
    examples: Sequence[str] = ()  # messages people wrote for this act (their tone, for a language model)
    # How often a question about something it wants is answered with that alone ("A hard
    # case."); 0 where a policy fitted on people chooses what a turn says (see `TERSE_ANSWER`)
    terse_rate: float = 0.0


class SeekerAnswerStep(LanguageStep[AnswerInput, SeekerAnswer]):
    name = "seeker_answer"
    prompt_name = "seeker_answer"
    output_model = SeekerAnswer
    llm_output_model = SeekerReplyText

    async def run(self, inputs: AnswerInput) -> SeekerAnswer:
        """A turn the offline plan states nothing in is not given to a model (see the module)."""
        if self.llm is not None and not self.plan(inputs):
            note_step_inputs(self, inputs)
            return self.offline(inputs)
        return await super().run(inputs)

    def plan(self, inputs: AnswerInput) -> list[Fact]:
        """The facts this turn states, as the offline turn chooses them, at most `LLM_WISHES`
        (kept for these inputs: `run` asks first, then the prompt)."""
        if self._last_plan[0] is not inputs:
            keys = self.offline(inputs).fact_keys
            by_key = {fact.key: fact for fact in inputs.facts}
            self._last_plan = (inputs, [by_key[key] for key in keys if key in by_key][:LLM_WISHES])
        return self._last_plan[1]

    def check(self, output: BaseModel, inputs: AnswerInput) -> str | None:
        """A person does not send a message twice; Qwen2.5-1.5B copied its first reply into the
        next turns whatever the prompt said (three prompt wordings tried). A reply that adds
        something new after the copy is kept without the copy (`accept`). A reply that lists
        more than `LLM_WISHES` wishes (said before or not: the model re-listed four it had
        said; read off its facts, or counted by `LIST_JOINTS`), or runs past
        `MAX_REPLY_WORDS`, is refused: people say one or two things a turn."""
        reply = getattr(output, "answer", "")
        new = new_sentences(reply, self._sent(inputs))
        words = len(normalised(new).split())
        if reply.strip() and words < 3:
            return REPEATED_REPLY
        if words > MAX_REPLY_WORDS:
            return TOO_LONG.format(n=words)
        wishes = max(len(facts_said(new, inputs.facts)), len(LIST_JOINTS.findall(new)) + 1)
        return TOO_MANY_WISHES.format(n=wishes, most=LLM_WISHES) if wishes > LLM_WISHES else None

    @staticmethod
    def _sent(inputs: AnswerInput) -> list[str]:
        return [t.text for t in inputs.dialogue if t.role == Role.seeker]

    def accept(self, output: BaseModel, inputs: AnswerInput) -> SeekerAnswer:
        """The model writes only the reply; which facts it said is read off the reply, so the
        next turn's prompt lists them as said (with an empty list, Qwen2.5-1.5B sent one
        message three turns running). No claims: a reply can name a fact's words and
        still turn it around ("I don't mind the noise")."""
        if isinstance(output, SeekerAnswer):
            return output
        answer = new_sentences(output.answer, self._sent(inputs))  # type: ignore[attr-defined]
        said = facts_said(answer, inputs.facts)
        return SeekerAnswer(answer=answer, has_preference=output.has_preference,  # type: ignore[attr-defined]
                            fact_key=said[0] if said else None, fact_keys=said)

    def __init__(self, llm: object | None = None, role: str = "seeker", *, encoder: object | None = None,
                 threshold: float = 0.35, dont_know_rate: float = 0.1, wording_mix: tuple[float, float] = (0.2, 0.2)):
        super().__init__(llm, role)
        self.encoder = encoder
        self.threshold = threshold
        self.dont_know_rate = dont_know_rate
        self.negative_share, self.vague_share = wording_mix
        self._last_asked: tuple[object, int | None] = (None, None)
        self._last_plan: tuple[AnswerInput | None, list[Fact]] = (None, [])

    def _nothing_new(self, inputs: AnswerInput) -> SeekerAnswer:
        """Every fact is said and the question is about none of them: NOTHING_LEFT (NOTHING_YET
        before its first word)."""
        spoke = inputs.stated or any(t.role == Role.seeker for t in inputs.dialogue)
        lines = NOTHING_LEFT if spoke else NOTHING_YET
        return SeekerAnswer(answer=pick(lines, inputs.question, inputs.seed, len(inputs.dialogue)),
                            has_preference=False)

    def offline(self, inputs: AnswerInput) -> SeekerAnswer:
        rnd = random.Random(f"{inputs.seed}-{len(inputs.dialogue)}")
        if inputs.may_not_know and not inputs.open_question and rnd.random() < self.dont_know_rate:
            return SeekerAnswer(answer=pick(DONT_KNOW, inputs.question), has_preference=False)
        open_facts = [f for f in inputs.facts if f.key not in inputs.stated]
        asked = None if inputs.open_question else self.asked_fact(inputs.question, inputs.facts)
        again = asked is not None and asked.key in inputs.stated  # said before: said again ("like I said")
        if not open_facts and not again:
            return self._nothing_new(inputs)
        if asked is not None and not again and asked.phrase and self._terse(inputs):
            return SeekerAnswer(answer=capitalised(asked.phrase) + ".", has_preference=True, fact_key=asked.key,
                                fact_keys=[asked.key], claims=[list(asked.claim)] if asked.claim else [])
        chosen = [asked] if asked else []
        n_extra = rnd.choices(*EXTRA_ASPECTS)[0] if open_facts else 0
        if not asked:  # nothing asked in particular: say something anyway, one thing when opening
            n_extra = max(1, n_extra) if inputs.open_question else min(n_extra + 1, MAX_WISHES)
        elif again and open_facts:  # and something new, as before this answer restated what was asked
            n_extra = min(n_extra + 1, MAX_WISHES - 1)
        chosen += self._volunteer(open_facts, chosen, n_extra, rnd)
        chosen, wordings = _one_frame_each(chosen, [self._wording(fact, rnd) for fact in chosen])
        text = " ".join(_ended(w.text) if n < len(wordings) - 1 else w.text for n, w in enumerate(wordings))
        if again:
            text = f"{pick(RESTATED, inputs.question)} {_mid_sentence(text)}"
        elif not asked and not inputs.open_question:
            text = f"{pick(NOT_THAT_BUT, inputs.question)} {text}"
        return SeekerAnswer(answer=text, has_preference=bool(chosen), fact_key=chosen[0].key if chosen else None,
                            fact_keys=[f.key for f in chosen],
                            claims=[list(w.claim) for w in wordings if w.claim is not None])

    @staticmethod
    def _terse(inputs: AnswerInput) -> bool:
        """Whether this answer is the wanted thing alone (its own draw: the turn's other draws
        are those of a reply that is not)."""
        return random.Random(f"{inputs.seed}-{len(inputs.dialogue)}-terse").random() < inputs.terse_rate

    def asked_fact(self, question: str, facts: Sequence[Fact]) -> Fact | None:
        """The fact the question is about, by meaning: target values first, then the rest.

        Stated facts count too: a question about something already said is answered as
        such, not with the next-closest fact (which would answer "which meal?" with a
        dietary wish). The last answer is kept: the seeker's talk moves ask first, and the
        answer, when no move is taken, asks again about the same question."""
        if self.encoder is None:
            return None
        question = question_part(question)
        key = (question, tuple(f.match_text for f in facts))  # what the match reads; episodes may interleave
        if self._last_asked[0] != key:
            found = self._match(question, facts)
            self._last_asked = (key, None if found is None else facts.index(found))
        index = self._last_asked[1]
        return None if index is None else facts[index]

    def _match(self, question: str, facts: Sequence[Fact]) -> Fact | None:
        vector = self.encoder.encode([question])[0]
        for tier in ([f for f in facts if f.claim is not None], [f for f in facts if f.claim is None]):
            if tier:
                similarity = self.encoder.encode([f.match_text for f in tier]) @ vector
                best = int(np.argmax(similarity))
                if similarity[best] >= self.threshold:
                    return tier[best]
        return None

    @staticmethod
    def _volunteer(facts: Sequence[Fact], chosen: list[Fact], n: int, rnd: random.Random) -> list[Fact]:
        """Up to `n` more facts about other aspects, drawn by salience (values before review facts)."""
        picked: list[Fact] = []
        aspects = {f.aspect or f.key for f in chosen}
        pool = [f for f in facts if f not in chosen]
        while len(picked) < n:
            pool = [f for f in pool if (f.aspect or f.key) not in aspects]
            if not pool:
                break
            fact = rnd.choices(pool, [f.salience for f in pool])[0]
            picked.append(fact)
            aspects.add(fact.aspect or fact.key)
        return picked

    def _wording(self, fact: Fact, rnd: random.Random) -> Wording:
        negative = [w for w in fact.alternatives if w.claim is not None and w.claim[2] < 0]
        vague = [w for w in fact.alternatives if w not in negative]
        draw = rnd.random()
        if negative and draw < self.negative_share:
            return rnd.choice(negative)
        if vague and draw < self.negative_share + self.vague_share:
            return rnd.choice(vague)
        return Wording(fact.utterance, fact.claim)

    def prompt_variables(self, inputs: AnswerInput) -> dict[str, object]:
        return {
            "item_noun": inputs.item_noun,
            "say_now": "\n".join(f"- {f.match_text}" for f in self.plan(inputs)) or "(nothing)",
            "examples": "\n".join(f"- {text}" for text in inputs.examples) or "(none)",
            "stated": "\n".join(f"- {f.match_text}" for f in inputs.facts if f.key in inputs.stated) or "(nothing yet)",
            "dialogue": render_dialogue(inputs.dialogue),
            "question": inputs.question,
            "target_title": inputs.target_title,
            "liked": "\n".join(f"- {title}" for title in inputs.liked) or "(none you remember)",
            "shown": "\n".join(f"{n}. {title}" for n, title in enumerate(inputs.shown, 1)) or "(nothing yet)",
        }
