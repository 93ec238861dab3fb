"""`{% case %}` (core/templatetags/dispatch.py): the combat log's line templates choose a
line's branch by its kind in one lookup; it must render what the `if`/`elif` chain it
replaced rendered."""

import pytest
from django.template import Context, Engine, TemplateSyntaxError

ENGINE = Engine(libraries={"dispatch": "core.templatetags.dispatch"})


def render(source: str, **context) -> str:
    return ENGINE.from_string("{% load dispatch %}" + source).render(Context(context))


CHAIN = (
    '{% case k %}{% when "Moved" %}moves {{ m }}{% when "Hit" "Missed" %}attack {{ k }}'
    "{% when 3 %}three{% else %}other {{ k }}{% endcase %}"
)
IF_CHAIN = (
    '{% if k == "Moved" %}moves {{ m }}{% elif k == "Hit" or k == "Missed" %}attack {{ k }}'
    "{% elif k == 3 %}three{% else %}other {{ k }}{% endif %}"
)


@pytest.mark.parametrize("k", ["Moved", "Hit", "Missed", 3, "3", "Woke", "", None, ["Hit"]])
def test_a_case_renders_what_the_if_chain_rendered(k):
    assert render(CHAIN, k=k, m=2) == render(IF_CHAIN, k=k, m=2)


def test_a_missing_value_and_no_else_render_nothing():
    assert render('{% case k %}{% when "A" %}a{% endcase %}') == ""
    assert render('{% case k %}{% when "A" %}a{% endcase %}', k="B") == ""
    assert render("{% case x.kind %}{% when \"A\" %}a{% else %}none{% endcase %}") == "none"


def test_branches_nest_and_see_the_context():
    source = (
        '{% case k %}{% when "A" %}{% for i in items %}{% case i %}{% when 1 %}one'
        "{% else %}{{ i }}{% endcase %}{% endfor %}{% endcase %}"
    )
    assert render(source, k="A", items=[1, 2]) == "one2"


@pytest.mark.parametrize(
    "source",
    [
        "{% case %}{% endcase %}",
        "{% case a b %}{% endcase %}",
        '{% case k %}text{% when "A" %}a{% endcase %}',
        "{% case k %}{% when %}a{% endcase %}",
        "{% case k %}{% when other %}a{% endcase %}",
        '{% case k %}{% when "A" %}a{% when "A" %}b{% endcase %}',
        '{% case k %}{% when "A" %}a',
    ],
)
def test_a_malformed_case_is_a_syntax_error(source):
    with pytest.raises(TemplateSyntaxError):
        render(source, k="A")
