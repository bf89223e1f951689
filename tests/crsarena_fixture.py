"""A small CRS Arena release in the real files' format, shared by the import and judge tests.

CRSArena-Dial (`crs_arena_dial_<setting>.json`, a JSON array indented by 4 as released,
`votes_<setting>.csv`) and CRSArena-Eval (`crs_arena_eval.json`, indented by 2): six
conversations of three users with three CRSs.

| conv | CRS | setting | user | sentiment | human overall | judge overall (scripted) |
| --- | --- | --- | --- | --- | --- | --- |
| d1 | kbrd_opendialkg | open | u1 | frustrated | 1 | 0 |
| d2 | kbrd_opendialkg | open | u2 | frustrated | 0 | 1 |
| d3 | barcor_redial | open | u1 | frustrated | 3 | 2 |
| d4 | chatgpt_redial | open | u2 | satisfied | 2 | 3 |
| d5 | chatgpt_redial | closed | u3 | frustrated | 4 | 4 |
| d6 | barcor_redial | closed | u3 | satisfied | (not in CRSArena-Eval) | 4 |

(The overall impression is stored 0-4, for the people and for the judge.)

Votes: u1 kbrd_opendialkg vs barcor_redial -> barcor_redial; u2 chatgpt_redial vs
kbrd_opendialkg -> chatgpt_redial (open); u3 chatgpt_redial vs barcor_redial -> tie (closed).
The six labelled recommender turns have relevance 0, 1, 2, 2, 0, 1 (d1 twice, d2..d5).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

U1, U2, U3 = "11111111-aaaa", "22222222-bbbb", "33333333-cccc"

# (conv, crs, user, setting, sentiment, utterances as (participant, text))
CONVERSATIONS = [
    ("d1", "kbrd_opendialkg", U1, "open", "frustrated", [
        ("USER", "D1 I want a science fiction movie"),
        ("AGENT", "Have you seen Blade Runner 2049 (2017)?"),
        ("USER", "D1 something older please"),
        ("AGENT", "I would recommend the following items:  \n1: Alien (1979)  \n2: The Matrix  \n"),
    ]),
    ("d2", "kbrd_opendialkg", U2, "open", "frustrated", [
        ("USER", "D2 a funny movie for tonight?"),
        ("AGENT", "It was a great movie."),
    ]),
    ("d3", "barcor_redial", U1, "open", "frustrated", [
        ("USER", "D3 I like space movies"),
        ("AGENT", "What about Arrival (2016)?"),
    ]),
    ("d4", "chatgpt_redial", U2, "open", "satisfied", [
        ("USER", "D4 a comedy like Superbad"),
        ("AGENT", "You might enjoy The Hangover (2009) and Step Brothers (2008)."),
    ]),
    ("d5", "chatgpt_redial", U3, "closed", "frustrated", [
        ("USER", "D5 recommend me a horror film"),
        ("AGENT", "I would recommend the following items   \n1  It (2017)  \n2  Get Out (2017)"),
    ]),
    ("d6", "barcor_redial", U3, "closed", "satisfied", [
        ("USER", "D6 hi"),
        ("USER", "D6 a comedy please"),
        ("AGENT", "How about Airplane! (1980)?"),
        ("USER", ""),
    ]),
]

HUMAN_OVERALL = {"d1": 1, "d2": 0, "d3": 3, "d4": 2, "d5": 4}
JUDGE_OVERALL = {"d1": 0, "d2": 1, "d3": 2, "d4": 3, "d5": 4, "d6": 4}
# per labelled recommender turn (by its text): (human relevance, scripted judge relevance)
RELEVANCE = {
    "Have you seen Blade Runner 2049 (2017)?": (0, 0),
    "I would recommend the following items:  \n1: Alien (1979)  \n2: The Matrix  \n": (1, 1),
    "It was a great movie.": (2, 2),
    "What about Arrival (2016)?": (2, 1),
    "You might enjoy The Hangover (2009) and Step Brothers (2008).": (0, 0),
    "I would recommend the following items   \n1  It (2017)  \n2  Get Out (2017)": (1, 2),
}

VOTES = {
    "open": [("2024-09-09 12:39:13", U1, "kbrd_opendialkg", "barcor_redial", "barcor_redial", "CRS2 understood me"),
             ("2024-09-09 13:00:00", U2, "chatgpt_redial", "kbrd_opendialkg", "chatgpt_redial", "")],
    "closed": [("2024-09-13 02:57:16.001226", U3, "chatgpt_redial", "barcor_redial", "tie", "")],
}


def conv_id(conv: str) -> str:
    """The real files' id: `<crs>_<user id>`."""
    _, crs, user, *_ = next(c for c in CONVERSATIONS if c[0] == conv)
    return f"{crs}_{user}"


def dial_record(conv: str) -> dict:
    _, crs, user, _setting, sentiment, utterances = next(c for c in CONVERSATIONS if c[0] == conv)
    cid = f"{crs}_{user}"
    return {
        "conversation ID": cid,
        "agent": {"id": crs, "type": "AGENT"},
        "user": {"id": user, "type": "USER"},
        "conversation": [{"participant": who, "utterance": text, "utterance ID": f"{crs}-{user}_{i}"}
                         for i, (who, text) in enumerate(utterances)],
        "metadata": {"sentiment": sentiment},
    }


def eval_record(conv: str) -> dict:
    _, _crs, _user, _setting, _sentiment, utterances = next(c for c in CONVERSATIONS if c[0] == conv)
    turns = []
    for i, (who, text) in enumerate(utterances):
        turn = {"turn_ind": i, "role": "USER" if who == "USER" else "ASST", "utterance": text}
        if who == "AGENT":
            turn["turn_level_aggregated"] = {"relevance": RELEVANCE[text][0], "interestingness": 1}
        turns.append(turn)
    overall = HUMAN_OVERALL[conv]
    return {"conv_id": conv_id(conv), "dialogue": turns,
            "dial_level_aggregated": {"understanding": min(overall, 2), "task_completion": 0,
                                      "interest_arousal": 1, "efficiency": overall % 2,
                                      "dialogue_overall": overall, "preference_elicitation": 0,
                                      "explanation": 1}}


def write_release(directory: Path, *, repeat_vote: bool = False) -> Path:
    """The CRSArena-Dial files under `directory/data/` and CRSArena-Eval's file under `directory/`."""
    data = directory / "data"
    data.mkdir(parents=True, exist_ok=True)
    for setting in ("open", "closed"):
        records = [dial_record(c[0]) for c in CONVERSATIONS if c[3] == setting]
        (data / f"crs_arena_dial_{setting}.json").write_text(json.dumps(records, indent=4), encoding="utf-8")
        rows = list(VOTES[setting]) + ([VOTES[setting][0]] if repeat_vote and setting == "open" else [])
        with (data / f"votes_{setting}.csv").open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle, lineterminator="\n")  # pandas' to_csv layout, as released
            writer.writerow(["session_id", "user_id", "crs1", "crs2", "vote", "feedback"])
            writer.writerows(rows)
    labelled = [eval_record(c) for c in HUMAN_OVERALL]
    (directory / "crs_arena_eval.json").write_text(json.dumps(labelled, indent=2), encoding="utf-8")
    return directory


def import_release(directory: Path, out: Path, **kwargs) -> Path:
    from environments.datasets.crsarena import CrsArenaOptions, import_crsarena

    release = write_release(directory, **kwargs)
    data = release / "data"
    import_crsarena([data / "crs_arena_dial_open.json", data / "crs_arena_dial_closed.json"], out,
                    CrsArenaOptions(eval_labels=release / "crs_arena_eval.json"))
    return out
