from django import forms
from django.utils.translation import gettext_lazy as _

# The house rules' labels, by key: the rule system lists its house rules (key, kind,
# default, rule page); the form shows each with its default and marks it a house rule.
HOUSE_RULE_LABELS = {
    "movement_by_round_total": _("Movement cost by the round's total distance"),
    "melee_reach": _("Melee reach (m)"),
}
HOUSE_RULE_HELP = {
    "movement_by_round_total": _(
        "House rule. On: as the rule text reads (p. 7): 2 m, then 8 m more cost 6 KP. Off: "
        "each move on its own, as the Ansgar example counts (5 KP)."
    ),
    "melee_reach": _(
        "House rule. The text says foes are in melee when close enough to reach each other "
        "(p. 10); default 2 m."
    ),
}


class EncounterForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=100)

    def __init__(self, *args, house_rules=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.house_rule_keys = []
        for rule in house_rules:
            key = rule["key"]
            label = HOUSE_RULE_LABELS.get(key, key)
            help_text = HOUSE_RULE_HELP.get(key, rule.get("help", ""))
            if rule["kind"] == "bool":
                field = forms.BooleanField(label=label, required=False, initial=rule["default"],
                                           help_text=help_text)
            else:
                field = forms.FloatField(label=label, initial=rule["default"], min_value=0.5,
                                         max_value=10, help_text=help_text)
            self.fields[f"house_{key}"] = field
            self.house_rule_keys.append(key)

    def house_rules(self) -> dict:
        return {key: self.cleaned_data[f"house_{key}"] for key in self.house_rule_keys}
