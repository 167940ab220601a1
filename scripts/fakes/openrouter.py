"""A loopback OpenRouter stand-in for benchmarks: answers every chat completion with a fixed vision reading after
a fixed latency (FAKE_LATENCY_MS). Speaks OpenRouter's chat-completions JSON."""
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LATENCY = float(os.environ.get("FAKE_LATENCY_MS", "200")) / 1000.0
CONTENT = json.dumps({
    "visibleText": ["STARBUCKS"],
    "detected": [{"brand": "Starbucks", "sector": "Consumer Discretionary", "confidence": "high"}],
})


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        time.sleep(LATENCY)
        body = json.dumps({
            "id": "gen-bench", "model": "openai/gpt-5.6-terra",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": CONTENT}}],
            "usage": {"prompt_tokens": 1000, "completion_tokens": 40, "total_tokens": 1040},
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer.request_queue_size = 1024  # hundreds of connections open at once under load
server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
server.serve_forever()
