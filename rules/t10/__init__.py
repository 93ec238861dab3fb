"""T10, the unnamed 2T10 + action-point rule system (t10-ap-utdrag.txt, an excerpt).

Submodules: ``rolls`` (skill rolls 2T10 + bonuses against 11, DoS and DoF, chains,
duels, exact odds), ``character`` (abilities, skills, Initiative, house rules),
``system`` (the rule-system interface, :mod:`rules.system`) and ``combat`` (action
points, fatigue and damage, stances and weapons, as a state machine of
:mod:`rules.engine`).
"""
