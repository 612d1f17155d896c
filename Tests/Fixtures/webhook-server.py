#!/usr/bin/python3
"""An HTTP server for chime's webhook tests that answers from a script and records every request.

Usage: webhook-server.py SCRIPT LOG [CERTIFICATE KEY]

SCRIPT is a JSON array with one answer per request, in order; once it is used up, the last answer is repeated.
An answer is an object:
  {"status": 503}                          answer with this status (and an empty body)
  {"status": 429, "retry_after": "2"}      ... with a Retry-After header
  {"status": 400, "body": "bad payload"}   ... with this text as the body
  {"status": 301, "location": "/new"}      ... with a Location header
  {"hang": true}                           read the request, then answer nothing until the client hangs up
  {"close": true}                          read the request, then close the connection without an answer
  {"trickle": 0.2}                         answer 200 with a 1000-byte body, one byte every 0.2 s

Each request is appended to LOG as one JSON line, before it is answered:
  {"method": "POST", "path": "/hook", "headers": [["Content-Type", "application/json"], ...], "body": "...",
   "received_at": 1764500000.123456}
With CERTIFICATE and KEY (PEM files) it speaks HTTPS. The server listens on 127.0.0.1 on a port of the kernel's
choosing and prints "PORT\n" on stdout once it accepts
connections. It runs until it is killed.
"""

import json
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Script:
    def __init__(self, path):
        with open(path, encoding="utf-8") as file:
            self.answers = json.load(file)
        self.served = 0
        self.lock = threading.Lock()

    def next(self):
        with self.lock:
            answer = self.answers[min(self.served, len(self.answers) - 1)]
            self.served += 1
            return answer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        self.handle_request()

    def do_GET(self):
        self.handle_request()

    def handle_request(self):
        received_at = time.time()
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length) if length > 0 else b""
        record = {
            "method": self.command,
            "path": self.path,
            "headers": [[name, value] for name, value in self.headers.items()],
            "body": body.decode("utf-8", errors="replace"),
            "received_at": received_at,
        }
        with self.server.log_lock:
            self.server.log.write(json.dumps(record) + "\n")
            self.server.log.flush()
        answer = self.server.script.next()
        if answer.get("hang"):
            # Wait for the client to give up and close the connection: read returns b"" then.
            while self.rfile.read(1):
                pass
            self.close_connection = True
            return
        if answer.get("close"):
            self.close_connection = True
            return
        if "trickle" in answer:
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            try:
                for _ in range(1000):
                    time.sleep(answer["trickle"])
                    self.wfile.write(b".")
                    self.wfile.flush()
            except OSError:
                pass
            return
        text = answer.get("body", "").encode("utf-8")
        self.send_response(answer["status"])
        if "retry_after" in answer:
            self.send_header("Retry-After", answer["retry_after"])
        if "location" in answer:
            self.send_header("Location", answer["location"])
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        self.wfile.write(text)

    def log_message(self, format, *args):
        pass


class Server(ThreadingHTTPServer):
    # The default backlog of 5 drops connections when a test opens a dozen at once; the client would only retry
    # its SYN a second later.
    request_queue_size = 128


def main():
    script_path, log_path = sys.argv[1], sys.argv[2]
    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.script = Script(script_path)
    server.log = open(log_path, "a", encoding="utf-8")
    server.log_lock = threading.Lock()
    if len(sys.argv) > 4:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[3], sys.argv[4])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
