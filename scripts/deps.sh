#!/usr/bin/env bash
# Installs what Ireneo needs to build, run and test on Debian or Ubuntu:
# the cgo packages Fyne builds with, Xvfb and X tools for the GUI tests,
# CJK fonts (Fyne draws glyphs its own font lacks from system fonts; Noto
# CJK has the bold face the app draws bold CJK with),
# D-Bus and gnome-keyring for the keyring tests, Syncthing for the sync
# tests (real daemons on loopback), and from npm the MCP
# inspector CLI and the official TypeScript SDK (the MCP tests drive both),
# and the agent CLIs the import, connect and hook tests run offline against a
# stand-in model (into .tools/harness: Gemini CLI, Copilot CLI and opencode,
# about a minute and 640 MB once; IRENEO_HARNESSES=some leaves opencode
# out, 354 MB of it). As root it installs what is missing;
# otherwise it says exactly what to run.
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(gcc pkg-config libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev
      libxi-dev libxxf86vm-dev xvfb xauth x11-utils xdotool imagemagick dbus dbus-x11
      gnome-keyring libsecret-tools nodejs npm ca-certificates fonts-wqy-microhei fonts-noto-cjk syncthing)
INSPECTOR_VERSION=2.12.0
SDK_VERSION=1.32.2

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# The machine's own Node.js (not Debian's) is fine if it is on PATH.
if command -v node >/dev/null && command -v npm >/dev/null; then
  tmp=(); for p in "${missing[@]}"; do [[ $p == nodejs || $p == npm ]] || tmp+=("$p"); done
  missing=("${tmp[@]}")
fi

if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]]; then
    echo "deps: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
      { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; }
  else
    echo "deps: missing Debian packages; run:" >&2
    echo "  sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
fi

if ! command -v go >/dev/null; then
  echo "deps: Go 1.26 or newer is needed (https://go.dev/dl/); it is not on PATH" >&2
  exit 1
fi

if [[ ! -x .tools/node_modules/.bin/mcp-inspector ]]; then
  echo "deps: installing @modelcontextprotocol/inspector@$INSPECTOR_VERSION into .tools/"
  mkdir -p .tools
  npm install --silent --no-audit --no-fund --prefix .tools "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >/dev/null
fi

if [[ ! -f .tools/node_modules/@modelcontextprotocol/sdk/package.json ]] ||
   ! grep -q "\"version\": \"$SDK_VERSION\"" .tools/node_modules/@modelcontextprotocol/sdk/package.json; then
  echo "deps: installing @modelcontextprotocol/sdk@$SDK_VERSION into .tools/"
  mkdir -p .tools
  npm install --silent --no-audit --no-fund --save-exact --prefix .tools "@modelcontextprotocol/sdk@$SDK_VERSION" >/dev/null
fi

# The agent CLIs, pinned as importers/harnesstest.CLIs pins them.
HARNESSES=("@google/gemini-cli@0.61.0" "@github/copilot@1.0.102")
[[ ${IRENEO_HARNESSES:-} == some ]] || HARNESSES+=("opencode-ai@1.18.33")
for spec in "${HARNESSES[@]}"; do
  name=${spec%@*}; version=${spec##*@}
  if [[ ! -f .tools/harness/node_modules/$name/package.json ]] ||
     ! grep -q "\"version\": \"$version\"" ".tools/harness/node_modules/$name/package.json"; then
    echo "deps: installing $spec into .tools/harness/"
    mkdir -p .tools/harness
    npm install --silent --no-audit --no-fund --save-exact --prefix .tools/harness "$spec" >/dev/null
  fi
done
