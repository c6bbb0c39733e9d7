"""The eval run: plan, retries, budget, results file, the loop, cost estimates, progress."""
