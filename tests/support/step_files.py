"""Reading the files a GitHub step writes, the way the runner does."""

from __future__ import annotations

import re

_OUTPUT_BLOCK = re.compile(
    r"^(?P<name>[^\n=<]+)<<(?P<delim>[^\n]+)\n(?P<value>.*?)\n(?P=delim)\n", re.S | re.M
)


def parse_outputs(text: str) -> dict[str, str]:
    """Read a ``GITHUB_OUTPUT`` file the way the runner does (multi-line blocks and ``name=value``)."""
    outputs = {match["name"]: match["value"] for match in _OUTPUT_BLOCK.finditer(text)}
    rest = _OUTPUT_BLOCK.sub("", text)
    for line in rest.splitlines():
        if "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs
