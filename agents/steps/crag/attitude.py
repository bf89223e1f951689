"""The attitude of a speaker towards an item named in an utterance, offline: −2 … 2.

CRAG asks a language model for an attitude per mentioned item (very negative … very
positive); only positively mentioned items feed collaborative retrieval. Offline, the
attitude comes from the words near the mention: the clause that holds it (split at
sentence ends, semicolons and contrastive "but/though/however"), scored with a small
hand-written lexicon (strong words ±2, mild ones ±1), a negator among the three words
before a sentiment word flipping it (and capping it at ±1: "not great" is not "awful").
Words inside the title itself never count ("I Love You, Man" says nothing about the
speaker). "Movies like X" counts as positive: people name what they want more of. When
the clause is silent ("I watched X, but it bored me"), a following clause that refers
back (it, that, this, they, those) lends its score.
"""

from __future__ import annotations

import re

WORD = re.compile(r"[a-z]+(?:['’][a-z]+)?")
CLAUSE_END = re.compile(r"[.!?;]+|\bbut\b|\bthough\b|\bhowever\b|\balthough\b", re.IGNORECASE)
REFERS_BACK = frozenset({"it", "that", "this", "they", "those", "them", "its"})

LEXICON = {
    **dict.fromkeys("love loved loves adore adored favorite favourite favorites best amazing awesome masterpiece "
                    "brilliant fantastic incredible hilarious outstanding perfect superb wonderful".split(), 2),
    **dict.fromkeys("like liked likes enjoy enjoyed enjoys good great fun funny nice cool fan recommend "
                    "recommended classic beautiful solid better underrated funniest greatest laughed vein "
                    "entertaining interesting sweet cute touching similar gripping".split(), 1),
    **dict.fromkeys("dislike disliked boring bored bad overrated stale meh gross disappointing disappointed dull lame "
                    "annoying stupid silly mediocre weak slow cheesy forgettable".split(), -1),
    **dict.fromkeys("hate hated hates worst awful terrible horrible garbage trash sucked sucks unwatchable "
                    "dreadful".split(), -2),
}
NEGATORS = frozenset("not no never dont didnt doesnt isnt wasnt wont cant couldnt wouldnt nothing neither nor "
                     "without arent werent havent hasnt hardly".split())


def _words(text: str) -> list[str]:
    return [w.replace("'", "").replace("’", "") for w in WORD.findall(text.lower())]


def clause_score(words: list[str]) -> int:
    """Lexicon score of a clause's words, negation-aware, clipped to −2 … 2."""
    total = 0
    for position, word in enumerate(words):
        value = LEXICON.get(word)
        if value is None:
            continue
        if any(w in NEGATORS for w in words[max(0, position - 3):position]):
            value = -max(-1, min(1, value))
        total += value
    return max(-2, min(2, total))


def _clauses(text: str) -> list[tuple[int, int]]:
    """(start, end) character ranges of the clauses of `text`."""
    bounds, start = [], 0
    for match in CLAUSE_END.finditer(text):
        bounds.append((start, match.start()))
        start = match.end() if match.group(0)[0] in ".!?;" else match.start()
    bounds.append((start, len(text)))
    return [(s, e) for s, e in bounds if e > s]


def attitude_near(text: str, start: int, end: int, masked: list[tuple[int, int]] = ()) -> int:
    """Attitude towards the mention at text[start:end]; `masked` spans (all titles) are ignored."""
    hidden = list(text)
    for s, e in [*masked, (start, end)]:
        hidden[s:e] = " " * (e - s)
    plain = "".join(hidden)
    clauses = _clauses(plain)
    for number, (c_start, c_end) in enumerate(clauses):
        if c_start <= start < c_end or (start >= c_end and number == len(clauses) - 1):
            score = clause_score(_words(plain[c_start:c_end]))
            if score == 0 and number + 1 < len(clauses):
                following = _words(plain[clauses[number + 1][0]:clauses[number + 1][1]])
                if REFERS_BACK & set(following[:4]):
                    score = clause_score(following)
            return score
    return 0
