#!/usr/bin/env python3
"""fake-model.py - a fake model API for the agent kit tests. Never a real one.

  fake-model.py ADDR PORT LOG FILE_PATH

Speaks as much of the Anthropic Messages API (POST /v1/messages, streamed
or not) and the OpenAI Responses API (POST /v1/responses, streamed) as
Claude Code and the Codex CLI need for one turn: the first request that
offers a file-writing tool gets a tool call writing FILE_PATH; a request
that carries the tool's result gets a short text answer. Every request is
logged to LOG as one JSON line (peer address, path, tools offered, whether
it carried a tool result, and with FAKE_MODEL_KEY set whether the request's
x-api-key or authorization held that key, a Lazaret sentinel or another).
FAKE_MODEL_TLS=CERT:KEY serves HTTPS instead (the credential broker's test).
"""
import json
import os
import ssl
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CONTENT = "written by the agent through the fake model\n"
LOCK = threading.Lock()


def log(rec):
    with LOCK, open(sys.argv[3], "a") as f:
        f.write(json.dumps(rec) + "\n")


def anthropic_tool_result(body):
    for m in body.get("messages", []):
        c = m.get("content")
        if isinstance(c, list):
            for b in c:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    return True
    return False


def openai_tool_result(body):
    inp = body.get("input")
    if isinstance(inp, list):
        for it in inp:
            if isinstance(it, dict) and it.get("type") in ("function_call_output",
                                                          "custom_tool_call_output"):
                return True
    return False


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, code, ctype, data):
        self.send_response(code)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def sse(self, events):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        for name, data in events:
            if name:
                self.wfile.write(b"event: " + name.encode() + b"\n")
            self.wfile.write(b"data: " + json.dumps(data).encode() + b"\n\n")
            self.wfile.flush()
        self.close_connection = True

    def do_GET(self):
        log({"peer": self.client_address[0], "method": "GET", "path": self.path})
        self.send(404, "application/json", b'{"type":"error","error":{"type":"not_found_error","message":"fake"}}')

    def do_HEAD(self):
        self.send(200, "text/plain", b"")

    def do_POST(self):
        n = int(self.headers.get("content-length", "0"))
        raw = self.rfile.read(n) if n > 0 else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        path = self.path.split("?")[0]
        tools = [t.get("name", t.get("type", "")) for t in body.get("tools", []) if isinstance(t, dict)]
        rec = {"peer": self.client_address[0], "method": "POST", "path": path,
               "stream": bool(body.get("stream")), "tools": tools,
               "ua": self.headers.get("user-agent", "")}
        if os.environ.get("FAKE_MODEL_KEY"):
            got = self.headers.get("x-api-key", "") or self.headers.get("authorization", "")
            rec["key"] = ("real" if got.endswith(os.environ["FAKE_MODEL_KEY"]) else
                          "sentinel" if "lazaret-sentinel" in got else "other")
        if path.endswith("/messages/count_tokens"):
            log(rec)
            return self.send(200, "application/json", b'{"input_tokens": 12}')
        if path.endswith("/messages"):
            rec["tool_result"] = anthropic_tool_result(body)
            log(rec)
            return self.anthropic(body, "Write" in tools and not rec["tool_result"])
        if path.endswith("/responses"):
            rec["tool_result"] = openai_tool_result(body)
            log(rec)
            return self.openai(body, tools, rec["tool_result"])
        log(rec)
        self.send(404, "application/json", b'{"error":{"message":"fake: not here"}}')

    # ---- Anthropic Messages API ----
    def anthropic(self, body, call):
        model = body.get("model", "claude-fake")
        usage = {"input_tokens": 10, "output_tokens": 5}
        if call:
            block = {"type": "tool_use", "id": "toolu_fake01", "name": "Write", "input": {}}
            args = json.dumps({"file_path": sys.argv[4], "content": CONTENT})
            delta = {"type": "input_json_delta", "partial_json": args}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": "Done: the file is written."}
            stop = "end_turn"
        msg = {"id": "msg_fake01", "type": "message", "role": "assistant", "model": model,
               "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}
        if not body.get("stream"):
            full = dict(block)
            if call:
                full["input"] = json.loads(args)
            else:
                full["text"] = delta["text"]
            msg.update(content=[full], stop_reason=stop)
            return self.send(200, "application/json", json.dumps(msg).encode())
        self.sse([
            ("message_start", {"type": "message_start", "message": msg}),
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                               "usage": {"output_tokens": 5}}),
            ("message_stop", {"type": "message_stop"}),
        ])

    # ---- OpenAI Responses API ----
    def openai(self, body, tools, had_result):
        model = body.get("model", "gpt-fake")
        rid = "resp_fake01"
        base = {"id": rid, "object": "response", "created_at": 1, "model": model, "status": "in_progress",
                "output": [], "usage": None}
        line = "printf '%s\\n' '" + CONTENT.strip() + "' > " + sys.argv[4]
        call = None
        if not had_result and "exec_command" in tools:      # Codex's unified exec tool
            call = ("exec_command", {"cmd": line})
        elif not had_result and "shell" in tools:           # older Codex: argv
            call = ("shell", {"command": ["bash", "-lc", line]})
        if call:
            item = {"type": "function_call", "id": "fc_fake01", "call_id": "call_fake01", "name": call[0],
                    "arguments": json.dumps(call[1]), "status": "completed"}
        else:
            item = {"type": "message", "id": "msg_fake01", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": "Done: the file is written.", "annotations": []}]}
        done = dict(base, status="completed", output=[item],
                    usage={"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                           "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                           "total_tokens": 15})
        self.sse([
            ("response.created", {"type": "response.created", "response": base}),
            ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}),
            ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
            ("response.completed", {"type": "response.completed", "response": done}),
        ])


def main():
    srv = ThreadingHTTPServer((sys.argv[1], int(sys.argv[2])), H)
    if os.environ.get("FAKE_MODEL_TLS"):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(*os.environ["FAKE_MODEL_TLS"].split(":"))
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    print("serving", flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
