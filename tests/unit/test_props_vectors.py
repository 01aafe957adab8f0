"""Vectors in write parameters: the list they are, written out in a few characters."""

from __future__ import annotations

import pytest

from graph import models
from graph.props import Numbers, node_props

pytestmark = pytest.mark.unit


def test_a_vector_is_sent_as_its_list_and_shown_short() -> None:
    # The driver writes out every parameter (repr) before sending, whatever the log level:
    # a thousand beliefs' vectors held the event loop for a tenth of a second.
    vector = [0.125] * 384
    chunk = {"uid": "c", "workspace": "w", "file_id": "f", "peer": "p", "peer_key": "k"}
    chunk |= {"path": "a.md", "index": 0, "content": "x", "embedding": vector}
    props = node_props(models.FileChunk, chunk)
    assert isinstance(props["embedding"], Numbers) and props["embedding"] == vector
    assert repr(props["embedding"]) == "<384 numbers>"
    assert props["content"] == "x" and props["index"] == 0
    assert repr([Numbers(vector), [Numbers([1.0] * 20)]]) == "[<384 numbers>, [<20 numbers>]]"
