#!/usr/bin/env bash
# Runs a command inside what the tests need: a private D-Bus session with an
# unlocked gnome-keyring (the real Secret Service) and an Xvfb display, with
# HOME and the XDG folders pointed at a throwaway folder, so no test touches
# the person's own keyring, memory or settings.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

if [[ -z ${IRENEO_IN_SESSION:-} ]]; then
  # Go's caches stay where they were (read before HOME moves), so a test run
  # does not rebuild the world.
  export GOCACHE="${GOCACHE:-$(go env GOCACHE)}" GOMODCACHE="${GOMODCACHE:-$(go env GOMODCACHE)}" \
    GOPATH="${GOPATH:-$(go env GOPATH)}"
  scratch=$(mktemp -d /tmp/ireneo-test-XXXXXX)
  trap 'rm -rf "$scratch"' EXIT
  export HOME="$scratch/home" XDG_DATA_HOME="$scratch/data" XDG_CONFIG_HOME="$scratch/config" \
    XDG_CACHE_HOME="$scratch/cache" XDG_RUNTIME_DIR="$scratch/run"
  mkdir -p "$HOME" "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$XDG_RUNTIME_DIR"
  chmod 700 "$XDG_RUNTIME_DIR"
  export LANG=en_US.UTF-8 IRENEO_IN_SESSION=1
  exec xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- "$0" "$@"
fi

eval "$(printf %s ireneo-test | gnome-keyring-daemon --unlock --components=secrets)"
export GNOME_KEYRING_CONTROL SSH_AUTH_SOCK
export IRENEO_TEST_KEYRING=1
if [[ -x $root/.tools/node_modules/.bin/mcp-inspector ]]; then
  export IRENEO_INSPECTOR=$root/.tools/node_modules/.bin/mcp-inspector
fi
"$@"
