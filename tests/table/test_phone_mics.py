"""Phones as microphones, at the socket: holds, audio and releases as the contract says, judged by
the real listener with its judge on speech synthesized by espeak-ng, and the bounds on what a phone
may send."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import aiohttp
import numpy as np
import pytest
from rich.console import Console
from support.listening_audio import needs_espeak
from support.patience import WAIT_S
from support.phone_voices import FRAME_BYTES, Voices, answer, hearing, hold, listener
from support.phones_table import Phone, PhoneTable, choose, closing, keys_until, my_turn, phone_table

from voice_earl.table.phones.mics import MicLimits
from voice_earl.table.presenters import ScreenView
from voice_earl.table.screen import TableScreen
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import Listener

# Sockets on localhost send a hold's audio at once, and a robot holds again at once: the limits on audio
# faster than speech and on holds faster than a person are lifted, except where they are what is tested.
QUICK = MicLimits(speed=1000.0, burst_s=60.0, holds_per_second=1000.0, hold_burst=1000.0)

pytestmark = [pytest.mark.slow, needs_espeak]


@pytest.fixture(scope="module")
def voices(tmp_path_factory: pytest.TempPathFactory) -> Voices:
    return Voices(tmp_path_factory.mktemp("voices"))


async def _phones(client: aiohttp.ClientSession, table: PhoneTable) -> list[Phone]:
    phones = [Phone(await client.ws_connect(table.ws_url(seat))) for seat in range(len(table.session.settings.seats))]
    for phone in phones:
        await phone.until(lambda state: state["phase"] == "playing" and bool(state["turn"] and state["turn"]["id"]))
    return phones


async def _all_see(phones: list[Phone], moves: int) -> None:
    for phone in phones:
        await phone.until(lambda state: state["moves"] >= moves or state["phase"] == "over")


async def _soon(test: Callable[[], bool]) -> bool:
    """Whether ``test`` comes true, looked at every 10 ms for as long as a busy machine needs."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while not test():
        if loop.time() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True


async def _quiet_for(phone: Phone, seconds: float) -> list[dict[str, Any]]:
    """Every answer (not a state) the phone gets in the next ``seconds``."""
    got = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while (left := deadline - loop.time()) > 0:
        try:
            got.append(await phone.reply(left))
        except (TimeoutError, asyncio.TimeoutError):
            break
    return got


def test_a_whole_deal_is_spoken_into_the_phones_and_each_verdict_comes_back(voices: Voices) -> None:
    async def play(table: PhoneTable) -> list[tuple[str, dict[str, Any]]]:
        async with aiohttp.ClientSession() as client:
            phones = await _phones(client, table)
            said: list[tuple[str, dict[str, Any]]] = []
            while phones[0].state["phase"] == "playing":
                mover = phones[phones[0].state["turn"]["seat"]]
                state = await mover.until(my_turn)
                text = voices.line_for(state)
                for _attempt in range(3):  # "say it again" is an answer too
                    await hold(mover, state["turn"]["id"], voices.say(text))
                    reply = await answer(mover)
                    said.append((text, reply))
                    if reply["type"] == "heard" and reply["verdict"] in ("correct", "pass"):
                        break
                await _all_see(phones, state["moves"] + 1)
            return said

    with phone_table(deals=1, mics=QUICK, hear=hearing()) as table:
        said = asyncio.run(play(table))
        table.thread.join(timeout=WAIT_S)
        assert table.ended and table.ended[0].finished
        records = table.session.records
    moves = [r for r in records if r.get("event") in ("lead", "play", "pass")]
    assert len(moves) > 40
    assert all("verdict" in move for move in moves), "every move was heard, none tapped or typed"
    assert all(reply["type"] == "heard" for _, reply in said)
    taken = [reply for _, reply in said if reply["verdict"] in ("correct", "pass")]
    assert len(taken) == len(moves)
    assert len(taken) >= 0.9 * len(said)  # synthetic voices, heard nearly always the first time
    for text, reply in said:
        if reply["verdict"] == "correct":
            assert reply["line"] == text and reply["why"] == ""
        elif reply["verdict"] == "pass":
            assert text == "pass"
        else:
            assert reply["why"], reply  # "say it again", and why


def test_a_pass_held_to_a_phone_is_on_the_laptop_s_heard_line_as_a_line_is(voices: Voices) -> None:
    views: list[ScreenView] = []

    def screen(session: TableSession) -> list[Listener]:
        views.append(
            ScreenView(session, TableScreen(Console(file=io.StringIO()), live=False), show_hands=lambda s: False)
        )
        return [views[0]]

    async def pass_held(table: PhoneTable, due: dict[str, Any]) -> dict[str, Any]:
        async with aiohttp.ClientSession() as client:
            phone = Phone(await client.ws_connect(table.ws_url(due["seat"])))
            await phone.until(my_turn)
            for _attempt in range(3):  # "say it again" is an answer too
                await hold(phone, due["turn"]["id"], voices.say("pass"))
                if (reply := await answer(phone))["verdict"] == "pass":
                    break
            await phone.until(lambda state: state["moves"] > due["moves"])
            return reply

    with phone_table(mics=QUICK, hear=hearing(), listeners=screen) as table:
        due = keys_until(table, lambda s: s["due"]["rank"] is not None and choose(s) == ("pass", None))
        reply = asyncio.run(pass_held(table, due))
        shown = views[0].snapshot()
    assert reply["verdict"] == "pass"
    assert (shown.heard_from, shown.verdict) == (due["player"], "pass") and "pass" in (shown.heard or "")


def test_holds_out_of_turn_and_for_a_turn_that_is_over_are_answered_and_never_judged(voices: Voices) -> None:
    async def run(table: PhoneTable) -> dict[str, Any]:
        async with aiohttp.ClientSession() as client:
            phones = await _phones(client, table)
            turn = phones[0].state["turn"]
            mover, idle = phones[turn["seat"]], phones[(turn["seat"] + 1) % 3]
            state = await mover.until(my_turn)
            line = voices.say(voices.line_for(state))
            await hold(idle, turn["id"], line)  # the line due, said into the wrong phone
            out_of_turn = await answer(idle)
            after_out_of_turn = await _quiet_for(idle, 1.0)
            moves_then = phones[0].state["moves"]
            await hold(mover, turn["id"], line)
            taken = await answer(mover)
            await _all_see(phones, 1)
            await hold(mover, turn["id"], line)  # the same hold again: a turn id replayed
            replayed = await answer(mover)
            after_replay = await _quiet_for(mover, 1.0)
            return {
                "out_of_turn": out_of_turn,
                "after_out_of_turn": after_out_of_turn,
                "moves_then": moves_then,
                "taken": taken,
                "replayed": replayed,
                "after_replay": after_replay,
                "moves": phones[0].state["moves"],
                "by": idle.state["player"],
                "on_turn": turn["player"],
                "turn": turn["id"],
            }

    with phone_table(mics=QUICK, hear=hearing()) as table:
        got = asyncio.run(run(table))
    assert got["out_of_turn"] == {
        "type": "unheard",
        "turn": got["turn"],
        "reason": f"It is {got['on_turn']}'s turn, not yours.",
    }  # said to that phone
    assert got["after_out_of_turn"] == [] and got["moves_then"] == 0
    assert got["taken"]["type"] == "heard" and got["taken"]["verdict"] == "correct"
    over = "That turn is over: nothing was heard."
    assert got["replayed"] == {"type": "unheard", "turn": got["turn"], "reason": over}
    assert got["after_replay"] == [] and got["moves"] == 1


def test_a_hold_longer_than_eight_seconds_is_dropped_and_the_game_goes_on(voices: Voices) -> None:
    async def run(table: PhoneTable) -> tuple[dict[str, Any], list[dict[str, Any]], int, dict[str, Any]]:
        async with aiohttp.ClientSession() as client:
            phones = await _phones(client, table)
            mover = phones[phones[0].state["turn"]["seat"]]
            state = await mover.until(my_turn)
            line = voices.say(voices.line_for(state))
            await hold(mover, state["turn"]["id"], line * 4)  # nine seconds and more
            dropped = await answer(mover)
            after = await _quiet_for(mover, 1.0)
            moves = phones[0].state["moves"]
            await hold(mover, state["turn"]["id"], line)  # said again, within the bound
            return dropped, after, moves, await answer(mover)

    assert QUICK.hold_s == 8.0
    with phone_table(mics=QUICK, hear=hearing()) as table:
        dropped, after, moves, again = asyncio.run(run(table))
    assert dropped["type"] == "unheard"
    assert dropped["reason"] == "Held too long: at most 8 seconds are heard. Release the button and say it again."
    assert after == [] and moves == 0  # the release judged nothing
    assert again["type"] == "heard" and again["verdict"] == "correct"


def test_a_hold_never_released_is_closed_after_the_limit(voices: Voices) -> None:
    limits = MicLimits(hold_s=2.0, grace_s=0.3, speed=1000.0, burst_s=60.0)

    async def run(table: PhoneTable) -> tuple[dict[str, Any], bool, bool, list[dict[str, Any]]]:
        async with aiohttp.ClientSession() as client:
            phones = await _phones(client, table)
            mover = phones[phones[0].state["turn"]["seat"]]
            state = await mover.until(my_turn)
            mics = table.phones.mics
            assert mics is not None
            await hold(mover, state["turn"]["id"], b"\0\0" * 1600, release=False)  # and the phone goes quiet
            held = await _soon(mics.pressed)  # the hold has come; it stays open for 2 s
            closed = await answer(mover)
            await mover.ws.send_str(json.dumps({"type": "release", "turn": state["turn"]["id"]}))  # far too late
            return closed, held, mics.pressed(), await _quiet_for(mover, 0.5)

    with phone_table(mics=limits, hear=hearing()) as table:
        closed, held, still_held, late = asyncio.run(run(table))
    assert held and not still_held  # the laptop's microphone listens again
    assert closed["type"] == "unheard" and closed["reason"].startswith("Held too long: at most 2 seconds")
    assert late == []


def test_two_phones_holding_at_once_only_the_players_on_turn_is_judged(voices: Voices) -> None:
    async def run(table: PhoneTable) -> dict[str, Any]:
        async with aiohttp.ClientSession() as client:
            phones = await _phones(client, table)
            turn = phones[0].state["turn"]
            mover, idle = phones[turn["seat"]], phones[(turn["seat"] + 2) % 3]
            second = Phone(await client.ws_connect(table.ws_url(turn["seat"])))  # the same player's tablet
            await second.until(my_turn)
            line = voices.say(voices.line_for(await mover.until(my_turn)))
            talk = voices.say("I think I'll pass on dessert tonight")
            for phone in (mover, idle, second):
                await phone.ws.send_str(json.dumps({"type": "hold", "turn": turn["id"]}))
            for start in range(0, max(len(line), len(talk)), FRAME_BYTES):  # all three at once
                await mover.ws.send_bytes(line[start : start + FRAME_BYTES] or b"\0\0")
                await idle.ws.send_bytes(talk[start : start + FRAME_BYTES] or b"\0\0")
                await second.ws.send_bytes(talk[start : start + FRAME_BYTES] or b"\0\0")
            for phone in (idle, second, mover):
                await phone.ws.send_str(json.dumps({"type": "release", "turn": turn["id"]}))
            replies = {"mover": await answer(mover), "idle": await answer(idle), "second": await answer(second)}
            await _all_see(phones, 1)
            replies["later"] = await _quiet_for(idle, 0.5) + await _quiet_for(second, 0.5)
            replies["moves"] = phones[0].state["moves"]
            return replies

    with phone_table(mics=QUICK, hear=hearing()) as table:
        got = asyncio.run(run(table))
    assert got["mover"]["type"] == "heard" and got["mover"]["verdict"] == "correct"
    assert got["idle"]["type"] == "unheard" and got["idle"]["reason"].startswith("It is ")
    assert got["second"] == {
        "type": "unheard",
        "turn": got["mover"]["turn"],
        "reason": "Your other phone is listening already.",
    }
    assert got["later"] == [] and got["moves"] == 1


def test_holds_faster_than_a_person_are_refused_until_the_phone_waits_a_moment() -> None:
    async def run(table: PhoneTable) -> list[str]:
        async with aiohttp.ClientSession() as client:
            phones = await _phones(client, table)
            turn = phones[0].state["turn"]
            idle = phones[(turn["seat"] + 1) % 3]
            reasons = []
            for _hold in range(5):  # four at once are let through, as a burst; the fifth is not
                await hold(idle, turn["id"], b"")
                reasons.append((await answer(idle))["reason"])
            await asyncio.sleep(1.2)  # a hold a second is a person's pace
            await hold(idle, turn["id"], b"")
            reasons.append((await answer(idle))["reason"])
            return reasons

    with phone_table(mics=MicLimits(speed=1000.0, burst_s=60.0), hear=hearing()) as table:
        reasons = asyncio.run(run(table))
        assert table.session.records == [] or all(
            r.get("event") not in ("lead", "play", "pass") for r in table.session.records
        )
    not_yours = [reason for reason in reasons if reason.startswith("It is ")]
    assert reasons[4] == "Too many holds at once: wait a moment."
    assert len(not_yours) == 5 and reasons[5].startswith("It is ")


async def _until_closed(phone: Phone) -> tuple[dict[str, Any] | None, aiohttp.WSMessage]:
    """The first answer to a hold that is not "listening", and the message that ended the socket."""
    answers: list[dict[str, Any]] = []

    def seen(message: dict[str, Any]) -> None:
        if message["type"] not in ("state", "listening"):
            answers.append(message)
            phone.told = True

    closed = await closing(phone.ws, 30, seen)
    return (answers[0] if answers else None), closed


def test_a_phone_that_sends_too_much_is_cut_off_and_the_game_goes_on(voices: Voices) -> None:
    async def run(table: PhoneTable) -> dict[str, Any]:
        async with aiohttp.ClientSession() as client:
            phones = await _phones(client, table)
            mover = phones[phones[0].state["turn"]["seat"]]
            state = await mover.until(my_turn)
            line = voices.say(voices.line_for(state))
            # Five seconds' audio ten times faster than it is spoken, while the phone reads: it stops once it
            # is told. Data the server never read when it closed makes its end reset the connection, and the
            # phone's unread messages are lost with it.
            told = asyncio.create_task(_until_closed(mover))
            await mover.ws.send_str(json.dumps({"type": "hold", "turn": state["turn"]["id"]}))
            flood_audio = line * 2
            with contextlib.suppress(ConnectionResetError):
                for start in range(0, len(flood_audio), FRAME_BYTES):
                    if told.done() or mover.told:
                        break
                    await mover.ws.send_bytes(flood_audio[start : start + FRAME_BYTES])
                    await asyncio.sleep(0.01)
            flood, flood_closed = await told
            again = Phone(await client.ws_connect(table.ws_url(state["seat"])))  # the page connects again
            await again.until(my_turn)
            await again.ws.send_str(json.dumps({"type": "hold", "turn": state["turn"]["id"]}))
            await again.ws.send_bytes(b"\0" * 5000)  # more than 100 ms at once
            too_big = await answer(again)
            big_closed = await closing(again.ws)
            third = Phone(await client.ws_connect(table.ws_url(state["seat"])))
            await third.until(my_turn)
            await third.ws.send_str(json.dumps({"type": "hold", "turn": state["turn"]["id"]}))
            for start in range(0, len(line), FRAME_BYTES):  # as a phone sends it: as it is spoken
                await third.ws.send_bytes(line[start : start + FRAME_BYTES])
                await asyncio.sleep(0.1)
            await third.ws.send_str(json.dumps({"type": "release", "turn": state["turn"]["id"]}))
            return {
                "flood": flood,
                "flood_closed": flood_closed,
                "too_big": too_big,
                "big_closed": big_closed,
                "spoken": await answer(third),
            }

    with phone_table(hear=hearing(), mics=MicLimits()) as table:
        got = asyncio.run(run(table))
        assert table.thread.is_alive()
    assert got["flood"] == {
        "type": "cut-off",
        "reason": "This phone sent audio faster than anyone speaks, so it was cut off.",
    }
    closed = got["flood_closed"]
    assert closed.type is aiohttp.WSMsgType.CLOSED or (closed.type is aiohttp.WSMsgType.CLOSE and closed.data == 1008)
    assert got["too_big"]["type"] == "cut-off" and "cannot take" in got["too_big"]["reason"]
    assert got["big_closed"].type is aiohttp.WSMsgType.CLOSE
    assert got["spoken"]["type"] == "heard" and got["spoken"]["verdict"] == "correct"


def test_the_laptops_microphone_does_not_judge_what_a_phone_holds(voices: Voices) -> None:
    from voice_earl.game.chants import EARL
    from voice_earl.game.rules import HOYLE, DeckMode
    from voice_earl.listening.stream.audio import AudioChunk
    from voice_earl.table.phones.gate import TurnGate, WithPhones
    from voice_earl.table.phones.mic_gate import MicGate, WithPhoneMics
    from voice_earl.table.session import TableSession
    from voice_earl.table.session_events import Seat, TableSettings
    from voice_earl.table.turns import Heard
    from voice_earl.table.voice_input import VoiceInput

    settings = TableSettings(tuple(Seat(n) for n in ("Ann", "Ben", "Cy")), HOYLE, DeckMode.VIRTUAL, deals=1, seed=1)
    request = TableSession(settings, {}).request()
    line = voices.say(EARL.line(1, request.context.ranks[0]))
    gate = TurnGate(settings.names)
    mics = MicGate(gate, press_s=30.0)
    turn = gate.open(request.seat)
    speaking = threading.Event()
    heard_by_laptop: list[float] = []  # when each chunk the laptop's listener took was captured

    def room() -> Iterator[AudioChunk]:
        """The laptop's microphone: a quiet room, and the player's voice while they speak into the phone."""
        samples = np.frombuffer(line, dtype="<i2")
        at = 0
        while True:
            time.sleep(0.04)
            if speaking.is_set():
                chunk, at = samples[at : at + 640], (at + 640) % len(samples)
            else:
                chunk = np.zeros(640, dtype=np.int16)
            captured = time.monotonic()
            heard_by_laptop.append(captured)
            yield AudioChunk(chunk.astype(np.int16).tobytes(), captured_at=captured)

    answers: list[dict[str, Any]] = []
    held: list[float] = []

    def phone() -> None:
        time.sleep(0.6)
        mics.press("button", request.seat, turn)
        held.append(time.monotonic())
        speaking.set()
        for start in range(0, len(line), 1280):  # as the phone sends it: 40 ms at a time, as it is said
            mics.more("button", line[start : start + 1280])
            time.sleep(0.04)
        speaking.clear()
        held.append(time.monotonic())
        mics.release("button", answers.append)

    laptop = VoiceInput(listener(), chunks=room, silence_timeout_s=60.0)
    source = WithPhones(WithPhoneMics(laptop, mics, hearing()), gate)
    speaker = threading.Thread(target=phone)
    speaker.start()
    given = source.next_input(request)
    speaker.join()
    assert isinstance(given, Heard) and given.grade.verdict.value == "correct"
    assert answers == [
        {
            "type": "heard",
            "turn": turn,
            "verdict": "correct",
            "heard": given.grade.heard,
            "why": "",
            "line": given.grade.expected,
        }
    ]
    during = [moment for moment in heard_by_laptop if held[0] + 0.05 < moment < held[1]]
    assert len(during) <= 1  # the one chunk taken as the button went down, and not listened to
