"""The session journal, under /campaigns/<pk>/journal/ in the "campaigns" namespace."""

from django.urls import path

from campaigns import journal

urlpatterns = [
    path("", journal.journal, name="journal"),
    path("<id:entry_pk>/edit/", journal.journal_edit, name="journal_edit"),
    path("<id:entry_pk>/delete/", journal.journal_delete, name="journal_delete"),
    path("<id:entry_pk>/pin/", journal.journal_pin, name="journal_pin"),
]
