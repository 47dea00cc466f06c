"""A ledger entry's references are checked once per INSERT statement instead of once per row.

A round's settlement writes one ledger transaction with a leg per paid player: 2,000 entries for a round of
2,000 players. As foreign keys, their transaction and wallet were checked by two row triggers each at commit,
4,000 index probes through SPI, longer than writing the entries. The statement trigger that already checks the
balance rule over the rows an INSERT adds (0005) now also checks, over the same transition table:

- every entry's wallet exists, and is locked ``FOR KEY SHARE`` until commit, as a foreign key locks it;
- every entry's transaction exists (transactions are append-only, 0002, so it cannot go away later);

and a wallet that has entries cannot be deleted or renumbered (``wallets_wallet_keep_with_entries``), the
other half of a foreign key. Each refusal is a ``foreign_key_violation``, as before.
"""

from django.db import migrations, models
import django.db.models.deletion

FORWARD = r"""
CREATE OR REPLACE FUNCTION wallets_ledger_statement_balanced() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    bad record;
    locked bigint;
    missing bigint;
BEGIN
    SELECT count(*) INTO locked FROM (
        SELECT 1 FROM wallets_wallet w WHERE w.id IN (SELECT wallet_id FROM inserted) FOR KEY SHARE
    ) AS l;
    IF locked <> (SELECT count(DISTINCT wallet_id) FROM inserted) THEN
        SELECT i.wallet_id INTO missing FROM inserted i
            WHERE NOT EXISTS (SELECT 1 FROM wallets_wallet w WHERE w.id = i.wallet_id) LIMIT 1;
        RAISE EXCEPTION 'ledger entry names wallet %, which does not exist', missing
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    SELECT i.transaction_id INTO missing FROM (SELECT DISTINCT transaction_id FROM inserted) i
        WHERE NOT EXISTS (SELECT 1 FROM wallets_ledgertransaction t WHERE t.id = i.transaction_id) LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'ledger entry names transaction %, which does not exist', missing
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    SELECT transaction_id, SUM(amount) AS total INTO bad
        FROM inserted
        GROUP BY transaction_id HAVING SUM(amount) <> 0
        LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'ledger transaction % does not balance: the entries added to it sum to %',
            bad.transaction_id, bad.total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$;

CREATE FUNCTION wallets_wallet_keep_with_entries() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.id = OLD.id THEN
        RETURN NEW;
    END IF;
    IF EXISTS (SELECT 1 FROM wallets_ledgerentry WHERE wallet_id = OLD.id) THEN
        RAISE EXCEPTION 'wallet % has ledger entries: % refused', OLD.id, TG_OP
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END;
$$;

CREATE TRIGGER wallets_wallet_keep_with_entries
    BEFORE DELETE OR UPDATE OF id ON wallets_wallet
    FOR EACH ROW EXECUTE FUNCTION wallets_wallet_keep_with_entries();
"""

# 0005's function, and no wallet trigger (the foreign keys come back with the fields).
BACKWARD = r"""
DROP TRIGGER IF EXISTS wallets_wallet_keep_with_entries ON wallets_wallet;
DROP FUNCTION IF EXISTS wallets_wallet_keep_with_entries();

CREATE OR REPLACE FUNCTION wallets_ledger_statement_balanced() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    bad record;
BEGIN
    SELECT transaction_id, SUM(amount) AS total INTO bad
        FROM inserted
        GROUP BY transaction_id HAVING SUM(amount) <> 0
        LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'ledger transaction % does not balance: the entries added to it sum to %',
            bad.transaction_id, bad.total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("wallets", "0005_balance_checked_on_the_inserted_rows"),
    ]

    operations = [
        migrations.AlterField(
            model_name="ledgerentry",
            name="transaction",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="entries",
                to="wallets.ledgertransaction",
            ),
        ),
        migrations.AlterField(
            model_name="ledgerentry",
            name="wallet",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="entries",
                to="wallets.wallet",
            ),
        ),
        migrations.RunSQL(FORWARD, BACKWARD),
    ]
