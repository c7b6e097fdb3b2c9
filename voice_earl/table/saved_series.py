"""A saved series: the settings record that rebuilds it, which series to resume, and checking its replay.

The settings record is the JSON object kept with each series. It holds everything that shapes the game:
the seats and which are bots, the bots' strategy, every ruling of the profile (Silent Earl and open hands
among them), the chant's wording, the deck, the deals, the seed, the first dealer, the strictness the
formulas are judged with, the language, and whether it is a game (``play``) or ``practice``. The record
can grow: readers keep keys they do not know, and :func:`setup_from_record` fills in what an older
format did not save.

>>> from voice_earl.game.rules import HOYLE
>>> setup = SeriesSetup(TableSettings((Seat("Ann"), Seat("Ben (bot)", SeatKind.BOT)), HOYLE, seed=4),
...                     Mode.PRACTICE, strategy="random", strictness="lenient", language="nl")
>>> setup_from_record(settings_record(setup), 1) == setup
True
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from voice_earl.errors import VoiceEarlError
from voice_earl.game.chants import ChantSet
from voice_earl.game.gamelog import actions_of
from voice_earl.game.rules import DeckMode, profile_from_dict, profile_to_dict
from voice_earl.keep.chant_files import chant_from_table, chant_set
from voice_earl.keep.storage import Store
from voice_earl.keep.storage_file import StoreWriteError
from voice_earl.keep.storage_values import Event, Mode, SeriesStatus, SeriesSummary
from voice_earl.paths import command
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import Move, Seat, SeatKind, TableSettings

log = logging.getLogger(__name__)

RECORD_FORMAT = 2  # 1: seats, rules, deck, deals, seed, first dealer, mode; 2: and strategy, strictness,
# language and the chant's wording
HEARD_FIELDS = ("heard", "verdict", "score", "latency_ms")
TABLE_MODES = (Mode.PLAY, Mode.PRACTICE)


@dataclass(frozen=True)
class SeriesSetup:
    """Everything that shapes a series: the table, and how it is played."""

    table: TableSettings
    mode: Mode = Mode.PLAY  # play or practice
    strategy: str | None = None  # the bots' strategy (None: no bots)
    strictness: str | None = None  # lenient, normal or strict (None: not saved by an older voice-earl)
    language: str | None = None  # en, nl or it (None: not saved by an older voice-earl)


@dataclass(frozen=True)
class SavedSeries:
    """A series read back from the journal, checked to replay to the same game."""

    id: int
    setup: SeriesSetup
    moves: list[Move]
    records: list[Event]


class SeriesDoesNotReplay(VoiceEarlError):
    """The journal holds something the game cannot be rebuilt from; nothing was changed."""


def resume_command(mode: Mode, series_id: int) -> str:
    """The command that goes on with the series, as it can be typed in a new terminal."""
    return command(f"{'practice' if mode is Mode.PRACTICE else 'play'} --resume {series_id}")


# -- the settings record ---------------------------------------------------------------------------------


def settings_record(setup: SeriesSetup) -> dict[str, Any]:
    """The JSON record that rebuilds ``setup``."""
    table = setup.table
    return {
        "record": RECORD_FORMAT,
        "mode": setup.mode.value,
        "players": list(table.names),
        "bots": [seat.kind is SeatKind.BOT for seat in table.seats],
        "strategy": setup.strategy,
        "profile": table.profile.name,
        "rules": profile_to_dict(table.profile),  # every ruling, switches included
        "deck": table.deck.value,
        "deals": table.deals,
        "seed": table.seed,
        "chant": table.profile.chant,
        "chant_set": {  # the wording itself: a chant file may change or go after the series began
            "name": table.chant.name,
            "lines": list(table.chant.lines),
            "alternates": {str(i + 1): list(texts) for i, texts in enumerate(table.chant.alternates) if texts},
        },
        "first_dealer": table.first_dealer,
        "strictness": setup.strictness,
        "language": setup.language,
    }


def setup_from_record(record: Mapping[str, Any], series_id: int) -> SeriesSetup:
    """The setup a record holds; a record of format 1 resumes with what that format had."""
    try:
        profile = profile_from_dict(dict(record["rules"]))
        names = [str(name) for name in record["players"]]
        bots = record.get("bots") or [False] * len(names)
        kinds = [SeatKind.BOT if bot else SeatKind.HUMAN for bot in bots]
        seats = tuple(Seat(name, kind) for name, kind in zip(names, kinds, strict=True))
        has_bots = any(kind is SeatKind.BOT for kind in kinds)
        # Format 1 did not save the strategy: its bots played "most", practice's default, on resume too.
        strategy = record.get("strategy", "most" if has_bots else None)
        table = TableSettings(
            seats=seats,
            profile=profile,
            deck=DeckMode(record["deck"]),
            deals=_optional_int(record.get("deals")),
            seed=_int(record["seed"]),
            chant=_chant(record, profile.chant),
            first_dealer=_optional_int(record.get("first_dealer")),
        )
        return SeriesSetup(
            table=table,
            mode=Mode(record.get("mode", "play")),
            strategy=None if strategy is None else str(strategy),
            strictness=_optional_text(record.get("strictness")),
            language=_optional_text(record.get("language")),
        )
    except (KeyError, TypeError, ValueError, VoiceEarlError) as error:
        raise SeriesDoesNotReplay(_cannot_replay(series_id, f"its settings cannot be read back ({error})")) from None


def _chant(record: Mapping[str, Any], name: str) -> ChantSet:
    saved = record.get("chant_set")
    if isinstance(saved, Mapping):
        return chant_from_table(f"the saved chant {name!r}", dict(saved))
    return chant_set(name)


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{value!r} is not a whole number")
    return value


def _optional_int(value: object) -> int | None:
    return None if value is None else _int(value)


def _optional_text(value: object) -> str | None:
    return None if value is None else str(value)


# -- which series, and reading it back -------------------------------------------------------------------


def series_to_resume(store: Store, mode: Mode, series_id: int | None) -> SeriesSummary:
    """The series ``series_id``, or the newest unfinished one of this mode; a clear error if there is none."""
    command = "practice" if mode is Mode.PRACTICE else "play"
    if series_id is None:
        unfinished = store.unfinished_series()
        mine = [s for s in unfinished if s.mode is mode]
        if mine:
            return mine[0]
        other = next((s for s in unfinished if s.mode is not mode and s.mode in TABLE_MODES), None)
        hint = ""
        if other is not None:
            hint = f"; {other.mode.value} series {other.id} is: {resume_command(other.mode, other.id)}"
        raise VoiceEarlError(
            f"there is no unfinished {mode.value} series to resume{hint} (start one with `voice-earl {command}`)"
        )
    summary = store.series_summary(series_id)
    if summary.status is not SeriesStatus.OPEN:
        raise VoiceEarlError(f"series {series_id} is {summary.status.value}: only an unfinished series can be resumed")
    if summary.mode is not mode:
        raise VoiceEarlError(
            f"series {series_id} is a {summary.mode.value} series: resume it with"
            f" `{resume_command(summary.mode, series_id)}`"
        )
    return summary


def load_saved(store: Store, series_id: int) -> SavedSeries:
    """Read a series back and replay it; anything that does not replay is ``SeriesDoesNotReplay``."""
    try:
        record, records = store.load_series(series_id)
    except SeriesDoesNotReplay:
        raise
    except VoiceEarlError as error:
        if "no series" in str(error):
            raise
        raise SeriesDoesNotReplay(_cannot_replay(series_id, str(error))) from None
    if not isinstance(record, Mapping):
        raise SeriesDoesNotReplay(_cannot_replay(series_id, "its settings are not a record"))
    setup = setup_from_record(record, series_id)
    try:
        moves = moves_from_records(records)
        replayed = TableSession(setup.table, {}, moves=moves)
    except Exception as error:  # the journal's data is untrusted: any failure to rebuild is told, never raised
        log.warning("series %d does not replay", series_id, exc_info=True)
        raise SeriesDoesNotReplay(_cannot_replay(series_id, _what_failed(error))) from None
    check_replay(series_id, replayed, records)
    return SavedSeries(series_id, setup, moves, records)


def moves_from_records(records: Sequence[Mapping[str, Any]]) -> list[Move]:
    """The moves of a journalled series, with what was heard for each."""
    return [
        Move(action, {k: records[i][k] for k in HEARD_FIELDS if k in records[i]}) for i, action in actions_of(records)
    ]


def check_replay(series_id: int, session: TableSession, records: Sequence[Mapping[str, Any]]) -> None:
    """The replayed session must reproduce the journal, or we refuse to go on.

    The journal may end part-way through a move's records (a crash between two appends); the
    replay then holds those records and more, which the journal's catch-up appends.
    """
    replayed = [game_of(record) for record in session.records[: len(records)]]
    saved = [game_of(record) for record in records]
    if replayed != saved:
        first = next((i for i, (a, b) in enumerate(zip(replayed, saved, strict=False)) if a != b), len(replayed))
        raise SeriesDoesNotReplay(_cannot_replay(series_id, f"event {first} differs from the game it rebuilds"))


def game_of(record: Mapping[str, Any]) -> dict[str, Any]:
    """A record without the wording of its line: a series saved before "an Ace" replays all the same."""
    return {key: value for key, value in record.items() if key != "line"}


def _what_failed(error: Exception) -> str:
    text = str(error) or type(error).__name__
    return f"a move cannot be rebuilt ({text})"


def _cannot_replay(series_id: int, why: str) -> str:
    return (
        f"series {series_id} does not replay to the same game: {why}. It was left untouched; see it with"
        f" `voice-earl history show {series_id}`, or give it up with `voice-earl history abandon {series_id}`"
    )


def with_silent(saved: SavedSeries, setup: SeriesSetup) -> SeriesSetup | None:
    """``setup`` as Silent Earl, if the moves so far replay the same under it (None: the rules would change)."""
    profile = setup.table.profile.with_changes(silent=True)
    table = dataclasses.replace(setup.table, profile=profile)
    replayed = TableSession(table, {}, moves=saved.moves)
    if list(replayed.records[: len(saved.records)]) != list(saved.records):
        return None
    return dataclasses.replace(setup, table=table)


def remember_settings(store: Store, series_id: int, setup: SeriesSetup) -> None:
    """Keep a change of setting (Silent Earl, the language) for the next resume; a write failure is only logged,
    since the series plays the same either way and each move will report a database that cannot be written."""
    try:
        store.update_settings(series_id, settings_record(setup))
    except StoreWriteError as error:
        log.warning("cannot update the settings of series %d: %s", series_id, error)
