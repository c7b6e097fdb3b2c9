"""Everything between a player's voice and a verdict on their formula."""
