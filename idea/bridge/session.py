"""The relay's bookkeeping, sans I/O: client lines → ``rpc`` frames, app frames → stdout lines.

Invariants: every request the client sent and the app did not answer is known here, so that it
can be answered with a ``CONNECTION_CLOSED`` error when the app goes away; a cancelled request
(``notifications/cancelled``) is forgotten, as the server answers it no more. A line from the
app is written unchanged but for its line breaks: one message, one line. The drivers
(``relay_select``: one POSIX select loop; ``relay_threads``: a stdin thread, for named pipes and
in-memory streams) do the I/O; ``Pending`` is thread-safe for the latter.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from idea.bridge.relay_common import APP_CLOSED
from idea.endpoint import jsonrpc, loopback

_CANCELLED = "notifications/cancelled"
# How IdeA's server (``jsonrpc.result``/``jsonrpc.error``, compact) starts every answer: the
# answered id is read from there without parsing the whole (maybe large) message.
_ANSWER_PREFIX = b'{"jsonrpc":"2.0","id":'
_NOTIFICATION_PREFIX = b'{"jsonrpc":"2.0","method":'
_ID_WINDOW = 256  # bytes of the answer searched for its id
_json_decoder = json.JSONDecoder()


def _key(request_id: Any) -> tuple[str, Any]:
    """A dict key per JSON-RPC id: 1, 1.0, "1" and true are four different ids."""
    kind = type(request_id)
    if kind is str or kind is int or kind is float or kind is bool:
        return kind.__name__, request_id
    return "json", json.dumps(request_id, sort_keys=True)


def _messages(data: bytes) -> list[dict[str, Any]]:
    """The JSON-RPC messages of one line (a batch is a list); nothing for non-JSON."""
    try:
        try:
            text = data.decode("utf-8")  # what clients send; json.loads(bytes) guesses in Python
        except UnicodeDecodeError:
            parsed = json.loads(data)  # UTF-16 or -32, which JSON allows, or not JSON at all
        else:
            parsed = _json_decoder.decode(text[1:] if text.startswith("\ufeff") else text)
    except (ValueError, RecursionError):
        return []
    items = parsed if isinstance(parsed, list) else [parsed]
    return [item for item in items if isinstance(item, dict)]


def _answered_ids(line: bytes) -> list[Any]:
    """The ids a line from the app answers (a response has an id and no method)."""
    if line.startswith(_ANSWER_PREFIX):
        head = line[len(_ANSWER_PREFIX) : len(_ANSWER_PREFIX) + _ID_WINDOW].decode(
            "utf-8", "replace"
        )
        try:
            request_id, end = _json_decoder.raw_decode(head)
        except (ValueError, RecursionError):
            pass  # a long id, or not what IdeA writes: parse it all below
        else:
            if head.startswith((',"result"', ',"error"'), end):
                return [request_id]
    elif line.startswith(_NOTIFICATION_PREFIX):
        return []
    return [m["id"] for m in _messages(line) if "id" in m and "method" not in m]


def one_line(data: bytes) -> bytes:
    """``data`` as one line ending with ``\\n`` (clients hang on a multi-line message)."""
    if data.find(b"\n") == len(data) - 1 and b"\r" not in data:
        return data  # what IdeA's server writes: compact JSON, one line break at the end
    data = data.strip()
    if b"\n" in data or b"\r" in data:
        # Raw line breaks in JSON are only whitespace between tokens: a space keeps it valid.
        data = data.replace(b"\r\n", b" ").replace(b"\n", b" ").replace(b"\r", b" ")
    return data + b"\n"


class Pending:
    """Ids of the client's requests sent to the app and not answered yet."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._ids: dict[tuple[str, Any], Any] = {}
        self._closed = False

    def __bool__(self) -> bool:
        return bool(self._ids)

    @property
    def closed(self) -> bool:
        return self._closed

    def wait_empty(self, timeout: float) -> None:
        """Block until every request was answered (or the app is gone), at most ``timeout``."""
        with self._lock:
            self._lock.wait_for(lambda: not self._ids or self._closed, timeout)

    def track(self, line: bytes) -> bool:
        """Note the requests in a client line; False once the app is gone (do not send)."""
        messages = _messages(line)
        with self._lock:
            if self._closed:
                return False
            for message in messages:
                method = message.get("method")
                if not isinstance(method, str):
                    continue
                if "id" in message:
                    self._ids[_key(message["id"])] = message["id"]
                elif method == _CANCELLED:
                    params = message.get("params")
                    if isinstance(params, dict) and "requestId" in params:
                        self._ids.pop(_key(params["requestId"]), None)
        return True

    def answered(self, line: bytes) -> None:
        """Forget the requests answered by a line from the app."""
        if not self._ids:  # nothing in flight: no need to look
            return
        for request_id in _answered_ids(line):
            with self._lock:
                self._ids.pop(_key(request_id), None)
                if not self._ids:
                    self._lock.notify_all()

    def forget(self, line: bytes) -> list[Any]:
        """Forget and return the ids of the requests in a client line that was not sent."""
        found = []
        with self._lock:
            for message in _messages(line):
                if isinstance(message.get("method"), str) and "id" in message:
                    found.append(message["id"])
                    self._ids.pop(_key(message["id"]), None)
        return found

    def close(self) -> list[Any]:
        """The app is gone: return every unanswered id; later ``track`` calls return False."""
        with self._lock:
            self._closed = True
            ids = list(self._ids.values())
            self._ids.clear()
            self._lock.notify_all()
        return ids


class RelaySession:
    """What goes where, for one relay; the driver moves the bytes."""

    def __init__(self) -> None:
        self.pending = Pending()
        self._partial = bytearray()  # stdin bytes after the last line break

    def client_bytes(self, data: bytes) -> list[bytes]:
        """The complete lines (without line ends) in this chunk of stdin, in order."""
        if not self._partial:
            if data.endswith(b"\n"):
                return data[:-1].split(b"\n")
            lines = data.split(b"\n")
            self._partial += lines.pop()
            return lines
        # Search only the new bytes for a line break: a huge line costs no more than its size.
        end = data.find(b"\n")
        if end < 0:
            self._partial += data
            return []
        self._partial += data[:end]
        lines = [bytes(self._partial)]
        self._partial.clear()
        lines.extend(self.client_bytes(data[end + 1 :]) if end + 1 < len(data) else ())
        return lines

    def client_end(self) -> list[bytes]:
        """Stdin closed: the last line, if it had no line break."""
        rest, self._partial = bytes(self._partial), bytearray()
        return [rest] if rest else []

    def client_line(self, raw: bytes) -> tuple[bytes | None, list[bytes]]:
        """For a driver whose answers may be read while this runs (another thread): the request
        is noted first, then framed. (the whole frame to send, or None; lines to write to stdout);
        ``None`` and no line: skip it (blank, or the app gone: ``pending.closed``)."""
        line = _content(raw)
        if line is None or not self.pending.track(line):
            return None, []
        try:
            return loopback.rpc_frame(line), []
        except loopback.ProtocolError as exc:  # a line larger than a frame may be
            return None, self._refused(line, exc)

    def client_frames(self, lines: list[bytes]) -> tuple[bytearray, list[bytes], list[bytes]]:
        """For one thread doing it all: (the frames of these stdin lines, the lines they carry,
        error lines for stdout). Nothing is noted yet: call ``sent`` once the frames are on their
        way, so that this bookkeeping overlaps with the app's work instead of delaying it."""
        frames = bytearray()
        carried: list[bytes] = []
        errors: list[bytes] = []
        for raw in lines:
            line = _content(raw)
            if line is None:
                continue
            try:
                frames += loopback.rpc_frame(line)
            except loopback.ProtocolError as exc:  # a line larger than a frame may be
                errors += self._refused(line, exc)
                continue
            carried.append(line)
        return frames, carried, errors

    def sent(self, lines: list[bytes]) -> None:
        for line in lines:
            self.pending.track(line)

    def _refused(self, line: bytes, exc: loopback.ProtocolError) -> list[bytes]:
        return [
            jsonrpc.line(jsonrpc.error(request_id, jsonrpc.INVALID_REQUEST, str(exc)))
            for request_id in self.pending.forget(line)
        ]

    def app_frame(self, payload: bytes) -> bytes | None:
        """The stdout line for a frame from the app, noted as answered; None for a message not
        for the client. Raises ``loopback.ProtocolError``."""
        line = self.app_line(payload)
        if line is not None:
            self.pending.answered(line)
        return line

    def app_line(self, payload: bytes) -> bytes | None:
        """``app_frame`` without the bookkeeping: call ``written`` once the line is out."""
        data = loopback.rpc_data(payload)
        if data is None:
            message = loopback.unpack(payload)
            data = message.get("data")
            if message["t"] != "rpc" or not isinstance(data, (bytes, str)):
                return None  # a message type from a newer app: not for the client
            if isinstance(data, str):
                data = data.encode("utf-8")
        if not data or data.isspace():
            return None  # no message: nothing for the client
        return one_line(data)

    def written(self, lines: list[bytes]) -> None:
        for line in lines:
            self.pending.answered(line)

    def app_gone(self) -> list[bytes]:
        """The error lines that answer every request still pending."""
        return [
            jsonrpc.line(
                jsonrpc.error(
                    request_id, jsonrpc.CONNECTION_CLOSED, f"{APP_CLOSED} before answering"
                )
            )
            for request_id in self.pending.close()
        ]


def _content(raw: bytes) -> bytes | None:
    """A stdin line without its line end; None for a blank one."""
    line = raw.rstrip(b"\r")
    return line if line.strip() else None
