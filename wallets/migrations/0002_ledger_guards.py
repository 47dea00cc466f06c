"""The database, not only the code, keeps the ledger honest.

- Ledger entries and transactions are append-only: UPDATE and DELETE raise.
  (TRUNCATE, an operator's whole-table reset, is left alone: tests flush with it.)
- Every ledger transaction's entries sum to zero: a DEFERRABLE INITIALLY
  DEFERRED constraint trigger checks each touched transaction at commit, so a
  transaction's legs may be inserted by separate statements.
(Player entries carry the balance after them; house entries do not, since the
house balance is derived from the ledger: no hot row on the bet path.)
"""

from django.db import migrations

FORWARD = r"""
CREATE OR REPLACE FUNCTION wallets_ledger_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger is append-only: % on % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation';
END;
$$;

CREATE TRIGGER wallets_ledgerentry_append_only
    BEFORE UPDATE OR DELETE ON wallets_ledgerentry
    FOR EACH ROW EXECUTE FUNCTION wallets_ledger_append_only();

CREATE TRIGGER wallets_ledgertransaction_append_only
    BEFORE UPDATE OR DELETE ON wallets_ledgertransaction
    FOR EACH ROW EXECUTE FUNCTION wallets_ledger_append_only();

CREATE OR REPLACE FUNCTION wallets_ledger_transaction_balanced() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    total numeric;
BEGIN
    SELECT COALESCE(SUM(amount), 0) INTO total
        FROM wallets_ledgerentry WHERE transaction_id = NEW.transaction_id;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger transaction % does not balance: its entries sum to %',
            NEW.transaction_id, total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$;

CREATE CONSTRAINT TRIGGER wallets_ledgerentry_balanced
    AFTER INSERT ON wallets_ledgerentry
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION wallets_ledger_transaction_balanced();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS wallets_ledgerentry_balanced ON wallets_ledgerentry;
DROP FUNCTION IF EXISTS wallets_ledger_transaction_balanced();
DROP TRIGGER IF EXISTS wallets_ledgertransaction_append_only ON wallets_ledgertransaction;
DROP TRIGGER IF EXISTS wallets_ledgerentry_append_only ON wallets_ledgerentry;
DROP FUNCTION IF EXISTS wallets_ledger_append_only();
"""


class Migration(migrations.Migration):
    dependencies = [("wallets", "0001_initial")]

    operations = [
        migrations.RunSQL(FORWARD, BACKWARD),
    ]
