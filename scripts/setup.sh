# shellcheck shell=bash
# Shared set-up for scripts/demo, scripts/test and bench/run: installs the Debian packages the
# build and the tests need (only those missing), so every script works from a fresh clone on a
# fresh Debian 12 machine, and is harmless to run again.
set -euo pipefail

TORCHDEX_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export TORCHDEX_ROOT
TORCHDEX_JOBS=${TORCHDEX_JOBS:-$(nproc 2>/dev/null || echo 2)}
export TORCHDEX_JOBS

# Build tools, libraries (see CMakeLists.txt), and what the tests run: nginx serves index pages
# on loopback, python3-venv gives real pip environments, clang + libclang-rt build the fuzzers.
TORCHDEX_PACKAGES=(
  g++ cmake ninja-build ccache pkg-config git ca-certificates
  clang libclang-rt-14-dev
  libcurl4-openssl-dev libxml2-dev libboost-program-options-dev libsqlite3-dev
  nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev
  nginx curl python3 python3-venv
  mkdocs dpkg-dev time bc
)

torchdex_install_packages() {
  local missing=()
  local pkg
  for pkg in "${TORCHDEX_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$pkg")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  echo "torchdex: installing missing packages: ${missing[*]}" >&2
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    sudo=(sudo)
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

# torchdex_build PRESET [extra cmake -D options...]: configure (once) and build a preset.
torchdex_build() {
  local preset=$1
  shift
  cmake -S "$TORCHDEX_ROOT" --preset "$preset" "$@" >/dev/null
  cmake --build "$TORCHDEX_ROOT/build/$preset" -j "$TORCHDEX_JOBS"
}

# torchdex_tools_venv: the Python tools of the tests (packaging, pip, uv), pinned with hashes by
# scripts/tools-requirements.txt, in build/tools-venv; sets TORCHDEX_TOOLS_PYTHON. A no-op when
# the venv was made from the same requirements (its stamp is a copy of the file). The stamp is
# written last, so an interrupted install is redone on the next run.
torchdex_tools_venv() {
  local venv=$TORCHDEX_ROOT/build/tools-venv
  local requirements=$TORCHDEX_ROOT/scripts/tools-requirements.txt
  local stamp=$venv/requirements.stamp
  TORCHDEX_TOOLS_PYTHON=$venv/bin/python
  export TORCHDEX_TOOLS_PYTHON
  if [ -x "$TORCHDEX_TOOLS_PYTHON" ] && cmp -s "$stamp" "$requirements"; then
    return 0
  fi
  echo "torchdex: making $venv from $requirements" >&2
  # Debian's python3 first (its venv module is what python3-venv installs), as tests/ does.
  local python=/usr/bin/python3
  if [ ! -x "$python" ]; then
    python=$(command -v python3)
  fi
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    --require-hashes --no-deps --only-binary=:all: -r "$requirements" >&2
  cp "$requirements" "$stamp"
}

# torchdex_nginx_start ROOT: serves ROOT (readable by nginx's unprivileged workers) on
# 127.0.0.1 with the settings of the tests' nginx (ETag, gzip, /dir -> /dir/index.html), in the
# background; sets TORCHDEX_NGINX_PORT and TORCHDEX_NGINX_DIR. torchdex_nginx_stop ends it.
# DIRECTIVES (optional) go into the server block before the catch-all location: a crafted
# outage such as 'location ^~ /whl/cu128/ { return 403; }'.
torchdex_nginx_start() {
  local root=$1
  local directives=${2:-}
  TORCHDEX_NGINX_DIR=$(mktemp -d /tmp/torchdex-nginx-XXXXXX)
  TORCHDEX_NGINX_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  local d=$TORCHDEX_NGINX_DIR
  # As root, the workers stay root: a clone or temporary folder under a private (0700) parent
  # must still be readable by them.
  local user_line=""
  if [ "$(id -u)" = 0 ]; then
    user_line="user root;"
  fi
  cat >"$d/nginx.conf" <<CONF
$user_line
daemon on;
worker_processes 1;
pid $d/nginx.pid;
error_log $d/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $d/client_body;
  proxy_temp_path $d/proxy;
  fastcgi_temp_path $d/fastcgi;
  uwsgi_temp_path $d/uwsgi;
  scgi_temp_path $d/scgi;
  types { text/html html; application/json json; }
  default_type application/octet-stream;
  etag on;
  gzip on;
  gzip_min_length 256;
  keepalive_requests 100000;
  server {
    listen 127.0.0.1:$TORCHDEX_NGINX_PORT;
    root $root;
    index index.html;
    $directives
    location / { try_files \$uri \$uri/index.html \$uri/ =404; }
  }
}
CONF
  /usr/sbin/nginx -c "$d/nginx.conf" -p "$d" -e "$d/error.log"
  for _ in $(seq 50); do
    if python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' \
      "$TORCHDEX_NGINX_PORT" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "torchdex: nginx did not start: $(cat "$d/error.log")" >&2
  return 1
}

torchdex_nginx_stop() {
  if [ -n "${TORCHDEX_NGINX_DIR:-}" ] && [ -f "$TORCHDEX_NGINX_DIR/nginx.pid" ]; then
    kill "$(cat "$TORCHDEX_NGINX_DIR/nginx.pid")" 2>/dev/null || true
    sleep 0.2
    rm -rf "$TORCHDEX_NGINX_DIR"
  fi
}

