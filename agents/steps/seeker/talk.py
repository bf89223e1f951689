"""How an offline seeker talks besides stating what it wants: reacting to what is shown,
asking about it, naming items it liked.

People in ReDial and INSPIRED do these in about half their turns (a third react to a
suggestion, one in six asks something, one in five names an item), in 6-7 words a turn,
and no two say it the same way; the template seeker did none of it and said its wants in
a few fixed skeletons, which `crsim validate` tells from people at a glance (template
rate, AUC 1.0). So the frames here are many and short, and each move picks one by the
episode seed and the turn (`pick`): same seed, same conversation.

A *reference* to a shown item is either its position ("the second one") or, for items
the seeker may name, its title without the year, as people write it. A seeker never
names its own target (`refer` is told when it may not).
"""

from __future__ import annotations

import random
import re
import zlib
from collections.abc import Sequence

from agents.steps.text import fill_form, pick
from environments.search.titles import spoken_title
from environments.search.vocabulary import is_plural_phrase

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")

# A shown item that looks right ({ref}: "the second one" or a title).
LIKE_SHOWN = (
    "Ooh, {ref} looks promising.", "{Ref} sounds good actually.", "Now {ref} is more like it!",
    "I like the look of {ref}.", "{Ref} could work.", "Oh, {ref} might be it.", "Hm, {ref} is close.",
    "Okay, {ref} catches my eye.", "Wait, {ref} seems nice.", "{Ref} is getting warmer.",
    "I could see myself with {ref}.", "{Ref} looks good to me.", "Oh nice, {ref}!", "{Ref} is tempting.",
    "That's a good shout, {ref}.",
)
# A shown item that is not it, with no reason given.
PASS_SHOWN = (
    "Not {ref}, I think.", "{Ref} isn't really me.", "Hmm, {ref} doesn't grab me.", "I'd skip {ref}.",
    "{Ref}? Nah.", "Don't love {ref}, honestly.", "{Ref} is not what I had in mind.", "Meh, {ref} isn't it.",
    "I'll pass on {ref}.", "Nope, not {ref}.", "{Ref} leaves me cold.", "Probably not {ref}.",
    "{Ref} seems off for me.", "Can't see myself with {ref}.", "Eh, {ref} doesn't do it for me.",
    "Hard pass on {ref}.", "{Ref}, no thanks.", "Not feeling {ref}.", "Scratch {ref}.", "{Ref} is a no from me.",
)
# A shown item that is not it, and why: {want} is a wording of what the seeker wants instead.
PASS_SHOWN_BECAUSE = (
    "{Ref} won't do, I'm after {want}.", "Not {ref}. {Want}, really.", "I'd skip {ref}; {want} {matters} more.",
    "{Ref} misses it. {Want} {is} key.", "Close, but I want {want}, not {ref}.", "Nah, {ref}. Think {want}.",
    "{Ref} is off: {want}, please.", "Hmm, not {ref}. More like {want}.",
)
# The items on screen as a whole, when none can be named (a catalog whose titles are product
# codes): people point at a shown item by its place in about one turn in 100 (ReDial,
# INSPIRED, MG-ShopDial's shoppers); pointing at "the first one" in 48% of its turns was the
# review-catalog seeker of 0.2.18. {want}: what it wants instead.
PASS_ALL = (
    "None of these, I think.", "Hmm, none of these grab me.", "Not really any of these.", "These aren't quite it.",
    "I'd skip these.", "Nah, not these.", "None of these feel right.", "These don't do it for me.",
)
PASS_ALL_BECAUSE = (
    "None of these, I'm after {want}.", "Not these. {Want}, really.", "These aren't it. I'd rather have {want}.",
    "Hmm, not quite. More like {want}.", "Not these ones: {want}, please.",
    "Close, but I want {want}.",
)
ASK_ALL = (
    "Which of these would you pick?", "What's the difference between these?", "Which one of these is best?",
    "Are any of these any good?", "What do people say about these?", "Which of these do people like most?",
)
ASK_ALL_WANT = (
    "I'm after {want}; would any of these do?", "Do any of these have {want}?",
    "{Want} {matters} to me. Are any of these like that?", "{Want} {is} the thing. Would any of these fit?",
)
# A shown item the seeker has no view on yet (it has not seen it / does not know it).
UNKNOWN_SHOWN = (
    "Haven't seen {ref}.", "Never heard of {ref}.", "{Ref} is new to me.", "Don't know {ref} at all.",
    "I haven't tried {ref} yet.", "{Ref} I don't know.", "Hm, {ref} is not one I know.", "Missed {ref} somehow.",
    "{Ref} passed me by.", "Not familiar with {ref}.", "{Ref} rings no bell.", "First I hear of {ref}.",
)
# Questions about a shown item: open ones, and ones about a value the seeker wants ({want}).
ASK_SHOWN = (
    "What's {ref} like?", "Is {ref} any good?", "What is {ref} about?", "Tell me more about {ref}?",
    "How is {ref}?", "What makes {ref} stand out?", "Why {ref}?", "Would I like {ref}, you think?",
    "What do people say about {ref}?", "Is {ref} worth it?", "Hm, {ref}? What's the story there?",
    "Ok and {ref}, what's that one?", "Did people like {ref}?", "Any good reviews for {ref}?",
    "So {ref}, why that?", "What's so special about {ref}?", "Is {ref} popular?", "{Ref}, really?",
    "Can you say more on {ref}?", "Who is {ref} for?",
)
ASK_SHOWN_WANT = (
    "I'm after {want}; would {ref} do?", "{Want} {is} the thing. Does {ref} fit?", "Would {ref} tick the {bare} box?",
    "Does {ref} fit {want}?", "What about {ref}, for {want}?", "{Want} {matters} to me. Is {ref} like that?",
)
# An item the seeker liked before ({title}), named as people name them.
NAME_LIKED = (
    "I really liked {title}.", "I loved {title}.", "Something like {title} maybe?", "Big fan of {title}.",
    "I enjoyed {title} a lot.", "Have you seen {title}? Loved it.", "{title} is a favorite of mine.",
    "Last one I loved was {title}.", "Think along the lines of {title}.", "Anything like {title}?",
    "I keep going back to {title}.", "My go-to was {title}.", "Like {title}, that kind of thing.",
    "I had a great time with {title}.", "Recently I liked {title}.", "Stuff like {title} works for me.",
)
# Taking in the recommender's answer to its question (ReDial: "it sounds interesting", "okay cool").
ACKNOWLEDGE = (
    "Oh, sounds interesting.", "Ok cool.", "Hm, good to know.", "Nice!", "Ah ok.", "Interesting.", "Cool, thanks.",
    "Okay, makes sense.", "Got it.", "Oh nice, thanks.", "Fair enough.", "Huh, ok.",
)
# A shown item the seeker has seen and liked / has seen and did not like.
SEEN_LIKED = (
    "I've seen {ref}, loved it.", "Oh I saw {ref}, it was great.", "{Ref}? Seen it, really good.",
    "Yes, seen {ref}! Great one.", "I already watched {ref}, I liked it a lot.", "Loved {ref} when I saw it.",
)
SEEN_DISLIKED = (
    "I've seen {ref}, didn't love it.", "Saw {ref}, wasn't for me.", "{Ref}, seen it, not a fan.",
    "I watched {ref} and didn't like it much.",
)
# A shown item the seeker has not seen but would try / takes (its target, never named).
UNSEEN_LIKED = (
    "Haven't seen {ref}, sounds good though.", "{Ref} is new to me, I'll check it out.",
    "Never seen {ref}, might give it a try.", "I haven't seen {ref} yet, sounds interesting.",
    "Oh, not seen {ref}. I'll add it to my list.",
)
ACCEPT_SHOWN = (
    "{Ref} sounds perfect, I'll watch that.", "Oh {ref} looks great, I'll go with it.",
    "I think {ref} is the one, thanks!", "Yes! {Ref} sounds like what I want.", "{Ref} it is, I'll check it out.",
)
# Saying goodbye.
CLOSE = (
    "Thanks, I'll check those out!", "Great, thank you so much!", "Thanks for the help, bye!",
    "Awesome, thanks for the suggestions.", "Ok thanks, have a good night!", "Thank you, that helps a lot.",
)
# Asking for more, now and then, after a reaction.
ASK_MORE = (
    "Got anything else like that?", "What else would you suggest?", "Can you show me a few more?",
    "Any other ideas?", "What else is there?", "Other options?", "Anything different?", "Show me something else?",
    "Maybe a few others?", "Got more of those?", "Try me with another one?", "What would you pick instead?",
    "Could you find something fresher?", "Anything a bit different?", "Keep them coming?",
)


# How one person writes in a chat. In ReDial's test dialogues about half the seeker turns
# end without a full stop and one in six starts in lower case; people differ (some always
# punctuate, some never), so each episode's seeker draws one habit and keeps it.
STYLES = ((0.1, 0.0), (0.5, 0.15), (0.9, 0.4))  # (drops a final full stop, starts in lower case)
LOWER_STARTS = frozenset("""
    i i'm i'd i've i'll not the is what how maybe nope hmm hm oh ooh meh nah eh probably never haven't don't can't
    something anything like have okay ok wait hard already saw loved seen big any other got show could try keep
    would does and so who why did can tell that this no please nothing mostly for ideally preferably anything
""".split())


def styled(text: str, seed: int, turn: int) -> str:
    """`text` as this episode's seeker types it: its habit of final full stops and capitals
    (only a sentence that starts with an everyday word is lower-cased, never a title)."""
    drop, lower = STYLES[zlib.crc32(f"{seed}-style".encode()) % len(STYLES)]
    draw = random.Random(f"{seed}-{turn}-style")
    if text.endswith(".") and not text.endswith("..") and draw.random() < drop:
        text = text[:-1]
    first = text.split(" ", 1)[0].rstrip(",.!?").lower()
    if draw.random() < lower and first in LOWER_STARTS and first != "i":
        text = text[:1].lower() + text[1:]
    return text


def speakable(title: str) -> bool:
    """Whether a person could say `title`: words, not a product code ("B000068NZG")."""
    return re.search(r"[a-z]{2}", title) is not None


def unsaid_titles(titles: Sequence[str], dialogue: Sequence[object]) -> list[bool]:
    """For each title, whether no seeker turn of `dialogue` has said it yet (the person's own
    opening included): a person does not tell the recommender again about a film they named."""
    said = " ".join(t.text.lower() for t in dialogue if t.role == "seeker")  # type: ignore[attr-defined]
    return [spoken_title(title).lower() not in said for title in titles]


def position_name(position: int) -> str:
    """How a person points at the item in `position` (0-based) on screen."""
    return f"the {ORDINALS[position]} one" if position < len(ORDINALS) else f"number {position + 1}"


def refer(position: int, title: str, *keys: object, may_name: bool = True) -> str:
    """A shown item by position ("the second one") or, half the time when allowed, by title."""
    by_position = position_name(position)
    name = spoken_title(title)
    if not may_name or not speakable(name) or pick(("position", "title"), "refer", *keys) == "position":
        return by_position
    return name


def like_shown(ref: str, *keys: object) -> str:
    return fill_form(pick(LIKE_SHOWN, "like", *keys), ref=ref)


def agreeing(want: str) -> dict[str, str]:
    """The verbs a frame says of `want`, agreeing with it: "Some tight sleeves matter to me",
    not "matters" (said in Clothing's passes and questions, and called awkward by a rater)."""
    plural = is_plural_phrase(want)
    return {"is": "are" if plural else "is", "matters": "matter" if plural else "matters"}


def pass_shown(ref: str, *keys: object, want: str = "") -> str:
    """Not this one; with `want`, what the seeker is after instead."""
    return fill_form(pick(PASS_SHOWN_BECAUSE if want else PASS_SHOWN, "pass", *keys), ref=ref, want=want,
                     **agreeing(want))


def unknown_shown(ref: str, *keys: object) -> str:
    return fill_form(pick(UNKNOWN_SHOWN, "unknown", *keys), ref=ref)


def ask_shown(ref: str, *keys: object, want: str = "") -> str:
    """A question about this one; with `want`, whether it has what the seeker is after
    (`bare`: without its article, "tick the proper curry house box")."""
    bare = re.sub(r"^(?:a|an|some|the)\s+", "", want, flags=re.IGNORECASE)
    return fill_form(pick(ASK_SHOWN_WANT if want else ASK_SHOWN, "ask", *keys), ref=ref, want=want, bare=bare,
                     **agreeing(want))


def pass_all(*keys: object, want: str = "") -> str:
    """Not any of the items on screen; with `want`, what the seeker is after instead."""
    return fill_form(pick(PASS_ALL_BECAUSE if want else PASS_ALL, "pass-all", *keys), want=want, **agreeing(want))


def ask_all(*keys: object, want: str = "") -> str:
    """A question about the items on screen together; with `want`, whether any has it."""
    return fill_form(pick(ASK_ALL_WANT if want else ASK_ALL, "ask-all", *keys), want=want, **agreeing(want))


def name_liked(title: str, *keys: object) -> str:
    return fill_form(pick(NAME_LIKED, "name", *keys), title=spoken_title(title))


def reaction(ref: str, *keys: object, seen: bool, like: bool, accept: bool = False) -> str:
    """A reaction to a shown item: taken, or seen / not seen and liked / not."""
    if accept:
        bank = ACCEPT_SHOWN
    elif seen:
        bank = SEEN_LIKED if like else SEEN_DISLIKED
    else:
        bank = UNSEEN_LIKED if like else PASS_SHOWN
    return fill_form(pick(bank, "react", *keys), ref=ref)


def close(*keys: object) -> str:
    return pick(CLOSE, "close", *keys)


def acknowledge(*keys: object) -> str:
    return pick(ACKNOWLEDGE, "ack", *keys)


def ask_more(*keys: object) -> str:
    return pick(ASK_MORE, "more", *keys)


def join(parts: Sequence[str]) -> str:
    return " ".join(p for p in parts if p.strip())
