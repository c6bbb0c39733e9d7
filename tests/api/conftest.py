"""The library layer's tests use the projects of the commands they stand behind (improve's: the
helpdesk catalog, its vague copy, the wordy model on the fake Anthropic API)."""

from improve.conftest import improve_project, wordy, wordy_api

__all__ = ["improve_project", "wordy", "wordy_api"]
