"""Services write. ``placement`` (a player's bets), ``settlement`` (paying and refunding a round),
``rounds`` (the round state machine, the ticker and the operators' controls), ``variants``, ``rate``."""
