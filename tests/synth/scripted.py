"""A scripted synthesizer model for the fake APIs, answering the way real models answer synth's prompts.

Step-1 prompts get intents with concrete values (some models wrap JSON in a ```json fence, some add a
sentence first: both happen here); paraphrase prompts get one query per note, in the persona's
words, keeping the values. ``leaky_goal`` and ``leaky_query`` script the two failures the pipeline
must catch; ``drop_value`` scripts a paraphrase that loses the id a pipeline tool needs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

# A billing catalog: two tools that need an invoice id another tool gives, a confusable pair
# (issue_refund / apply_account_credit), and a tool with no pipeline value.
TOOLS: list[dict[str, Any]] = [
    {
        "name": "get_invoice",
        "description": "Show one invoice with its lines and payments, by invoice id.",
        "inputSchema": {
            "type": "object",
            "properties": {"invoice_id": {"type": "string", "description": "The invoice id, e.g. INV-1042."}},
            "required": ["invoice_id"],
        },
    },
    {
        "name": "list_invoices",
        "description": "List a customer's invoices, newest first; filter them by status.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "customer_id": {"type": "string", "description": "The customer id, e.g. cus_1002."},
                "status": {"type": "string", "enum": ["open", "paid", "past_due"], "description": "Status."},
            },
            "required": ["customer_id"],
        },
    },
    {
        "name": "issue_refund",
        "description": "Give money back to a customer for a paid invoice: a refund to the card the "
        "invoice was paid with.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "invoice_id": {"type": "string", "description": "The invoice to refund, e.g. INV-1042."},
                "customer_id": {"type": "string", "description": "The customer id."},
                "amount": {"type": "number", "description": "Dollars; the whole invoice if left out."},
                "reason": {
                    "type": "string",
                    "enum": ["duplicate_charge", "service_issue", "other"],
                    "description": "Why the money goes back.",
                },
            },
            "required": ["invoice_id"],
        },
    },
    {
        "name": "apply_account_credit",
        "description": "Give money back to a customer as a credit on the account, not a refund to the "
        "card: the next invoice is paid with it.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "customer_id": {"type": "string", "description": "The customer id, e.g. cus_1002."},
                "amount": {"type": "number", "description": "Credit in dollars."},
            },
            "required": ["customer_id", "amount"],
        },
    },
    {
        "name": "search_articles",
        "description": "Search the help-center articles by words and return the best matches.",
        "inputSchema": {
            "type": "object",
            "properties": {"query": {"type": "string", "description": "Words to look for."}},
            "required": ["query"],
        },
    },
]
TOOL_NAMES = [tool["name"] for tool in TOOLS]

INTENTS: dict[str, list[dict[str, Any]]] = {
    "get_invoice": [
        {
            "goal": "See what was billed on invoice INV-2207 line by line",
            "values": {"invoice_id": "INV-2207"},
            "pattern": "specific",
        },
        {
            "goal": "Check whether INV-1980 was paid by card",
            "values": {"invoice_id": "INV-1980"},
            "pattern": "boundary",
        },
    ],
    "list_invoices": [
        {
            "goal": "Find every bill the customer cus_4410 still owes",
            "values": {"customer_id": "cus_4410", "status": "open"},
            "pattern": "specific",
        },
        {
            "goal": "Know how much cus_0031 has been charged this year",
            "values": {"customer_id": "cus_0031"},
            "pattern": "category",
        },
    ],
    "issue_refund": [
        {
            "goal": "Give back the money of the duplicate charge INV-3305",
            "values": {"invoice_id": "INV-3305", "reason": "duplicate_charge"},
            "pattern": "specific",
        },
        {
            "goal": "Make good on INV-3390 after the outage, money back to the card",
            "values": {"invoice_id": "INV-3390", "reason": "service_issue"},
            "pattern": "boundary",
        },
    ],
    "apply_account_credit": [
        {
            "goal": "Put 25 dollars toward cus_7781's next bill as a goodwill gesture",
            "values": {"customer_id": "cus_7781", "amount": 25},
            "pattern": "specific",
        },
        {
            "goal": "Compensate cus_7790 with 40 dollars off what they will pay next",
            "values": {"customer_id": "cus_7790", "amount": 40},
            "pattern": "category",
        },
    ],
    "search_articles": [
        {
            "goal": "Find the help page about changing the billing email",
            "values": {"query": "billing email"},
            "pattern": "specific",
        },
        {
            "goal": "Look for guidance on exporting a year of receipts",
            "values": {"query": "export receipts"},
            "pattern": "category",
        },
    ],
}
REFUSE_GOALS = [
    "Book a meeting room for the finance review on Friday",
    "Change the company's VAT registration number with the tax office",
]
CLARIFY = [
    {
        "tool": "issue_refund",
        "goal": "Refund the customer who complained this morning",
        "missing": ["invoice_id"],
    },
    {"tool": "get_invoice", "goal": "Show me that invoice we talked about", "missing": ["invoice_id"]},
]


@dataclass
class SynthModel:
    """What the fake model writes for synth's prompts (and what it saw)."""

    leaky_goal: bool = False  # one step-1 goal names a tool: the screen must drop it before step 2
    leaky_query: str | None = None  # a goal whose paraphrase names a tool: F001 must drop it
    drop_value: str | None = None  # a goal whose paraphrase loses its id: F002 flags it
    prefix: str = ""  # put before every query (tells two synth runs apart)
    malformed: int = 0  # the first N answers are not JSON
    prompts: list[str] = field(default_factory=list)

    def answer(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if self.malformed > 0:
            self.malformed -= 1
            return "I'm sorry, here are some ideas: refunds, invoices."
        if prompt.startswith("Persona:"):
            return self.paraphrase(prompt)
        if "These two tools are easy to confuse" in prompt:
            names = re.findall(r"^Tool (\S+)$", prompt, re.MULTILINE)
            intents = [
                {
                    "tool": names[0],
                    "goal": "Send the money for INV-5001 back where it came from",
                    "values": {"invoice_id": "INV-5001"},
                    "pattern": "boundary",
                },
                {
                    "tool": names[1],
                    "goal": "Leave 15 dollars on cus_5002's balance instead of paying out",
                    "values": {"customer_id": "cus_5002", "amount": 15},
                    "pattern": "boundary",
                },
            ]
            return "Here you go:\n" + json.dumps({"intents": intents})
        if "none of these tools can serve" in prompt:
            return json.dumps({"intents": [{"goal": goal} for goal in REFUSE_GOALS]})
        if "leave out a value it requires" in prompt:
            return "```json\n" + json.dumps({"intents": CLARIFY}) + "\n```"
        name = re.search(r"^Tool (\S+)$", prompt, re.MULTILINE)
        assert name is not None, prompt
        intents = [dict(item) for item in INTENTS[name.group(1)]]
        if self.leaky_goal and name.group(1) == "get_invoice":
            intents.append({"goal": "Call get_invoice for INV-0001", "values": {"invoice_id": "INV-0001"}})
        return "```json\n" + json.dumps({"intents": intents}, indent=1) + "\n```"

    def paraphrase(self, prompt: str) -> str:
        notes = json.loads(prompt.split("):\n", 1)[1].split("\n\nAnswer:", 1)[0])
        queries = []
        for note in notes:
            goal, values = note["goal"], note["must_include"]
            if goal == self.leaky_query:
                query = f"Can you run list_invoices for {' '.join(values)}?"
            elif goal == self.drop_value:
                query = "Hey, can you sort out the refund for that double charge we spotted?"
            else:
                said = goal[0].lower() + goal[1:]
                query = (
                    f"{self.prefix}Hi, I need to {said}"
                    + ("" if all(value in goal for value in values) else f" ({', '.join(values)})")
                    + "."
                )
            queries.append({"n": note["n"], "query": query})
        return json.dumps({"queries": queries})


def write_project(
    root: Path, *, fixtures: str | None = None, exclude_tools: list[str] | None = None, **run: Any
) -> Path:
    """A config reading the billing catalog from a snapshot; returns the config path."""
    snapshot = root / "billing.catalog.json"
    snapshot.write_text(json.dumps({"tools": TOOLS}), "utf-8")
    document: dict[str, Any] = {
        "servers": [{"name": "billing", "snapshot": snapshot.name}],
        "run": {"max_wait": 0.05, "timeout": 5, **run},
    }
    if fixtures:
        document["fixtures"] = fixtures
    if exclude_tools is not None:
        document["exclude_tools"] = exclude_tools
    config = root / "mcp-evals.yaml"
    config.write_text(yaml.safe_dump(document, sort_keys=False), "utf-8")
    return config
