#!/usr/bin/env bash
# Install the system packages given as arguments with apt-get (scripts/setup.sh passes the missing ones).
# It never stops the set-up. While another apt holds the lock (common on a new Ubuntu machine, where the
# automatic updates run at first boot) it waits, saying so, for up to VOICE_EARL_APT_WAIT seconds
# (default 300), trying again every VOICE_EARL_APT_POLL seconds (default 5). If the lock stays held,
# apt fails otherwise, or there is no root or password-less sudo, it prints the command to run and
# returns 0, so that the set-up goes on and the voice parts that need the packages say so. What apt-get
# prints goes to $VOICE_EARL_SETUP_LOG when it is set.
# Usage: bash scripts/apt_install.sh PACKAGE...
set -uo pipefail
(($#)) || exit 0
packages=("$@")
wait_limit=${VOICE_EARL_APT_WAIT:-300}
poll=${VOICE_EARL_APT_POLL:-5}
by_hand="sudo apt-get update && sudo apt-get install -y ${packages[*]}"
log=${VOICE_EARL_SETUP_LOG:-}  # what apt-get prints goes there (scripts/setup.sh's log), not on the screen

carry_on() {  # $1: what went wrong
    echo "voice-earl: $1"
    echo "voice-earl: install them with:  $by_hand"
    echo "voice-earl: continuing; the voice parts that need them will say so."
    exit 0
}

if ! command -v apt-get >/dev/null 2>&1; then
    echo "voice-earl: some system packages are missing: ${packages[*]}; install them with your package manager"
    exit 0
fi
if [ "$(id -u)" = 0 ]; then
    sudo=()
elif sudo -n true 2>/dev/null; then
    sudo=(sudo)
else
    carry_on "some system packages are missing: ${packages[*]}"
fi

started=$SECONDS
told=""
# Run apt-get with these arguments; while another apt holds its lock, wait and try again.
apt_get() {
    local output status holder
    while true; do
        output=$("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "$@" 2>&1)
        status=$?
        [ -n "$log" ] && printf '$ apt-get %s\n%s\n' "$*" "$output" >> "$log"
        [ "$status" = 0 ] && return 0
        if ! grep -qE "Could not get lock|Unable to acquire the dpkg frontend lock|Unable to lock" <<<"$output"; then
            grep -E "^(E|W): " <<<"$output" | tail -n 3
            return "$status"
        fi
        if ((SECONDS - started >= wait_limit)); then
            carry_on "apt was still busy after ${wait_limit} seconds (another program is installing packages)"
        fi
        if [ -z "$told" ]; then
            holder=$(grep -oE "held by process [0-9]+( \([^)]*\))?" <<<"$output" | head -n 1)
            echo "voice-earl: another program is using apt${holder:+ ($holder)}; waiting for it to finish" \
                "(up to ${wait_limit} seconds; Ctrl-C to stop)"
            told=yes
        fi
        sleep "$poll"
    done
}

echo "voice-earl: installing system packages: ${packages[*]}"
apt_get update -qq || carry_on "apt-get update failed"
apt_get install -y -qq "${packages[@]}" || carry_on "apt-get install failed"
