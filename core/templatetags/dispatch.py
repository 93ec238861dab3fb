"""`{% case %}`: one branch of many chosen by a value, in one lookup.

    {% load dispatch %}
    {% case line.kind %}{% when "Moved" %}...{% when "Hit" "Missed" %}...{% else %}...{% endcase %}

renders the branch whose literal equals the value, else the `{% else %}` branch (or
nothing). It does what `{% if k == "Moved" %}...{% elif k == "Hit" or k == "Missed" %}...
{% else %}...{% endif %}` does, but Django's `if` tests its conditions one by one, each a
lookup of the variable and a comparison: a log line of the 30th kind in a combat log
tested 30 conditions before it rendered a word (`campaign_log.lines` renders every event of a
fight for every open page's view). Only literals may follow `when`, and each only once.
"""

from django import template
from django.template.base import Node, NodeList

register = template.Library()

BRANCH_ENDS = ("when", "else", "endcase")


class CaseNode(Node):
    child_nodelists = ()

    def __init__(self, subject, branches: dict, default: NodeList | None, nodelists: list):
        self.subject = subject
        self.branches = branches
        self.default = default
        self.nodelists = nodelists

    def __iter__(self):
        for nodelist in self.nodelists:
            yield from nodelist

    def get_nodes_by_type(self, nodetype):
        found = [self] if isinstance(self, nodetype) else []
        for nodelist in self.nodelists:
            found.extend(nodelist.get_nodes_by_type(nodetype))
        return found

    def render(self, context):
        value = self.subject.resolve(context, ignore_failures=True)
        try:
            chosen = self.branches.get(value, self.default)
        except TypeError:  # an unhashable value equals no literal
            chosen = self.default
        return chosen.render(context) if chosen is not None else ""


@register.tag("case")
def do_case(parser, token):
    bits = token.split_contents()
    if len(bits) != 2:
        raise template.TemplateSyntaxError("{% case %} takes one value: {% case line.kind %}")
    subject = parser.compile_filter(bits[1])
    before = parser.parse(BRANCH_ENDS)
    if any(not isinstance(node, template.base.TextNode) or node.s.strip() for node in before):
        raise template.TemplateSyntaxError("only {% when %} may follow {% case %}")
    branches: dict = {}
    default = None
    nodelists = []
    token = parser.next_token()
    while token.contents.startswith("when"):
        literals = token.split_contents()[1:]
        if not literals:
            raise template.TemplateSyntaxError("{% when %} needs at least one literal")
        nodelist = parser.parse(BRANCH_ENDS)
        nodelists.append(nodelist)
        for literal in literals:
            value = template.Variable(literal).literal
            if value is None:
                raise template.TemplateSyntaxError(f"{{% when %}} takes literals, not {literal}")
            if value in branches:
                raise template.TemplateSyntaxError(f"{literal} is in two {{% when %}} branches")
            branches[value] = nodelist
        token = parser.next_token()
    if token.contents == "else":
        default = parser.parse(("endcase",))
        nodelists.append(default)
        token = parser.next_token()
    if token.contents != "endcase":
        raise template.TemplateSyntaxError(f"{{% case %}} ends with {{% endcase %}}, not {token}")
    return CaseNode(subject, branches, default, nodelists)
