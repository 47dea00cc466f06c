"""Services write: tables.services.bets (bets and their money), tables.services.rounds (the round state machine)."""
