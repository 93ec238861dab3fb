"""The arithmetic of Aoristos combat against the rule text's worked figures (p. 6-13)."""


import pytest

from rules.aoristos.combat import figures as F
from rules.aoristos.combat.gear import Armour, parse_fire_modes
from rules.aoristos.dice import Purpose, choose_counted
from rules.errors import RulesError


@pytest.mark.parametrize(
    ("metres", "cost"),
    [(1, 1), (2, 1), (3, 3), (7, 3), (8, 4), (9, 4), (10, 5), (11, 5), (13, 6), (14, 7)],
)
def test_ansgar_single_move_costs_p7(metres, cost):
    """p. 7, Ansgar (RÖR 2, FÖR 7): 1 KP to 2 m, 3 KP to 7 m, each KP more 2 m more."""
    assert F.movement_cost(metres, agility=2, movement=7) == cost


def test_ansgar_two_moves_by_round_total_p7():
    """p. 7: the rule's sentence counts the round's total: 2 m, then 8 m more → 1 + 5."""
    first = F.movement_cost(2, agility=2, movement=7)
    second = F.movement_cost(8, agility=2, movement=7, moved_before=2)
    assert (first, second, first + second) == (1, 5, 6)


def test_ansgar_two_moves_by_each_move_p7():
    """p. 7: the example's figure (1 + 1 + 2 + 1) 5 KP charges each move on its own."""
    first = F.movement_cost(2, agility=2, movement=7, by_round_total=False)
    second = F.movement_cost(8, agility=2, movement=7, moved_before=2, by_round_total=False)
    assert (first, second, first + second) == (1, 4, 5)


def test_movement_limit_is_twice_forflyttning_p7():
    assert F.movement_cost(14, agility=2, movement=7) == 7
    assert F.movement_cost(14.5, agility=2, movement=7) is None
    assert F.movement_cost(5, agility=2, movement=7, moved_before=10) is None


def test_sitting_or_lying_moves_a_metre_per_kp_up_to_forflyttning_p7():
    assert F.movement_cost(3, agility=2, movement=7, posture="lying") == 3
    assert F.movement_cost(2.5, agility=2, movement=7, posture="sitting") == 3
    assert F.movement_cost(8, agility=2, movement=7, posture="sitting") is None


def test_jakai_stress_counts_the_lowest_die_p6():
    """p. 6: Jakai's 1B1F stress shows 1 and 3; the 1 counts."""
    hand = F.stress_hand()
    assert str(hand) == "1B1F"
    assert choose_counted(hand, (1, 3), F.STRESS_PURPOSE) == (1,)
    assert F.effective_drive(7, 0) == 7


def test_nervchock_lowers_drive_and_movement_p13():
    assert F.effective_drive(7, 2) == 5
    assert F.effective_movement(7, 9) == 0


def test_levi_one_cheap_aim_level_p8():
    """p. 8: Levi kneels (one condition met): one level costs 1 KP, each further 2."""
    assert F.aim_cost(1, 1) == 1
    assert F.aim_cost(2, 1) == 3
    assert F.aim_cost(3, 4) == 3


@pytest.mark.parametrize(
    ("categories", "malus"),
    [
        ((), 3),  # light crossbow: the plain formula
        (("improvised", "thrown"), 12),  # street stone: 3 × 2 × 2
        (("rifled",), 1),  # modern SMG: 3 × 0.5
        (("heavy_or_long", "rifled"), 0),  # assault carbine: 1 × 0.5
    ],
)
def test_range_malus_at_37_metres_p10(categories, malus):
    assert F.range_malus(37, categories) == malus


def test_distance_aim_halves_the_malus_per_level_p10():
    assert F.range_malus(44, (), range_aim=1) == 2
    assert F.range_malus(44, (), range_aim=2) == 1
    assert F.range_aim_cost(2) == 8


def test_range_categories_apply_in_the_tables_order_p10():
    # 15 m: 1; rifled first would give 0 then ×2 = 0; the table's order gives 1 × 2 // 2 = 1.
    assert F.range_malus(15, ("rifled", "thrown")) == 1
    with pytest.raises(RulesError):
        F.range_malus(10, ("laser",))


def test_marx_attack_hand_p9():
    """p. 9: Marx does not aim: 2B2T; dice 1, 4, 5, 6 → the 1 and the 4 count."""
    hand = F.attack_hand()
    assert str(hand) == "2B2T"
    assert choose_counted(hand, (1, 4, 5, 6), Purpose.TEST) == (1, 4)


def test_attack_hand_collects_every_f_and_t_p9():
    assert str(F.attack_hand(aim=1)) == "2B1T"
    assert str(F.attack_hand(aim=2, two_handed_grip=True)) == "2B1F"
    assert str(F.attack_hand(occupied_hands=2, nerve_shock=1)) == "2B4T"
    assert str(F.attack_hand(projectiles=3)) == "2B"
    assert str(F.attack_hand(projectiles=9)) == "2B4F"  # 6 dice at most


def test_attack_test_base_is_skill_plus_lower_of_ror_and_sin_p9():
    assert F.attack_test_base(3, 2, 5) == 5
    assert F.attack_test_base(3, 4, 1) == 4


def test_area_table_and_free_choice_p9():
    assert F.area_options((6,), False) == {"torso"}
    assert F.area_options((3,), False) == {"left_arm"}
    assert F.area_options((1,), False) == {"left_leg"}
    assert F.area_options((2, 4), True) == {"right_leg", "right_arm"}
    assert "head" in F.area_options((2, 2), True)
    assert str(F.area_hand(2)) == "1B2F"


def test_etka_active_strength_p12():
    """p. 12: TB 6 + dice 4 − ST 9 = 1; dice again 4; sling +5 → active 10; armour 5 → 5."""
    active = F.active_strength(
        margin=6 + 4 - 9, dice_sum=4, real_weapon=True, weapon_strength=5, physique=None
    )
    assert active == 10
    assert active - 5 == 5


def test_contact_attacks_add_physique_p12():
    assert (
        F.active_strength(margin=2, dice_sum=5, real_weapon=False, weapon_strength=0, physique=3)
        == 5
    )


def test_miriam_damage_p13():
    """p. 13: active 23 − Totalrustning 4 = 19; Härdighet 3 → 6 damage."""
    assert F.damage(23 - 4, 3) == 6


def test_head_divides_by_two_and_nothing_below_zero_p13():
    assert F.damage(7, 5, head=True) == 3
    assert F.damage(-4, 3) == 0


def test_total_armour_counts_the_torso_three_times_p12():
    vest = Armour("vest", "Väst", (("torso", 4),))
    helmet = Armour("helmet", "Hjälm", (("head", 3),))
    legs = Armour("legs", "Benskydd", (("right_leg", 3), ("left_leg", 3)))
    shield = Armour("shield", "Sköld", (("left_arm", 9),), shield=True)
    assert F.total_armour([vest, helmet, legs, shield]) == (12 + 3 + 6) // 10


def test_wound_effects_p13():
    """p. 13: nervchock = damage, bleed = damage − 1; organtrauma damage − 1 off the limbs."""
    assert F.wound(6, None) == {"nerve_shock": 6, "bleed_rate": 5, "organ_trauma": 5}
    assert F.wound(3, "right_leg") == {"nerve_shock": 3, "bleed_rate": 2, "organ_trauma": 0}
    assert F.wound(0, "torso") == {"nerve_shock": 0, "bleed_rate": 0, "organ_trauma": 0}


def test_limbs_break_at_three_and_are_destroyed_at_five_p14():
    assert F.limb_state_after("ok", 2) == "ok"
    assert F.limb_state_after("ok", 3) == "broken"
    assert F.limb_state_after("ok", 5) == "destroyed"
    assert F.limb_state_after("destroyed", 1) == "destroyed"


def test_unconscious_when_bleed_and_nervchock_reach_chocktolerans_p14():
    assert F.unconscious(5, 6, 11)
    assert not F.unconscious(4, 6, 11)


def test_anna_auto_fire_modes_p11():
    """p. 11: Anna's carbine "1/3/auto+2N": single, burst of three, auto with 2 dice."""
    single, burst, auto = parse_fire_modes("1/3/auto+2N")
    assert (single.shots, burst.shots) == (1, 3)
    assert auto.auto
    assert auto.shots == 0
    assert auto.random_dice == 2
