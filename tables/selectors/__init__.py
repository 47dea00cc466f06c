"""Selectors read: tables.selectors.tables (table state, snapshots), tables.selectors.bets (bet record, rounds)."""
