"""DuRecDial 2.0 (Liu et al., EMNLP 2021), English: multi-type recommendation dialogues -> episodes.

Inputs: `en_train.txt`, `en_dev.txt`, `en_test.txt` of the release (github.com/liuzeming01/DuRecDial,
`data.zip`), one dialogue per line as a JSON object:

    {"goal": "[1] Q&A(Cecilia Cheung)-->[2] ...-->[3] Movie recommendation(Failan)-->...",
     "user_profile": {"Name": ..., "Gender": ..., "Age Range": ..., "Residence": ..., "Occupation": ...,
                      "Accepted movies": [...], "Rejected movies": [...], "Accepted music": "..." | [...],
                      "Accepted food": ..., "Accepted POI": ..., "Accepted celebrities": [...],
                      "Reject": ["News"], "Favorite news": [...], ...},
     "situation": "Time: 12:00, at school",
     "conversation": ["[1] Who is the leading actor of ...?", "It's Cecilia Cheung", ...],
     "goal_type_list": ["Q&A", "Q&A", ...], "goal_topic_list": ["Left Right Love Destiny", ...],
     "knowledge": [["Cecilia Cheung", "Stars", "Left Right Love Destiny"], [], ...]}

`goal_type_list`, `goal_topic_list` and (in 2.0) `knowledge` give one entry per utterance.

Each line becomes an `Episode` in `dialogues.jsonl`:

- speakers alternate; when the first goal is "Greetings" the recommender (the bot) opens,
  otherwise the seeker (the user) does (the release's README and every loader of it);
- the "[n] " goal marker is taken off the text and kept as `metadata["goal_index"]`; each
  turn's `metadata` has its `goal_type`, `goal_topic` and `knowledge` triple;
- items are what the dialogue recommends or plays and what the user profile lists: the
  topic of a "Movie/Music/Food/POI recommendation", "Music on demand" or "Play music" goal,
  and the entries of the profile's "Accepted/Rejected movies/music/food/POI" lists, with
  the domain as category and id `<domain>:<name>` (a song and a film may share a name);
  knowledge triples whose head is the item give its attributes;
- a recommendation is shown (`items_shown`) on the first recommender turn of its goal
  segment; the seeker's reaction is the `feedback` of the next seeker turn (a closing
  feedback-only seeker turn if the dialogue ends first): "like" / "dislike" as the user
  profile records it (in an "Accepted ..." / "Rejected ..." list of its domain), else
  "dislike" when the recommender replaced it by another recommendation of the same kind
  (the goal sequence records that move), else, with `infer_accepted` (default), "like"
  (the recommendation stood). `metadata["feedback_source"]` says which, per item;
- targets are the liked recommendations; termination `accepted` when there is one.

DuRecDial has no dialogue id: episodes are `durecdial-<split>-<line>`, split from the file
name (`en_test.txt` -> `test`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import Field

from environments.catalog.store import DIALOGUES, ITEMS
from environments.datasets.base import BadRow, DatasetFormat, ImportOptions, ImportReport, PathArg, RowErrors
from environments.datasets.normalize import aspect_key, clean_value
from environments.datasets.readers import iter_json_objects
from environments.datasets.writer import CatalogWriter, commit_import
from environments.errors import CrsimError
from environments.models import AttributeValue, Episode, Item, Role, TerminationReason, Turn

#: goal type -> item domain, for goals whose topic is an item
RECOMMEND_GOALS = {"Movie recommendation": "movie", "Music recommendation": "music",
                   "Food recommendation": "food", "POI recommendation": "poi"}
PLAY_GOALS = {"Music on demand": "music", "Play music": "music"}
#: profile list key (lower case) -> (accepted?, domain)
PROFILE_LIST = re.compile(r"^(accepted|rejected)\s+(movies?|music|food|pois?)$", re.IGNORECASE)
DOMAIN_WORDS = {"movie": "movie", "movies": "movie", "music": "music", "food": "food", "poi": "poi", "pois": "poi"}
GOAL_MARKER = re.compile(r"^\s*\[(\d+)\]\s*")
_SPACES = re.compile(r"\s+")


class DurecdialOptions(ImportOptions):
    infer_accepted: bool = Field(default=True, description=(
        "A recommendation the recommender did not replace by another of the same kind counts as accepted "
        "('like') when the user profile does not say; off: only the profile's lists and replacements give feedback."))


def clean_name(name: str) -> str:
    """Names carry non-breaking and trailing spaces ('Jiaozi\\xa0Stuffed\\xa0with\\xa0Mackerel\\xa0')."""
    return _SPACES.sub(" ", name.replace("\xa0", " ")).strip()


def item_id(domain: str, name: str) -> str:
    return f"{domain}:{name}"


def _strings(value: Any, where: str) -> list[str]:
    if type(value) is str:
        return [value]
    if type(value) is list and all(type(v) is str for v in value):
        return list(value)
    raise BadRow(where, f"expected a string or a list of strings, got {type(value).__name__}")


def _aligned_list(row: dict[str, Any], key: str, length: int) -> list[Any]:
    value = row.get(key)
    if type(value) is not list:
        raise BadRow(key, "missing" if value is None else f"expected a list, got {type(value).__name__}")
    if len(value) != length:
        raise BadRow(key, f"has {len(value)} entries for {length} utterances")
    return value


def profile_lists(profile: dict[str, Any]) -> dict[str, dict[str, bool]]:
    """{domain: {name: accepted?}} from the profile's Accepted/Rejected lists."""
    lists: dict[str, dict[str, bool]] = {}
    for key, value in profile.items():
        match = PROFILE_LIST.match(key.strip())
        if not match:
            continue
        accepted, domain = match.group(1).lower() == "accepted", DOMAIN_WORDS[match.group(2).lower()]
        for name in _strings(value, f"user_profile.{key}"):
            name = clean_name(name)
            if name:
                lists.setdefault(domain, {}).setdefault(name, accepted)
    return lists


@dataclass
class Segment:
    """A run of utterances with the same goal type and topic."""

    goal_type: str
    topic: str
    start: int
    positions: list[int] = field(default_factory=list)


def segments(types: list[str], topics: list[str]) -> list[Segment]:
    out: list[Segment] = []
    for position, (goal_type, topic) in enumerate(zip(types, topics, strict=True)):
        if not out or (out[-1].goal_type, out[-1].topic) != (goal_type, topic):
            out.append(Segment(goal_type, topic, position))
        out[-1].positions.append(position)
    return out


def dialogue_episode(row: dict[str, Any], index: int, split: str, line_no: int, infer_accepted: bool = True
                     ) -> tuple[Episode, dict[str, Item]]:
    """(episode, the items it names, keyed by id) for one DuRecDial line."""
    conversation = row.get("conversation")
    if type(conversation) is not list:
        raise BadRow("conversation", "missing" if conversation is None
                     else f"expected a list, got {type(conversation).__name__}")
    for position, utterance in enumerate(conversation):
        if type(utterance) is not str:
            raise BadRow(f"conversation[{position}]", f"expected a string, got {type(utterance).__name__}")
    n = len(conversation)
    types = _aligned_list(row, "goal_type_list", n)
    topics = _aligned_list(row, "goal_topic_list", n)
    for key, values in (("goal_type_list", types), ("goal_topic_list", topics)):
        odd = next((p for p, v in enumerate(values) if type(v) is not str), None)
        if odd is not None:
            raise BadRow(f"{key}[{odd}]", f"expected a string, got {type(values[odd]).__name__}")
    topics = [clean_name(t) for t in topics]
    knowledge = row.get("knowledge", [])
    if type(knowledge) is not list:
        raise BadRow("knowledge", f"expected a list, got {type(knowledge).__name__}")
    aligned = len(knowledge) == n
    if aligned:
        for position, triple in enumerate(knowledge):
            if type(triple) is not list or not all(type(part) is str for part in triple):
                raise BadRow(f"knowledge[{position}]", "expected a list of strings ([head, relation, tail] or [])")
    profile_raw = row.get("user_profile", {})
    if type(profile_raw) is not dict:
        raise BadRow("user_profile", f"expected an object, got {type(profile_raw).__name__}")
    lists = profile_lists(profile_raw)
    goal = row.get("goal", "")
    situation = row.get("situation", "")
    for key, value in (("goal", goal), ("situation", situation)):
        if type(value) is not str:
            raise BadRow(key, f"expected a string, got {type(value).__name__}")

    items: dict[str, Item] = {}

    def add_item(domain: str, name: str) -> str:
        key = item_id(domain, name)
        items.setdefault(key, Item(id=key, title=name, category=domain))
        return key

    for domain, names in lists.items():
        for name in names:
            add_item(domain, name)
    parts = segments(types, topics)
    recommender_first = bool(types) and types[0].strip() == "Greetings"
    roles = [Role.recommender if (position % 2 == 0) == recommender_first else Role.seeker for position in range(n)]

    # which segment shows or names an item, and the reaction to each recommendation
    shown_at: dict[int, str] = {}  # utterance position -> recommended item
    named_at: dict[int, str] = {}  # utterance position -> item played or asked for
    reaction: dict[str, tuple[str, str]] = {}  # item -> (like/dislike, source)
    for number, part in enumerate(parts):
        domain = RECOMMEND_GOALS.get(part.goal_type.strip()) or PLAY_GOALS.get(part.goal_type.strip())
        if domain is None or not part.topic:
            continue
        key = add_item(domain, part.topic)
        if part.goal_type.strip() not in RECOMMEND_GOALS:
            named_at.setdefault(part.start, key)
            continue
        spoken = next((p for p in part.positions if roles[p] == Role.recommender), None)
        if spoken is not None and key not in shown_at.values():
            shown_at[spoken] = key
        recorded = lists.get(domain, {}).get(part.topic)
        following = parts[number + 1] if number + 1 < len(parts) else None
        replaced = following is not None and following.goal_type.strip() == part.goal_type.strip() \
            and following.topic != part.topic
        if recorded is not None:
            reaction[key] = ("like" if recorded else "dislike", "profile")
        elif replaced:
            reaction.setdefault(key, ("dislike", "goal_sequence"))
        elif infer_accepted:
            reaction.setdefault(key, ("like", "goal_sequence"))

    if aligned:
        for position, triple in enumerate(knowledge):
            if len(triple) != 3:
                continue
            head, relation, tail = (clean_name(part) for part in triple)
            for key, item in items.items():
                if item.title == head and relation:
                    value = clean_value(tail)
                    if isinstance(value, str):
                        _append(item.attributes, aspect_key(relation), value)

    turns: list[Turn] = []
    pending: list[str] = []
    for position, utterance in enumerate(conversation):
        marker = GOAL_MARKER.match(utterance)
        text = utterance[marker.end():] if marker else utterance
        metadata: dict[str, Any] = {"goal_type": types[position], "goal_topic": topics[position]}
        if marker:
            metadata["goal_index"] = int(marker.group(1))
        if aligned and knowledge[position]:
            metadata["knowledge"] = knowledge[position]
        if position in named_at:
            metadata["mentioned"] = [named_at[position]]
        if roles[position] == Role.recommender:
            shown = [shown_at[position]] if position in shown_at else []
            pending += [key for key in shown if key in reaction]
            turns.append(Turn(index=len(turns), role=Role.recommender, text=text, items_shown=shown,
                              metadata=metadata))
        else:
            feedback = {key: reaction[key][0] for key in pending}
            if feedback:
                metadata["feedback_source"] = {key: reaction[key][1] for key in pending}
            pending = []
            turns.append(Turn(index=len(turns), role=Role.seeker, text=text, feedback=feedback, metadata=metadata))
    if pending:
        turns.append(Turn(index=len(turns), role=Role.seeker, text="",
                          feedback={key: reaction[key][0] for key in pending},
                          metadata={"feedback_only": True,
                                    "feedback_source": {key: reaction[key][1] for key in pending}}))
    recommended = list(dict.fromkeys(shown_at[p] for p in sorted(shown_at)))
    liked = [key for key in recommended if reaction.get(key, ("",))[0] == "like"]
    name = profile_raw.get("Name")
    profile = {"split": split, "line": line_no, "user_name": name if type(name) is str else None,
               "user_profile": profile_raw, "goal": goal, "situation": situation,
               "recommended": recommended, "liked": liked,
               "disliked": [key for key in recommended if reaction.get(key, ("",))[0] == "dislike"]}
    if not aligned and knowledge:
        profile["knowledge"] = knowledge
    episode = Episode(id=f"durecdial-{split}-{line_no}", index=index, config_hash="import:durecdial", seed=0,
                      environment="durecdial", targets=liked, profile=profile, turns=turns,
                      termination=TerminationReason.accepted if liked else TerminationReason.max_turns)
    return episode, items


def _append(attributes: dict[str, AttributeValue], key: str, value: str) -> None:
    if not key:
        return
    old = attributes.get(key)
    values = [] if old is None else [old] if isinstance(old, str) else list(old)
    if value not in values:
        attributes[key] = [*values, value]


def _merge(catalog: dict[str, Item], items: Iterable[Item]) -> None:
    for item in items:
        known = catalog.get(item.id)
        if known is None:
            catalog[item.id] = item
            continue
        for key, value in item.attributes.items():
            for part in [value] if isinstance(value, str) else value:
                _append(known.attributes, key, part)


def split_name(path: Path) -> str:
    """`en_test.txt` -> `test` (the language prefix and suffixes dropped)."""
    stem = path.name.split(".")[0]
    return re.sub(r"^(en|zh)_", "", stem)


def import_durecdial(dialogues: list[Path], out: Path, options: DurecdialOptions | None = None) -> ImportReport:
    """Import DuRecDial 2.0 English dialogue files (en_train.txt, ...) into the catalog directory `out`."""
    options = options or DurecdialOptions()
    started = time.perf_counter()
    errors = RowErrors(options.skip_bad)
    dialogues = [Path(p).expanduser() for p in dialogues]
    if not dialogues:
        raise CrsimError("DuRecDial: give at least one dialogue file (en_train.txt, en_dev.txt, en_test.txt)")
    with CatalogWriter(out, force=options.force) as writer:
        episodes = writer.sink(DIALOGUES)
        catalog: dict[str, Item] = {}
        read = 0
        for path in dialogues:
            split = split_name(path)
            for line_no, row in iter_json_objects(path, errors, options.progress):
                read += 1
                try:
                    episode, items = dialogue_episode(row, episodes.count, split, line_no, options.infer_accepted)
                except BadRow as exc:
                    errors.row(path, line_no, exc)
                    continue
                episodes.write_model(episode)
                _merge(catalog, items.values())
        sink = writer.sink(ITEMS)
        for item in catalog.values():
            sink.write_model(item)
        return commit_import(writer, format_name="durecdial", domain="mixed", item_noun="items", options=options,
                             sources=dialogues, errors=errors, started=started, rows_read=read)


def _run(paths: dict, out: Path, options: ImportOptions) -> ImportReport:
    return import_durecdial(paths["dialogues"], out, options)  # type: ignore[arg-type]


FORMAT = DatasetFormat(
    name="durecdial",
    summary="DuRecDial 2.0 English dialogues (en_train.txt, en_dev.txt, en_test.txt) -> episodes, items by domain",
    paths=(PathArg("dialogues", "DuRecDial 2.0 dialogue files, one JSON dialogue per line", many=True),),
    options=DurecdialOptions,
    run=_run,
)
