#!/usr/bin/env bash
# Idempotent set-up: system packages for the voice parts, then .venv with the package and its extras.
# Usage: scripts/setup.sh [EXTRAS]   (e.g. "dev" for the tests; none for playing, which installs [phones,judge])
# One line on the screen per step that has work to do; what apt-get, venv and pip print goes to setup.log in the
# repository (written afresh by each run), which the screen names when something fails.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
target=".[phones,judge]"  # playing: the phones' server (--phones) and the listener's judge come with it
[ -n "$extras" ] && target=".[$extras]"
export VOICE_EARL_SETUP_LOG="$PWD/setup.log"
echo "voice-earl set-up, $(date)" > "$VOICE_EARL_SETUP_LOG"

system_packages=(libportaudio2 espeak-ng libespeak-ng1 alsa-utils python3-venv)
# The tests also check the catalogs with GNU gettext's msgfmt, open the phones' page in Debian's chromium, speak
# with festival's kdl voice and listen to real recordings of ordinary speech (the Asterisk prompts), and of
# knocks on wood and doors, cards, glasses, chairs, laughter, coughs, typing and clapping (voice_earl/bench/knocks.py,
# the knock detector's).
[ "$extras" = dev ] && system_packages+=(gettext chromium chromium-driver festival festvox-kdlpc16k
    asterisk-core-sounds-en-wav hydrogen-drumkits xboard minetest-data lmms-common kpat aisleriot sound-icons
    hedgewars-data tuxpaint-data frozen-bubble-data orage-data mirrormagic-data csmash-data scratch ktuberling-data)
missing=()
for pkg in "${system_packages[@]}"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
# Waits while another apt holds the lock; never stops the set-up (it prints the command instead).
if ((${#missing[@]})); then bash scripts/apt_install.sh "${missing[@]}"; fi

# Runs a step's command with its output in the log; when it fails, says so with the end of the log, and stops.
quietly() {
    echo "\$ $*" >> "$VOICE_EARL_SETUP_LOG"
    if ! "$@" >> "$VOICE_EARL_SETUP_LOG" 2>&1; then
        echo "voice-earl: this step failed; the end of setup.log says why:" >&2
        tail -n 15 "$VOICE_EARL_SETUP_LOG" >&2
        exit 1
    fi
}

python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    echo "voice-earl: creating .venv (the game's Python environment, in this folder)"
    quietly "$python" -m venv .venv
fi
# Reinstall only when the project description changed, so a second run is quick.
stamp=".venv/.voice-earl-installed-${extras:-phones}"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    echo "voice-earl: installing voice-earl${target#.} into .venv (details: setup.log)"
    quietly .venv/bin/python -m pip install --upgrade pip
    quietly .venv/bin/python -m pip install -e "$target"
    touch "$stamp"
fi
