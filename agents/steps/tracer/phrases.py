"""Offline wording of shopping dialogues: two phrase banks, `a` (default) and `b`.

Every utterance the offline seller and customer say (and the offline single-pass
generator writes) comes from here. Bank `b` says the same things in other words — other
negation and indifference cues, other question forms — so that an offline query
extractor (CQG) can be scored on dialogues whose wording it was not written against:
an extractor that only inverts bank `a`'s templates falls apart on bank `b`.
Choices between phrasings are deterministic in (episode seed, turn, aspect) via `pick`.
"""

from __future__ import annotations

from collections.abc import Sequence

from agents.steps.text import display_name, fill_form, pick

BANKS = ("a", "b")

_A = {
    "opening": ["Hi, I'm looking to buy {noun}.", "Hello! I need {noun}, can you help me?",
                "Hi there, I want to get {noun} but I'm not sure where to start."],
    "ask_first": ["Happy to help! Let's start with the {aspect}. Popular options are {hints}. Any preference?",
                  "Sure! First, what {aspect} would you like? Many customers pick {hints}."],
    "ask": ["What about the {aspect}? Common choices are {hints}.", "Do you have a preference for the {aspect}, "
            "such as {hints}?", "Next, the {aspect}: we have {hints}. What would you like?"],
    "ask_two": ["Now, the {aspect} and the {aspect2}. For the {aspect}, people often choose {hints}; for the "
                "{aspect2}, {hints2}. Any preferences?",
                "Let's look at {aspect} and {aspect2}. Typical {aspect} options are {hints}, and for {aspect2} "
                "there is {hints2}. What do you think?"],
    "explain": ["Good question! The {aspect} is {gloss}. For example: {hints}. Do you have a preference?",
                "Of course. {Aspect} means {gloss}; typical values are {hints}. Which would you like?"],
    "explain_plain": ["Sure, the {aspect} describes the product's {aspect} option, for example {hints}. "
                      "Do you have a preference?"],
    "recommend": ["Based on everything you told me, I recommend the {title}. It matches what you want.",
                  "Great, I think the {title} is a good fit for you. Would you like it?"],
    "close": ["You're welcome! Enjoy your purchase.", "Glad I could help. Have a great day!"],
    "close_unanswered": ["Let me know if you have any other questions. Have a nice day!"],
    "wanted": ["I'd like {value}.", "{Value} for the {aspect}, please.", "I want {value} for the {aspect}."],
    "unwanted": ["I don't want {value}.", "Anything but {value} for the {aspect}.",
                 "Please avoid {value}; I don't like it."],
    "optional": ["I don't really mind about the {aspect}.", "The {aspect} doesn't matter to me.",
                 "I have no preference for the {aspect}."],
    "question": ["Sorry, what do you mean by {aspect}?", "What is the {aspect}, exactly?"],
    "accept": ["That sounds perfect, I'll take it. Thank you!", "Great, I'll buy that one. Thanks for your help!"],
    "join": ["{first} And {second}", "{first} As for the rest, {second}"],
    "filler": ["Okay.", "I see."],
}

_B = {
    "opening": ["Good morning, I'm shopping for {noun} today.", "Hey, could you help me find {noun}?"],
    "ask_first": ["Sure thing. To narrow it down: which {aspect} suits you? Shoppers often go for {hints}.",
                  "Absolutely. Shall we begin with the {aspect}? The usual picks are {hints}."],
    "ask": ["How do you feel about the {aspect}? We carry {hints}.", "Tell me about the {aspect} you need; "
            "say, {hints}?"],
    "ask_two": ["Two more things, {aspect} and {aspect2}. On {aspect} we carry {hints}; on {aspect2}, {hints2}.",
                "How about {aspect} ({hints}) and {aspect2} ({hints2})?"],
    "explain": ["No problem. By {aspect} I mean {gloss}, e.g. {hints}. Which way do you lean?"],
    "explain_plain": ["That's the {aspect} listed for each product, e.g. {hints}. Which way do you lean?"],
    "recommend": ["Then my pick for you is the {title}. It ticks your boxes.",
                  "The {title} should suit you nicely. Shall I put it in your cart?"],
    "close": ["My pleasure, enjoy it!", "Thanks for shopping with us. Take care!"],
    "close_unanswered": ["Feel free to come back anytime. Bye!"],
    "wanted": ["Let's go with {value}.", "{Value} would be ideal.", "Ideally {value} for the {aspect}."],
    "unwanted": ["{Value} is a no-go for me.", "Please keep {value} out of it.", "I'd steer clear of {value}."],
    "optional": ["Whatever works for the {aspect}.", "The {aspect} isn't something I fuss over.",
                 "Surprise me on the {aspect}."],
    "question": ["Hmm, {aspect}? Could you explain that?", "I've never heard of {aspect}. What's that?"],
    "accept": ["Lovely, that's the one. Thanks!", "Perfect, add it to my cart please."],
    "join": ["{first} Also, {second}", "{first} Then, {second}"],
    "filler": ["Alright.", "Got it."],
}

PHRASES = {"a": _A, "b": _B}


def bank(name: str) -> dict[str, list[str]]:
    if name not in PHRASES:
        raise ValueError(f"phrase bank must be one of {', '.join(BANKS)}, got '{name}'")
    return PHRASES[name]


def hint_list(hints: Sequence[str]) -> str:
    hints = list(hints)
    if not hints:
        return "several options"
    return hints[0] if len(hints) == 1 else ", ".join(hints[:-1]) + " or " + hints[-1]


def fill(name: str, kind: str, key: Sequence[object], **values: str) -> str:
    """One phrasing of `kind` from bank `name`, filled; `{Aspect}`/`{Value}` are capitalised forms."""
    return fill_form(pick(bank(name)[kind], name, kind, *key), **values)


FLAG_VALUES = frozenset({"yes", "no", "none"})


def spoken_value(aspect: str, value: str) -> str:
    """"yes" alone says nothing out of context: flags are said with their aspect ("foldable: yes")."""
    return f"{display_name(aspect)}: {value}" if value in FLAG_VALUES else value


def stance_sentence(name: str, aspect: str, interest: str, value: str, key: Sequence[object]) -> str:
    return fill(name, interest, (*key, aspect), aspect=display_name(aspect), value=spoken_value(aspect, value))


def join_sentences(name: str, sentences: Sequence[str], key: Sequence[object]) -> str:
    if not sentences:
        return pick(bank(name)["filler"], name, *key)
    text = sentences[0]
    for later in sentences[1:]:
        text = fill(name, "join", (*key, later), first=text, second=_decap(later))
    return text


def _decap(text: str) -> str:
    first = text.split(" ", 1)[0]
    return text if first == "I" or first.startswith("I'") or first[1:2].isupper() else text[:1].lower() + text[1:]
