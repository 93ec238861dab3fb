"""Aoristos combat (p. 6-14): combat transitions arrive with the combat issue."""
