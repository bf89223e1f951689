"""Human intent labels for dialogue turns, read into our act inventory to score the labeller.

Two annotation schemes come in UserSimCRS' format (a list of dialogues, each with
`conversation_id` and `conversation`: turns with `participant` USER/AGENT, `utterance` and
`dialogue_acts` [{"intent": ...}]):

- IARD (Cai & Chen 2020, on ReDial): the files `formatted_IARD_annotated_*.json`. Titles
  stand in the text as "Title (Year)", where ReDial had its `@<movieId>` mention, so the
  titles a turn names are read off the text (`titles_in_text`): the same information the
  ReDial mention annotation gives the labeller at run time. Slot values are not used
  (the partially annotated file has none).
- INSPIRED (Hayati et al. 2020) with UserSimCRS' intents: a turn's titles are the
  `[MOVIE_TITLE_i]` placeholders of `metadata.utterance_with_placeholders`, resolved by
  the dialogue's `metadata.movie_dict`. Only the seeker side maps: its recommender side is
  labelled by persuasion strategy (encouragement, credibility, ...), not by act.

A turn's gold acts are its intents through the table of its scheme and role. A turn with
an intent that has no counterpart (None) is not scored: part of what it does is not in the
inventory, so no label set could be right. `chitchat` is dropped when the turn has another
act, as the labeller only says `chitchat` when nothing else fits. Predictions are folded
(`fold`) onto what the scheme can tell apart before they are compared.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from environments.errors import CrsimError
from environments.models import Episode, TerminationReason, Turn

Acts = tuple[str, ...]

# IARD seeker intents (`iard_user_prompt.txt`) -> seeker acts.
IARD_SEEKER: dict[str, Acts | None] = {
    "IQU": ("request",),
    "REF": ("request",),            # restates the query: a request again
    "STO": ("request",),            # a new query ("anything I can watch with my kids?")
    "CON": ("ask_more",),
    "CRI-C": ("ask_more",),         # "any others like that?": more, of the same kind
    "PRO": ("preference",),         # "I enjoy Seth Rogen" and "I loved Tommy Boy (1995)" alike: our
                                    # name_liked is folded into preference for IARD (see FOLD)
    "CRI-A": ("preference",),       # adds a constraint: "something more recent"
    "CRI-F": ("dislike_shown", "preference"),  # "that's too scary for me": turns the shown item
                                    # down, for a reason that is an attribute preference
    "ANS": ("preference",),         # answers the recommender's question, in practice with what
                                    # it wants ("something with action"); seen/liked answers get SEE
    "ACC": ("accept",),
    "REJ": ("dislike_shown",),      # also "I don't like horror" right after a horror title
    "SEE": ("seen_shown",),         # "seen it, loved it" too: IARD has no separate like-shown
    "NRE": ("unseen_shown",),       # neutral response; in practice "haven't seen / never heard of it"
    "INQ": ("ask_shown",),
    "ASK": ("chitchat",),           # asks the recommender's own opinion: small talk to us
    "OTH": ("chitchat",),           # greetings, thanks, small talk
    "END": ("close",),              # only in the gold file; the partial file folds goodbyes into OTH
}

# IARD recommender intents (`iard_agent_prompt.txt`) -> recommender acts.
IARD_RECOMMENDER: dict[str, Acts | None] = {
    "REQ": ("elicit",),
    "CLA": ("elicit",),             # clarifying question: asks what the seeker wants
    "CLQ": ("elicit",),             # the partial file's spelling of CLA
    "REC-S": ("recommend",),
    "REC-E": ("recommend",),        # "have you seen X?" as a way to recommend; our ask_seen is
                                    # folded into recommend for IARD (see FOLD)
    "EXP-I": ("explain",),
    "EXP-P": ("explain",),
    "EXP-S": ("explain",),
    "R-ANS": ("answer",),
    "RESP": ("chitchat",),          # responds to feedback ("I loved that one too!")
    "OTH": ("chitchat",),           # greetings are folded into chitchat (see FOLD)
    "END": ("close",),
}

# INSPIRED seeker intents (UserSimCRS' annotation) -> seeker acts.
INSPIRED_SEEKER: dict[str, Acts | None] = {
    "greeting": ("chitchat",),
    "chit_chat": ("chitchat",),
    "acknowledgment": ("chitchat",),
    "goodbye": ("close",),
    "disclose_opinion": ("preference",),   # "I like thrillers"
    "rephrase_preference": ("preference",),
    "inquire_recommendation": ("request",),
    "accept_recommendation": ("accept",),
    "accept_uninterested": ("accept",),    # "okay fine, I will go through that": takes it, lukewarm
    "seen_item": ("seen_shown",),
    "neutral_response": ("unseen_shown",),
    "inquire_item_info": ("ask_shown",),
    "opinion_inquiry": ("chitchat",),      # asks the recommender's opinion, as IARD's ASK
    "disclose_experience": None,           # tells what it watched, liked or not: no single act
    "similarity": None,                    # "it's like a Bonnie and Clyde sort of film": varies
    "clarification": None,                 # corrects a misunderstanding: no counterpart
}

SCHEMES: dict[str, dict[str, dict[str, Acts | None]]] = {
    "iard": {"seeker": IARD_SEEKER, "recommender": IARD_RECOMMENDER},
    "inspired": {"seeker": INSPIRED_SEEKER},
}

# Our acts that a scheme cannot tell apart from another, scored as that other one.
FOLD: dict[str, dict[str, dict[str, str]]] = {
    "iard": {"seeker": {"like_shown": "seen_shown",           # SEE covers "seen it, loved it"
                        "name_liked": "preference"},          # PRO covers naming a liked title
             "recommender": {"greet": "chitchat",             # greetings are OTH
                             "ask_seen": "recommend"}},       # REC-E is both
    "inspired": {"seeker": {"like_shown": "seen_shown",       # seen_item covers "seen it, loved it"
                            "name_liked": "preference"}},     # disclose_opinion covers liked titles
}
# A file without a single END (IARD's partial file) annotates goodbyes as OTH: close is chitchat there.
END_INTENTS = frozenset({"END", "goodbye"})

PARTICIPANTS = {"USER": "seeker", "AGENT": "recommender"}
_YEAR = re.compile(r"\s*\((1[89]\d\d|20\d\d)\)")
_WORD = re.compile(r"\S+")
# Lower-case words that may sit inside a title ("Cult of Chucky", "Beauty and the Beast").
_TITLE_INNER = frozenset("of the a an and in to on for at from with & or vs vs. de la le".split())
# Capitalised words that open a sentence before a title ("Maybe Frozen (2013)?"), dropped from its front.
_OPENERS = frozenset("yes no oh ok okay well so also maybe and but or then hi hello hey yeah sure try check "
                     "watch see like thanks um hmm".split())
_PLACEHOLDER = re.compile(r"\[MOVIE_TITLE_(\d+)\]")


class GoldLabelError(CrsimError):
    """A human-labelled file is missing or malformed; names the file and where."""

    def __init__(self, path: Path | str, message: str):
        self.path = Path(path)
        super().__init__(f"{self.path}: {message}")


@dataclass(frozen=True)
class GoldTurn:
    role: str                    # "seeker" | "recommender"
    text: str
    intents: tuple[str, ...]
    titles: tuple[str, ...]      # titles the turn names, without year


@dataclass(frozen=True)
class GoldDialogue:
    id: str
    turns: tuple[GoldTurn, ...]
    scheme: str = "iard"        # "iard" | "inspired"


def titles_in_text(text: str) -> list[str]:
    """Titles written "Title (Year)" in `text`, without the year, in order, each once.

    A title is the run of capitalised words (and the small words titles contain) just
    before the year: "Have you seen Cult of Chucky (2017)?" names "Cult of Chucky".
    """
    found: list[str] = []
    end = 0  # where the previous title's year ended: a title never reaches back past it
    for match in _YEAR.finditer(text):
        dots = text.rfind("...", end, match.start())
        words = _WORD.findall(text[dots + 3 if dots >= 0 else end:match.start()])
        end = match.end()
        kept: list[str] = []
        for word in reversed(words):
            if kept and (word[-1] in ".?!;" or (word[-1] == "," and word[:-1].lower() in _OPENERS)):
                break
            if not kept or word[:1].isupper() or not word[:1].isalpha() or word in _TITLE_INNER:
                kept.append(word)
            else:
                break
        while len(kept) > 1 and (kept[-1] in _TITLE_INNER or kept[-1].lower().strip(",") in _OPENERS):
            kept.pop()
        title = " ".join(reversed(kept)).strip(" ,;:-–")
        if title and title not in found:
            found.append(title)
    return found


def read_gold(path: Path | str) -> list[GoldDialogue]:
    """The dialogues of a UserSimCRS-format labelled file; `GoldLabelError` names what is wrong."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GoldLabelError(path, "no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GoldLabelError(path, f"not readable JSON ({exc})") from None
    if not isinstance(data, list) or not data:
        raise GoldLabelError(path, "expected a non-empty JSON list of dialogues")
    dialogues = [_dialogue(path, i, raw) for i, raw in enumerate(data)]
    schemes = {d.scheme for d in dialogues}
    if len(schemes) > 1:
        raise GoldLabelError(path, f"mixes annotation schemes {sorted(schemes)}")
    return dialogues


def _dialogue(path: Path, index: int, raw: Any) -> GoldDialogue:
    where = f"dialogue {index}"
    if not isinstance(raw, dict) or not isinstance(raw.get("conversation"), list):
        raise GoldLabelError(path, f"{where}: expected an object with a 'conversation' list")
    dialogue_id = str(raw.get("conversation_id", index))
    movies = {number: _YEAR.sub("", title).strip()
              for title, number in ((raw.get("metadata") or {}).get("movie_dict") or {}).items()}
    turns: list[GoldTurn] = []
    inspired = False
    for position, turn in enumerate(raw["conversation"]):
        here = f"{where} (id {dialogue_id}), turn {position}"
        if not isinstance(turn, dict):
            raise GoldLabelError(path, f"{here}: expected an object")
        role = PARTICIPANTS.get(str(turn.get("participant", "")).upper())
        text = turn.get("utterance")
        acts = turn.get("dialogue_acts")
        if role is None:
            raise GoldLabelError(path, f"{here}: participant must be USER or AGENT, got {turn.get('participant')!r}")
        if not isinstance(text, str):
            raise GoldLabelError(path, f"{here}: 'utterance' must be a string")
        if not isinstance(acts, list) or not all(isinstance(a, dict) and isinstance(a.get("intent"), str)
                                                 for a in acts):
            raise GoldLabelError(path, f"{here}: 'dialogue_acts' must be a list of {{'intent': str, ...}}")
        intents = tuple(dict.fromkeys(a["intent"] for a in acts))
        placeholders = (turn.get("metadata") or {}).get("utterance_with_placeholders")
        if isinstance(placeholders, str):
            inspired = True
            titles = tuple(dict.fromkeys(movies[int(n)] for n in _PLACEHOLDER.findall(placeholders)
                                         if int(n) in movies))
            text = text.replace("\n", " ")
        else:
            titles = tuple(titles_in_text(text))
        turns.append(GoldTurn(role=role, text=text, intents=intents, titles=titles))
    return GoldDialogue(id=dialogue_id, turns=tuple(turns), scheme="inspired" if inspired else "iard")


def gold_acts(turn: GoldTurn, scheme: str) -> tuple[frozenset[str] | None, list[str]]:
    """(the turn's acts, its intents that have no counterpart); acts are None when not scorable."""
    table = SCHEMES[scheme].get(turn.role)
    if table is None:
        return None, list(turn.intents)
    acts: set[str] = set()
    missing: list[str] = []
    for intent in turn.intents:
        mapped = table.get(intent)
        if mapped is None:
            missing.append(intent)
        else:
            acts.update(mapped)
    if missing or not acts:
        return None, missing
    return _without_chitchat(acts), []


def fold(acts: Iterable[str], role: str, scheme: str, *, has_end: bool = True) -> frozenset[str]:
    """Predicted acts as the scheme scores them (see FOLD), chitchat only when nothing else."""
    table = FOLD.get(scheme, {}).get(role, {})
    folded = {table.get(a, a) for a in acts}
    if not has_end:
        folded = {"chitchat" if a == "close" else a for a in folded}
    return _without_chitchat(folded)


def file_has_end(dialogues: Sequence[GoldDialogue]) -> bool:
    """Whether the file annotates goodbyes at all (IARD's partial file has no END)."""
    return any(i in END_INTENTS for d in dialogues for t in d.turns for i in t.intents)


def _without_chitchat(acts: set[str]) -> frozenset[str]:
    return frozenset(acts - {"chitchat"} if len(acts) > 1 else acts)


def to_episode(dialogue: GoldDialogue) -> Episode:
    """The dialogue as an `Episode` the labeller reads: a title stands for its item id."""
    turns = [Turn(index=i, role=t.role, text=t.text,
                  items_shown=list(t.titles) if t.role == "recommender" else [],
                  metadata={"mentioned": list(t.titles)} if t.role == "seeker" and t.titles else {})
             for i, t in enumerate(dialogue.turns)]
    return Episode(id=f"{dialogue.scheme}-{dialogue.id}", index=0, config_hash="gold", seed=0,
                   environment=dialogue.scheme, turns=turns, termination=TerminationReason.max_turns)
