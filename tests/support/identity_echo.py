#!/usr/bin/python3
"""A service behind an authd gateway, for authd's tests (interface.md 13.4).

Listens on 127.0.0.1 (a free port), writes the port to --port-file once it
accepts connections, and answers every GET, POST and DELETE with 200 and a JSON
object naming what the gateway passed on: the method, the path, every
Authd-User-Id field and every Authorization field. It does no checking of
its own: it trusts the gateway, which is the point of the deployment it
stands for. Runs until SIGTERM.
"""

import argparse
import json
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Echo(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        self.answer()

    def do_POST(self):
        self.answer()

    def do_DELETE(self):
        self.answer()

    def answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        body = json.dumps({
            "service": "identity-echo",
            "method": self.command,
            "path": self.path,
            "authdUserId": self.headers.get_all("Authd-User-Id") or [],
            "authorization": self.headers.get_all("Authorization") or [],
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    with open(args.port_file + ".tmp", "w") as out:
        out.write("{}\n".format(server.server_address[1]))
    os.rename(args.port_file + ".tmp", args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
