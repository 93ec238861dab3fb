"""Helpers for the rules-core tests: scripted dice keep every test deterministic."""

import pytest


class ScriptedRng:
    """A stand-in for random.Random whose randint returns queued values in order.

    It records each (a, b) it was asked for and fails loudly when the script runs out
    or a queued value is outside the requested range.
    """

    def __init__(self, *values: int) -> None:
        self.queue = list(values)
        self.calls: list[tuple[int, int]] = []

    def randint(self, a: int, b: int) -> int:
        self.calls.append((a, b))
        if not self.queue:
            raise AssertionError("scripted dice ran out")
        value = self.queue.pop(0)
        if not a <= value <= b:
            raise AssertionError(f"scripted value {value} outside {a}..{b}")
        return value


@pytest.fixture(scope="session")
def scripted():
    """Factory fixture: ``scripted(1, 3)`` is an rng whose next dice are 1 then 3.

    Session-scoped (it only hands out the class) so Hypothesis tests can use it too."""
    return ScriptedRng
