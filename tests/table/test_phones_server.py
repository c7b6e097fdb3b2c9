"""The phones' server for real: a session on its own thread, the aiohttp server on 127.0.0.1, and
HTTP and WebSocket clients playing as the players' phones."""

from __future__ import annotations

import asyncio
import io
import json
import socket
from typing import Any

import aiohttp
import pytest
from rich.console import Console
from support.patience import WAIT_S
from support.phones_table import (
    FAST,
    Phone,
    PhoneTable,
    cards_in,
    choose,
    closing,
    keys_to_the_end,
    keys_until,
    my_turn,
    phone_table,
    view,
    wait_for,
)

from voice_earl.errors import UsageError
from voice_earl.game.cards import Rank
from voice_earl.i18n import a_rank
from voice_earl.table.narrator import Narrator
from voice_earl.table.phones.hub import serve_phones
from voice_earl.table.phones.limits import Limits
from voice_earl.table.phones.server import PhoneServer
from voice_earl.table.phones.tokens import PhoneTokens
from voice_earl.table.phones.wire import CLOSE_ENDED, CLOSE_STOPPED
from voice_earl.table.presenters import Narration, ScreenView
from voice_earl.table.screen import TableScreen
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import Listener, MoveRefused


async def _connect(client: aiohttp.ClientSession, table: PhoneTable, seat: int) -> Phone:
    phone = Phone(await client.ws_connect(table.ws_url(seat)))
    await phone.until(lambda state: state["phase"] == "playing")
    return phone


async def _get(client: aiohttp.ClientSession, url: str) -> tuple[int, str]:
    async with client.get(url) as response:
        return response.status, await response.text()


def test_a_whole_deal_never_shows_a_player_another_players_cards() -> None:
    async def play(table: PhoneTable) -> tuple[list[list[str]], int]:
        async with aiohttp.ClientSession() as client:
            phones = [await _connect(client, table, seat) for seat in range(3)]
            fetched: list[list[str]] = [[], [], []]
            moves = 0
            while phones[0].state["phase"] == "playing":
                turn = phones[0].state["turn"]
                seat = turn["seat"]
                mover = phones[seat]
                await mover.until(my_turn)
                action, rank = choose(mover.state)
                if moves % 5 == 4:  # now and then from the keyboard (a pipe), as a scripted game would
                    table.commands.put(f"lead {rank}" if action == "lead" else action)
                else:
                    await mover.tap(action, rank)
                moves += 1
                for phone in phones:
                    await phone.until(lambda state, done=moves: state["moves"] >= done)
                for other in range(3):
                    fetched[other].append((await _get(client, table.url(other) + "/state.json"))[1])
            for phone in phones:
                await phone.ws.close()
            return [phone.raw + fetched[seat] for seat, phone in enumerate(phones)], moves

    with phone_table(deals=1, limits=FAST) as table:
        seen, moves = asyncio.run(play(table))
        table.thread.join(timeout=WAIT_S)
        assert table.ended and table.ended[0].finished
        dealt = table.session.records[0]["hands"]
    assert moves > 40
    for seat, texts in enumerate(seen):
        others = {card for other, hand in enumerate(dealt) if other != seat for card in hand}
        named = set().union(*(cards_in(text) for text in texts))
        assert named, "the player's own cards are shown"
        assert named <= set(dealt[seat])
        assert not named & others
        assert not any("hands" in json.loads(text).get("state", json.loads(text)) for text in texts)


def test_a_wrong_token_gets_404_and_nothing_else() -> None:
    async def probe(table: PhoneTable) -> list[tuple[str, int, str]]:
        base = table.url(0).rsplit("/p/", 1)[0]
        token = table.phones.server.tokens.players[0]
        wrong = token[:-1] + ("A" if token[-1] != "A" else "B")
        paths = [
            f"/p/{wrong}",
            f"/p/{wrong}/",
            f"/p/{wrong}/state.json",
            f"/p/{wrong}/ws",
            f"/p/{wrong}/phone.js",
            f"/j/{wrong}",
            f"/j/{token}",
            "/",
            "/p/",
            "/static/",
            f"/p/{token}/../../etc/passwd",
            f"/p/{token}/secret.txt",
            f"/p/{token}/state.json/more",
        ]
        async with aiohttp.ClientSession() as client:
            found = [(path, *(await _get(client, base + path))) for path in paths]
            async with client.post(f"{base}/p/{token}/state.json", data=b"x") as response:
                found.append(("POST state.json", response.status, await response.text()))
        return found

    with phone_table() as table:
        answers = asyncio.run(probe(table))
        tokens = table.phones.server.tokens
    for path, status, body in answers:
        assert (status, body) == (404, "Not Found"), path
        assert not any(token in body for token in tokens.players)


def test_the_right_token_serves_the_page_its_files_and_its_view() -> None:
    async def fetch(table: PhoneTable) -> dict[str, tuple[int, str, Any]]:
        found = {}
        async with aiohttp.ClientSession() as client:
            for name in ("", "/state.json", "/phone.js", "/phone.css"):
                async with client.get(table.url(1) + name) as response:
                    found[name] = (response.status, await response.text(), response.headers)
        return found

    with phone_table() as table:
        found = asyncio.run(fetch(table))
    status, page, headers = found[""]
    assert status == 200 and "<title>Ben · voice-earl</title>" in page
    assert headers["Content-Security-Policy"].startswith("default-src 'none'")
    assert headers["Cache-Control"] == "no-store" and headers["Referrer-Policy"] == "no-referrer"
    assert "http" not in page.replace('content="width', "")  # nothing from elsewhere: no CDN
    view = json.loads(found["/state.json"][1])
    assert view["player"] == "Ben" and view["deal"] == 1 and len(view["hand"]) == view["hand_sizes"][1]
    assert {"turn", "due", "line", "hand_sizes", "totals"} <= view.keys()
    assert found["/phone.js"][0] == 200 and found["/phone.css"][0] == 200


def test_a_reconnect_after_a_move_shows_the_new_state() -> None:
    async def run(table: PhoneTable) -> tuple[dict[str, Any], dict[str, Any]]:
        async with aiohttp.ClientSession() as client:
            watcher = await _connect(client, table, 2)
            before = dict(watcher.state)
            await watcher.ws.close()  # the phone sleeps
            table.commands.put("lead " + _first_lead(table))
            mover_state = await (await _connect(client, table, before["turn"]["seat"])).until(
                lambda state: state["moves"] == 1
            )
            assert mover_state["moves"] == 1
            again = await _connect(client, table, 2)  # and wakes up
            return before, await again.until(lambda state: True)

    with phone_table() as table:
        before, after = asyncio.run(run(table))
    assert before["moves"] == 0 and after["moves"] == 1
    assert after["open_rank"] is not None and after["in_quartet"] == 1
    assert after["turn"]["seat"] != before["turn"]["seat"]


def _first_lead(table: PhoneTable) -> str:
    """The rank the first player can lead, read from their own view."""
    import urllib.request

    for seat in range(len(table.session.settings.seats)):
        with urllib.request.urlopen(table.url(seat) + "/state.json") as response:
            view = json.load(response)
        if view["turn"]["yours"]:
            return str(view["hand"][0][:-1])
    raise AssertionError("nobody's turn")


def test_a_double_tap_applies_once() -> None:
    async def run(table: PhoneTable) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        async with aiohttp.ClientSession() as client:
            phones = [await _connect(client, table, seat) for seat in range(3)]
            mover = phones[phones[0].state["turn"]["seat"]]
            await mover.until(my_turn)
            action, rank = choose(mover.state)
            turn = mover.state["turn"]["id"]
            await mover.tap(action, rank, turn)
            await mover.tap(action, rank, turn)
            replies = [await mover.reply(), await mover.reply()]
            await mover.until(lambda state: state["moves"] >= 1)
            await asyncio.sleep(0.3)  # time enough for a second move, if there were one
            state = await (await _connect(client, table, 0)).until(lambda state: True)
            return replies, state

    with phone_table() as table:
        replies, state = asyncio.run(run(table))
    assert [reply["type"] for reply in replies] == ["accepted", "stale"]
    assert state["moves"] == 1


def test_a_tap_out_of_turn_is_refused_with_the_reason() -> None:
    async def run(table: PhoneTable) -> tuple[dict[str, Any], int]:
        async with aiohttp.ClientSession() as client:
            phones = [await _connect(client, table, seat) for seat in range(3)]
            # A turn's id comes once the session asks its player; a tap naming none is no tap at all.
            turn = (await phones[0].until(lambda state: bool(state["turn"] and state["turn"]["id"])))["turn"]
            idle = phones[(turn["seat"] + 1) % 3]
            await idle.tap("pass", turn=turn["id"])
            reply = await idle.reply()
            await asyncio.sleep(0.2)
            return reply | {"on_turn": turn["player"], "by": idle.state["player"]}, phones[0].state["moves"]

    with phone_table() as table:
        reply, moves = asyncio.run(run(table))
    assert reply["type"] == "refused"
    assert reply["reason"] == f"It is {reply['on_turn']}'s turn, not yours."  # said to the phone's own player
    assert moves == 0


def test_while_the_game_waits_at_the_laptop_the_phones_show_the_pause_and_refuse_a_tap() -> None:
    """As when saving failed and the laptop asks whether to go on: no tap is applied before the answer."""
    why = "Saving failed: the game waits for an answer at the laptop."

    async def run(table: PhoneTable) -> list[dict[str, Any]]:
        async with aiohttp.ClientSession() as client:
            first = await (await _connect(client, table, 0)).until(lambda state: bool(state["turn"]["id"]))
            mover = await _connect(client, table, first["turn"]["seat"])
            shown = await mover.until(my_turn)
            action, rank = choose(shown)
            with table.phones.hub.waiting(why):
                waiting = await mover.until(lambda state: state["paused"])
                await mover.tap(action, rank)
                refused = await mover.reply()
            after = await mover.until(lambda state: not state["paused"])
            await mover.tap(action, rank)
            return [shown, waiting, refused, after, await mover.reply()]

    with phone_table() as table:
        shown, waiting, refused, after, accepted = asyncio.run(run(table))
    assert waiting == shown | {"paused": True, "pause_reason": why}  # the same table, paused, and why
    assert refused == {"type": "refused", "reason": why, "turn": shown["turn"]["id"]}
    assert after == shown and accepted == {"type": "accepted", "turn": shown["turn"]["id"]}


def test_an_illegal_tap_is_refused_on_that_phone_alone_and_to_its_player() -> None:
    """The reason ("You hold a Queen and must play it.") would tell the table what is in the player's
    hand: it goes to that phone only, not on the table's screen, not aloud, not to the other phones."""
    spoken: list[str] = []
    printed = io.StringIO()
    presenters: list[tuple[ScreenView, Narrator]] = []
    refusals: list[MoveRefused] = []

    def around(session: TableSession) -> list[Listener]:
        view = ScreenView(session, TableScreen(Console(file=printed, width=80), live=False), show_hands=lambda s: False)
        narrator = Narrator(speak=False, printer=spoken.append)
        presenters.append((view, narrator))
        return [
            Narration(session, narrator),
            view,
            lambda event: refusals.append(event) if isinstance(event, MoveRefused) else None,
        ]

    async def run(table: PhoneTable) -> tuple[dict[str, Any], list[Phone]]:
        async with aiohttp.ClientSession() as client:
            phones = [await _connect(client, table, seat) for seat in range(3)]
            while True:  # play on until someone is due a rank they hold
                mover = phones[phones[0].state["turn"]["seat"]]
                await mover.until(my_turn)
                action, rank = choose(mover.state)
                if action == "play":
                    await mover.tap("pass")
                    assert (await mover.reply())["type"] == "accepted"  # by the gate; the rules are the session's
                    refused = await mover.reply() | {"rank": mover.state["due"]["rank"]}
                    await mover.tap("play")  # and the game goes on
                    for phone in phones:
                        await phone.until(lambda state, done=mover.state["moves"] + 1: state["moves"] >= done)
                    return refused, [phone for phone in phones if phone is not mover]
                moves = mover.state["moves"]
                await mover.tap(action, rank)
                for phone in phones:
                    await phone.until(lambda state, done=moves + 1: state["moves"] >= done)

    with phone_table(seed=11, limits=FAST, listeners=around) as table:
        reply, others = asyncio.run(run(table))
        view, narrator = presenters[0]
        shown = view.snapshot()
    narrator.close()
    assert reply["type"] == "refused"
    assert reply["reason"] == f"You hold {a_rank(Rank.parse(reply['rank']))} and must play it."
    assert [event.private for event in refusals] == [True]
    assert not any("must play it" in raw for phone in others for raw in phone.raw)
    assert "must play it" not in shown.message and "must play it" not in printed.getvalue()
    assert not any("must play it" in line for line in spoken)


def test_bad_messages_and_floods_get_answers_not_failures() -> None:
    async def run(table: PhoneTable) -> tuple[list[str], int, int]:
        async with aiohttp.ClientSession() as client:
            phone = await _connect(client, table, 0)
            for bad in (
                "not json",
                "[]",
                json.dumps({"type": "tap", "action": "fold", "turn": "x"}),
                json.dumps({"type": "tap", "action": "lead", "rank": "Z", "turn": "x"}),
            ):
                await phone.ws.send_str(bad)
            kinds = [(await phone.reply())["type"] for _ in range(4)]
            await phone.ws.send_str("x" * 2000)  # over the size limit: the server closes the socket
            closed = await closing(phone.ws)
            flood = range(int(Limits().request_burst) + 20)
            statuses = [(await _get(client, table.url(0) + "/state.json"))[0] for _ in flood]
            return kinds, closed.type.value, statuses.count(429)

    with phone_table() as table:
        kinds, closed, limited = asyncio.run(run(table))
        assert table.thread.is_alive()  # the game goes on
    assert kinds == ["error"] * 4
    assert closed in (aiohttp.WSMsgType.CLOSE.value, aiohttp.WSMsgType.CLOSED.value)
    assert limited > 0


def test_the_same_tokens_and_port_serve_the_same_addresses_again() -> None:
    tokens = PhoneTokens.new(("Ann", "Ben", "Cy"))
    with phone_table(tokens=tokens) as first:
        url, port = first.url(1), first.phones.server.port
    with phone_table(tokens=tokens, port=port) as again:
        assert again.url(1) == url


def test_a_port_in_use_is_a_clear_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(UsageError, match=f"port {port} is in use"), phone_table(port=port):
            pass


def test_a_ping_is_answered_at_once_and_is_no_tap() -> None:
    """The page pings every few seconds to learn that its socket still works; pings never use up the
    player's taps."""

    async def run(table: PhoneTable) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        async with aiohttp.ClientSession() as client:
            phones = [await _connect(client, table, seat) for seat in range(3)]
            mover = phones[(await phones[0].until(lambda s: bool(s["turn"]["id"])))["turn"]["seat"]]
            await mover.until(my_turn)
            pongs = []
            for _ in range(int(Limits().tap_burst) * 3):
                await mover.ws.send_str(json.dumps({"type": "ping"}))
                pongs.append(await mover.reply())
            action, rank = choose(mover.state)
            await mover.tap(action, rank)
            return pongs, await mover.reply()

    with phone_table() as table:
        pongs, answer = asyncio.run(run(table))
    assert pongs == [{"type": "pong"}] * len(pongs)
    assert answer["type"] == "accepted"


async def _closing_words(phone: Phone) -> tuple[list[dict[str, Any]], int | None, str]:
    """Every state until the server closes the socket, and the close's code and reason."""
    states = []
    while True:
        message = await phone.ws.receive(timeout=WAIT_S)
        if message.type is not aiohttp.WSMsgType.TEXT:
            return states, phone.ws.close_code, str(message.extra or "")
        parsed = json.loads(message.data)
        if parsed["type"] == "state":
            states.append(parsed["state"])


def test_a_quit_at_the_laptop_tells_the_phones_how_the_series_goes_on() -> None:
    async def run(table: PhoneTable) -> tuple[list[dict[str, Any]], int | None, str]:
        async with aiohttp.ClientSession() as client:
            phone = await _connect(client, table, 1)
            table.commands.put("quit")
            words = asyncio.create_task(_closing_words(phone))
            await asyncio.to_thread(table.thread.join, 10)
            await asyncio.to_thread(table.phones.server.stop)  # as the game's end does
            return await words

    with phone_table(resume="voice-earl play --resume 3") as table:
        states, code, reason = asyncio.run(run(table))
    last = states[-1]
    assert last["phase"] == "stopped" and last["turn"] is None and last["legal"] == []
    assert last["resume"] == "voice-earl play --resume 3"
    assert (code, reason) == (CLOSE_STOPPED, "the game was stopped")


def test_the_end_of_the_series_closes_the_phones_saying_it_has_ended() -> None:
    async def run(table: PhoneTable) -> tuple[list[dict[str, Any]], int | None, str]:
        async with aiohttp.ClientSession() as client:
            phone = await _connect(client, table, 1)
            words = asyncio.create_task(_closing_words(phone))
            await asyncio.to_thread(keys_to_the_end, table)
            await asyncio.to_thread(table.thread.join, 10)
            await asyncio.to_thread(table.phones.server.stop)
            return await words

    with phone_table(limits=FAST) as table:
        states, code, reason = asyncio.run(run(table))
    assert states[-1]["phase"] == "over" and states[-1]["last_deal"]["deal"] == 1
    assert (code, reason) == (CLOSE_ENDED, "the game has ended")


def test_the_player_on_turn_is_told_what_to_say_and_what_they_may_tap_and_nobody_else() -> None:
    with phone_table(seed=5, limits=FAST) as table:
        must_pass = keys_until(table, lambda s: s["due"]["rank"] is not None and choose(s) == ("pass", None))
        others = [view(table, seat) for seat in range(3) if seat != must_pass["seat"]]
        table.commands.put("pass")
        wait_for(table, lambda s: s["moves"] > must_pass["moves"])
        holds = keys_until(table, lambda s: s["due"]["rank"] is not None and choose(s) == ("play", None))
        lead = keys_until(table, lambda s: s["due"]["rank"] is None)
    assert (must_pass["say"], must_pass["legal"]) == ("I pass", ["pass"])
    assert must_pass["line"].startswith("There's")  # the line due at this place, as before, for scripts
    assert (holds["say"], holds["legal"]) == (holds["line"], ["play"])
    assert lead["legal"] == ["lead"] and lead["say"] == "There's as good as ____ can be"
    # What the player on turn holds is theirs: the others' views do not say that they must pass.
    assert all(other["say"] is None and other["legal"] == [] for other in others)


def test_with_a_real_pack_the_player_on_turn_is_told_the_line_or_i_pass() -> None:
    """The laptop does not know a real pack's hands: after the lead a player may play or pass."""
    from voice_earl.game.rules import DeckMode

    with phone_table(seed=5, limits=FAST, deck=DeckMode.PHYSICAL) as table:
        follower = keys_until(table, lambda s: s["due"]["rank"] is not None)
    assert follower["say"] == f"{follower['line']}, or: I pass"
    assert set(follower["legal"]) == {"play", "pass"}


def test_the_end_of_a_deal_is_on_every_phone_until_the_next_begins() -> None:
    with phone_table(seed=5, deals=2, limits=FAST, hold=True) as table:
        over = keys_to_the_end(table)
        views = [view(table, seat) for seat in range(3)]
        table.commands.put("next")
        after = wait_for(table, lambda s: s["phase"] == "playing")
    assert over["phase"] == "deal_over" and over["turn"] is None and over["deal"] == 1
    winner = next(seat for seat, seen in enumerate(views) if seen["last_deal"]["yours"])
    assert over["last_deal"]["deal"] == 1 and over["last_deal"]["winner"] == views[winner]["player"]
    assert views[winner]["last"] == "You win deal 1"  # and to the others, "Ben wins deal 1"
    assert views[(winner + 1) % 3]["last"] == f"{views[winner]['player']} wins deal 1"
    assert [p["yours"] for p in views[winner]["last_deal"]["payments"]] == [seat == winner for seat in range(3)]
    assert all(seen["phase"] == "deal_over" and seen["legal"] == [] for seen in views)
    assert after["deal"] == 2 and after["last_deal"]["deal"] == 1


def test_the_waiting_page_hears_who_has_joined() -> None:
    async def run(server: PhoneServer) -> tuple[dict[str, Any], dict[str, Any]]:
        async with aiohttp.ClientSession() as client:
            ben = Phone(await client.ws_connect(server.url(1) + "/ws"))
            first = await ben.until(lambda state: state["phase"] == "waiting")
            cy = Phone(await client.ws_connect(server.url(2) + "/ws"))
            await cy.until(lambda state: state["phase"] == "waiting")
            return first, await ben.until(lambda state: "Cy" in state["joined"])

    with serve_phones(
        ("Ann", "Ben", "Cy", "Bot"), (0, 1, 2), PhoneTokens.new(("Ann", "Ben", "Cy", "Bot")), "127.0.0.1", 0
    ) as phones:
        first, then = asyncio.run(run(phones.server))
    assert (first["joined"], first["not_joined"]) == (["Ben"], ["Ann", "Cy"])  # the bot has no phone to wait for
    assert (then["joined"], then["not_joined"]) == (["Ben", "Cy"], ["Ann"])
