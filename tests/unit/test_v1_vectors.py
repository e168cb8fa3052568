"""Version 1 kept for its makers (PROTOCOL.md appendix A, tests/vectors/v1): the schema text printed in the document
hashes to version 1's schema hash, the vectors carry the same text and hash, and every frame of them still decodes
with today's codec (the two versions' layouts are the same) to the payload it records."""

from __future__ import annotations

import hashlib
import json

from firmware_protocol import decode_message, encode_message
from firmware_protocol.framing import Frame, FrameDecoder
from tests.support.paths import ROOT

V1 = ROOT / "tests" / "vectors" / "v1"


def appendix_schema() -> str:
    doc = (ROOT / "firmware_protocol" / "PROTOCOL.md").read_text(encoding="utf-8")
    return doc[doc.index("## Appendix A"):].split("```\n")[1]


def test_the_appendix_text_is_version_1s_schema_and_the_vectors_agree() -> None:
    text = appendix_schema()
    assert text.startswith("protocol 1 ")
    assert hashlib.sha256(text.encode("ascii")).hexdigest()[:8] == "8ffd51c4"
    vectors = json.loads((V1 / "messages.json").read_text(encoding="utf-8"))
    assert (vectors["protocol_version"], vectors["schema_hash"]) == (1, "8ffd51c4")
    assert "".join(line + "\n" for line in vectors["schema"]) == text


def test_every_version_1_frame_decodes_and_encodes_again() -> None:
    vectors = json.loads((V1 / "messages.json").read_text(encoding="utf-8"))["messages"]
    assert len(vectors) >= 20
    for v in vectors:
        (frame,) = [f for f in FrameDecoder().feed(bytes.fromhex(v["frame"])) if isinstance(f, Frame)]
        assert (frame.type, frame.seq, frame.payload.hex()) == (v["type"], v["seq"], v["payload"]), v["name"]
        assert encode_message(decode_message(frame.type, frame.payload), frame.seq).hex() == v["frame"], v["name"]
