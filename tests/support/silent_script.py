"""Silent Earl commands for a scripted human seat (one command a line on standard input)."""

from __future__ import annotations

import itertools

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def human_script(lines: int) -> list[str]:
    """Commands that always lead to a legal move: each turn takes the first of them the rules allow.

    A refused command changes nothing, so the same script gives the same game, and a script cut anywhere
    and resumed with its rest gives the same game too.
    """
    cycle = itertools.cycle(["play", "pass", *(f"lead {rank}" for rank in RANKS)])
    return [next(cycle) for _ in range(lines)]


def as_input(lines: list[str]) -> str:
    return "".join(f"{line}\n" for line in lines)
