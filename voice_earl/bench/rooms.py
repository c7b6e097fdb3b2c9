"""The rooms the listening benchmark's trials are heard in: who talks there and what they say, mixed
into one track of talk per room (``room_talk``)."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from voice_earl.bench.corpus import Voice, synthesize
from voice_earl.listening.stream.audio import Pcm16

# Two of the four talkers are one voice at two pitches and paces: the room every figure so far was
# measured in. Four voices of their own make another room, where some of the listening tests' draws
# come out otherwise.
BABBLE_VOICES = (
    Voice("espeak-ng", "en-us+f5", 170, 30),
    Voice("espeak-ng", "en", 150, 70),
    Voice("espeak-ng", "en", 160, 50),
    Voice("espeak-ng", "en-gb-x-rp+m6", 165, 40),
)

BABBLE: tuple[str, ...] = (
    "the weather was lovely this morning and we walked by the river",
    "my brother plays the piano in a band on saturdays",
    "shall we order some food or cook something at home",
    "it is getting late and the trains stop at midnight",
    "I will be there at seven if the traffic is not too bad",
    "she told me the whole story about the holiday in spain",
)
# A second room, never used to choose a setting: six other voices saying other things.
PARTY_VOICES = (
    Voice("espeak-ng", "en-gb-scotland+f2", 155, 55),
    Voice("espeak-ng", "en-us-nyc+m5", 165, 40),
    Voice("espeak-ng", "en-029+m2", 150, 45),
    Voice("espeak-ng", "en+f4", 160, 65),
    Voice("espeak-ng", "en-us+m7", 145, 35),
    Voice("espeak-ng", "en-gb-x-gbcwmd+m2", 170, 50),
)
PARTY: tuple[str, ...] = (
    "we drove up to the lakes last summer and it rained every single day",
    "have you tried the new bakery on the corner of the high street",
    "the children want a dog but nobody wants to walk it in the winter",
    "I read somewhere that octopuses can open jars from the inside",
    "the meeting ran over so I missed the bus and had to walk home",
    "could you believe the price of petrol this week",
    "my grandmother grew tomatoes on the balcony every year",
    "they are painting the bridge again and the traffic is terrible",
    "I still have not finished that book you lent me in april",
    "the football was on but nobody was really watching it",
    "we should book the cottage before all the weekends are gone",
    "he says he will fix the fence but he has said that since march",
    "there is a concert in the park on sunday if the weather holds",
    "the soup needs more salt and maybe a little pepper too",
    "I found an old photograph of the house before they built the garage",
    "she has started learning the violin and the neighbours are very patient",
)
# A third room, to choose settings in beside the babble: five people at once, six other voices, other
# things said. The babble's six sentences loop every 10 s, and a bar chosen in one room alone may hold
# in that room only.
CAFE_VOICES = (
    Voice("espeak-ng", "en-gb-x-rp+f3", 160, 60),
    Voice("espeak-ng", "en-us-nyc+m3", 155, 45),
    Voice("espeak-ng", "en-029+f1", 150, 60),
    Voice("espeak-ng", "en+m5", 165, 40),
    Voice("espeak-ng", "en-gb-x-gbclan+f4", 145, 55),
    Voice("espeak-ng", "en-gb-scotland+m5", 170, 35),
)
CAFE: tuple[str, ...] = (
    "we got there at half past two and the queue was already round the block",
    "I told him to take the umbrella but of course he left it on the train",
    "the new manager wants everybody in the office on mondays and fridays",
    "my sister is moving to leeds in the spring with the two boys",
    "do you want the last slice or shall I wrap it up for later",
    "the garden centre had nothing but plastic flowers and garden gnomes",
    "I think the heating is broken again because the radiators are cold",
    "we watched the whole series in one weekend and now there is nothing left",
    "the doctor said to rest for a week and drink plenty of water",
    "they have closed the library on thursdays to save money",
    "the cat sleeps on the printer because it is warm",
    "our flight leaves at six in the morning so we are staying at the airport",
    "he ran the marathon in four hours and then could not walk for a week",
    "the recipe says an hour but it always takes me at least ninety minutes",
    "I have been meaning to call her since her birthday in october",
    "the wind took half the fence and the shed door last night",
    "they want twelve pounds for a sandwich at the station now",
    "she says the new phone is brilliant but the battery lasts a day",
)


# Each room's talkers: its voices, what they say, and how many talk at once. The babble is four
# talkers, none of them a voice of either split; the party six others, in a longer stretch, a room
# nothing is tuned in; the cafe five others again, a second room to choose settings in.
ROOMS: dict[str, tuple[tuple[Voice, ...], tuple[str, ...], int]] = {
    "babble": (BABBLE_VOICES, BABBLE, 4),
    "party": (PARTY_VOICES, PARTY, 6),
    "cafe": (CAFE_VOICES, CAFE, 5),
}


def room_talk(condition: str, cache: Path) -> Pcm16:
    """The talk that a condition's room adds (white noise and echo take none: the babble's is given)."""
    return _talkers(*ROOMS.get(condition.split()[0], ROOMS["babble"]), cache)


@functools.cache
def _talkers(voices: tuple[Voice, ...], sentences: tuple[str, ...], count: int, cache: Path) -> Pcm16:
    """``count`` people talking at once, each going through the sentences from another one on (mixed
    once per run: the track is read-only)."""
    parts = [synthesize(text, voices[i % len(voices)], cache).astype(np.float64) for i, text in enumerate(sentences)]
    length = sum(len(p) for p in parts) // 2
    streams = [np.resize(np.concatenate(parts[i:] + parts[:i]), length) for i in range(count)]
    mixed = np.asarray(sum(streams) / count, dtype=np.int16)
    mixed.flags.writeable = False
    return mixed
