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

# The PATH a new login has: the login shell asked, as a login reads them, with its profile files (root's
# ~/.profile on Debian adds no ~/.local/bin, a user's does once the folder exists).
login_path() {
    local shell=${SHELL:-/bin/sh}
    env -i HOME="$HOME" USER="${USER:-}" LOGNAME="${LOGNAME:-}" SHELL="$shell" TERM=dumb \
        timeout 10 "$shell" -l -c 'printf "\nvoice-earl-path=%s\n" "$PATH"' </dev/null 2>/dev/null |
        sed -n 's/^voice-earl-path=//p' | tail -n 1 || true
}

# The file a login of that shell reads, where a line can add the folder.
login_profile() {
    case "$(basename "${SHELL:-/bin/sh}")" in
        zsh) echo "~/.zprofile" ;;
        bash)
            for name in .bash_profile .bash_login; do
                [ -f "$HOME/$name" ] && { echo "~/$name"; return; }
            done
            echo "~/.profile" ;;
        *) echo "~/.profile" ;;
    esac
}

if [[ ":$PATH:" == *":$bin_dir:"* ]]; then
    echo "voice-earl: added $shown: 'voice-earl play' from any folder"
elif [[ ":$(login_path):" == *":$bin_dir:"* ]]; then
    echo "voice-earl: added $shown, on your PATH from your next login (until then: $shown play)"
else
    echo "voice-earl: added $shown, but ${bin_dir/#$HOME/\~} is not on your PATH: run $shown play"
    echo "voice-earl: or, for 'voice-earl play' from your next login, add this line to $(login_profile):" \
        "export PATH=\"${bin_dir/#$HOME/\$HOME}:\$PATH\""
fi
