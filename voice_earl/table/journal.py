"""Keeping a series safe: every game-log record journalled as it happens, and resume.

The journal is a session listener: each record the engine produces is appended to the
database in its own transaction, an undo truncates the journal, and a finished series is
closed. Resuming loads the records, turns them back into moves and replays them through
the engine with the same seed, so the table continues exactly where it stopped.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from voice_earl.errors import VoiceEarlError
from voice_earl.game.gamelog import actions_of, to_line
from voice_earl.game.rules import DeckMode, profile_from_dict, profile_to_dict
from voice_earl.keep.chant_files import chant_set
from voice_earl.keep.storage import Store
from voice_earl.keep.storage_values import Mode, Utterance
from voice_earl.listening.verdicts import Verdict
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import (
    FormulaJudged,
    Move,
    RulesApplied,
    Seat,
    SeatKind,
    SessionEnded,
    TableEvent,
    TableSettings,
    Undone,
)

log = logging.getLogger(__name__)

HEARD_FIELDS = ("heard", "verdict", "score", "latency_ms")


def settings_record(settings: TableSettings, mode: str) -> dict[str, Any]:
    """What a saved series needs to be rebuilt: seats, rules, deck, seed."""
    return {
        "players": list(settings.names),
        "bots": [seat.kind is SeatKind.BOT for seat in settings.seats],
        "profile": settings.profile.name,
        "rules": profile_to_dict(settings.profile),  # every ruling, switches included
        "deck": settings.deck.value,
        "deals": settings.deals,
        "seed": settings.seed,
        "chant": settings.profile.chant,
        "first_dealer": settings.first_dealer,
        "mode": mode,
    }


def settings_from_record(record: Mapping[str, Any]) -> TableSettings:
    try:
        profile = profile_from_dict(dict(record["rules"]))
        bots = record.get("bots") or [False] * len(record["players"])
        kinds = [SeatKind.BOT if bot else SeatKind.HUMAN for bot in bots]
        seats = tuple(Seat(name, kind) for name, kind in zip(record["players"], kinds, strict=True))
        return TableSettings(
            seats=seats,
            profile=profile,
            deck=DeckMode(record["deck"]),
            deals=record.get("deals"),
            seed=int(record["seed"]),
            chant=chant_set(profile.chant),
            first_dealer=record.get("first_dealer"),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise VoiceEarlError(f"the saved series cannot be read back ({error})") from None


def moves_from_records(records: Sequence[Mapping[str, Any]]) -> list[Move]:
    """The moves of a journalled series, with what was heard for each."""
    return [
        Move(action, {k: records[i][k] for k in HEARD_FIELDS if k in records[i]})
        for i, action in actions_of(records)
    ]


def series_log_path(store: Store, series_id: int) -> Path:
    """The game log written beside each saved series (``docs/game-log.md``)."""
    return store.path.parent / "series" / f"series-{series_id}.jsonl"


class Journal:
    """Appends each record to the store as it happens; truncates on undo; closes at the end.

    A copy of the game log is kept as JSON Lines beside the database; the database is the
    record, and the file is rewritten from it whenever they could differ (resume, undo).
    """

    def __init__(self, store: Store, series_id: int, session: TableSession, mode: str) -> None:
        self.store = store
        self.series_id = series_id
        self.session = session
        self.mode = Mode(mode) if mode in {m.value for m in Mode} else Mode.PLAY
        self.saved = 0
        self.log_path = series_log_path(store, series_id)

    def catch_up(self) -> None:
        """Journal the records the session holds that the store does not have yet."""
        start = self.saved
        for seq in range(start, len(self.session.records)):
            self.store.append_event(self.series_id, seq, self.session.records[seq])
        self.saved = len(self.session.records)
        self._write_log(self.session.records[start:], append=start > 0)

    def rewrite_log(self) -> None:
        """The log file, written anew from what the store holds."""
        self._write_log(self.session.records[: self.saved], append=False)

    def _write_log(self, records: Sequence[Mapping[str, Any]], *, append: bool) -> None:
        try:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            with self.log_path.open("a" if append else "w", encoding="utf-8") as out:
                out.writelines(to_line(record) + "\n" for record in records)
        except OSError as error:  # the database holds the series; the file is a convenience
            log.warning("cannot write the game log %s: %s", self.log_path, error)

    def __call__(self, event: TableEvent) -> None:
        if isinstance(event, RulesApplied):
            self.catch_up()
        elif isinstance(event, Undone):
            self.store.truncate_events(self.series_id, event.records_kept)
            self.saved = event.records_kept
            self.rewrite_log()
        elif isinstance(event, FormulaJudged):
            self._utterance(event)
        elif isinstance(event, SessionEnded) and event.finished:
            self.store.finish_series(self.series_id)

    def _utterance(self, event: FormulaJudged) -> None:
        if self.session.settings.seats[event.seat].kind is SeatKind.BOT:
            return
        judgement = event.heard.judgement
        if judgement.verdict is Verdict.PASS:
            return
        self.store.record_utterance(
            Utterance(
                mode=self.mode,
                position=judgement.position,
                rank=judgement.rank,
                expected=judgement.expected,
                heard=judgement.heard,
                verdict=judgement.verdict.value,
                score=judgement.score,
                latency_ms=None if event.heard.latency_ms is None else round(event.heard.latency_ms),
                series_id=self.series_id,
            ),
            pcm16=event.heard.audio,
        )


def start_journal(store: Store, session: TableSession, mode: str) -> Journal:
    """A new saved series for ``session``."""
    series_id = store.open_series(settings_record(session.settings, mode))
    journal = Journal(store, series_id, session, mode)
    return journal


def resume_point(store: Store) -> tuple[int, TableSettings, list[Move], list[dict[str, Any]]]:
    """The newest unfinished series: its id, settings, moves and records."""
    unfinished = store.unfinished_series()
    if not unfinished:
        raise VoiceEarlError("there is no unfinished series to resume: start one with `voice-earl play`")
    series_id = unfinished[0].id
    settings_data, records = store.load_series(series_id)
    settings = settings_from_record(settings_data)
    return series_id, settings, moves_from_records(records), records


def check_replay(session: TableSession, records: Sequence[Mapping[str, Any]]) -> None:
    """The replayed session must reproduce the journal, or we refuse to go on.

    The journal may end part-way through a move's records (a crash between two appends); the
    replay then holds those records and more, which :meth:`Journal.catch_up` appends.
    """
    if list(session.records[: len(records)]) != list(records):
        raise VoiceEarlError("the saved series does not replay to the same game; it was left untouched")


def resume_journal(
    store: Store, series_id: int, session: TableSession, records: Sequence[Mapping[str, Any]], mode: str
) -> Journal:
    """The journal of a resumed series, checked against the replay and brought up to date."""
    check_replay(session, records)
    journal = Journal(store, series_id, session, mode)
    journal.saved = len(records)
    journal.rewrite_log()
    journal.catch_up()  # what a crash cut off between two records of one move
    return journal
