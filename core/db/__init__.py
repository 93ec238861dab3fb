"""Database helpers of our own: the SQLite backend whose writers wait in line
(``core.db.sqlite3``) and idempotency keys for POSTs that must not happen twice."""
