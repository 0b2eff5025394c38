#!/usr/bin/env python3
"""broker-upstream.py - the test upstream of the credential broker: HTTPS with
a certificate from the test's own CA, in the test's network namespace.

  broker-upstream.py ADDR PORT CERT KEY LOG EXPECTED_KEY

Each request's method, path and whether x-api-key / authorization held
EXPECTED_KEY go to LOG as one JSON line (never the value itself).
  POST /v1/messages   200 "key-ok" or "key-bad"
  GET  /v1/stream     server-sent events: event-1, then (once GET /v1/ack came)
                      event-2 and the end: a buffering proxy never shows event-1 early
  GET  /v1/ack        releases the stream
  GET  /v1/redirect   302 to http://ADDR:1/steal (a broker must not follow it)
  /git/...            git http-backend over GIT_ROOT (env), pushes allowed; the
                      Basic authorization must carry x-access-token:EXPECTED_KEY
"""
import base64
import http.server
import json
import os
import subprocess
import ssl
import sys
import threading

addr, port, cert, key, log, expected = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
ack = threading.Event()
lock = threading.Lock()


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def record(self):
        got = self.headers.get("x-api-key", "") or self.headers.get("authorization", "")
        if got.startswith("Basic "):
            try:
                got = base64.b64decode(got[6:]).decode().replace("x-access-token:", "", 1)
            except Exception:
                got = "undecodable"
        line = {"method": self.command, "path": self.path, "key_ok": got.endswith(expected),
                "sentinel": "lazaret-sentinel" in got, "host": self.headers.get("host", "")}
        with lock, open(log, "a") as f:
            f.write(json.dumps(line) + "\n")
        return line["key_ok"]

    def reply(self, code, body, extra=()):
        b = body.encode()
        self.send_response(code)
        for k, v in extra:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)

    def body(self):
        n = int(self.headers.get("content-length", "0") or 0)
        if self.headers.get("transfer-encoding", "") == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b""):
                        pass
                    return body
                body += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(n)

    def git(self, ok):
        body = self.body() if self.command == "POST" else b""
        path, _, query = self.path[len("/git"):].partition("?")
        env = dict(os.environ, GIT_PROJECT_ROOT=os.environ["GIT_ROOT"], GIT_HTTP_EXPORT_ALL="1",
                   PATH_INFO=path, QUERY_STRING=query, REQUEST_METHOD=self.command,
                   CONTENT_TYPE=self.headers.get("content-type", ""), CONTENT_LENGTH=str(len(body)))
        if ok:
            env["REMOTE_USER"] = "x-access-token"
        out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True).stdout
        head, _, rest = out.partition(b"\r\n\r\n")
        code, hdrs = 200, []
        for line in head.decode().split("\r\n"):
            k, _, v = line.partition(": ")
            if k.lower() == "status":
                code = int(v.split()[0])
            elif k:
                hdrs.append((k, v))
        if not ok:
            code, rest, hdrs = 401, b"no key\n", [("WWW-Authenticate", 'Basic realm="t"')]
        self.send_response(code)
        for k, v in hdrs:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(rest)))
        self.end_headers()
        self.wfile.write(rest)

    def do_POST(self):
        ok = self.record()
        if self.path.startswith("/git/"):
            return self.git(ok)
        body = self.body()
        self.reply(200, ("key-ok" if ok else "key-bad") + " body=%d\n" % len(body))

    def do_GET(self):
        ok = self.record()
        if self.path.startswith("/git/"):
            return self.git(ok)
        if self.path == "/v1/ack":
            ack.set()
            self.reply(200, "acked\n")
        elif self.path == "/v1/stream":
            ack.clear()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"data: event-1\n\n")
            self.wfile.flush()
            ack.wait(120)
            self.wfile.write(b"data: event-2 %s\n\n" % (b"acked" if ack.is_set() else b"never-acked"))
            self.wfile.flush()
            self.close_connection = True
        elif self.path == "/v1/redirect":
            self.reply(302, "moved\n", [("Location", "http://%s:1/steal" % addr)])
        else:
            self.reply(200, ("key-ok" if ok else "key-bad") + "\n")


srv = http.server.ThreadingHTTPServer((addr, port), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
print("serving", flush=True)
srv.serve_forever()
