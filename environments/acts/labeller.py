"""A transparent dialogue-act labeller: named cue patterns, read clause by clause.

A turn is cut into clauses (at sentence ends, "..." and "but"); titles it names are
replaced by a marker, SHOWN (an item the recommender showed) or OTHER (any other title),
so that "I loved Get Out" and "I loved that one" read alike and no title's words ("I Know
What You Did Last Summer") fire a cue. Each act has one rule (`_seeker_rules`) over the
cue patterns below; `explain_seeker_turn` says which rule fired on which clause. A turn-level
act drops the ones it says more than (`ABSORBS`): a request carries its preferences, and
"haven't seen it, sounds good" is an accept (IARD's convention too). Tuned on IARD's
partially annotated file only; `scripts/eval_act_labeller.py` scores it on held-out labels.

Reactions (accept, like/dislike/seen/unseen_shown, ask_shown) need an item in focus: a
shown title named in the clause, or "it/that one" while something is shown and the
previous recommender turn was not only a greeting or a question about tastes; a judgement
with no "I" ("Another classic!", "that one is great", `PRAISE`) and a bare "yes" / "no" opening
the answer to "have you seen X?" (`ANSWER_YES`, `ANSWER_NO`) point at it too. They err
on the side of silence: a simulator policy is fitted from these labels, so a missed
reaction costs less than an invented one. Only text, shown titles and mentions are read,
never the seeker's questionnaire, so simulated turns are labelled on the same footing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from environments.acts.inventory import RECOMMENDER_ACTS, SEEKER_ACTS


def _cue(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


YEAR = re.compile(r"\s*\((1[89]\d\d|20\d\d)\)")
CLAUSE_BREAK = re.compile(r"\.{2,}|(?<=[.!?;])\s+|\n+|\s*\bbut\b\s*|\s*\bthough\b\s*", re.I)
# Markers put in place of titles: a shown item (on the recommender's side: any title it names), another title.
SHOWN, OTHER, TITLE = "SHOWNTITLE", "OTHERTITLE", "SHOWNTITLE"

# --- seeker cues -------------------------------------------------------------------------
# goodbye, anywhere in the turn
BYE = _cue(r"\b(bye|good ?night|take care|see (ya|you)|have a (good|great|nice|wonderful|fun|lovely)|"
           r"nice (talking|chatting)|talk (to you )?later|enjoy your (day|night|evening|weekend))\b")
# a turn that is only thanks (with "ok", "for the help"...)
THANKS_ONLY = _cue(r"^\W*((ok(ay)?|great|awesome|cool|alright|well|oh|yes|yeah|sure|perfect|no problem|"
                   r"you too)\W+)*(thanks?|thank (you|u)|thx|ty)\b[\w\s]{0,30}\W*$")
# thanks for the suggestions: gratitude, not a request
THANKS = _cue(r"\b(thanks|thank (you|u)|thx)\b")
# asks for a recommendation
REQUEST = _cue(r"\b((can|could|would|will) you (please )?(recommend|suggest|help|find|give|tell|show|think of|name)|"
               r"(any|some|a|need|want|get|have|give me|looking for) (good |new |movie |film )?(suggestions?|"
               r"recommendations?|recs?|ideas)\b|looking for\b|look for\b|in the mood for|hoping (to|for)|"
               r"(want|wanting|like|love|interested in|need)( to)? (watch|see|go see|seeing|"
               r"watching)( \w+){0,2} (movie|film)|(want|wanting|would like|'d like|need) (a|an|some) |"
               r"help me (find|pick|choose)|(can|could|may) i (get|have)|give me|what('s| is| are)( some)? (a )?good|"
               r"any (good |great )?(\w+ )?(movies?|films?|comedies|ones)\b|what (movie|film)s? (should|would|could)|"
               r"(how|what) about (a|an|some|something|anything|movies?|films?)\b|"
               r"^\W*(anything|something|maybe something) )")
# asks for more, or other, or similar suggestions
ASK_MORE = _cue(r"\b(any ?(thing|one)? ?(else|other|others|more)\b|something else|what do you have|"
                r"(other|more|another|different) (suggestions?|ideas?|recommendations?|options?|ones?|movies?|films?|"
                r"picks?|titles?)|another (one|suggestion|recommendation|movie|film|idea)|what else|one more|similar|"
                r"others like|"
                r"(more|anything|something|ones?|movies?) (\w+ )?like (that|it|this|those|these|them|SHOWNTITLE))")
# a clause that asks for something, even without "?": "anything else", "give me more"
ASKING = _cue(r"^\W*(any|anything|something|what|other|more|another|got any|maybe)\b|"
              r"\b((can|could|would|do) you|give me|(i'?d|i would) like|i want|i need|looking for)\b")
# takes a shown item
ACCEPT = _cue(r"\b((i|we)('ll|ll| will| would|'d| might| may| should| definitely| am going to|'m going to|'m gonna|"
              r" want to| wanna| gotta| have to| need to)( \w+){0,3} (check|watch|see|look into|look at|take a look|"
              r"give|try|add|rent|stream|go see|put|look for|consider|go with|go for)\b|"
              r"check (it|that|them|those|this|SHOWNTITLE)( \w+)? out|"
              r"sounds? (\w+ly |really |very |so |pretty )?(good|great|interesting|intriguing|fun|awesome|perfect|"
              r"amazing|cool|nice|fantastic|like (a|an|it|something|fun)|really)|"
              r"looks? (\w+ly |really |very |so |pretty )?(good|great|interesting|fun|awesome|cool|cute)|"
              r"(on|to) my (list|watch ?list)|i'?m sold|worth (a |the )?(try|trying|watching|a look|a shot)|"
              r"(keep|kept) hearing|look(ing)? forward to|(good|great|nice|awesome) to know|settled on|"
              r"(i|we) (need|have|got) to\W*$|"
              r"that'?ll (work|do)|i will do that|heard (good|great|lots of good|a lot of good) things|"
              r"heard (it|that|they)('s| is| was| were| are) (\w+ )?(good|great|awesome|funny)|"
              r"been (meaning|wanting)|(i|we)( have| had|'ve| always| really| still)* (want|wanted|would like|'d like|"
              r"'d love|would love) to( see| watch)?\b|interested in (it|that|this|seeing)|"
              r"(?<!for )(?<!the )(?<!your )(?<!all )(perfect|good|great|awesome|nice|excellent|wonderful) "
              r"(choice|pick|idea|suggestion|recommendation)s?|"
              r"i like (the|that|your) (recommendation|suggestion))")
# a title of its own offered as an example, and nothing else: "Maybe like X", "or X too", a bare
# "X", "Also really LOVED X" (people name the films they like over several short turns)
OFFERED = _cue(r"^\W*((and|or|also|plus|maybe|perhaps|even|(kind of |kinda |sort of )?like|something like|"
               r"stuff like|things like|(movies?|films?|ones?|comedies|dramas|thrillers) like|such as|for example|"
               r"especially|the|"
               r"(\w+ly |really |also |just )*(loved?|liked|enjoyed|adored?))\W+)*"
               r"OTHERTITLE((\W+|\W+(and|or)\W+)OTHERTITLE)*\W*((too|also|as well|etc|and such)\W*)*$")
# a negation before a cue: "I will not watch that", "not sure I want to see it"
NEGATED = _cue(r"\b(not|n'?t|never|no|nope|nah)\b")
# has seen it: "I've seen it", "yes I have", "I watched that one"
SEEN = _cue(r"(\b(i|we|i've|we've|ive)\s+(have |had |did |do |already |also |actually |definitely |just |recently |"
            r"both |all |once |probably |really |only |finally )*(seen|saw|watched)\b|"
            r"^\W*(just|recently|finally) (saw|watched)\b|"
            r"^\W*(yes|yeah|yea|yep|yup|ya)\b\W*(i|we) (have|did)\b|\bseen (it|that|this|those|them|both|all)\b|"
            r"\b(i|we) know (it|that|this))")
# has not seen or heard of it
UNSEEN = _cue(r"\b(haven'?t|have not|havent|never|not|didn'?t|did not|yet to|not yet)\b( \w+){0,3} (seen|saw|see|"
              r"watched|heard|looked into|checked out)\b|\b(haven'?t|havent|have not|never)( \w+){0,3} watch\b|"
              r"\bnever heard\b|\bnot (familiar|heard)|"
              r"\bdidn'?t know (there|about|they|that)|^\W*(i|we) (haven'?t|have not|havent)( yet)?\W*$|"
              r"don'?t think (i|we)'?(ve| have) (seen|watched)|"
              r"^\W*(no|nope|nah)\W+(i|we) (haven'?t|have not|didn'?t|did not)\W*$")
# a liking of an item it knows (past experience, or love)
LIKE = _cue(r"\b((i|we|my \w+) (\w+ly |really |also |just |did |totally |absolutely |still |all )*(loved?|liked|"
            r"enjoyed|adored?)(?! to)|(i|we) (\w+ly |really |also )*(did|do) (like|enjoy)|"
            r"(i|we) (\w+ly |really |also |still )*(like|love|enjoy) (it|that|this|those|them|both|SHOWNTITLE)\b"
            r"(?! (kind|type|sort|genre|style))|"
            r"(loved|liked|enjoyed) (it|that|this|those|them|both)|"
            r"(was|were) (\w+ ){0,2}(great|good|awesome|amazing|fantastic|excellent|funny|hilarious|brilliant|"
            r"wonderful|cute|fun|enjoyable|the best|epic)|(one of )?my (all time |all-time )?favou?rites?|"
            r"(a|such a|another) (great |real )?classic|"
            r"^\W*(yes|yeah|yep)?\W*(loved?|great|awesome|excellent) (it|that|this|movie|film|one)|one of the best)\b")
# a negative verb or judgement
DISLIKE = _cue(r"\b(hated?|disliked?|can'?t stand|not (a|much of a|really a|the)( \w+){0,3} fan|"
               r"not (really |that |too |very )?(interested|into|for me|my (thing|type|style|cup|taste))|"
               r"(didn'?t|did not|don'?t|do not|dont|didnt|doesn'?t|does not|doesnt) (really |much |particularly )?"
               r"(like|love|"
               r"enjoy|care (much |too much )?for|want to (see|watch))|(not|n'?t) (\w+ )?(crazy about|big on)|"
               r"(i'?ll|i will|going to|gonna|have to|think i'?ll) pass|pass on|^\W*pass\b|"
               r"not sure (if |that )?(i'?d|i would|i will|i) (like|want|enjoy)|"
               r"(wasn'?t|was not|isn'?t) (\w+ )?(good|great|funny|a fan|impressed|my)|never (liked|cared)|will pass|"
               r"lost (my )?interest|(weren'?t|wasn'?t) (too|that|very) good|boring|overrated|terrible|awful|meh|"
               r"disappoint\w*|no thanks|let ?down|not (that |so |very )(good|great))\b")
# faults a shown item with an attribute: "too scary for me"
CRITIQUE = _cue(r"\b(too |a (little|bit) (too )?)(scary|old|long|violent|childish|sad|serious|slow|dark|gory|young|"
                r"cheesy|silly|crude|dry|busy|mature|intense)\b|"
                r"\bfor my (taste|liking)|\bnot (\w+ )?enough\b")
# seen a trailer, not the film
PREVIEW = _cue(r"\b(trailers?|previews?|commercials?|ads?|book)\b")
# "sounds/looks good": a judgement of an unseen item, an accept rather than a like
SOUNDS = _cue(r"\b(sounds?|looks?|seems?|heard|hear|hearing|supposed)\b")
GOOD = (r"(good|great|awesome|amazing|fantastic|excellent|funny|hilarious|brilliant|wonderful|cute|fun|enjoyable|"
        r"classic|epic|terrific|solid|superb|perfect|cool|gem|favou?rite|masterpiece|not bad|the best|a hoot)")
_MODS = (r"(\w+ly |really |very |so |pretty |super |such |a |an |another |one of (the|my) |quite |actually |also |"
         r"too |still |just |truly |real |what a |all time |all-time |good |great |my )*")
_NOUN = r"( ones?| movies?| films?| flicks?| classics?| series| stuff| choices?| picks?)?"
# praises an item without "I": "that one is great", "X is a great movie" (a verb), or a clause that is only
# a judgement: "Another classic!", "pretty funny", "Great movie" (a bare "great" or "cool" is an acknowledgement)
PRAISE = _cue(r"\b(is|are|'s|its|was|were)\s+" + _MODS + GOOD + _NOUN +
              r"\b(?!\s+(idea|suggestion|recommendation|to)\b)|"
              r"^\W*((yes|yeah|yea|yep|oh|wow|ah|ooh|haha\w*|lol|and|that|it|this|one)\W+)*" + _MODS + GOOD + _NOUN +
              r"( too| also| as well| the whole time| though| for sure)?\W*$")
# a bare acknowledgement: "Great!", "ok cool", "nice", not a judgement of an item
ACK_ONLY = _cue(r"^\W*((ok(ay)?|oh|ah|yes|yeah|yea|wow|and)\W+)*(that'?s |that is |it'?s )?"
                r"(great|cool|fine|perfect|awesome|good|nice|excellent|sweet|"
                r"fantastic|wonderful|fun|not bad)\W*$")
# praise of something else than an item: "hope your day is great", "you were great", "what's a good movie"
NOT_ITEM = _cue(r"\b(you (were|are)|you'?re|your|day|night|weekend|evening|chat|chatting|talking|list|collection|"
                r"what'?s|which)\b")
# a past judgement of a shown item that is neither praise nor a fault: "that was crazy" ("it was ok" is left
# out: as often a lukewarm turn-down as a "seen it")
JUDGED = _cue(r"\b(was|were)( \w+){0,2} (alright|decent|crazy|creepy|intense|sad|scary|weird|interesting|"
              r"different|better|worse|dark|wild)\b")
# a question whose subject is the item in focus, even beside another title: "Is it like Moana?"
ITEM_QUESTION = _cue(r"^\W*(is|was|are|were|does|did|has)\s+(it|that|this|they|those|that one|this one)\b")
# a bare answer to "have you seen X?" (first clause only): yes, no
ANSWER_YES = _cue(r"^\W*(yes|yeah|yea|yep|yup|ya|yess+|sure|of course|definitely|i have|i did|indeed|"
                  r"i sure have|sure have|both of them)\b")
ANSWER_NO = _cue(r"^\W*(no|nope|nah|not yet|never|nay|i have not|i haven'?t|i havent|haven'?t|i did not|i didn'?t|"
                 r"(i )?don'?t think so|not sure|um+ not sure|not that i (know|recall|remember))\b")
# a question about an item: plot, cast, quality, rating
ASK_ITEM = _cue(r"\b(what('?s| is| was| are)( it| that| this| they| those| SHOWNTITLE)?( one| movie| film)? about|"
                r"what('?s| is) the (plot|story)|who('?s| is| was)? (in|stars?|starring|directed|plays)|"
                r"who (stars|plays|is in|directed|else)|"
                r"(is|was|are|it'?s) (it|that|this|they|those|SHOWNTITLE)?( one| movie| film)? ?(\w+ )?(good|"
                r"any good|scary|funny|rated|new|old|for|kid|family|appropriate|violent|animated|out|on|based|a|an|"
                r"the|like)|how (is|was|scary|funny|long|old)|(would|do) you (say|think)|"
                r"any (stars|actors|one famous) in|what (year|rating|genre|kind of movie)|when did|"
                r"tell me (more|about))")
# asks the recommender's own experience: small talk, not a question about the item
ASK_OPINION = _cue(r"\b(have|did|do) you (ever )?(seen|see|watch|watched|like|liked|enjoy)|how about you|and you\b|"
                   r"your fav")
# a stated preference about an attribute
PREFER = _cue(r"\b(prefer|rather|more into|in the mood|"
              r"(something|anything|one|movies?|films?) (that'?s|that is|with|more|less|not|without|a bit|light|"
              r"funny|scary|recent|new|newer|old|older|classic|rated|for|from|about|like)|"
              r"too (scary|old|long|violent|childish|sad|serious|slow|dark|gory|young|much|cheesy)|"
              r"for my (taste|liking)|(i|we) (\w+ly |really |also |just |do )*(like|love|enjoy|adore)|fan of|"
              r"(i'?m|i am) (\w+ )?into|my favou?rite (genre|type|kind|actor|actress|director)|rated (r|pg)|pg-?13|"
              r"genre)\b")
# attribute words: genres, audiences, people
ATTRIBUTE = _cue(r"\b(comed(y|ies)|horror|action|drama|thrillers?|romance|romantic|rom-?coms?|animated|animation|"
                 r"cartoons?|documentar\w+|musicals?|sci[- ]?fi|science fiction|fantasy|myster(y|ies)|suspense|"
                 r"westerns?|war|super ?heroe?s?|famil(y|ies)|kids|children|disney|pixar|crime|adventure|indie|"
                 r"foreign|british|chick ?flicks?|slashers?|zombies?|true stor(y|ies)|based on|classics?|scary|funny|"
                 r"actors?|actress|directors?|older|newer|recent|stars?|starring|genres?|him|her|"
                 r"(kind|type|sort)s? of (movies?|films?|stuff|things?)|"
                 r"too (scary|old|long|violent|childish|sad|serious|slow|dark|gory|young|much|cheesy))\b")
# praise of a person, not of the item: "He is a great actor", "Mel Gibson is brilliant"
PEOPLE = _cue(r"^\W*(\w+\W+){0,2}(he|she|he'?s|she'?s)\b|\b(actor|actress|director|cast)s?\b")
# a person's name ("Tom Hanks"): an attribute too (case-sensitive)
PERSON = re.compile(r"\b[A-Z][a-z]+ [A-Z][a-z]+\b")
# it / that one: refers to the item in focus
DEICTIC = _cue(r"\b(it|that|this|those|these|them|they|both|either|the (first|second|last|latter|former)|that one|"
               r"this one)\b")
QUESTION = _cue(r"\?\W*$|^\W*(what|who|whats|is|are|was|does|did|how|when|which)\b")
# previous recommender acts after which "it" / "that" do not point at an item
NO_FOCUS = frozenset({"greet", "elicit", "close"})
# what a turn-level act leaves out: a request carries its preferences; a stance says more than
# "(not) seen" (IARD's convention, and the policy's: "haven't seen it, sounds good" is an accept)
ABSORBS = {"request": ("preference", "name_liked"), "accept": ("unseen_shown",),
           "dislike_shown": ("unseen_shown", "seen_shown"), "ask_shown": ("unseen_shown",),
           "preference": ("unseen_shown",), "ask_more": ("unseen_shown",)}

# --- recommender cues --------------------------------------------------------------------
GREET = _cue(r"^\W*(hi|hello|hey|howdy|good (morning|afternoon|evening)|greetings)\b|\bhow are (you|u)\b|"
             r"\bhow'?s it going\b")
CLOSE_R = _cue(r"\b(bye|good ?night|take care|have a (good|great|nice|wonderful|fun|lovely)|you'?re welcome|"
               r"glad (i could|to) help|happy to help|enjoy (the|your) (movie|night|weekend)|"
               r"nice (talking|chatting))\b")
# asks what the seeker wants or likes, or clarifies it
ELICIT = _cue(r"\b(what (kind|type|sort|genre|types|kinds)s? of|"
              r"what (do|would|are) you (like|enjoy|want|prefer|feel|have in mind|looking|in the mood|into)|"
              r"what('?s| is| are) (your|some of your) fav|"
              r"what (movies?|films?|genres?) (do|did|have|are|can) (you|i)|"
              r"do you (like|enjoy|prefer|want|have a|remember|think)|are you (looking|into|interested|in the mood)|"
              r"any (particular|specific|favorite)|who('?s| is) your fav|what can i (help|do|recommend|suggest|find)|"
              r"how (can|may) i help|(can|may) i help you|help you find|"
              r"is there (a|any) (particular|certain|specific|type|kind|genre)|"
              r"tell me (a|what|about|more about) (movie|film|you|your|what)|that you (watched|saw|liked|enjoyed)|"
              r"did you (like|enjoy)|anything (in particular|specific|else)|like what\b|i can recommend|"
              r"have you seen any|what (else|other)|kinda movies|(are|were) you (thinking|hoping|wanting))")
# has the seeker seen it? (a way to recommend it)
ASK_SEEN = _cue(r"\b((have|did) you (ever |already )?(seen|watched|see|watch|heard of|caught)|you seen|"
                r"seen (it|that|this) (yet|before)\b|do you (like|know|remember) SHOWNTITLE)")
# small talk questions: "how about you?", "you?", "right?"
SMALL_TALK = _cue(r"\b(how about (you|yourself)|and you|you\?|right\?|really\?|how are|how'?s|what'?s up|wassup|"
                  r"will work|did that help|does that help|anything else i can)")
# suggestion words
RECOMMEND = _cue(r"\b(how about|what about|try|recommend|suggest|check out|"
                 r"you (might|would|will|should|may) (like|love|enjoy|want)|there'?s|there is|another|also|"
                 r"i('d| would) (go with|say)|consider|maybe|perhaps|or)\b")
# says something about an item: content, cast, quality, why it fits
EXPLAIN = _cue(r"\b(it'?s|it is|is a|was a|is about|it'?s about|stars?|starring|directed|plot|story|funny|scary|"
               r"hilarious|classic|great|good|cute|sad|based on|if you (like|liked|enjoy|want)|since you|because|"
               r"similar|one of (the|my)|favou?rite|comedy|horror|action|drama|thriller|romance|animated|family|"
               r"actor|actress|sequel|series|remake|came out|new|old)\b")
# a clause about the item: names it, or speaks of "it" / "he" / "if you like"
ABOUT_ITEM = _cue(r"^\W*(\w+\W+){0,2}(it|that|this|they|those|he|she|the movie|the film|the story)\b|"
                  r"\bif you (like|liked|enjoy|want)\b|SHOWNTITLE")


def label_seeker_turn(text: str, *, shown_titles: Sequence[str] = (), mentioned_titles: Sequence[str] = (),
                      previous: Sequence[str] = (), first: bool = False) -> list[str]:
    """The seeker acts of one turn, in `SEEKER_ACTS` order; `["chitchat"]` when nothing else."""
    return _ordered(explain_seeker_turn(text, shown_titles=shown_titles, mentioned_titles=mentioned_titles,
                                        previous=previous, first=first), SEEKER_ACTS)


def explain_seeker_turn(text: str, *, shown_titles: Sequence[str] = (), mentioned_titles: Sequence[str] = (),
                        previous: Sequence[str] = (), first: bool = False) -> list[tuple[str, str, str]]:
    """(act, rule, clause) for every rule that fired, in turn order: why the turn got its acts.

    An act another act absorbs (`ABSORBS`) is listed as ("-act", "absorbed by ...", "").
    """
    text = text.replace("\u2019", "'").replace("\u2018", "'")  # curly apostrophes: "didn’t" reads as "didn't"
    shown = [t for t in shown_titles if t]
    named = list(mentioned_titles) or [t for t in shown if _find(text, t, strict=True)]
    masked = _mask(text, [(t, SHOWN if _is_shown(t, shown) else OTHER) for t in named])
    focus = bool(shown) and not (previous and set(previous) <= NO_FOCUS)
    fired: list[tuple[str, str, str]] = []
    if masked.strip() and (BYE.search(masked) or THANKS_ONLY.search(masked)):
        fired.append(("close", "BYE" if BYE.search(masked) else "THANKS_ONLY", masked.strip()))
    for k, clause in enumerate(_clauses(masked)):
        fired += [(act, rule, clause) for act, rule in _seeker_rules(clause, bool(shown), focus, previous, first,
                                                                     opening=k == 0)]
    acts = {a for a, _, _ in fired}
    for act, absorbed in ABSORBS.items():
        for lost in set(absorbed) & acts if act in acts else ():
            fired = [f for f in fired if f[0] != lost] + [("-" + lost, f"absorbed by {act}", "")]
    return fired if any(f[0][0] != "-" for f in fired) else fired + [("chitchat", "nothing else", text.strip())]


def _seeker_rules(c: str, shown: bool, focus: bool, previous: Sequence[str], first: bool,
                  opening: bool = True) -> list[tuple[str, str]]:
    """The rules of one clause: (act, name of the cue that decided it); `opening`: the turn's first clause."""
    question, negative, thanks = bool(QUESTION.search(c)), bool(DISLIKE.search(c)), bool(THANKS.search(c))
    # "Is it like Moana?": the item in focus is the subject, even beside another title
    on_shown = SHOWN in c or (focus and (OTHER not in c or question and bool(ITEM_QUESTION.search(c)))
                              and bool(DEICTIC.search(c)))
    implicit = focus and OTHER not in c and not _attribute(c)  # "yes I have", "never heard of"
    # a judgement with no "I" speaks of the item in focus: "Another classic!", "pretty funny"
    praise = not question and not negative and not SOUNDS.search(c) and bool(
        PRAISE.search(c) and not ACK_ONLY.search(c) and not NOT_ITEM.search(c))
    person = praise and bool(PEOPLE.search(c) or PERSON.search(c.replace(SHOWN, "").replace(OTHER, "")))
    praise = praise and not person
    judged = praise or (not question and bool(JUDGED.search(c)) and not SOUNDS.search(c))
    implicit = implicit or (focus and OTHER not in c and judged)
    answer = opening and "ask_seen" in previous and focus and OTHER not in c and not question  # to "seen X?"
    out: list[tuple[str, str]] = []
    asking = question or bool(REQUEST.search(c) or ASKING.search(c))
    more = shown and not thanks and asking and bool(ASK_MORE.search(c) or (
        REQUEST.search(c) and not _attribute(c) and OTHER not in c and not first))
    if more and not (_attribute(c) or OTHER in c):
        out.append(("ask_more", "ASK_MORE"))
    opens = first and bool(PREFER.search(c) or _attribute(c) or OTHER in c)
    if (more or REQUEST.search(c) or opens) and not out and not thanks and not (on_shown and ACCEPT.search(c)):
        out.append(("request", "first turn, a preference" if opens and not REQUEST.search(c) else
                     "ASK_MORE + ATTRIBUTE" if more else "REQUEST"))
    if shown and question and not ASK_OPINION.search(c) and not out and (
            on_shown or implicit and ASK_ITEM.search(c)):
        out.append(("ask_shown", "ASK_ITEM" if ASK_ITEM.search(c) else "a question about the item"))
    unseen = bool(UNSEEN.search(c))
    if unseen and (on_shown or implicit):
        out.append(("unseen_shown", "UNSEEN"))
    elif answer and ANSWER_NO.search(c) and not SEEN.search(c):
        out.append(("unseen_shown", "ANSWER_NO after ask_seen"))
        unseen = True
    if not unseen and SEEN.search(c) and (on_shown or implicit) and not question and not PREVIEW.search(c):
        out.append(("seen_shown", "SEEN"))
    elif not unseen and answer and ANSWER_YES.search(c) and not PREVIEW.search(c):
        out.append(("seen_shown", "ANSWER_YES after ask_seen"))
    elif not unseen and (on_shown or implicit) and not negative and JUDGED.search(c) and not praise and not (
            question or SOUNDS.search(c)):
        out.append(("seen_shown", "JUDGED"))
    accept = ACCEPT.search(c)
    if shown and accept and not NEGATED.search(" ".join(c[:accept.end()].split()[-6:])) and not negative and (
            on_shown or implicit) and not question:
        out.append(("accept", "ACCEPT"))
    elif (on_shown or implicit) and not question and negative and not _attribute(c):
        out.append(("dislike_shown", "DISLIKE"))
    elif focus and OTHER not in c and not question and (negative or CRITIQUE.search(c)):
        out += [("dislike_shown", "DISLIKE + ATTRIBUTE: a critique"), ("preference", "DISLIKE + ATTRIBUTE")]
    elif (on_shown or implicit) and not question and LIKE.search(c) and not SOUNDS.search(c) and not negative:
        out.append(("like_shown", "LIKE"))
    elif (on_shown or implicit) and praise and OTHER not in c:
        out.append(("like_shown", "PRAISE"))
    if OTHER in c and (LIKE.search(c) or PREFER.search(c) or praise) and not negative and not out:
        out.append(("name_liked", "PRAISE + another title" if praise and not LIKE.search(c) else
                    "LIKE + another title"))
    elif OTHER in c and SEEN.search(c) and not (unseen or question or negative or out):
        out.append(("name_liked", "SEEN + another title"))  # "just saw Small Town Crime": tells what it watched
    elif OTHER in c and OFFERED.search(c) and not (question or negative or out):
        out.append(("name_liked", "OFFERED: another title as an example"))
    asks = any(a in {"request", "ask_more"} for a, _ in out)
    if not asks and (PREFER.search(c) or negative or "elicit" in previous) and _attribute(c) and not (
            ("preference", "DISLIKE + ATTRIBUTE") in out):
        out.append(("preference", "PREFER + ATTRIBUTE"))
    elif not out and negative and OTHER in c:
        out.append(("preference", "DISLIKE + another title"))
    elif person and not asks:
        out.append(("preference", "PRAISE of a person"))
    return out


def label_recommender_turn(text: str, *, items_shown: Sequence[str] = (), previous: Sequence[str] = ()) -> list[str]:
    """The recommender acts of one turn, in `RECOMMENDER_ACTS` order; `["chitchat"]` when nothing else."""
    return _ordered(explain_recommender_turn(text, items_shown=items_shown, previous=previous), RECOMMENDER_ACTS)


def explain_recommender_turn(text: str, *, items_shown: Sequence[str] = (),
                             previous: Sequence[str] = ()) -> list[tuple[str, str, str]]:
    """(act, rule, clause) for every rule that fired on a recommender turn."""
    masked = _mask(text, [(t, TITLE) for t in items_shown if t])
    unplaced = any(t and not _find(text, t) for t in items_shown)  # an item shown beside the text
    fired: list[tuple[str, str, str]] = []
    if GREET.search(masked):
        fired.append(("greet", "GREET", masked.strip()))
    for c in _clauses(masked):
        if CLOSE_R.search(c):
            fired.append(("close", "CLOSE", c))
        if ASK_SEEN.search(c) and (TITLE in c or items_shown and DEICTIC.search(c)):
            fired.append(("ask_seen", "ASK_SEEN + title", c))
        elif TITLE in c and not re.search(r"\b(i|we) (have|had|did)(n'?t| not| never)", c, re.I):
            fired.append(("recommend", "title" + (" + RECOMMEND" if RECOMMEND.search(c) else ""), c))
        elif ELICIT.search(c) and not ASK_SEEN.search(c) or (
                QUESTION.search(c) and not items_shown and len(c.split()) > 2 and not (
                GREET.search(c) or ASK_SEEN.search(c) or SMALL_TALK.search(c))):
            fired.append(("elicit", "ELICIT" if ELICIT.search(c) else "a question without a title", c))
        if (items_shown or "ask_shown" in previous) and ABOUT_ITEM.search(c) and (
                EXPLAIN.search(c.replace(TITLE, "")) or PERSON.search(c)):
            fired.append(("explain", "EXPLAIN", c))
    if unplaced:
        fired.append(("recommend", "items shown beside the text", text.strip()))
    if "ask_shown" in previous and not any(a in {"greet", "close"} for a, _, _ in fired):
        fired.append(("answer", "after ask_shown", text.strip()))
    return fired or [("chitchat", "nothing else", text.strip())]


def label_episode(episode: Any, titles: Mapping[str, str] | None = None) -> list[list[str]]:
    """Acts of every turn of an `Episode` (seeker/recommender roles; other roles get chitchat).

    Reads text, `items_shown` and a seeker turn's `metadata["mentioned"]` (item ids, named
    through `titles`, else used as they are); never `feedback`. `first` holds for the
    seeker's turns until one says more than chitchat: "Hi" does not use up the opening.
    """
    name = (lambda i: titles.get(i, i)) if titles else (lambda i: i)
    shown: list[str] = []  # most recent recommender items first
    previous: list[str] = []  # the acts of the last recommender turn
    said: list[str] = []  # the acts of the last seeker turn
    spoke = False
    labels: list[list[str]] = []
    for turn in episode.turns:
        if turn.role == "recommender":
            items = [name(i) for i in turn.items_shown]
            acts = label_recommender_turn(turn.text, items_shown=items, previous=said)
            shown = list(dict.fromkeys(items + shown))
            previous = acts
        elif turn.role == "seeker":
            mentioned = [name(i) for i in (turn.metadata or {}).get("mentioned", [])]
            acts = label_seeker_turn(turn.text, shown_titles=shown, mentioned_titles=mentioned, previous=previous,
                                     first=not spoke and bool(turn.text.strip()))
            spoke = spoke or acts != ["chitchat"]  # a bare "hi" does not use up the opening turn
            said = acts
        else:
            acts = ["chitchat"]
        labels.append(acts)
    return labels


def _attribute(clause: str) -> bool:
    return bool(ATTRIBUTE.search(clause) or PERSON.search(clause))


def _ordered(fired: list[tuple[str, str, str]], order: Sequence[str]) -> list[str]:
    acts = {a for a, _, _ in fired}
    return [a for a in order if a in acts] or ["chitchat"]


def _clauses(text: str) -> list[str]:
    return [c.strip() for c in CLAUSE_BREAK.split(text) if c and c.strip(" .,!")]


def _norm(title: str) -> str:
    words = re.sub(r"[^a-z0-9]+", " ", YEAR.sub("", title).lower()).split()
    return " ".join(words[1:] if words[:1] == ["the"] and len(words) > 1 else words)


def _is_shown(title: str, shown: Sequence[str]) -> bool:
    """Whether a named title is one of the shown ones (case, punctuation, year and "The" aside)."""
    return _norm(title) in {_norm(s) for s in shown}


def _pattern(title: str, strict: bool = False) -> re.Pattern[str] | None:
    base = YEAR.sub("", title).strip()
    if not base:
        return None
    short = len(base) < 4  # "It", "Up", "Us": case as written, and with its year when only guessed
    body = rf"(?<!\w){re.escape(base)}(?!\w)" + (YEAR.pattern if short and strict else rf"(?:{YEAR.pattern})?")
    return re.compile(body, 0 if short else re.I)


def _find(text: str, title: str, strict: bool = False) -> bool:
    pattern = _pattern(title, strict)
    return bool(pattern and pattern.search(text))


def _mask(text: str, titles: list[tuple[str, str]]) -> str:
    for title, marker in sorted(titles, key=lambda tm: -len(tm[0])):
        pattern = _pattern(title, strict=True)  # "It (2017)" where written so, not every "It"
        pattern = pattern if pattern and pattern.search(text) else _pattern(title)
        if pattern:
            text = pattern.sub(f" {marker} ", text)
    return re.sub(r"[ \t]+", " ", YEAR.sub("", text))
