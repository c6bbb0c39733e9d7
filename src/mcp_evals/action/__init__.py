"""The GitHub Action: modes, the build step, the summary and sticky comment, crash reporting."""
