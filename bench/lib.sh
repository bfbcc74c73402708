# shellcheck shell=bash
# Helpers shared by the benchmark scripts: a loopback nginx over a document root, and timing of
# whole processes (wall, CPU, peak RSS) with GNU time.

# bench_nginx_start ROOT [DIRECTIVES]: serves ROOT on 127.0.0.1 with the settings of the tests'
# nginx (ETag, gzip, /dir -> /dir/index.html); sets BENCH_NGINX_PORT and BENCH_NGINX_DIR.
# DIRECTIVES go into the server block, before the catch-all location: a crafted outage such as
# 'location ^~ /whl/cu128/ { return 403; }'.
bench_nginx_start() {
  local root=$1
  local directives=${2:-}
  BENCH_NGINX_DIR=$(mktemp -d /tmp/torchdex-bench-nginx-XXXXXX)
  BENCH_NGINX_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  local d=$BENCH_NGINX_DIR
  cat >"$d/nginx.conf" <<CONF
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
    listen 127.0.0.1:$BENCH_NGINX_PORT;
    root $root;
    index index.html;
    $directives
    location / { try_files \$uri \$uri/index.html \$uri/ =404; }
  }
}
CONF
  /usr/sbin/nginx -c "$d/nginx.conf" -p "$d" -e "$d/error.log"
  for _ in $(seq 50); do
    # python3, not curl: the tests use this too, and scripts/setup.sh installs no curl.
    if python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' \
      "$BENCH_NGINX_PORT" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "bench: nginx did not start: $(cat "$d/error.log")" >&2
  return 1
}

bench_nginx_stop() {
  if [ -n "${BENCH_NGINX_DIR:-}" ] && [ -f "$BENCH_NGINX_DIR/nginx.pid" ]; then
    kill "$(cat "$BENCH_NGINX_DIR/nginx.pid")" 2>/dev/null || true
    sleep 0.2
    rm -rf "$BENCH_NGINX_DIR"
  fi
}

# bench_time OUTVAR COMMAND...: runs COMMAND once; sets OUTVAR to "wall_s cpu_s peak_rss_mb".
bench_time() {
  local __out=$1
  shift
  local log
  log=$(mktemp)
  /usr/bin/time -f '%e %U %S %M' -o "$log" "$@" >/dev/null 2>&1 || {
    echo "bench: command failed: $*" >&2
    rm -f "$log"
    return 1
  }
  local wall user sys rss
  read -r wall user sys rss <"$log"
  rm -f "$log"
  printf -v "$__out" '%s %s %s' "$wall" "$(echo "$user + $sys" | bc)" "$((rss / 1024))"
}

# bench_median "a b c ...": the median of the numbers.
bench_median() {
  tr ' ' '\n' <<<"$1" | sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'
}
