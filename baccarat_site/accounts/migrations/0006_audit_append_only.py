"""The audit trail is append-only in the database, like the ledger (wallets/migrations/0002_ledger_guards.py).

A trigger on auditlog's ``auditlog_logentry`` refuses every UPDATE and DELETE, whoever sends it (the admin,
code, a raw query, ``auditlogflush``). That includes the ``actor_id = NULL`` that deleting a user would cause
(the foreign key is ON DELETE SET NULL in Django): a user who acted is deactivated, never deleted, so every
entry stays exactly as written (baccarat_site/audit.py). TRUNCATE, an operator's whole-table reset, is left
alone as for the ledger: the tests flush with it.
"""

from django.db import migrations

FORWARD = r"""
CREATE OR REPLACE FUNCTION audit_logentry_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the audit trail is append-only: % on % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation';
END;
$$;

CREATE TRIGGER auditlog_logentry_append_only
    BEFORE UPDATE OR DELETE ON auditlog_logentry
    FOR EACH ROW EXECUTE FUNCTION audit_logentry_append_only();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS auditlog_logentry_append_only ON auditlog_logentry;
DROP FUNCTION IF EXISTS audit_logentry_append_only();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_players"),
        ("auditlog", "0017_add_actor_email"),
    ]

    operations = [
        migrations.RunSQL(FORWARD, BACKWARD),
    ]
