#!/usr/bin/env bash
# Idempotent set-up: system packages for the voice parts, then .venv with the package and its extras.
# Usage: scripts/setup.sh [EXTRAS]   (e.g. "dev" for the tests; none for playing, which installs [phones,judge])
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
target=".[phones,judge]"  # playing: the phones' server (--phones) and the listener's judge come with it
[ -n "$extras" ] && target=".[$extras]"

system_packages=(libportaudio2 espeak-ng libespeak-ng1 alsa-utils python3-venv)
# The tests also check the catalogs with GNU gettext's msgfmt, open the phones' page in Debian's chromium, speak
# with festival's kdl voice and listen to real recordings of ordinary speech (the Asterisk prompts), and of
# knocks on wood, cards, glasses, doors, laughter and clapping (scripts/knock_corpus.py, the knock detector's).
[ "$extras" = dev ] && system_packages+=(gettext chromium chromium-driver festival festvox-kdlpc16k
    asterisk-core-sounds-en-wav hydrogen-drumkits xboard minetest-data lmms-common kpat aisleriot sound-icons
    hedgewars-data tuxpaint-data frozen-bubble-data)
missing=()
for pkg in "${system_packages[@]}"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
# Waits while another apt holds the lock; never stops the set-up (it prints the command instead).
if ((${#missing[@]})); then bash scripts/apt_install.sh "${missing[@]}"; fi

python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    echo "voice-earl: creating .venv"
    "$python" -m venv .venv
fi
# Reinstall only when the project description changed, so a second run is quick.
stamp=".venv/.voice-earl-installed-${extras:-phones}"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    echo "voice-earl: installing voice-earl with ${target#.} into .venv (once; later runs skip this)"
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e "$target"
    touch "$stamp"
fi
