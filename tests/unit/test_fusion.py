import pytest

from reasoners.search.fusion import rrf

pytestmark = pytest.mark.unit


def test_items_found_by_both_retrievers_rank_first() -> None:
    vector = ["a", "b", "c"]
    fulltext = ["c", "d", "a"]
    fused = rrf([vector, fulltext], k=60)
    assert [item for item, _ in fused] == ["a", "c", "b", "d"]
    scores = dict(fused)
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 63)
    assert scores["d"] == pytest.approx(1 / 62)


def test_ties_keep_first_appearance_order() -> None:
    fused = rrf([["x", "y"], ["z", "w"]])
    # x and z tie at 1/61, y and w at 1/62: x before z, y before w.
    assert [item for item, _ in fused] == ["x", "z", "y", "w"]


def test_weights_shift_the_order() -> None:
    fused = rrf([["a", "b"], ["b", "a"]], weights=[1.0, 3.0])
    assert [item for item, _ in fused] == ["b", "a"]
    assert dict(fused)["b"] == pytest.approx(1 / 62 + 3 / 61)


def test_repeated_item_in_one_ranking_counts_once_at_best_rank() -> None:
    assert dict(rrf([["a", "b", "a"]]))["a"] == pytest.approx(1 / 61)


def test_empty_inputs() -> None:
    assert rrf([]) == []
    assert rrf([[], []]) == []


def test_zero_weight_ranking_still_lists_its_items_last() -> None:
    fused = rrf([["a"], ["b"]], weights=[1.0, 0.0])
    assert fused == [("a", pytest.approx(1 / 61)), ("b", 0.0)]


@pytest.mark.parametrize(
    ("k", "weights", "message"),
    [(-1, None, "k must be"), (60, [1.0], "weights for 2"), (60, [1.0, -1.0], ">= 0")],
)
def test_invalid_arguments(k: int, weights: list[float] | None, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rrf([["a"], ["b"]], k=k, weights=weights)
