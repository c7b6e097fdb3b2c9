"""`voice-earl simulate`: the game log, the summary and argument errors."""

from __future__ import annotations

import json
from typing import Any

import pytest

from voice_earl.commands.cli import main
from voice_earl.game.cards import Rank
from voice_earl.game.chants import EARL
from voice_earl.game.gamelog import replay
from voice_earl.game.rules import HOYLE, PARLOUR

# The fields docs/game-log.md requires, per event.
REQUIRED = {
    "deal": {"deal", "dealer", "players", "hands"},
    "lead": {"deal", "player", "card", "position", "line"},
    "play": {"deal", "player", "card", "position", "line"},
    "pass": {"deal", "player"},
    "forfeit": {"deal", "player", "card"},
    "quartet": {"deal", "player", "rank"},
    "win": {"deal", "player", "cards_left"},
    "settle": {"deal", "payments", "totals"},
    "series": {"totals", "places"},
}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the command line; argument errors exit through SystemExit, others return a status."""
    try:
        status = main(["simulate", *args])
    except SystemExit as stop:
        status = stop.code if isinstance(stop.code, int) else 1
    out, err = capsys.readouterr()
    return status, out, err


def jsonl(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    status, out, err = run(capsys, "--jsonl", *args)
    assert status == 0 and err == ""
    return [json.loads(line) for line in out.splitlines()]


def test_the_log_has_every_field_for_every_event(capsys: pytest.CaptureFixture[str]) -> None:
    records = jsonl(capsys, "--players", "4", "--deals", "2", "--seed", "3")
    kinds = {record["event"] for record in records}
    assert {"deal", "lead", "play", "pass", "quartet", "win", "settle", "series"} <= kinds
    for record in records:
        missing = REQUIRED.get(record["event"], set()) - set(record)
        assert not missing, f"{record['event']} lacks {missing}"
    deals = [r for r in records if r["event"] == "deal"]
    assert [d["deal"] for d in deals] == [1, 2]
    assert deals[1]["dealer"] == (deals[0]["dealer"] + 1) % 4  # the dealer moves left
    assert all(len(d["players"]) == 4 and sum(len(h) for h in d["hands"]) == 52 for d in deals)
    for record in records:
        if record["event"] in ("lead", "play"):
            rank = Rank.parse(record["card"][:-1])
            assert record["line"] == EARL.line(record["position"], rank)
            assert record["position"] == 1 if record["event"] == "lead" else 2 <= record["position"] <= 4
        if record["event"] == "settle":
            assert sum(record["payments"]) == 0
    assert records[-1]["event"] == "series"


def test_the_series_record_closes_the_log_with_competition_places(capsys: pytest.CaptureFixture[str]) -> None:
    records = jsonl(capsys, "--players", "5", "--deals", "3", "--seed", "8")
    last = records[-1]
    assert last["event"] == "series"
    totals = last["totals"]
    assert last["places"] == [1 + sum(other > mine for other in totals) for mine in totals]
    assert totals == [r for r in records if r["event"] == "settle"][-1]["totals"]


def test_the_hoyle_default_is_a_series_of_six_deals(capsys: pytest.CaptureFixture[str]) -> None:
    records = jsonl(capsys)
    assert sum(r["event"] == "deal" for r in records) == 6
    assert sum(r["event"] == "win" for r in records) == 6


def test_the_same_seed_gives_the_same_log_and_another_seed_another(capsys: pytest.CaptureFixture[str]) -> None:
    first = jsonl(capsys, "--seed", "5", "--deals", "2", "--strategies", "random,most")
    again = jsonl(capsys, "--seed", "5", "--deals", "2", "--strategies", "random,most")
    other = jsonl(capsys, "--seed", "6", "--deals", "2", "--strategies", "random,most")
    assert first == again
    assert first != other
    assert first[0]["hands"] != other[0]["hands"]


def test_the_log_replays(capsys: pytest.CaptureFixture[str]) -> None:
    records = jsonl(
        capsys, "--profile", "parlour", "--players", "5", "--deals", "3", "--seed", "9", "--chant-errors", "0.2"
    )
    series = replay(records, PARLOUR, seed=9, deals=3)
    assert series.over
    assert series.totals == records[-1]["totals"]


def test_chant_errors_under_parlour_produce_forfeits(capsys: pytest.CaptureFixture[str]) -> None:
    records = jsonl(capsys, "--profile", "parlour", "--players", "4", "--chant-errors", "0.3", "--seed", "2")
    forfeits = [r for r in records if r["event"] == "forfeit"]
    assert forfeits
    for forfeit in forfeits:
        before = records[records.index(forfeit) - 1]
        assert before["event"] in ("lead", "play") and before["chant"] == "bungled"
        assert (before["player"], before["card"]) == (forfeit["player"], forfeit["card"])
        assert set(REQUIRED["forfeit"]) <= set(forfeit)


def test_chant_errors_under_hoyle_cost_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    records = jsonl(capsys, "--chant-errors", "0.3", "--deals", "1", "--seed", "2")
    assert any(r.get("chant") == "bungled" for r in records)
    assert not any(r["event"] == "forfeit" for r in records)


def test_the_summary_shows_win_rate_and_mean_settlement_per_seat_and_strategy(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(capsys, "--strategies", "most,random", "--players", "4", "--seed", "4")
    assert status == 0 and err == ""
    lines = out.splitlines()
    seat_header = next(i for i, line in enumerate(lines) if line.startswith("seat"))
    assert "win rate" in lines[seat_header] and "mean settle" in lines[seat_header]
    seats = [line.split() for line in lines[seat_header + 1 : seat_header + 5]]
    assert [row[2] for row in seats] == ["most", "random", "most", "random"]
    assert sum(int(row[3]) for row in seats) == 6  # a hoyle series of 6 deals, one winner each
    means = [float(row[5]) for row in seats]
    assert sum(means) == pytest.approx(0, abs=0.05)  # settlements sum to zero
    strategy_header = next(i for i, line in enumerate(lines) if line.startswith("strategy"))
    assert "win rate" in lines[strategy_header] and "mean settle" in lines[strategy_header]
    by_strategy = {line.split()[0]: line.split() for line in lines[strategy_header + 1 :] if line.strip()}
    assert set(by_strategy) == {"most", "random"}
    assert int(by_strategy["most"][1]) == 12 and int(by_strategy["random"][1]) == 12  # deals played by 2 seats
    assert int(by_strategy["most"][2]) + int(by_strategy["random"][2]) == 6
    assert by_strategy["most"][3].endswith("%")


def test_one_strategy_prints_no_strategy_table(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--deals", "1")
    assert status == 0
    assert "win rate" in out and not any(line.startswith("strategy") for line in out.splitlines())


def test_moves_are_shown_on_request(capsys: pytest.CaptureFixture[str]) -> None:
    _, quiet, _ = run(capsys, "--deals", "1", "--seed", "1")
    _, moves, _ = run(capsys, "--deals", "1", "--seed", "1", "--moves")
    assert "can be" not in quiet
    assert "There's as good as" in moves and "Earl of Coventry" in moves and "passes" in moves


@pytest.mark.parametrize("players", [9, 13])
def test_a_crowded_parlour_table_gets_a_notice(capsys: pytest.CaptureFixture[str], players: int) -> None:
    status, out, _ = run(capsys, "--profile", "parlour", "--players", str(players), "--seed", "1")
    assert status == 0 and "crowded" in out


def test_eight_players_are_not_crowded(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--profile", "parlour", "--players", "8", "--seed", "1")
    assert status == 0 and "crowded" not in out


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--players", "2"], "3 to 6"),
        (["--players", "7"], "3 to 6"),
        (["--profile", "parlour", "--players", "14"], "2 to 13"),
        (["--deals", "0"], "--deals"),
        (["--chant-errors", "-0.1"], "--chant-errors"),
        (["--chant-errors", "1.5"], "--chant-errors"),
        (["--chant-errors", "often"], "--chant-errors"),
        (["--profile", "parlour", "--chant-errors", "1"], "below 1"),
        (["--strategies", "most,clever"], "clever"),
        (["--profile", "strict"], "--profile"),
        (["--players", "four"], "--players"),
    ],
)
def test_bad_arguments_give_status_2_and_one_line(
    capsys: pytest.CaptureFixture[str], args: list[str], words: str
) -> None:
    status, out, err = run(capsys, *args)
    assert status == 2
    assert out == ""
    assert len(err.splitlines()) == 1 and err.endswith("\n")
    assert words in err
    assert "Traceback" not in err


def test_every_profile_and_count_in_range_runs(capsys: pytest.CaptureFixture[str]) -> None:
    for profile in (HOYLE, PARLOUR):
        for players in (profile.min_players, profile.max_players):
            status, _, err = run(capsys, "--profile", profile.name, "--players", str(players), "--deals", "1")
            assert status == 0 and err == ""
