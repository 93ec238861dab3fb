"""Django's database sessions, refusing session keys that Django itself never makes.

A cookie can carry a NUL character (Django's cookie parser turns a quoted "\\000" into
one), and PostgreSQL refuses NUL in a query: looking such a key up answered 500. Django
makes keys of lowercase ASCII letters and digits; any other key counts as no session.
"""

from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore


class SessionStore(DatabaseSessionStore):
    def _validate_session_key(self, key):
        return super()._validate_session_key(key) and key.isascii() and key.isalnum()
