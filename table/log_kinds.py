"""The table's kinds of event in the campaign's log (`campaign_log.kinds`): rolls,
membership changes and notices, each read from its own table and told by its own line.
Registered by `table.apps.TableConfig.ready`."""

from django.contrib.auth import get_user_model

from campaign_log.kinds import EventKind, register
from campaign_log.reading import json_column, json_text
from table import services
from table.models import MembershipEvent, NoticeEvent, RollEvent


def _roll_read(qn):
    character_table = RollEvent._meta.get_field("character").related_model._meta.db_table
    columns = {
        "kind": "e.kind", "who": "u.username", "character": "c.name",
        "label": "e.label", "hand": "e.hand", "dice": json_text("e.dice"),
        "counted": json_text("e.counted"), "result": "e.result",
        "test_base": "e.test_base", "threshold": "e.threshold", "secret": "e.secret",
        "data": json_text("e.detail"), "typed_in": "e.typed_in",
    }
    joins = (
        f"LEFT JOIN {qn(get_user_model()._meta.db_table)} u ON u.id = e.actor_id "
        f"LEFT JOIN {qn(character_table)} c ON c.id = e.character_id"
    )
    return columns, joins


def _roll_from_row(common: dict, f: dict, _cache: dict) -> dict:
    event = RollEvent(
        **common, kind=f["kind"], label=f["label"], hand=f["hand"], dice=json_column(f["dice"]),
        counted=json_column(f["counted"]), result=f["result"], test_base=f["test_base"],
        threshold=f["threshold"], secret=bool(f["secret"]), detail=json_column(f["data"]),
        typed_in=bool(f["typed_in"]) or None,
    )
    return services.payload(event, (f["who"] or "", f["character"] or ""))


def _member_from_row(common: dict, f: dict, _cache: dict) -> dict:
    return services.member_payload(MembershipEvent(
        **common, kind=f["kind"], membership_id=f["ref"], username=f["who"]
    ))


def _notice_from_row(common: dict, f: dict, _cache: dict) -> dict:
    return services.notice_payload(NoticeEvent(
        **common, kind=f["kind"], actor=f["who"], data=json_column(f["data"])
    ))


def _messages(events, to_message):
    def messages(pks: list[int]) -> list[tuple[int, dict]]:
        return [(event.pk, to_message(event)) for event in events().filter(pk__in=pks)]

    return messages


ROLL = EventKind(
    name="roll",
    model=RollEvent,
    read=_roll_read,
    from_row=_roll_from_row,
    messages=_messages(
        lambda: RollEvent.objects.select_related("actor", "character"), services.payload
    ),
    message_kinds=tuple(RollEvent.Kind.values),
    line="table/_roll.html",
)
MEMBER = EventKind(
    name="member",
    model=MembershipEvent,
    read=lambda qn: ({"kind": "e.kind", "who": "e.username", "ref": "e.membership_id"}, ""),
    from_row=_member_from_row,
    messages=_messages(MembershipEvent.objects.all, services.member_payload),
    message_kinds=("member-",),
    line="table/_member.html",
)
NOTICE = EventKind(
    name="notice",
    model=NoticeEvent,
    read=lambda qn: ({"kind": "e.kind", "who": "e.actor", "data": json_text("e.data")}, ""),
    from_row=_notice_from_row,
    messages=_messages(NoticeEvent.objects.all, services.notice_payload),
    message_kinds=("notice-",),
    line="table/_notice.html",
)


def register_kinds() -> None:
    for kind in (ROLL, MEMBER, NOTICE):
        register(kind)
