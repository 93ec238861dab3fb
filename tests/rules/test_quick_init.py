"""combat_kit.quick_init: a frozen dataclass's faster __init__ makes the same values."""

import dataclasses

import pytest

from rules.combat_kit import quick_init

Quick = quick_init(
    dataclasses.make_dataclass(
        "Quick", [("a", int), ("b", str, "x"), ("c", tuple, ())], frozen=True
    )
)


def test_same_values_defaults_and_semantics():
    q = Quick(1, c=(2,))
    assert (q.a, q.b, q.c) == (1, "x", (2,))
    assert q == Quick(a=1, b="x", c=(2,))
    assert hash(q) == hash(Quick(1, "x", (2,)))
    assert repr(q) == "Quick(a=1, b='x', c=(2,))"
    assert dataclasses.replace(q, b="y").b == "y"
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.a = 2
    with pytest.raises(TypeError):
        Quick()
    with pytest.raises(TypeError):
        Quick(1, d=2)


def test_refuses_what_it_cannot_make():
    @dataclasses.dataclass(frozen=True)
    class Factory:
        a: list = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True)
    class Checked:
        a: int

        def __post_init__(self):
            pass

    for cls in (Factory, Checked):
        with pytest.raises(TypeError):
            quick_init(cls)
