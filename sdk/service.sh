# Sourced by an SDK's test.sh: starts the embedded service once for the whole run, on free
# ports with a fresh data folder, as `npm start` runs it, and stops it when the script exits.
# Exports SERVICE_URL and SERVICE_DATA_DIR; on failure prints the service's log and the
# closing count line, and exits.
start_service() {
  local root="$1"
  service_data="$(mktemp -d)"
  service_log="$service_data/service.log"
  service_pid=""
  # Made now, not by the background start's redirection, which the first read may come before.
  : >"$service_log"
  trap stop_service EXIT
  (
    cd "$root"
    ATTRIBUTION_FLUSH_INTERVAL_MS=200 ATTRIBUTION_APP_CACHE_MS=0 ATTRIBUTION_FX_FEED_URL=off \
      exec node --max-semi-space-size=64 --max-old-space-size=512 bin/attribution.js start --port 0 --link-port 0 \
      --data-dir "$service_data/service"
  ) >"$service_log" 2>&1 &
  service_pid=$!
  for _ in $(seq 1 120); do
    grep -q 'Attribution service listening on' "$service_log" && break
    kill -0 "$service_pid" 2>/dev/null || service_failed
    sleep 0.5
  done
  SERVICE_URL="$(grep -o 'listening on http://[0-9.:]*' "$service_log" | sed 's/listening on //')"
  [[ -n "$SERVICE_URL" ]] || service_failed
  export SERVICE_URL SERVICE_DATA_DIR="$service_data/service"
}

service_failed() {
  cat "$service_log"
  echo "the service did not start"
  echo "0 passed, 1 failed"
  exit 1
}

stop_service() {
  if [[ -n "${service_pid:-}" ]]; then
    kill -INT "$service_pid" 2>/dev/null || true
    # A clean stop takes a moment; one that hangs is not allowed to hold the run.
    for _ in $(seq 1 40); do
      kill -0 "$service_pid" 2>/dev/null || break
      sleep 0.5
    done
    kill -KILL "$service_pid" 2>/dev/null || true
    wait "$service_pid" 2>/dev/null || true
  fi
  rm -rf "${service_data:-}"
}
