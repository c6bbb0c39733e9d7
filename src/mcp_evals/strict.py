"""The one strict base model: an unknown key is an error, never a silently ignored setting.

Everything read from a file a person or a run wrote (the config, fixtures, results, baselines,
reports) is parsed into subclasses of it, so a typo fails loudly with its file and line.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
