#!/usr/bin/env bash
# The voice-earl command for every terminal: a small script in ~/.local/bin (where pipx puts the commands it
# installs) that runs this repository's .venv. It says so when it installs or moves it, and is quiet otherwise.
# A voice-earl there that it did not write (pipx's, say) is left alone. VOICE_EARL_BIN_DIR names another folder.
set -euo pipefail
repository=$(cd "$(dirname "$0")/.." && pwd)
bin_dir=${VOICE_EARL_BIN_DIR:-$HOME/.local/bin}
launcher="$bin_dir/voice-earl"
mark="written by voice-earl's scripts/launcher.sh"
text="#!/bin/sh
# The voice-earl command: $mark, for $repository (delete this file to remove it).
exec \"$repository/.venv/bin/voice-earl\" \"\$@\""

[ -f "$launcher" ] && [ "$(cat "$launcher")" = "$text" ] && exit 0
if [ -e "$launcher" ] && ! grep -qF "$mark" "$launcher" 2>/dev/null; then
    echo "voice-earl: $launcher is another voice-earl; left as it is (bash scripts/play runs this one)"
    exit 0
fi
mkdir -p "$bin_dir"
printf '%s\n' "$text" > "$launcher.partial"
chmod 755 "$launcher.partial"
mv "$launcher.partial" "$launcher"
shown=${launcher/#$HOME\//\~/}
case ":$PATH:" in
    *":$bin_dir:"*) echo "voice-earl: added $shown: 'voice-earl play' from any folder" ;;
    *) echo "voice-earl: added $shown, on your PATH from your next login" ;;
esac
