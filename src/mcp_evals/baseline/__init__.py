"""The accepted reference run ("the baseline"): made from a scorecard, saved, compared with a new run."""
