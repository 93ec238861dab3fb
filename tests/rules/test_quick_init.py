"""combat_kit.quick_init: a frozen dataclass's faster __init__ makes the same values."""

import dataclasses

import pytest

from rules.combat_kit import quick_init, slotted

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


# combat_kit.slotted: a slotted frozen dataclass copied by `changed` and `copied`.


def test_a_slotted_value_copies_as_a_dict_held_one():
    import copy
    import pickle

    from rules.aoristos.combat.state import Combatant, Encounter, HouseRules
    from rules.combat_kit import changed, copied

    c = Combatant("c1", "Albert", skills=(("firearms", 4),), cp=5)
    moved = changed(c, x=3.0, cp=2)
    assert type(moved) is Combatant
    assert not hasattr(moved, "__dict__")
    assert moved == dataclasses.replace(c, x=3.0, cp=2)
    assert hash(moved) == hash(dataclasses.replace(c, x=3.0, cp=2))
    assert (c.x, c.cp) == (0.0, 5)  # the original is untouched
    assert copied(c, {}) == c
    assert copied(c, {}) is not c
    with pytest.raises(dataclasses.FrozenInstanceError):
        moved.cp = 1
    with pytest.raises(TypeError, match="no field 'kp'"):
        changed(c, kp=1)
    state = Encounter(house=HouseRules(melee_reach=3.0), combatants=(c,))
    later = state.put(moved, round=2)
    assert later.round == 2
    assert later.get("c1") is moved
    assert state.round == 0
    assert pickle.loads(pickle.dumps(later)) == later
    assert copy.deepcopy(later) == later


def test_slotted_refuses_a_class_without_slots():
    with pytest.raises(TypeError):
        slotted(dataclasses.make_dataclass("Plain", [("a", int)], frozen=True))
