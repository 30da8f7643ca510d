#!/usr/bin/env python3
"""Loopback HTTPS server for the `aasa fetch` / `aasa check` tests (Tests/aasaCLITests/FetchCLITests.swift).

Usage: aasa_test_server.py WORKDIR

Makes a throwaway CA and a server certificate for *.aasa.test with the openssl CLI, a self-signed
"rogue" certificate for the same names, and serves HTTPS on 127.0.0.1 only: one port with the
CA-signed certificate, one with the rogue one. WORKDIR/connections.json counts the TLS connections
by the Host of their first request. When this Python has the `h2` library, a third port speaks
HTTP/2 only (aasa_h2_server.py). Prints one JSON line {"port", "rogue_port", "h2_port", "ca"}
when ready (h2_port null without `h2`), and exits when its standard input closes (the test
process ended).

Behaviour is chosen by the first label of the Host, up to a '-': "flaky-1a2b.aasa.test" is a flaky
origin, and the suffix keeps each test's counters apart. The CDN is host cdn.aasa.test, path
/a/v1/DOMAIN, with behaviour chosen by DOMAIN the same way.
"""
import gzip
import json
import os
import ssl
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DOC_A = b'{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/app/*"}]}]}}'
DOC_A_REFORMATTED = b'''{
  "applinks" : {
    "details" : [ {
      "components" : [ { "exclude" : false, "/" : "/app/*" } ],
      "appIDs" : [ "ABCDE12345.com.example.app" ]
    } ]
  }
}'''
DOC_B = b'{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/app/*"}, {"/": "/shop/*"}]}]}}'

counters = {}
connections = {}
counters_lock = threading.Lock()


def count(key):
    with counters_lock:
        counters[key] = counters.get(key, 0) + 1
        return counters[key]


def make_certificates(workdir):
    def run(*args):
        subprocess.run(["openssl", *args], check=True, cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=aasa test CA",
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    with open(os.path.join(workdir, "san.ext"), "w") as f:
        f.write("subjectAltName=DNS:*.aasa.test,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
    run("req", "-new", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=aasa test server")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "server.pem", "-days", "2", "-extfile", "san.ext")
    run("req", "-x509", *ec, "-keyout", "rogue.key", "-out", "rogue.pem", "-days", "2", "-subj", "/CN=rogue",
        "-addext", "subjectAltName=DNS:*.aasa.test,DNS:localhost")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def stall(self, length):
        """A 200 announcing `length` bytes, its first few, then nothing for 30 s."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(length))
        self.end_headers()
        self.wfile.write(b'{"applinks"')
        self.wfile.flush()
        time.sleep(30)

    def send(self, status, body=b"", content_type="application/json", headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        host = (self.headers.get("Host") or "").split(":")[0].lower()
        if not getattr(self, "counted", False):
            # One handler serves one connection: WORKDIR/connections.json counts connections by
            # the Host of their first request, so tests can see connection reuse.
            self.counted = True
            with counters_lock:
                connections[host] = connections.get(host, 0) + 1
                with open(os.path.join(self.server.workdir, "connections.json.tmp"), "w") as f:
                    json.dump(connections, f)
                os.replace(os.path.join(self.server.workdir, "connections.json.tmp"), os.path.join(self.server.workdir, "connections.json"))
        if host == "cdn.aasa.test" and self.path.startswith("/a/v1/"):
            return self.cdn(self.path[len("/a/v1/"):])
        kind = host.split(".")[0].split("-")[0]
        well_known = self.path == "/.well-known/apple-app-site-association"
        root = self.path == "/apple-app-site-association"
        if not (well_known or root):
            return self.send(404, b"not here", "text/plain")
        if kind in ("good", "n", "reformat", "differs", "nocdn", "heal", "cdnbusy", "cdninvalid"):
            return self.send(200, DOC_A) if well_known else self.send(404, b"", "text/plain")
        if kind == "rootbig":
            # No .well-known copy; the root one is over the limit.
            return self.send(200, b'{"applinks": {"details": []' + b" " * (200 * 1024) + b"}") if root else self.send(404, b"", "text/plain")
        if kind == "biglength" and well_known:
            # A body announced over the limit, then a stall: it must be refused on the headers.
            return self.stall(200000)
        if kind == "invisible" and well_known:
            # A Location holding U+0085 (a line break to Python's splitlines), U+009B (a
            # terminal's CSI) and U+202E (a right-to-left override), as UTF-8 bytes.
            location = "https://x.example/a\u0085b\u009b2Jc\u202ed".encode("utf-8").decode("latin-1")
            return self.send(301, b"", "text/html", [("Location", location)])
        if kind == "root":
            return self.send(200, DOC_A) if root else self.send(404, b"<html>not found</html>", "text/html")
        if kind == "redirect":
            if well_known:
                return self.send(301, b"", "text/html", [("Location", "https://www.example.test/elsewhere")])
            return self.send(404, b"", "text/plain")
        if kind == "flaky" and well_known:
            return self.send(500, b"oops", "text/plain") if count(host) == 1 else self.send(200, DOC_A)
        if kind == "busy" and well_known:
            return self.send(429, b"slow down", "text/plain", [("Retry-After", "1")]) if count(host) == 1 else self.send(200, DOC_A)
        if kind == "muddled" and well_known:
            # A Retry-After that is neither seconds nor an HTTP date: ignored, as RFC 9110 asks.
            return self.send(503, b"later", "text/plain", [("Retry-After", "soon")]) if count(host) == 1 else self.send(200, DOC_A)
        if kind == "stall" and well_known:
            return self.stall(1000)
        if kind == "full" and well_known:
            # A document of exactly Apple's 128 KiB limit.
            return self.send(200, DOC_A[:-1] + b" " * (131072 - len(DOC_A)) + b"}")
        if kind == "big" and well_known:
            padding = b" " * (200 * 1024)
            return self.send(200, b'{"applinks": {"details": []}' + padding + b"}")
        if kind == "emptytype" and well_known:
            return self.send(200, DOC_A, "")
        if kind == "text" and well_known:
            return self.send(200, DOC_A, "text/plain")
        if kind == "invalid" and well_known:
            return self.send(200, b'{"applinks": {"details": [', "application/json")
        if kind == "etag" and well_known:
            tag = '"v1"'
            if self.headers.get("If-None-Match") == tag:
                self.send_response(304)
                self.send_header("ETag", tag)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            return self.send(200, DOC_A, headers=[("ETag", tag), ("Last-Modified", "Tue, 01 Dec 2026 10:00:00 GMT")])
        if kind == "lastmod" and well_known:
            stamp = "Mon, 30 Nov 2026 08:00:00 GMT"
            if self.headers.get("If-Modified-Since") == stamp:
                self.send_response(304)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            return self.send(200, DOC_A, headers=[("Last-Modified", stamp)])
        if kind == "toggle" and well_known:
            return self.send(200, DOC_A) if count(host) == 1 else self.send(500, b"broken", "text/plain")
        if kind == "unasked304":
            # 304 to every request, conditional or not: nothing was validated.
            return self.send(304, b"", "text/plain")
        if kind == "plain304" and well_known:
            # The document without validators first, then 304 whatever the request says.
            return self.send(200, DOC_A) if count(host) == 1 else self.send(304, b"", "text/plain")
        if kind == "later" and well_known:
            return self.send(503, b"later", "text/plain", [("Retry-After", "60")])
        if kind == "gzipped" and well_known:
            return self.send(200, gzip.compress(DOC_A), headers=[("Content-Encoding", "gzip")])
        if kind == "trailer" and well_known:
            # text/html for the body; a chunked trailer claims application/json afterwards.
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Trailer", "Content-Type")
            self.end_headers()
            self.wfile.write(b"%x\r\n%s\r\n0\r\nContent-Type: application/json\r\n\r\n" % (len(DOC_A), DOC_A))
            return
        if kind == "endlesstrailer" and well_known:
            # A chunked 200 whose trailer section never ends (libcurl bounds headers, not
            # trailers): written until the client hangs up, or for at most 20 seconds.
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.write(b"%x\r\n%s\r\n0\r\n" % (len(DOC_A), DOC_A))
            line = b"X-Trailer: " + b"t" * 1000 + b"\r\n"
            stop = time.time() + 20
            try:
                while time.time() < stop:
                    self.wfile.write(line * 64)
            except OSError:
                pass
            self.close_connection = True
            return
        if kind == "slowerror" and well_known:
            # A 500 just before a one-second timeout, every time: retried only while the
            # request's one --timeout lasts.
            count(host)
            time.sleep(0.8)
            return self.send(500, b"slow oops", "text/plain")
        if kind == "emptyencoding" and well_known:
            return self.send(200, DOC_A, headers=[("Content-Encoding", "")])
        if kind == "twotypes" and well_known:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(DOC_A)))
            self.end_headers()
            self.wfile.write(DOC_A)
            return
        if kind == "garbled" and well_known:
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\nContent-Type: application/json\r\n\r\n" + DOC_A)
            self.close_connection = True
            return
        if kind == "badchunk" and well_known:
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n" + DOC_A + b"\r\n0\r\n\r\n")
            self.close_connection = True
            return
        if kind == "hugeheaders" and well_known:
            padding = b"".join(b"X-Padding-%d: %s\r\n" % (i, b"p" * 1000) for i in range(300))
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + padding
                             + b"Content-Length: %d\r\n\r\n" % len(DOC_A) + DOC_A)
            self.close_connection = True
            return
        if kind == "continues" and well_known:
            self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n" * 1000 + b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             + b"Content-Length: %d\r\n\r\n" % len(DOC_A) + DOC_A)
            self.close_connection = True
            return
        if kind == "twolengths" and well_known:
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nContent-Length: 5\r\n\r\n"
                             % len(DOC_A) + DOC_A)
            self.close_connection = True
            return
        if kind == "lateencoding" and well_known:
            padding = b"".join(b"X-Padding-%d: p\r\n" % i for i in range(250))
            body = gzip.compress(DOC_A)
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + padding
                             + b"Content-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
            self.close_connection = True
            return
        if kind == "longheader" and well_known:
            # One header line of 200 KB, past libcurl's 100 KB for a line (which libcurl reports
            # as out of memory, with no message).
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Long: " + b"l" * (200 * 1024)
                             + b"\r\nContent-Length: %d\r\n\r\n" % len(DOC_A) + DOC_A)
            self.close_connection = True
            return
        if kind == "escape" and well_known:
            location = "https://x.example/\x1b]0;pwned\x07\x1b[2J\x1b[31mFAKE: ok"
            return self.send(301, b"", "text/html", [("Location", location)])
        return self.send(404, b"", "text/plain")

    def cdn(self, domain):
        kind = domain.split(".")[0].split("-")[0]
        if kind == "nocdn":
            return self.send(404, b"", "text/plain")
        if kind == "cdnbusy":
            return self.send(429, b"slow down", "text/plain", [("Retry-After", "0")])
        if kind == "cdninvalid":
            return self.send(200, b'{"applinks": {"details": [')
        if kind == "reformat":
            return self.send(200, DOC_A_REFORMATTED)
        if kind == "differs":
            return self.send(200, DOC_B)
        if kind == "heal":
            return self.send(200, DOC_B if count("cdn " + domain) == 1 else DOC_A)
        if kind in ("good", "n", "text", "root", "etag", "toggle", "flaky", "busy"):
            return self.send(200, DOC_A)
        return self.send(404, b"", "text/plain")


class TLSServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def __init__(self, context, workdir):
        super().__init__(("127.0.0.1", 0), Handler)
        self.context = context
        self.workdir = workdir

    def finish_request(self, request, client_address):
        # The handshake runs in the request's own thread, so a slow or refused one blocks nobody.
        try:
            request = self.context.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError):
            return
        super().finish_request(request, client_address)

    def handle_error(self, request, client_address):
        pass


def serve(workdir, certificate, key):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    server = TLSServer(context, workdir)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


def serve_h2(workdir, certificate, key):
    """The HTTP/2 port (aasa_h2_server.py), or None when this Python has no `h2` library."""
    try:
        import aasa_h2_server
    except ImportError:
        return None
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    return aasa_h2_server.serve(context, DOC_A, count, workdir)


def main():
    workdir = sys.argv[1]
    make_certificates(workdir)
    port = serve(workdir, os.path.join(workdir, "server.pem"), os.path.join(workdir, "server.key"))
    rogue_port = serve(workdir, os.path.join(workdir, "rogue.pem"), os.path.join(workdir, "rogue.key"))
    h2_port = serve_h2(workdir, os.path.join(workdir, "server.pem"), os.path.join(workdir, "server.key"))
    print(json.dumps({"port": port, "rogue_port": rogue_port, "h2_port": h2_port, "ca": os.path.join(workdir, "ca.pem")}), flush=True)
    sys.stdin.read()


if __name__ == "__main__":
    main()
