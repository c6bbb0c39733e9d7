"""The base of every scoring model."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class ScoreModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
