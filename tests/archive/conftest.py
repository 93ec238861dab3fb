"""The archive tests' shared fixture: `played`, three campaigns with their fights played
(tests/archive/test_roundtrip.py), which tests/archive/test_hostile.py builds on."""

from tests.archive.test_roundtrip import played  # noqa: F401 - a fixture for the folder
