"""The relay's bookkeeping, sans I/O: stdin lines, pending ids, lines from the app."""

import json

import pytest

from idea.bridge.session import RelaySession, one_line
from idea.endpoint import jsonrpc, loopback

LINES = [b'{"jsonrpc":"2.0","id":1,"method":"a"}', b"", b"not json", b'{"id":"\xc3\xa9"}']
STREAM = b"\n".join(LINES) + b"\n" + b'{"partial":'


def feed(session, chunks):
    lines = []
    for chunk in chunks:
        lines += session.client_bytes(chunk)
    return lines + session.client_end()


@pytest.mark.parametrize("split", ["whole", "byte by byte", "in threes"])
def test_stdin_lines_whatever_the_chunking(split):
    if split == "whole":
        chunks = [STREAM]
    elif split == "byte by byte":
        chunks = [STREAM[i : i + 1] for i in range(len(STREAM))]
    else:
        chunks = [STREAM[i : i + 3] for i in range(0, len(STREAM), 3)]
    assert feed(RelaySession(), chunks) == [*LINES, b'{"partial":']


def test_frames_carry_the_non_blank_lines_and_nothing_is_pending_before_sent():
    session = RelaySession()
    frames, carried, errors = session.client_frames([b"\r", b"  ", b'{"id":1,"method":"m"}\r'])
    assert carried == [b'{"id":1,"method":"m"}'] and errors == []
    decoded = loopback.FrameDecoder().feed(bytes(frames))
    assert [loopback.unpack(f) for f in decoded] == [{"t": "rpc", "data": carried[0]}]
    assert not session.pending
    session.sent(carried)
    assert session.pending


def answer(request_id):
    return jsonrpc.line(jsonrpc.result(request_id, {"x": "y"}))


@pytest.mark.parametrize(
    "line",
    [
        answer(7),  # as IdeA writes it: the id is read from the head
        jsonrpc.line(jsonrpc.error(7, -1, "no")),
        b'{"result":{},"id":7,"jsonrpc":"2.0"}\n',  # any other order: parsed whole
        b'{"jsonrpc":"2.0","id":7,"result":' + b'"' + b"z" * 1000 + b'"}\n',
    ],
)
def test_an_answer_retires_its_request(line):
    session = RelaySession()
    session.sent([b'{"jsonrpc":"2.0","id":7,"method":"m"}'])
    session.written([line])
    assert not session.pending


@pytest.mark.parametrize(
    "line",
    [
        answer("7"),  # another id: "7" is not 7
        answer(7.0),
        b'{"jsonrpc":"2.0","id":7,"method":"server-request"}\n',  # a request, not an answer
        b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"id":7}}\n',
        b"garbage\n",
    ],
)
def test_other_lines_retire_nothing(line):
    session = RelaySession()
    session.sent([b'{"jsonrpc":"2.0","id":7,"method":"m"}'])
    session.written([line])
    assert session.pending


def test_a_long_id_is_still_recognised():
    long_id = "i" * 1000
    session = RelaySession()
    session.sent([json.dumps({"jsonrpc": "2.0", "id": long_id, "method": "m"}).encode()])
    session.written([answer(long_id)])
    assert not session.pending


@pytest.mark.parametrize(
    "line",
    [
        b'{"jsonrpc":"2.0","id":3,"method":"m"}',
        b'\xef\xbb\xbf{"jsonrpc":"2.0","id":3,"method":"m"}',  # a BOM, as the server accepts
        '{"jsonrpc":"2.0","id":3,"method":"m"}'.encode("utf-16"),
        b'[{"jsonrpc":"2.0","id":3,"method":"m"}]',  # a batch (the server refuses it, with id null)
    ],
)
def test_requests_are_noted_in_any_encoding_json_allows(line):
    session = RelaySession()
    session.sent([line])
    assert [json.loads(error)["id"] for error in session.app_gone()] == [3]


def test_cancelled_requests_are_not_failed_when_the_app_goes():
    session = RelaySession()
    session.sent(
        [
            b'{"jsonrpc":"2.0","id":1,"method":"a"}',
            b'{"jsonrpc":"2.0","id":2,"method":"b"}',
            b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}',
        ]
    )
    [error] = [json.loads(line) for line in session.app_gone()]
    assert error["id"] == 2 and error["error"]["code"] == jsonrpc.CONNECTION_CLOSED


def test_app_lines_are_one_line_each_and_blank_ones_dropped():
    session = RelaySession()
    assert session.app_line(loopback.rpc(b'{"a":1}\n')) == b'{"a":1}\n'
    assert session.app_line(loopback.rpc(b'{"a":\r\n1}')) == b'{"a": 1}\n'
    assert session.app_line(loopback.pack({"t": "rpc", "data": '{"é":1}'})) == '{"é":1}\n'.encode()
    assert session.app_line(loopback.rpc(b" \n")) is None
    assert session.app_line(loopback.pack({"t": "newer", "data": b"{}"})) is None
    with pytest.raises(loopback.ProtocolError):
        session.app_line(b"\xc1")


def test_one_line():
    assert one_line(b"{}\n") == b"{}\n"
    assert one_line(b"  {}  ") == b"{}\n"
    assert one_line(b'{\n"a":\r1}\r\n') == b'{ "a": 1}\n'
