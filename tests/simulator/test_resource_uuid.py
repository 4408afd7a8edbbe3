"""A resource row's uuid is the version-4 UUID text of its digest, as :class:`uuid.UUID` writes it."""

import hashlib
import uuid

from hypothesis import given
from hypothesis import strategies as st

from simulator.resource_rows import uuid4_text


@given(st.binary(min_size=16, max_size=32))
def test_uuid4_text_is_what_uuid_writes(digest: bytes) -> None:
    assert uuid4_text(digest) == str(uuid.UUID(bytes=digest[:16], version=4))


def test_uuid4_text_of_a_stack_resource_row() -> None:
    digest = hashlib.sha256(b"5f0c3c4e/resource/7").digest()
    text = uuid4_text(digest)
    assert text == str(uuid.UUID(bytes=digest[:16], version=4))
    assert uuid.UUID(text).version == 4
    assert text[14] == "4" and text[19] in "89ab"
