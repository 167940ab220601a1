-- wrk request for POST /v1/resolve-comparable with the seed brand (scripts/bench.sh, scripts/bench-cpu.sh).
wrk.method = "POST"
wrk.body = '{"brand":"Starbucks"}'
wrk.headers["Content-Type"] = "application/json"
