"""The results record: what a run produced (``model``), read back (``read``) and merged from shards."""
