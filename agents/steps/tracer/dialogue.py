"""Language steps of the shopping protocol: seller and customer utterances, the state tracker.

- `SellerUtteranceStep`: one seller utterance for a move the seller agent has decided
  (ask one or two planned aspects with their hints, explain an aspect the customer asked
  about, recommend a product, say goodbye). Offline: phrase-bank templates.
- `CustomerUtteranceStep`: one customer utterance stating its stance on the asked aspects
  (wanted value / unwanted value / does not care), asking what an aspect means, opening
  with the category, or accepting the recommendation. Offline: phrase-bank templates.
- `TrackStateStep`: the dialogue state tracker (TRACER §3.3): which of the customer's
  features an utterance actually expressed. Offline it matches the aspect's name or the
  value as whole words (an optional stance must name the aspect); the LLM version reads
  the utterance. The customer reports the result to the environment, which reveals only
  those aspects to the search, so a feature the utterance forgot stays pending.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from agents.steps.base import LanguageStep
from agents.steps.text import display_name, mentions, normalised, render_dialogue, said_before, split_sentences
from agents.steps.tracer.phrases import fill, hint_list, join_sentences, stance_sentence
from environments.models import Turn


class Utterance(BaseModel):
    utterance: str = Field(description="What the speaker says next, nothing else.")


@dataclass(frozen=True, slots=True)
class AskedAspect:
    aspect: str
    hints: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SellerUtteranceInput:
    mode: str                                   # ask | explain | recommend | close
    dialogue: Sequence[Turn]
    category: str
    aspects: Sequence[AskedAspect] = ()         # ask / explain
    gloss: str = ""                              # explain: what the aspect means, if known
    product: str = ""                            # recommend: the product's title
    product_details: str = ""                    # recommend: its features, one line
    first: bool = False                          # the seller's first question
    bank: str = "a"
    key: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class Stance:
    aspect: str
    interest: str                                # wanted | unwanted | optional
    value: str = ""


@dataclass(frozen=True, slots=True)
class CustomerUtteranceInput:
    mode: str                                   # open | answer | accept
    dialogue: Sequence[Turn]
    category: str
    stances: Sequence[Stance] = ()               # answer: what to state
    question: str | None = None                  # answer: an aspect to ask the meaning of
    product: str = ""                            # accept: the recommended product's title
    bank: str = "a"
    key: tuple[Any, ...] = ()


class SellerUtteranceStep(LanguageStep[SellerUtteranceInput, Utterance]):
    name = "shopping_seller"
    prompt_name = "shopping_seller"
    output_model = Utterance

    def __init__(self, llm: Any | None = None, role: str = "seller"):
        super().__init__(llm, role)

    def offline(self, inputs: SellerUtteranceInput) -> Utterance:
        b, key = inputs.bank, inputs.key
        if inputs.mode == "ask" and inputs.aspects:
            one = inputs.aspects[0]
            values = {"aspect": display_name(one.aspect), "hints": hint_list(one.hints)}
            if len(inputs.aspects) > 1:
                two = inputs.aspects[1]
                text = fill(b, "ask_two", key, **values, aspect2=display_name(two.aspect),
                            hints2=hint_list(two.hints))
            else:
                text = fill(b, "ask_first" if inputs.first else "ask", key, **values)
        elif inputs.mode == "explain" and inputs.aspects:
            one = inputs.aspects[0]
            kind = "explain" if inputs.gloss else "explain_plain"
            text = fill(b, kind, key, aspect=display_name(one.aspect), gloss=inputs.gloss, hints=hint_list(one.hints))
        elif inputs.mode == "recommend":
            text = fill(b, "recommend", key, title=inputs.product)
        else:
            text = fill(b, "close", key)
        return Utterance(utterance=text)

    def prompt_variables(self, inputs: SellerUtteranceInput) -> dict[str, Any]:
        return {"dialogue": render_dialogue(inputs.dialogue, limit=30), "category": inputs.category,
                "task": seller_task(inputs)}

    def check(self, output: BaseModel, inputs: SellerUtteranceInput) -> str | None:
        """Qwen2.5-1.5B asked the first aspect (price) again in every later turn, copying its
        own first question, while told to ask about battery life: a question that names none
        of its aspects (nor one of their example values), or any earlier message, is refused."""
        text = getattr(output, "utterance", "")
        if said_before(text, inputs.dialogue):
            return copied_fault(seller_task(inputs))
        if inputs.mode in ("ask", "explain"):
            missing = [display_name(a.aspect) for a in inputs.aspects if not names_aspect(text, a.aspect, a.hints)]
            if missing:
                return f"your message must ask about {' and '.join(missing)}"
        if inputs.mode == "recommend":
            return recommendation_fault(text, inputs.product_details)
        return None


def copied_fault(task: str) -> str:
    """The repair request for a copied message. Qwen2.5-1.5B echoed the conversation's last
    line (the customer's acceptance as the seller's goodbye, the seller's question as the
    customer's answer), and told only "say something new" it echoed another line: 36 of the
    89 answers refused in ten TRACER episodes. The request restates the move."""
    return f"you copied a message from the conversation; write your own new message that does this: {task}"


def recommendation_fault(text: str, details: str) -> str | None:
    """Qwen2.5-1.5B recommended by pasting the product's feature list from its task and then
    talking about "the customer's budget" to the customer: both are refused."""
    if details and normalised(details) in normalised(text):
        return "do not copy the product's feature list; say in words which wishes it meets"
    if mentions(text, "the customer"):  # "the customer's budget" too: the apostrophe ends the word
        return 'speak to the customer as "you"'
    return None


class CustomerUtteranceStep(LanguageStep[CustomerUtteranceInput, Utterance]):
    name = "shopping_customer"
    prompt_name = "shopping_customer"
    output_model = Utterance

    def __init__(self, llm: Any | None = None, role: str = "customer"):
        super().__init__(llm, role)

    def offline(self, inputs: CustomerUtteranceInput) -> Utterance:
        b, key = inputs.bank, inputs.key
        if inputs.mode == "open":
            return Utterance(utterance=fill(b, "opening", key, noun=inputs.category))
        if inputs.mode == "accept":
            return Utterance(utterance=fill(b, "accept", key))
        sentences = [stance_sentence(b, s.aspect, s.interest, s.value, key) for s in inputs.stances]
        if inputs.question:
            sentences.append(fill(b, "question", (*key, inputs.question), aspect=display_name(inputs.question)))
        return Utterance(utterance=join_sentences(b, sentences, key))

    def prompt_variables(self, inputs: CustomerUtteranceInput) -> dict[str, Any]:
        return {"dialogue": render_dialogue(inputs.dialogue, limit=30), "category": inputs.category,
                "task": customer_task(inputs)}

    def check(self, output: BaseModel, inputs: CustomerUtteranceInput) -> str | None:
        """Qwen2.5-1.5B answered "I'll look into that range. Thank you for your help." to the
        seller's price question, and the same to every later one: an answer that leaves a
        stance unsaid (`stance_worded`), or that repeats an earlier message, is refused."""
        text = getattr(output, "utterance", "")
        if said_before(text, inputs.dialogue):
            return copied_fault(customer_task(inputs))
        if inputs.mode == "answer":
            unsaid = [stance_phrase(s) for s in inputs.stances if not stance_worded(text, s)]
            if inputs.question and not mentions(text, display_name(inputs.question)):
                unsaid.append(f"ask what {display_name(inputs.question)} means")
            if unsaid:
                return "your message must say: " + "; ".join(unsaid)
        return None

    def accept(self, output: Utterance, inputs: CustomerUtteranceInput) -> Utterance:
        """Only the sentences that state this turn's stances or ask its question: the 1.5B
        customer added wishes of its own ("I don't care about the brand. I just want ... good
        battery life", two turns after saying battery life did not matter)."""
        if inputs.mode != "answer":
            return output
        kept = [s for s in split_sentences(output.utterance) if any(stance_worded(s, x) for x in inputs.stances)
                or (inputs.question and mentions(s, display_name(inputs.question)))]
        return Utterance(utterance=" ".join(kept)) if kept else output


def stance_verb(stance: Stance, third_person: bool = False) -> str:
    """What the customer does about the value: "want(s) X", "do(es) not want X", "do(es) not care"."""
    do, want = ("does", "wants") if third_person else ("do", "want")
    if stance.interest == "wanted":
        return f"{want} {stance.value}"
    if stance.interest == "unwanted":
        return f"{do} not want {stance.value}"
    return f"{do} not care"


def stance_phrase(stance: Stance) -> str:
    """A stance as the customer's task states it ("you want between $60 and $120 for the price")."""
    about = "about" if stance.interest == "optional" else "for"
    return f"you {stance_verb(stance)} {about} the {display_name(stance.aspect)}"


def customer_task(inputs: CustomerUtteranceInput) -> str:
    """What this customer move must say, and nothing about the other moves: a small model
    given the menu of all moves mixed them up."""
    if inputs.mode == "open":
        return f"say that you want to buy {inputs.category}, in one short sentence"
    if inputs.mode == "accept":
        return f"accept the recommended product ({inputs.product}) and thank the seller"
    question = f"ask what the {display_name(inputs.question)} means" if inputs.question else ""
    if not inputs.stances:
        return question or "say that you have no more wishes"
    said = "say, in one or two short sentences, that " + "; and that ".join(stance_phrase(s) for s in inputs.stances)
    return f"{said}; then {question}" if question else said


def seller_task(inputs: SellerUtteranceInput) -> str:
    """What this seller move must say (see `customer_task`)."""
    asked = " and ".join(f"the {display_name(a.aspect)} (for example {hint_list(a.hints)})" if a.hints
                         else f"the {display_name(a.aspect)}" for a in inputs.aspects)
    if inputs.mode == "ask" and inputs.aspects:
        return f"ask the customer what they want for {asked}, in one or two short sentences"
    if inputs.mode == "explain" and inputs.aspects:
        meaning = f" ({inputs.gloss})" if inputs.gloss else ""
        return (f"explain in plain words what the {display_name(inputs.aspects[0].aspect)} means{meaning}, "
                f"then ask again what they want for {asked}")
    if inputs.mode == "recommend":
        details = f" (the product has: {inputs.product_details})" if inputs.product_details else ""
        return (f"recommend the {inputs.product} in one or two short sentences, "
                f"saying which of their wishes it meets{details}")
    return ("say goodbye in one short sentence, glad the customer found what they wanted "
            "(the customer has just accepted; do not repeat their words)")


def names_aspect(text: str, aspect: str, hints: Sequence[str]) -> bool:
    """Whether a seller's question is about `aspect`: it names it or one of its example values."""
    return mentions(text, display_name(aspect)) or any(mentions(text, hint) for hint in hints if hint)


def stance_worded(text: str, stance: Stance) -> bool:
    """Whether a customer's message says this stance: the value for a wanted or unwanted one
    (the aspect alone for a yes/no value), the aspect for one it does not care about. Stricter
    than the offline tracker's rule, which also takes the aspect alone: the 1.5B customer
    named the aspect while saying the opposite stance ("The wireless charging doesn't matter").
    A value with numbers is worded by its numbers: the 1.5B customer said "the $60 to $120
    price range" for "between $60 and $120", and was refused for it."""
    if stance.interest == "optional" or stance.value.lower() in ("yes", "no"):
        return mentions(text, display_name(stance.aspect))
    numbers = NUMBER.findall(stance.value)
    if numbers:  # "$60 to $120" says "between $60 and $120"; "4.5 stars or higher", "higher than 4.5 stars"
        return all(re.search(rf"(?<![\d.]){re.escape(n)}(?![\d]|\.\d)", text) for n in numbers)
    return bool(stance.value) and mentions(text, stance.value)


NUMBER = re.compile(r"\d+(?:\.\d+)?")


class MentionedFeatures(BaseModel):
    mentioned: list[str] = Field(default_factory=list, description="Aspects whose stance the utterance states.")


@dataclass(frozen=True, slots=True)
class TrackInput:
    utterance: str
    remaining: Sequence[Stance] = field(default_factory=tuple)


def stance_stated(utterance: str, stance: Stance) -> bool:
    """Offline tracker rule: the aspect's name, or the value for a wanted/unwanted stance."""
    if mentions(utterance, display_name(stance.aspect)):
        return True
    return stance.interest != "optional" and bool(stance.value) and mentions(utterance, stance.value)


def tracked_line(stance: Stance) -> str:
    """A remaining feature as the tracker reads it: each stance in words, with what stating it takes."""
    hint = " (saying it does not matter, or having no preference, states it)" if stance.interest == "optional" else ""
    return f"- {display_name(stance.aspect)}: {stance_verb(stance, third_person=True)}{hint}"


class TrackStateStep(LanguageStep[TrackInput, MentionedFeatures]):
    name = "shopping_track_state"
    prompt_name = "shopping_track_state"
    output_model = MentionedFeatures

    def __init__(self, llm: Any | None = None, role: str = "customer"):
        super().__init__(llm, role)

    def offline(self, inputs: TrackInput) -> MentionedFeatures:
        return MentionedFeatures(mentioned=[s.aspect for s in inputs.remaining if stance_stated(inputs.utterance, s)])

    def prompt_variables(self, inputs: TrackInput) -> dict[str, Any]:
        """Aspects by their display names: listed as `wireless_charging`, the 1.5B tracker never
        matched "The wireless charging doesn't matter to me" to it."""
        return {"utterance": inputs.utterance, "remaining": "\n".join(map(tracked_line, inputs.remaining)) or "(none)"}

    def check(self, output: BaseModel, inputs: TrackInput) -> str | None:
        """An aspect the customer does not care about is stated by naming it ("I don't care
        about the form factor"); the 1.5B tracker heard none of six such answers running, and
        the seller asked the same aspect until the turn limit. Leaving such an aspect out is
        refused (the offline rule is then the floor: a repeat falls back to it)."""
        heard = {normalised(a) for a in getattr(output, "mentioned", [])}
        missed = [name for s in inputs.remaining if s.interest == "optional"
                  and mentions(inputs.utterance, name := display_name(s.aspect))
                  and normalised(name) not in heard and s.aspect not in heard]
        return f"the utterance says the customer does not care about: {', '.join(missed)}" if missed else None

    def accept(self, output: MentionedFeatures, inputs: TrackInput) -> MentionedFeatures:
        """The aspects named, as keys (either spelling is read), each once, in list order."""
        named = {normalised(a) for a in output.mentioned}
        return MentionedFeatures(mentioned=[s.aspect for s in inputs.remaining
                                            if normalised(display_name(s.aspect)) in named or s.aspect in named])
