"""HTTP/2 side of the loopback test server (aasa_test_server.py), for the `aasa fetch` tests.

libcurl speaks HTTP/2 to any HTTPS server that offers it in ALPN, as most origins and Apple's
CDN do, so a real fetch usually goes over HTTP/2 and meets its own ways of misbehaving: frames
in place of lines, header blocks continued without end, streams reset or refused. This port
offers only "h2" in ALPN and speaks it with the `h2` library (PyPI), so a request that gets an
answer here was made over HTTP/2.

Behaviour is chosen by the first label of the :authority, up to a '-', as on the HTTP/1.1 port.
Where a behaviour breaks the protocol on purpose, it writes the frames itself (`frame`) and
closes the connection afterwards; every other answer goes through the library.
"""
import gzip
import json
import os
import socket
import ssl
import threading
import time

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import hpack

# Frame types and flags (RFC 9113, section 6).
DATA, HEADERS, CONTINUATION = 0x0, 0x1, 0x9
END_STREAM, END_HEADERS = 0x1, 0x4


def frame(kind, flags, stream, payload):
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


class Connection:
    """One client connection: requests are answered in turn, on the connection's own thread."""

    def __init__(self, sock, document, count, requests):
        self.sock = sock
        self.document = document
        self.count = count
        self.requests = requests
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def receive(self):
        """Reads once and returns the events; [] when the client has gone."""
        try:
            data = self.sock.recv(65536)
        except OSError:
            return []
        if not data:
            return []
        try:
            events = self.conn.receive_data(data)
        except h2.exceptions.ProtocolError:
            return []
        self.flush()
        return events

    def run(self):
        self.conn.initiate_connection()
        self.flush()
        while True:
            events = self.receive()
            if not events:
                return
            for event in events:
                if isinstance(event, h2.events.RequestReceived):
                    headers = dict(event.headers)
                    if self.answer(event.stream_id, headers) == "closed":
                        return

    def respond(self, stream, status, body=b"", content_type="application/json", headers=()):
        fields = [(":status", str(status)), ("content-type", content_type), ("content-length", str(len(body)))]
        self.conn.send_headers(stream, fields + list(headers), end_stream=not body)
        self.flush()
        if body:
            self.send_body(stream, body, end=True)

    def send_body(self, stream, body, end):
        """`body` in frames as the client's flow-control windows allow, reading its updates."""
        body = memoryview(body)
        while body:
            room = min(self.conn.local_flow_control_window(stream), self.conn.max_outbound_frame_size)
            if room <= 0:
                if not self.receive():
                    raise OSError("the client went away")
                continue
            self.conn.send_data(stream, body[:room].tobytes(), end_stream=end and room >= len(body))
            body = body[room:]
            self.flush()

    def answer(self, stream, headers):
        authority = headers.get(":authority", "").split(":")[0].lower()
        path = headers.get(":path", "")
        kind = authority.split(".")[0].split("-")[0]
        self.requests(authority)
        if path != "/.well-known/apple-app-site-association":
            return self.respond(stream, 404, b"not here", "text/plain")
        if kind in ("good", "h2good"):
            return self.respond(stream, 200, self.document)
        if kind == "h2gzip":
            return self.respond(stream, 200, gzip.compress(self.document), headers=[("content-encoding", "gzip")])
        if kind == "h2busy":
            # Refused once with a Retry-After of none at all, then answered.
            if self.count(authority) == 1:
                return self.respond(stream, 503, b"later", "text/plain", [("retry-after", "0")])
            return self.respond(stream, 200, self.document)
        if kind == "h2big":
            # A body without a length that never ends, as fast as the client takes it.
            self.conn.send_headers(stream, [(":status", "200"), ("content-type", "application/json")])
            self.flush()
            try:
                self.send_body(stream, b'{"applinks": {"details": []}' + b" " * (64 << 20), end=True)
            except (OSError, h2.exceptions.ProtocolError):
                pass
            return "closed"
        if kind == "h2stall":
            # Headers and a few bytes of the body, then nothing for 30 s.
            self.conn.send_headers(stream, [(":status", "200"), ("content-type", "application/json"), ("content-length", "1000")])
            self.conn.send_data(stream, b'{"applinks"')
            self.flush()
            time.sleep(30)
            return "closed"
        if kind == "h2reset":
            # Part of the body, then the stream reset: the answer never completes.
            self.conn.send_headers(stream, [(":status", "200"), ("content-type", "application/json")])
            self.conn.send_data(stream, self.document[:20])
            self.conn.reset_stream(stream, h2.errors.ErrorCodes.INTERNAL_ERROR)
            self.flush()
            return None
        if kind == "h2goaway":
            # The connection closed before the request was taken, every time.
            self.conn.close_connection(h2.errors.ErrorCodes.ENHANCE_YOUR_CALM, last_stream_id=0)
            self.flush()
            return "closed"
        if kind == "h2length":
            # A content-length that the body does not fill before the stream ends.
            self.conn.send_headers(stream, [(":status", "200"), ("content-type", "application/json"), ("content-length", "5000")])
            self.flush()
            self.sock.sendall(frame(DATA, END_STREAM, stream, self.document))
            self.linger()
            return "closed"
        if kind == "h2headers":
            # 140 header fields of a kilobyte each: past libcurl's 128 KB of headers, in fewer
            # frames (Huffman-coded) than the CONTINUATION frames nghttp2 allows, so that it is
            # libcurl's limit that refuses them.
            fields = [(":status", "200"), ("content-type", "application/json"), ("content-length", str(len(self.document)))]
            fields += [("x-padding-%d" % i, "p" * 1000) for i in range(140)]
            self.conn.send_headers(stream, fields)
            self.flush()
            self.send_body(stream, self.document, end=True)
            return None
        if kind == "h2fields":
            # 250 small header fields: under any size limit, past the count a fetch accepts.
            fields = [(":status", "200"), ("content-type", "application/json"), ("content-length", str(len(self.document)))]
            fields += [("x-field-%d" % i, "f") for i in range(250)]
            self.conn.send_headers(stream, fields)
            self.flush()
            self.send_body(stream, self.document, end=True)
            return None
        if kind == "h2continuation":
            # A header block that never ends: CONTINUATION frames of new fields, without end,
            # until the client hangs up or 20 s pass.
            self.endless_continuation(stream, [(":status", "200"), ("content-type", "application/json")])
            return "closed"
        if kind == "h2trailers":
            # The whole body, then a trailer block continued without end.
            self.conn.send_headers(stream, [(":status", "200"), ("content-type", "application/json")])
            self.flush()
            self.send_body(stream, self.document, end=False)
            self.endless_continuation(stream, [("x-trailer", "t")], end_stream=True)
            return "closed"
        if kind == "h2informational":
            # A thousand 103 Early Hints before the answer.
            for _ in range(1000):
                self.conn.send_headers(stream, [(":status", "103"), ("link", "</a.css>; rel=preload")])
            self.flush()
            return self.respond(stream, 200, self.document)
        return self.respond(stream, 404, b"", "text/plain")

    def linger(self):
        """Reads until the client hangs up (or 20 s pass), as a server that sent a broken frame
        but kept its connection would."""
        self.sock.settimeout(20)
        try:
            while self.sock.recv(65536):
                pass
        except OSError:
            pass

    def endless_continuation(self, stream, first, end_stream=False):
        # A fresh encoder matches the client's decoder only on a connection that has sent no
        # header block before: these behaviours answer the connection's first request.
        encoder = hpack.Encoder()
        self.sock.sendall(frame(HEADERS, END_STREAM if end_stream else 0, stream, encoder.encode(first)))
        stop = time.time() + 20
        number = 0
        try:
            while time.time() < stop:
                block = encoder.encode([("x-flood-%d" % (number + i), "f" * 100) for i in range(100)])
                number += 100
                self.sock.sendall(frame(CONTINUATION, 0, stream, block))
        except OSError:
            pass


def serve(context, document, count, workdir):
    """Listens on 127.0.0.1 with `context` (ALPN "h2" only); returns the port. Every request is
    counted by its :authority in WORKDIR/h2-requests.json, so tests can see retries."""
    context.set_alpn_protocols(["h2"])
    counts = {}
    lock = threading.Lock()

    def requests(authority):
        with lock:
            counts[authority] = counts.get(authority, 0) + 1
            temporary = os.path.join(workdir, "h2-requests.json.tmp")
            with open(temporary, "w") as f:
                json.dump(counts, f)
            os.replace(temporary, os.path.join(workdir, "h2-requests.json"))

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(256)

    def handle(client):
        try:
            sock = context.wrap_socket(client, server_side=True)
        except (ssl.SSLError, OSError):
            client.close()
            return
        try:
            if sock.selected_alpn_protocol() == "h2":
                Connection(sock, document, count, requests).run()
        except (OSError, h2.exceptions.ProtocolError, ssl.SSLError):
            pass
        finally:
            try:
                sock.close()
            except OSError:
                pass

    def accept():
        while True:
            client, _ = listener.accept()
            threading.Thread(target=handle, args=(client,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return listener.getsockname()[1]
