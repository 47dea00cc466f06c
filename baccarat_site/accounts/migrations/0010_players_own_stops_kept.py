"""A player's own stop (a time-out or a self-exclusion) is kept by the database, as docs/rules.md says.

The check constraint ``restriction_players_own_run_their_course`` already refuses a lift of one; this trigger
refuses the rest, whoever sends it (the admin, code, a raw query): any DELETE of such a row, and any UPDATE that
changes its player, its kind, its start or its lift fields, or moves its end earlier (or to no end). Making it
longer is the one change allowed (nothing does it today; a longer stop taken while one runs is a new row).
Suspensions and closures stay as they are: staff lift a suspension by stamping ``lifted_at``. TRUNCATE, an
operator's whole-table reset, is left alone as for the ledger and the audit trail: the tests flush with it.
"""

from django.db import migrations

FORWARD = r"""
CREATE OR REPLACE FUNCTION accounts_players_own_stop_kept() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.kind NOT IN ('time_out', 'self_exclusion') THEN
        RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    END IF;
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'a % cannot be deleted (restriction %)', OLD.kind, OLD.id
            USING ERRCODE = 'restrict_violation';
    END IF;
    IF NEW.kind IS DISTINCT FROM OLD.kind
       OR NEW.user_id IS DISTINCT FROM OLD.user_id
       OR NEW.starts_at IS DISTINCT FROM OLD.starts_at
       OR NEW.lifted_at IS DISTINCT FROM OLD.lifted_at
       OR NEW.lifted_by_id IS DISTINCT FROM OLD.lifted_by_id
       OR NEW.lift_reason IS DISTINCT FROM OLD.lift_reason
       OR NEW.created_by_id IS DISTINCT FROM OLD.created_by_id
       OR NEW.ends_at IS NULL
       OR (OLD.ends_at IS NOT NULL AND NEW.ends_at < OLD.ends_at) THEN
        RAISE EXCEPTION 'a % cannot be shortened, lifted or changed into another kind (restriction %)',
            OLD.kind, OLD.id
            USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER accounts_restriction_players_own_kept
    BEFORE UPDATE OR DELETE ON accounts_restriction
    FOR EACH ROW EXECUTE FUNCTION accounts_players_own_stop_kept();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS accounts_restriction_players_own_kept ON accounts_restriction;
DROP FUNCTION IF EXISTS accounts_players_own_stop_kept();
"""


class Migration(migrations.Migration):
    dependencies = [("accounts", "0009_play_limits")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
