#!/bin/bash
# I2L through real HTTP on loopback: urikit serve (embedded store) beside
# nginx answering the same redirects from a map, with the same load
# generator, interleaved round by round.
#
#   go build -o /tmp/bench-urikit ./cmd/urikit
#   go run ./bench/gen -n 1000000 -dir /work/bench-data/1m
#   bench/import-sqlite.sh /work/bench-data/sq1m /work/bench-data/1m/records.jsonl
#   bench/i2l.sh /work/bench-data/sq1m /work/bench-data/1m [ROUNDS] [SECONDS]
#
# Both servers run on core $SERVER_CPU (default 0): urikit with GOMAXPROCS
# 1 (Go reads the affinity mask), nginx with one worker. wrk runs on
# $CLIENT_CPU (default 1): one thread, 32 connections, bench/i2l.lua picking
# a name at random from names.txt for every request. Without
# GENDIR/nginx-map.conf (the 10,000,000-record set: a map that size takes
# nginx minutes and gigabytes to load) urikit runs alone. A third server,
# bench/httpfloor (net/http answering every name with a made-up redirect,
# no lookup), runs on the same core in every round: the floor of what a Go
# server costs here before it does any work. A fourth, bench/fastfloor (the
# same answer from valyala/fasthttp), shows what a different Go HTTP server
# would change.
set -euo pipefail
data=$1 gen=$2 rounds=${3:-3} secs=${4:-15}
bin=${URIKIT:-/tmp/bench-urikit}
here=$(cd "$(dirname "$0")" && pwd)
scpu=${SERVER_CPU:-0} ccpu=${CLIENT_CPU:-1}
UPORT=${UPORT:-18080} NPORT=${NPORT:-18081} FPORT=${FPORT:-18082} XPORT=${XPORT:-18083}

missing=
for t in nginx wrk taskset; do
	command -v $t >/dev/null || [ -x /usr/sbin/$t ] || missing="$missing $t"
done
if [ -n "$missing" ]; then
	echo "i2l.sh: missing:$missing — install Debian's packages: apt-get install nginx-light wrk util-linux" >&2
	exit 2
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

work=$(mktemp -d /tmp/bench-i2l.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# nginx: one worker, no access log, the map on $args (the request is
# /uri-res/I2L?<name>); an unknown name is 404 as in urikit.
mkdir -p "$work/nginx/logs"
cat > "$work/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
	access_log off;
	map_hash_max_size 2097152;
	map_hash_bucket_size 128;
	map \$args \$target {
		default "";
		include $gen/nginx-map.conf;
	}
	server {
		listen 127.0.0.1:$NPORT;
		location = /uri-res/I2L {
			if (\$target = "") { return 404; }
			return 303 \$target;
		}
	}
}
CONF
t0=$(date +%s)
with_nginx=; [ -f "$gen/nginx-map.conf" ] && with_nginx=1
if [ -n "$with_nginx" ]; then
	taskset -c "$scpu" "$NGINX" -p "$work/nginx" -c "$work/nginx/nginx.conf" &
	pids+=($!)
	nginx_master=$!
fi

# The store file is read once, so that it starts in the operating system's
# page cache as nginx's map starts in its memory: otherwise the first
# rounds measure the disk (after other benchmarks evicted the file).
cat "$data"/urikit.db* >/dev/null
(cd "$here" && go build -o "$work/httpfloor" ./httpfloor && go build -o "$work/fastfloor" ./fastfloor)
taskset -c "$scpu" "$work/httpfloor" -addr 127.0.0.1:$FPORT 2>"$work/httpfloor.log" &
pids+=($!)
taskset -c "$scpu" "$work/fastfloor" -addr 127.0.0.1:$XPORT 2>"$work/fastfloor.log" &
pids+=($!)

taskset -c "$scpu" "$bin" serve --addr 127.0.0.1:$UPORT --data "$data" --log-level warn >"$work/urikit.out" 2>"$work/urikit.log" &
pids+=($!)
urikit_pid=$!

wait_up() { # URL
	for _ in $(seq 1 600); do
		curl -s -o /dev/null "$1" && return 0
		sleep 0.5
	done
	echo "i2l.sh: $1 did not come up" >&2
	exit 1
}
first=$(head -1 "$gen/names.txt")
wait_up "http://127.0.0.1:$UPORT/healthz"
wait_up "http://127.0.0.1:$FPORT/uri-res/I2L?$first"
wait_up "http://127.0.0.1:$XPORT/uri-res/I2L?$first"
[ -z "$with_nginx" ] || wait_up "http://127.0.0.1:$NPORT/uri-res/I2L?$first"
echo "servers up after $(( $(date +%s) - t0 )) s${with_nginx:+ (nginx loads the map at start)}"

# Every server answers the same request with the same redirect.
for i in 0 1 777777; do
	nm=$(sed -n "$((i % $(wc -l <"$gen/names.txt") + 1))p" "$gen/names.txt")
	for port in $UPORT ${with_nginx:+$NPORT} $FPORT $XPORT; do
		curl -s -o /dev/null -w "%{http_code} %{redirect_url}\n" "http://127.0.0.1:$port/uri-res/I2L?$nm"
	done
done

rss() { # PID...: the sum of VmRSS in KiB
	local s=0
	for p in "$@"; do s=$((s + $(awk '/^VmRSS/{print $2}' /proc/$p/status))); done
	echo $s
}
nginx_pids() { echo "$nginx_master $(pgrep -P "$nginx_master" | tr '\n' ' ')"; }

run() { # NAME PORT SECONDS
	NAMES="$gen/names.txt" taskset -c "$ccpu" wrk -t1 -c32 -d"$3"s --timeout 10s \
		-s "$here/i2l.lua" "http://127.0.0.1:$2" | grep '^RESULT' | sed "s/^RESULT/$1/"
}

echo "warm-up (not counted)"
run urikit $UPORT 5 >/dev/null
[ -z "$with_nginx" ] || run nginx $NPORT 5 >/dev/null
run floor $FPORT 5 >/dev/null
run fastfloor $XPORT 5 >/dev/null
echo "rounds: $rounds × $secs s each, interleaved; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$rounds"); do
	echo "$(run urikit $UPORT "$secs") rss_kib=$(rss $urikit_pid) load=$(cut -d' ' -f1 /proc/loadavg) round=$r"
	[ -z "$with_nginx" ] || echo "$(run nginx $NPORT "$secs") rss_kib=$(rss $(nginx_pids)) load=$(cut -d' ' -f1 /proc/loadavg) round=$r"
	echo "$(run floor $FPORT "$secs") load=$(cut -d' ' -f1 /proc/loadavg) round=$r"
	echo "$(run fastfloor $XPORT "$secs") load=$(cut -d' ' -f1 /proc/loadavg) round=$r"
done
echo "urikit peak RSS: $(awk '/^VmHWM/{print $2}' /proc/$urikit_pid/status) KiB"
if [ -n "${PROFILE:-}" ]; then
	echo "profile: $PROFILE (needs serve's pprof endpoint)" >&2
fi
