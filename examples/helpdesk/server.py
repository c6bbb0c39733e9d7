"""Helpdesk: the customer-support backend of "Lumen", a made-up project-management SaaS.

An example MCP server for mcp-evals. It exposes the kind of tool catalog a SaaS company
gives a support agent's AI assistant: tickets, customers, billing, the knowledge base and
the support team. Every tool works on a small in-memory dataset seeded the same way on each
start, so calls are deterministic, need no network and write no files.

    python server.py                                        # stdio (default)
    python server.py --http --host 127.0.0.1 --port 8765    # Streamable HTTP at /mcp

Over HTTP, setting HELPDESK_TOKEN makes every request need `Authorization: Bearer <token>`.
In stdio mode stdout carries protocol bytes only; logs go to stderr.
"""

from __future__ import annotations

import argparse
import hmac
import inspect
import logging
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Annotated, Any, Literal, TypeVar

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

logger = logging.getLogger("helpdesk")

# A fixed clock keeps every answer (ages, due dates, new ids) the same from run to run.
NOW = datetime(2025, 3, 14, 15, 0, tzinfo=UTC)
TODAY = NOW.date()

TicketStatus = Literal["open", "pending", "on_hold", "solved", "closed"]
Priority = Literal["low", "normal", "high", "urgent"]
TicketCategory = Literal["bug", "billing", "account", "question", "feature_request"]
Plan = Literal["starter", "pro", "business", "enterprise"]
InvoiceStatus = Literal["paid", "open", "past_due", "refunded", "void"]
RefundReason = Literal["duplicate_charge", "service_issue", "cancellation", "billing_error", "other"]
ArticleCategory = Literal["account", "billing", "integrations", "mobile", "data"]
Team = Literal["tier1", "tier2", "billing", "enterprise"]
AgentStatus = Literal["online", "away", "offline"]
Period = Literal["today", "last_7_days", "last_30_days", "this_quarter"]

SEAT_PRICE: dict[Plan, float] = {"starter": 12.0, "pro": 24.0, "business": 39.0, "enterprise": 55.0}

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
IDEMPOTENT_WRITE = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)


# --------------------------------------------------------------------------- records


class Comment(BaseModel):
    author: str = Field(description="Agent id, or the customer's email for customer replies.")
    visibility: Literal["public", "internal"]
    body: str
    created_at: datetime


class TicketSummary(BaseModel):
    ticket_id: str
    subject: str
    status: TicketStatus
    priority: Priority
    category: TicketCategory
    customer_id: str
    assignee_id: str | None
    created_at: datetime
    updated_at: datetime


class Ticket(TicketSummary):
    description: str
    channel: Literal["email", "chat", "phone", "web"]
    tags: list[str]
    comments: list[Comment]
    merged_into: str | None = None


class TicketList(BaseModel):
    total: int = Field(description="Tickets that matched, before `limit` was applied.")
    tickets: list[TicketSummary]


class Customer(BaseModel):
    customer_id: str
    name: str
    company: str
    email: str
    phone: str | None
    plan: Plan
    country: str
    customer_since: date
    open_tickets: int


class CustomerList(BaseModel):
    total: int
    customers: list[Customer]


class InvoiceLine(BaseModel):
    description: str
    quantity: int
    unit_price: float
    amount: float


class InvoiceSummary(BaseModel):
    invoice_id: str
    customer_id: str
    status: InvoiceStatus
    issued_on: date
    due_on: date
    total: float
    currency: str


class Invoice(InvoiceSummary):
    lines: list[InvoiceLine]
    amount_refunded: float
    payment_method: str | None


class InvoiceList(BaseModel):
    total: int
    invoices: list[InvoiceSummary]


class Refund(BaseModel):
    refund_id: str
    invoice_id: str
    amount: float
    currency: str
    reason: RefundReason
    invoice_status: InvoiceStatus
    arrives_in: str


class AccountCredit(BaseModel):
    credit_id: str
    customer_id: str
    amount: float
    currency: str
    reason: str
    credit_balance: float = Field(description="The customer's credit balance after this credit.")


class Subscription(BaseModel):
    customer_id: str
    plan: Plan
    seats: int
    billing_cycle: Literal["monthly", "annual"]
    status: Literal["active", "trialing", "past_due", "canceled"]
    renews_on: date
    seat_price: float
    currency: str
    credit_balance: float
    payment_method: str | None
    scheduled_change: str | None = Field(description="A plan or seat change waiting for the next renewal.")


class ArticleSummary(BaseModel):
    article_id: str
    title: str
    category: ArticleCategory
    status: Literal["published", "draft"]
    snippet: str


class Article(ArticleSummary):
    body: str
    updated_on: date


class ArticleList(BaseModel):
    total: int
    articles: list[ArticleSummary]


class Agent(BaseModel):
    agent_id: str
    name: str
    team: Team
    status: AgentStatus
    open_tickets: int


class AgentList(BaseModel):
    agents: list[Agent]


class SupportMetrics(BaseModel):
    period: Period
    team: Team | None
    new_tickets: int
    solved_tickets: int
    backlog: int = Field(description="Tickets open, pending or on hold right now.")
    median_first_response_minutes: int
    median_resolution_hours: float
    csat_percent: float


# --------------------------------------------------------------------------- seed data


@dataclass
class _Ticket:
    ticket_id: str
    subject: str
    description: str
    customer_id: str
    status: TicketStatus
    priority: Priority
    category: TicketCategory
    channel: Literal["email", "chat", "phone", "web"]
    assignee_id: str | None
    created_at: datetime
    tags: list[str] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list)
    updated_at: datetime | None = None
    merged_into: str | None = None

    def summary(self) -> TicketSummary:
        return TicketSummary(
            ticket_id=self.ticket_id,
            subject=self.subject,
            status=self.status,
            priority=self.priority,
            category=self.category,
            customer_id=self.customer_id,
            assignee_id=self.assignee_id,
            created_at=self.created_at,
            updated_at=self.updated_at or self.created_at,
        )

    def full(self) -> Ticket:
        return Ticket(
            **self.summary().model_dump(),
            description=self.description,
            channel=self.channel,
            tags=list(self.tags),
            comments=list(self.comments),
            merged_into=self.merged_into,
        )


@dataclass
class _Customer:
    customer_id: str
    name: str
    company: str
    email: str
    phone: str | None
    country: str
    customer_since: date
    plan: Plan
    seats: int
    billing_cycle: Literal["monthly", "annual"]
    subscription_status: Literal["active", "trialing", "past_due", "canceled"]
    renews_on: date
    payment_method: str | None
    credit_balance: float = 0.0
    scheduled_change: str | None = None


@dataclass
class _Invoice:
    invoice_id: str
    customer_id: str
    status: InvoiceStatus
    issued_on: date
    lines: list[InvoiceLine]
    payment_method: str | None
    amount_refunded: float = 0.0

    @property
    def total(self) -> float:
        return round(sum(line.amount for line in self.lines), 2)

    def summary(self) -> InvoiceSummary:
        return InvoiceSummary(
            invoice_id=self.invoice_id,
            customer_id=self.customer_id,
            status=self.status,
            issued_on=self.issued_on,
            due_on=self.issued_on + timedelta(days=14),
            total=self.total,
            currency="USD",
        )


@dataclass
class _Article:
    article_id: str
    title: str
    category: ArticleCategory
    body: str
    updated_on: date
    status: Literal["published", "draft"] = "published"

    def summary(self) -> ArticleSummary:
        return ArticleSummary(
            article_id=self.article_id,
            title=self.title,
            category=self.category,
            status=self.status,
            snippet=self.body[:140],
        )


def _at(day: int, hour: int = 9, minute: int = 0) -> datetime:
    return datetime(2025, 3, day, hour, minute, tzinfo=UTC)


# fmt: off
def _seed_customers() -> dict[str, _Customer]:
    customers = [
        _Customer("cus_1001", "Dana Whitfield", "Orbital Coffee", "dana@orbitalcoffee.com",
                  "+1 503 555 0142", "US", date(2022, 5, 3),
                  "business", 18, "annual", "active", date(2025, 5, 3), "visa •••• 4242"),
        _Customer("cus_1002", "Marco Ruiz", "Ruiz & Hale LLP", "marco.ruiz@ruizhale.com",
                  "+34 91 555 0188", "ES", date(2023, 1, 17),
                  "pro", 6, "monthly", "active", date(2025, 4, 17), "mastercard •••• 5100"),
        _Customer("cus_1003", "Priya Nair", "Kestrel Robotics", "priya@kestrel.io",
                  None, "IN", date(2021, 9, 1),
                  "enterprise", 240, "annual", "active", date(2025, 9, 1), "invoice (bank transfer)"),
        _Customer("cus_1004", "Tom Becker", "Becker Bikes", "tom@beckerbikes.de",
                  "+49 30 5550 1234", "DE", date(2024, 2, 11),
                  "starter", 3, "monthly", "active", date(2025, 4, 11), "visa •••• 1881"),
        _Customer("cus_1005", "Aiko Tanaka", "Fernleaf Studio", "aiko@fernleaf.studio",
                  None, "JP", date(2023, 7, 22),
                  "pro", 9, "monthly", "active", date(2025, 3, 22), "amex •••• 3005"),
        _Customer("cus_1006", "Samuel Okafor", "Greenline Logistics", "s.okafor@greenline-logistics.com",
                  "+44 20 5550 7788", "GB", date(2022, 11, 30),
                  "business", 42, "monthly", "past_due", date(2025, 3, 30), "visa •••• 0341"),
        _Customer("cus_1007", "Lena Novak", "Novak Design", "lena@novakdesign.cz",
                  None, "CZ", date(2025, 3, 2),
                  "starter", 1, "monthly", "trialing", date(2025, 3, 16), None),
        _Customer("cus_1008", "James O'Connor", "Harbor Health Clinic", "james.oconnor@harborhealth.org",
                  "+1 617 555 0199", "US", date(2020, 4, 14),
                  "enterprise", 120, "annual", "active", date(2025, 4, 14), "invoice (bank transfer)"),
    ]
    customers[4].credit_balance = 25.0
    return {c.customer_id: c for c in customers}


def _seed_tickets() -> dict[str, _Ticket]:
    t = [
        _Ticket("T-1040", "Android app keeps logging me out",
                "Since Monday the Android app signs me out every time I switch apps. Pixel 8, app 5.12.0.",
                "cus_1005", "open", "high", "bug", "email", "agt_maya", _at(10, 8, 12), ["android", "login"]),
        _Ticket("T-1041", "Charged twice for February",
                "Our card was charged twice for the February invoice INV-2025-0207. Please refund one.",
                "cus_1002", "open", "high", "billing", "email", "agt_omar", _at(11, 10, 5),
                ["duplicate-charge"]),
        _Ticket("T-1042", "SSO login fails with SAML error",
                "Users get 'SAML response signature invalid' since we rotated our Okta certificate.",
                "cus_1003", "pending", "urgent", "bug", "web", "agt_ines", _at(12, 7, 40),
                ["sso", "saml", "okta"]),
        _Ticket("T-1043", "How do I export a project to CSV?",
                "I'd like to get all tasks of one project into a spreadsheet.",
                "cus_1004", "solved", "low", "question", "chat", "agt_leo", _at(3, 14, 20), ["export"]),
        _Ticket("T-1044", "Logged out every few minutes on Android",
                "Several of my staff are kicked out of the Android app a few times an hour.",
                "cus_1001", "open", "normal", "bug", "email", None, _at(13, 9, 2), ["android", "login"]),
        _Ticket("T-1045", "Dark mode for the web app?",
                "Any plans for a dark theme in the browser version?",
                "cus_1007", "on_hold", "low", "feature_request", "web", "agt_raj", _at(5, 16, 45), ["ui"]),
        _Ticket("T-1046", "Can't add seats, card declined",
                "Trying to add 5 seats but the payment fails with 'card declined'. The card works elsewhere.",
                "cus_1006", "open", "normal", "billing", "chat", None, _at(13, 11, 30), ["payment", "seats"]),
        _Ticket("T-1047", "Outlook calendar sync duplicates events",
                "Every task due date shows up two or three times in Outlook since the last update.",
                "cus_1008", "open", "high", "bug", "email", "agt_maya", _at(9, 13, 0),
                ["outlook", "calendar"]),
        _Ticket("T-1048", "Need invoices with our VAT number",
                "Our accountant needs the VAT ID DE298765431 on all invoices, including past ones.",
                "cus_1004", "pending", "low", "billing", "email", "agt_omar", _at(7, 9, 15),
                ["vat", "invoice"]),
        _Ticket("T-1049", "Webhook deliveries failing with 410",
                "Our endpoint receives nothing since yesterday; the delivery log shows HTTP 410 from Lumen.",
                "cus_1003", "open", "urgent", "bug", "email", "agt_ines", _at(13, 22, 10),
                ["webhooks", "api"]),
        _Ticket("T-1050", "Can we downgrade to Pro at renewal?",
                "We'd like to move from Business to Pro when our annual plan renews.",
                "cus_1001", "solved", "normal", "billing", "email", "agt_omar", _at(1, 10, 0),
                ["plan-change"]),
        _Ticket("T-1051", "Password reset email never arrives",
                "I requested a reset link three times and nothing arrived, not even in spam.",
                "cus_1002", "open", "normal", "account", "web", "agt_sara", _at(14, 8, 30),
                ["password", "email"]),
        _Ticket("T-1052", "CSV export drops custom fields",
                "When I export a project to CSV, the custom field columns are empty.",
                "cus_1005", "open", "normal", "bug", "email", None, _at(12, 15, 5),
                ["export", "custom-fields"]),
        _Ticket("T-1053", "Android app signs me out after update",
                "After updating the Android app this morning I have to log in again every time I open it.",
                "cus_1006", "open", "high", "bug", "phone", "agt_leo", _at(14, 10, 45), ["android", "login"]),
        _Ticket("T-1054", "Please cancel our trial",
                "We decided to go with another tool, please cancel.",
                "cus_1007", "closed", "low", "account", "email", "agt_raj", _at(8, 12, 0), ["cancellation"]),
        _Ticket("T-1055", "Re: Charged twice for February",
                "Following up: I still see two charges of $144 on our card for February. Any news?",
                "cus_1002", "open", "normal", "billing", "email", None, _at(14, 9, 20), ["duplicate-charge"]),
    ]
    t[0].comments.append(Comment(author="agt_maya", visibility="internal", created_at=_at(10, 9, 0),
                                 body="Reproduced on Android 14 with battery optimisation on. See MOB-311."))
    t[1].comments.append(Comment(author="agt_omar", visibility="public", created_at=_at(11, 11, 0),
                                 body="Thanks Marco, I can see both charges and I'm looking into it."))
    t[2].comments.append(Comment(author="agt_ines", visibility="public", created_at=_at(12, 9, 10),
                                 body="Please upload the new certificate in Settings → Security → SSO."))
    for ticket in t:
        ticket.updated_at = max([ticket.created_at, *(c.created_at for c in ticket.comments)])
    return {x.ticket_id: x for x in t}
# fmt: on


def _seed_invoices() -> dict[str, _Invoice]:
    def seats(plan: Plan, n: int, label: str) -> list[InvoiceLine]:
        price = SEAT_PRICE[plan]
        return [
            InvoiceLine(
                description=f"Lumen {plan.title()} — {label}",
                quantity=n,
                unit_price=price,
                amount=round(n * price, 2),
            )
        ]

    annual_discount = InvoiceLine(
        description="Annual prepay discount", quantity=1, unit_price=-842.4, amount=-842.4
    )
    rows = [
        _Invoice(
            "INV-2025-0101",
            "cus_1002",
            "paid",
            date(2025, 1, 17),
            seats("pro", 6, "January"),
            "mastercard •••• 5100",
        ),
        _Invoice(
            "INV-2025-0207",
            "cus_1002",
            "paid",
            date(2025, 2, 17),
            seats("pro", 6, "February"),
            "mastercard •••• 5100",
        ),
        _Invoice(
            "INV-2025-0208",
            "cus_1002",
            "paid",
            date(2025, 2, 17),
            seats("pro", 6, "February (duplicate)"),
            "mastercard •••• 5100",
        ),
        _Invoice("INV-2025-0311", "cus_1004", "open", date(2025, 3, 11), seats("starter", 3, "March"), None),
        _Invoice(
            "INV-2025-0212",
            "cus_1004",
            "paid",
            date(2025, 2, 11),
            seats("starter", 3, "February"),
            "visa •••• 1881",
        ),
        _Invoice(
            "INV-2025-0222",
            "cus_1005",
            "paid",
            date(2025, 2, 22),
            seats("pro", 9, "February"),
            "amex •••• 3005",
        ),
        _Invoice(
            "INV-2025-0230", "cus_1006", "past_due", date(2025, 2, 28), seats("business", 42, "March"), None
        ),
        _Invoice(
            "INV-2025-0130",
            "cus_1006",
            "paid",
            date(2025, 1, 30),
            seats("business", 42, "February"),
            "visa •••• 0341",
        ),
        _Invoice(
            "INV-2024-0503",
            "cus_1001",
            "paid",
            date(2024, 5, 3),
            [*seats("business", 18, "annual 2024–25"), annual_discount],
            "visa •••• 4242",
        ),
        _Invoice(
            "INV-2024-0901",
            "cus_1003",
            "paid",
            date(2024, 9, 1),
            seats("enterprise", 240, "annual 2024–25"),
            "invoice (bank transfer)",
        ),
        _Invoice(
            "INV-2024-0414",
            "cus_1008",
            "paid",
            date(2024, 4, 14),
            seats("enterprise", 120, "annual 2024–25"),
            "invoice (bank transfer)",
        ),
    ]
    return {i.invoice_id: i for i in rows}


def _seed_articles() -> dict[str, _Article]:
    rows = [
        _Article(
            "KB-101",
            "Resetting your password",
            "account",
            "Use 'Forgot password' on the sign-in page. The reset link is valid for 30 minutes. If the email "
            "does not arrive, check that no-reply@lumen.app is not blocked and that SSO is not enforced.",
            date(2024, 11, 2),
        ),
        _Article(
            "KB-102",
            "Exporting a project to CSV or Excel",
            "data",
            "Open the project, choose ⋯ → Export, and pick CSV or XLSX. Custom fields are exported as extra "
            "columns when 'Include custom fields' is ticked. Exports over 50,000 rows are emailed.",
            date(2025, 1, 20),
        ),
        _Article(
            "KB-103",
            "Setting up SAML single sign-on",
            "account",
            "Enterprise plans can sign in with Okta, Azure AD or any SAML 2.0 provider. After rotating your "
            "IdP certificate, upload the new one under Settings → Security → SSO or sign-ins will fail.",
            date(2025, 2, 8),
        ),
        _Article(
            "KB-104",
            "Android app: staying signed in",
            "mobile",
            "If the Android app signs you out when you switch apps, turn off battery optimisation for Lumen "
            "(Settings → Apps → Lumen → Battery → Unrestricted) and update to 5.12.1 or later.",
            date(2025, 3, 12),
        ),
        _Article(
            "KB-105",
            "Understanding your invoice and adding a VAT ID",
            "billing",
            "Invoices are issued on your renewal day. Add a VAT ID under Billing → Company details; it is "
            "printed on all invoices issued afterwards. Past invoices can be re-issued by support.",
            date(2024, 10, 15),
        ),
        _Article(
            "KB-106",
            "Changing your plan or number of seats",
            "billing",
            "Upgrades take effect immediately and are prorated. Downgrades take effect at the next renewal. "
            "Seats can be added at any time from Billing → Seats.",
            date(2024, 12, 1),
        ),
        _Article(
            "KB-107",
            "Refund policy",
            "billing",
            "Monthly plans are not refunded for partial months. Duplicate charges and billing errors are "
            "always refunded in full. Annual plans can be refunded pro rata within 30 days of renewal.",
            date(2024, 9, 30),
        ),
        _Article(
            "KB-108",
            "Connecting Outlook and Google Calendar",
            "integrations",
            "Connect a calendar under Settings → Integrations. Each task with a due date becomes one event. "
            "If events are duplicated, disconnect and reconnect the calendar to reset the sync token.",
            date(2025, 2, 27),
        ),
        _Article(
            "KB-109",
            "Webhooks: retries and delivery errors",
            "integrations",
            "Failed deliveries are retried for 24 hours with backoff. A 410 means the webhook was disabled "
            "after repeated failures; re-enable it under Settings → API → Webhooks.",
            date(2025, 1, 5),
        ),
    ]
    return {a.article_id: a for a in rows}


def _seed_agents() -> dict[str, tuple[str, Team, AgentStatus]]:
    return {
        "agt_maya": ("Maya Chen", "tier2", "online"),
        "agt_omar": ("Omar Haddad", "billing", "online"),
        "agt_ines": ("Inês Duarte", "enterprise", "online"),
        "agt_leo": ("Leo Park", "tier1", "online"),
        "agt_sara": ("Sara Lindqvist", "tier1", "away"),
        "agt_raj": ("Raj Patel", "tier1", "offline"),
        "agt_nina": ("Nina Kowalski", "billing", "offline"),
    }


@dataclass
class Store:
    customers: dict[str, _Customer] = field(default_factory=_seed_customers)
    tickets: dict[str, _Ticket] = field(default_factory=_seed_tickets)
    invoices: dict[str, _Invoice] = field(default_factory=_seed_invoices)
    articles: dict[str, _Article] = field(default_factory=_seed_articles)
    agents: dict[str, tuple[str, Team, AgentStatus]] = field(default_factory=_seed_agents)
    next_ticket: int = 1056
    next_article: int = 110
    next_refund: int = 1
    next_credit: int = 1
    clock: int = 0

    def tick(self) -> datetime:
        """The fixed clock, advanced a minute per write so new records keep a stable order."""
        self.clock += 1
        return NOW + timedelta(minutes=self.clock)

    def ticket(self, ticket_id: str) -> _Ticket:
        digits = re.sub(r"\D", "", ticket_id)
        found = self.tickets.get(f"T-{digits}")
        if found is None:
            raise ToolError(
                f"No ticket {ticket_id!r}. Ticket ids look like T-1042; use search_tickets to find one."
            )
        return found

    def customer(self, customer_id: str) -> _Customer:
        found = self.customers.get(customer_id.strip().lower())
        if found is None:
            raise ToolError(f"No customer {customer_id!r}. Ids look like cus_1002; try search_customers.")
        return found

    def invoice(self, invoice_id: str) -> _Invoice:
        found = self.invoices.get(invoice_id.strip().upper())
        if found is None:
            raise ToolError(f"No invoice {invoice_id!r}. Ids look like INV-2025-0207; try list_invoices.")
        return found

    def article(self, article_id: str) -> _Article:
        digits = re.sub(r"\D", "", article_id)
        found = self.articles.get(f"KB-{digits}")
        if found is None:
            raise ToolError(f"No article {article_id!r}. Article ids look like KB-104; use search_articles.")
        return found

    def agent(self, agent_id: str) -> Agent:
        key = agent_id.strip().lower()
        if key not in self.agents:
            raise ToolError(f"No agent {agent_id!r}. Agent ids look like agt_maya; use list_agents.")
        name, team, status = self.agents[key]
        load = sum(1 for t in self.tickets.values() if t.assignee_id == key and t.status in _OPEN_STATUSES)
        return Agent(agent_id=key, name=name, team=team, status=status, open_tickets=load)

    def open_tickets_of(self, customer_id: str) -> int:
        return sum(
            1 for t in self.tickets.values() if t.customer_id == customer_id and t.status in _OPEN_STATUSES
        )

    def customer_record(self, c: _Customer) -> Customer:
        return Customer(
            customer_id=c.customer_id,
            name=c.name,
            company=c.company,
            email=c.email,
            phone=c.phone,
            plan=c.plan,
            country=c.country,
            customer_since=c.customer_since,
            open_tickets=self.open_tickets_of(c.customer_id),
        )


_OPEN_STATUSES = ("open", "pending", "on_hold")
_PRIORITY_RANK = {"urgent": 0, "high": 1, "normal": 2, "low": 3}

store = Store()

server = MCPServer(
    name="helpdesk",
    title="Lumen Helpdesk",
    version="1.4.0",
    instructions=(
        "Support backend for Lumen, a project-management SaaS. Ticket ids look like T-1042, customer ids "
        "like cus_1002, invoice ids like INV-2025-0207, article ids like KB-104 and agent ids like agt_maya."
    ),
)


_Fn = TypeVar("_Fn", bound=Callable[..., Any])


def tool(annotations: ToolAnnotations) -> Callable[[_Fn], _Fn]:
    """Register a tool whose description is its docstring flattened to one paragraph, as clients show it."""

    def register(fn: _Fn) -> _Fn:
        server.add_tool(
            fn, description=" ".join(inspect.cleandoc(fn.__doc__ or "").split()), annotations=annotations
        )
        return fn

    return register


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2 or w.isdigit()]


def _score(query: str, *fields: str) -> int:
    """How many query words appear in the fields (a crude but predictable relevance)."""
    haystack = " ".join(fields).lower()
    return sum(1 for word in _words(query) if word in haystack)


# --------------------------------------------------------------------------- tickets


@tool(READ_ONLY)
def search_tickets(
    query: Annotated[
        str, Field(description="Words or a phrase to look for, e.g. 'android logout' or 'charged twice'.")
    ],
    status: Annotated[TicketStatus | None, Field(description="Only return tickets in this status.")] = None,
    limit: Annotated[int, Field(ge=1, le=50, description="Maximum number of tickets to return.")] = 10,
) -> TicketList:
    """Full-text search across ticket subjects, descriptions and comments, best match first.

    Use it to find tickets about a topic, symptom or phrase, e.g. to check whether others reported the same
    problem. To browse a queue by status, priority, assignee or customer, use list_tickets instead.
    """
    scored = []
    for t in store.tickets.values():
        if status and t.status != status:
            continue
        s = _score(query, t.subject, t.description, " ".join(t.tags), *(c.body for c in t.comments))
        if s:
            scored.append((-s, t.ticket_id, t))
    scored.sort(key=lambda row: (row[0], row[1]))
    return TicketList(total=len(scored), tickets=[t.summary() for _, _, t in scored[:limit]])


@tool(READ_ONLY)
def list_tickets(
    status: Annotated[TicketStatus | None, Field(description="Only tickets in this status.")] = None,
    priority: Annotated[Priority | None, Field(description="Only tickets with this priority.")] = None,
    assignee_id: Annotated[
        str | None,
        Field(description="Only tickets assigned to this agent id (e.g. agt_maya), or 'unassigned'."),
    ] = None,
    customer_id: Annotated[
        str | None, Field(description="Only tickets from this customer id (e.g. cus_1002).")
    ] = None,
    limit: Annotated[int, Field(ge=1, le=100, description="Maximum number of tickets to return.")] = 20,
) -> TicketList:
    """List tickets filtered by status, priority, assignee or customer, most urgent first.

    Use it for queue views such as 'my open tickets', 'everything urgent' or 'unassigned tickets'. It does not
    search ticket text; to find tickets about a topic use search_tickets.
    """
    rows = []
    for t in store.tickets.values():
        if status and t.status != status:
            continue
        if priority and t.priority != priority:
            continue
        if assignee_id:
            wanted = None if assignee_id.strip().lower() == "unassigned" else assignee_id.strip().lower()
            if t.assignee_id != wanted:
                continue
        if customer_id and t.customer_id != customer_id.strip().lower():
            continue
        rows.append(t)
    rows.sort(key=lambda t: (_PRIORITY_RANK[t.priority], t.created_at))
    return TicketList(total=len(rows), tickets=[t.summary() for t in rows[:limit]])


@tool(READ_ONLY)
def get_ticket(
    ticket_id: Annotated[str, Field(description="The ticket id, e.g. T-1042.")],
) -> Ticket:
    """Get one ticket in full: description, status, assignee, tags and the whole comment thread.

    Use it when you already know the ticket id and need its details or latest activity.
    """
    return store.ticket(ticket_id).full()


@tool(WRITE)
def create_ticket(
    customer_email: Annotated[str, Field(description="Email address of the customer the ticket is for.")],
    subject: Annotated[
        str, Field(min_length=3, max_length=150, description="A one-line summary of the issue.")
    ],
    description: Annotated[str, Field(min_length=1, description="What the customer reported, in full.")],
    priority: Annotated[Priority, Field(description="How urgent the issue is.")] = "normal",
    category: Annotated[TicketCategory, Field(description="What kind of request this is.")] = "question",
    channel: Annotated[
        Literal["email", "chat", "phone", "web"], Field(description="Where the customer reached us.")
    ] = "phone",
) -> Ticket:
    """Open a new support ticket on behalf of a customer, e.g. for an issue reported by phone or chat.

    The customer is matched by email; the ticket starts unassigned with status 'open'.
    """
    email = customer_email.strip().lower()
    customer = next((c for c in store.customers.values() if c.email == email), None)
    if customer is None:
        raise ToolError(
            f"No customer with email {customer_email!r}; use search_customers to check the address."
        )
    now = store.tick()
    ticket = _Ticket(
        f"T-{store.next_ticket}",
        subject,
        description,
        customer.customer_id,
        "open",
        priority,
        category,
        channel,
        None,
        now,
        updated_at=now,
    )
    store.next_ticket += 1
    store.tickets[ticket.ticket_id] = ticket
    logger.info("created %s for %s", ticket.ticket_id, customer.customer_id)
    return ticket.full()


@tool(IDEMPOTENT_WRITE)
def update_ticket_status(
    ticket_id: Annotated[str, Field(description="The ticket id, e.g. T-1042.")],
    status: Annotated[
        TicketStatus,
        Field(
            description="New status: 'pending' waits on the customer, 'on_hold' on a third party, "
            "'solved' lets the customer reopen for 7 days, 'closed' is final."
        ),
    ],
    note: Annotated[str | None, Field(description="Optional internal note explaining the change.")] = None,
) -> Ticket:
    """Change a ticket's status, e.g. mark it solved, put it on hold or reopen it.

    To write to the customer without changing the status, use add_ticket_comment.
    """
    ticket = store.ticket(ticket_id)
    if ticket.status == "closed" and status != "closed":
        raise ToolError(
            f"{ticket.ticket_id} is closed and cannot be reopened; create a follow-up ticket instead."
        )
    now = store.tick()
    ticket.status = status
    ticket.updated_at = now
    if note:
        ticket.comments.append(Comment(author="assistant", visibility="internal", body=note, created_at=now))
    return ticket.full()


@tool(IDEMPOTENT_WRITE)
def assign_ticket(
    ticket_id: Annotated[str, Field(description="The ticket id, e.g. T-1042.")],
    agent_id: Annotated[
        str, Field(description="The agent to assign it to, e.g. agt_maya (see list_agents).")
    ],
) -> Ticket:
    """Assign a ticket to a support agent, replacing the current assignee if there is one."""
    ticket = store.ticket(ticket_id)
    agent = store.agent(agent_id)
    ticket.assignee_id = agent.agent_id
    ticket.updated_at = store.tick()
    return ticket.full()


@tool(WRITE)
def add_ticket_comment(
    ticket_id: Annotated[str, Field(description="The ticket id, e.g. T-1042.")],
    body: Annotated[str, Field(min_length=1, description="The text of the reply or note.")],
    visibility: Annotated[
        Literal["public", "internal"],
        Field(description="'public' emails the reply to the customer; 'internal' is a note only agents see."),
    ] = "public",
) -> Ticket:
    """Add a reply to the customer or an internal note to a ticket's thread, without changing its status."""
    ticket = store.ticket(ticket_id)
    now = store.tick()
    ticket.comments.append(Comment(author="assistant", visibility=visibility, body=body, created_at=now))
    ticket.updated_at = now
    return ticket.full()


@tool(DESTRUCTIVE)
def merge_tickets(
    source_ticket_id: Annotated[
        str, Field(description="The duplicate ticket, which gets closed, e.g. T-1053.")
    ],
    target_ticket_id: Annotated[str, Field(description="The ticket to keep, which receives the comments.")],
) -> Ticket:
    """Merge a duplicate ticket into another one: its comments move to the target and the duplicate is closed.

    Use it when the same customer issue was reported twice. This cannot be undone.
    """
    source, target = store.ticket(source_ticket_id), store.ticket(target_ticket_id)
    if source.ticket_id == target.ticket_id:
        raise ToolError("A ticket cannot be merged into itself.")
    if source.merged_into:
        raise ToolError(f"{source.ticket_id} was already merged into {source.merged_into}.")
    now = store.tick()
    target.comments.extend(source.comments)
    target.comments.append(
        Comment(
            author="assistant",
            visibility="internal",
            created_at=now,
            body=f"Merged {source.ticket_id} ({source.subject}) into this ticket.",
        )
    )
    target.updated_at = now
    source.comments = []
    source.status, source.merged_into, source.updated_at = "closed", target.ticket_id, now
    return target.full()


# --------------------------------------------------------------------------- customers


@tool(READ_ONLY)
def search_customers(
    query: Annotated[str, Field(min_length=2, description="A name, email address, company or phone number.")],
) -> CustomerList:
    """Find customers by name, email, company or phone.

    Use it to look up who someone is or to get a customer id.
    """
    q = query.strip().lower()
    hits = []
    for c in store.customers.values():
        fields = (c.name, c.email, c.company, c.phone or "")
        if any(q in f.lower() for f in fields) or _score(q, *fields) >= max(1, len(_words(q))):
            hits.append(store.customer_record(c))
    return CustomerList(total=len(hits), customers=hits)


@tool(READ_ONLY)
def get_customer(
    customer_id: Annotated[str, Field(description="The customer id, e.g. cus_1002.")],
) -> Customer:
    """Get a customer's profile: contact details, company, plan, customer-since date and open ticket count."""
    return store.customer_record(store.customer(customer_id))


@tool(IDEMPOTENT_WRITE)
def update_customer_contact(
    customer_id: Annotated[str, Field(description="The customer id, e.g. cus_1002.")],
    name: Annotated[str | None, Field(description="New contact name.")] = None,
    email: Annotated[
        str | None, Field(description="New email address for login, invoices and replies.")
    ] = None,
    phone: Annotated[str | None, Field(description="New phone number, with country code.")] = None,
) -> Customer:
    """Change a customer's contact details (name, email or phone). Fields left out stay as they are."""
    c = store.customer(customer_id)
    if name is None and email is None and phone is None:
        raise ToolError("Nothing to change: give at least one of name, email or phone.")
    if email is not None:
        if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", email):
            raise ToolError(f"{email!r} is not a valid email address.")
        c.email = email.strip().lower()
    c.name = name or c.name
    c.phone = phone or c.phone
    return store.customer_record(c)


# --------------------------------------------------------------------------- billing


@tool(READ_ONLY)
def list_invoices(
    customer_id: Annotated[str, Field(description="The customer id, e.g. cus_1002.")],
    status: Annotated[InvoiceStatus | None, Field(description="Only invoices in this status.")] = None,
    limit: Annotated[int, Field(ge=1, le=50, description="Maximum number of invoices to return.")] = 12,
) -> InvoiceList:
    """List a customer's invoices, newest first, with status and totals.

    Use it to see billing history or find an invoice id; for the line items of one invoice use get_invoice.
    """
    c = store.customer(customer_id)
    rows = [
        i
        for i in store.invoices.values()
        if i.customer_id == c.customer_id and (not status or i.status == status)
    ]
    rows.sort(key=lambda i: (i.issued_on, i.invoice_id), reverse=True)
    return InvoiceList(total=len(rows), invoices=[i.summary() for i in rows[:limit]])


@tool(READ_ONLY)
def get_invoice(
    invoice_id: Annotated[str, Field(description="The invoice id, e.g. INV-2025-0207.")],
) -> Invoice:
    """Get one invoice in full: line items, totals, payment method, status and any amount refunded."""
    i = store.invoice(invoice_id)
    return Invoice(
        **i.summary().model_dump(),
        lines=i.lines,
        amount_refunded=i.amount_refunded,
        payment_method=i.payment_method,
    )


@tool(DESTRUCTIVE)
def issue_refund(
    invoice_id: Annotated[str, Field(description="The paid invoice to refund, e.g. INV-2025-0208.")],
    reason: Annotated[RefundReason, Field(description="Why the money is returned.")],
    amount: Annotated[
        float | None,
        Field(gt=0, description="Amount to refund in the invoice currency; leave out for a full refund."),
    ] = None,
) -> Refund:
    """Refund money from a paid invoice back to the customer's original payment method, fully or partly.

    Use it when money must go back to the card or bank. For goodwill that should lower future bills instead,
    use apply_account_credit.
    """
    i = store.invoice(invoice_id)
    if i.status not in ("paid", "refunded"):
        raise ToolError(f"{i.invoice_id} is {i.status}; only paid invoices can be refunded.")
    refundable = round(i.total - i.amount_refunded, 2)
    value = refundable if amount is None else round(amount, 2)
    if refundable <= 0:
        raise ToolError(f"{i.invoice_id} has already been refunded in full.")
    if value > refundable:
        raise ToolError(f"At most {refundable:.2f} USD can still be refunded on {i.invoice_id}.")
    i.amount_refunded = round(i.amount_refunded + value, 2)
    if i.amount_refunded >= i.total:
        i.status = "refunded"
    refund = Refund(
        refund_id=f"re_{store.next_refund:04d}",
        invoice_id=i.invoice_id,
        amount=value,
        currency="USD",
        reason=reason,
        invoice_status=i.status,
        arrives_in="5–10 business days",
    )
    store.next_refund += 1
    return refund


@tool(WRITE)
def apply_account_credit(
    customer_id: Annotated[str, Field(description="The customer id, e.g. cus_1002.")],
    amount: Annotated[float, Field(gt=0, le=1000, description="Credit in USD, at most 1000.")],
    reason: Annotated[
        str, Field(min_length=3, description="Why the credit is given; shown on the next invoice.")
    ],
) -> AccountCredit:
    """Add a credit to a customer's account balance, used up automatically by their next invoices.

    Use it for goodwill gestures or outage compensation. It does not send money back to the card; for that use
    issue_refund.
    """
    c = store.customer(customer_id)
    c.credit_balance = round(c.credit_balance + amount, 2)
    credit = AccountCredit(
        credit_id=f"cr_{store.next_credit:04d}",
        customer_id=c.customer_id,
        amount=round(amount, 2),
        currency="USD",
        reason=reason,
        credit_balance=c.credit_balance,
    )
    store.next_credit += 1
    return credit


def _subscription(c: _Customer) -> Subscription:
    return Subscription(
        customer_id=c.customer_id,
        plan=c.plan,
        seats=c.seats,
        billing_cycle=c.billing_cycle,
        status=c.subscription_status,
        renews_on=c.renews_on,
        seat_price=SEAT_PRICE[c.plan],
        currency="USD",
        credit_balance=c.credit_balance,
        payment_method=c.payment_method,
        scheduled_change=c.scheduled_change,
    )


@tool(READ_ONLY)
def get_subscription(
    customer_id: Annotated[str, Field(description="The customer id, e.g. cus_1002.")],
) -> Subscription:
    """Get a customer's subscription: plan, seats, billing cycle, renewal date, card and credit balance."""
    return _subscription(store.customer(customer_id))


@tool(IDEMPOTENT_WRITE)
def change_subscription_plan(
    customer_id: Annotated[str, Field(description="The customer id, e.g. cus_1002.")],
    plan: Annotated[Plan, Field(description="The plan to move to.")],
    seats: Annotated[
        int | None, Field(ge=1, le=5000, description="New seat count; leave out to keep it.")
    ] = None,
    effective: Annotated[
        Literal["now", "next_renewal"],
        Field(description="'now' prorates immediately; 'next_renewal' schedules it for the renewal date."),
    ] = "next_renewal",
) -> Subscription:
    """Upgrade or downgrade a customer's plan and optionally change the seat count, now or at renewal."""
    c = store.customer(customer_id)
    if c.subscription_status == "canceled":
        raise ToolError(f"{c.customer_id} has no active subscription.")
    new_seats = seats or c.seats
    if effective == "now":
        c.plan, c.seats, c.scheduled_change = plan, new_seats, None
    else:
        c.scheduled_change = f"{plan}, {new_seats} seats on {c.renews_on.isoformat()}"
    return _subscription(c)


# --------------------------------------------------------------------------- knowledge base


@tool(READ_ONLY)
def search_articles(
    query: Annotated[
        str, Field(description="What the reader wants to know, e.g. 'reset password' or 'VAT'.")
    ],
    category: Annotated[ArticleCategory | None, Field(description="Only articles in this category.")] = None,
) -> ArticleList:
    """Search the help-center knowledge base and return matching articles with a short snippet, best first.

    Use it to find documentation to answer a how-to question or to send to a customer. To read an article
    whose id you already have, use get_article.
    """
    scored = []
    for a in store.articles.values():
        if category and a.category != category:
            continue
        s = _score(query, a.title, a.title, a.body)
        if s:
            scored.append((-s, a.article_id, a))
    scored.sort(key=lambda row: (row[0], row[1]))
    return ArticleList(total=len(scored), articles=[a.summary() for _, _, a in scored])


@tool(READ_ONLY)
def get_article(
    article_id: Annotated[str, Field(description="The article id, e.g. KB-104.")],
) -> Article:
    """Get the full text of one knowledge-base article by its id."""
    a = store.article(article_id)
    return Article(**a.summary().model_dump(), body=a.body, updated_on=a.updated_on)


@tool(WRITE)
def create_article_draft(
    title: Annotated[str, Field(min_length=5, max_length=120, description="The article title.")],
    body: Annotated[str, Field(min_length=20, description="The article text, in Markdown.")],
    category: Annotated[ArticleCategory, Field(description="Where the article belongs in the help center.")],
) -> Article:
    """Write a new knowledge-base article as an unpublished draft for the docs team to review."""
    article = _Article(f"KB-{store.next_article}", title, category, body, TODAY, status="draft")
    store.next_article += 1
    store.articles[article.article_id] = article
    return Article(**article.summary().model_dump(), body=article.body, updated_on=article.updated_on)


# --------------------------------------------------------------------------- team


@tool(READ_ONLY)
def list_agents(
    team: Annotated[Team | None, Field(description="Only agents on this team.")] = None,
    status: Annotated[AgentStatus | None, Field(description="Only agents with this availability.")] = None,
) -> AgentList:
    """List support agents with their team, availability and current number of open tickets.

    Use it to see who is online or who has capacity before assigning work.
    """
    agents = [store.agent(a) for a in store.agents]
    agents = [a for a in agents if (not team or a.team == team) and (not status or a.status == status)]
    return AgentList(agents=sorted(agents, key=lambda a: (a.open_tickets, a.agent_id)))


# Figures the dataset is too small to produce (response times, satisfaction) are fixed per period and team.
_METRIC_BASE: dict[Period, tuple[int, int, int, float, float]] = {
    "today": (14, 9, 22, 3.5, 92.0),
    "last_7_days": (96, 88, 35, 7.0, 89.5),
    "last_30_days": (410, 395, 41, 9.5, 88.0),
    "this_quarter": (1130, 1102, 44, 10.0, 87.5),
}
_TEAM_SHARE: dict[Team, float] = {"tier1": 0.55, "tier2": 0.2, "billing": 0.15, "enterprise": 0.1}


@tool(READ_ONLY)
def get_support_metrics(
    period: Annotated[Period, Field(description="The time window to report on.")] = "last_7_days",
    team: Annotated[
        Team | None, Field(description="Only this team's tickets; leave out for the whole desk.")
    ] = None,
) -> SupportMetrics:
    """Report support KPIs for a period: volume, backlog, response and resolution times, and CSAT."""
    new, solved, frt, resolution, csat = _METRIC_BASE[period]
    share = _TEAM_SHARE[team] if team else 1.0
    members = {a for a, (_, t, _) in store.agents.items() if not team or t == team}
    backlog = sum(
        1
        for t in store.tickets.values()
        if t.status in _OPEN_STATUSES and (not team or t.assignee_id in members)
    )
    return SupportMetrics(
        period=period,
        team=team,
        new_tickets=round(new * share),
        solved_tickets=round(solved * share),
        backlog=backlog,
        median_first_response_minutes=frt if not team else round(frt * (0.7 + share)),
        median_resolution_hours=resolution,
        csat_percent=csat,
    )


# --------------------------------------------------------------------------- operations (--ops-tools)
#
# Three tools for `mcp-evals session` (evals/session/tasks.yaml), off unless the server starts with
# --ops-tools so the selection eval's catalog stays as it is. Their results carry a `diagnostics` field
# the way production servers report how a value was obtained: whether trying again can help, whether a
# value came from a stale cache. A session's arm B strips that field to measure what it is worth.

Region = Literal["us", "eu", "ap"]
Integration = Literal["salesforce", "outlook", "google_calendar", "slack"]


class Diagnostics(BaseModel):
    source: str = Field(description="Where the values came from.")
    attempts: int = Field(description="Upstream requests this answer took.")
    retryable: bool = Field(description="Whether trying the same thing again can succeed.")
    stale: bool = Field(False, description="Some values are older than the request.")
    unstable: list[str] = Field(
        default_factory=list, description="Fields whose values may be out of date or estimated."
    )
    note: str | None = None


class ComponentStatus(BaseModel):
    name: str
    status: Literal["operational", "degraded", "outage"]
    p95_latency_ms: int


class ServiceStatus(BaseModel):
    region: Region
    status: Literal["operational", "degraded", "outage"]
    components: list[ComponentStatus]
    incident: str | None
    checked_at: datetime
    diagnostics: Diagnostics


class SyncJob(BaseModel):
    job_id: str
    customer_id: str
    integration: Integration
    state: Literal["running", "failed", "succeeded"]
    records_synced: int
    last_error: str | None
    updated_at: datetime
    diagnostics: Diagnostics


@dataclass
class _SyncJob:
    job_id: str
    customer_id: str
    integration: Integration
    state: Literal["running", "failed", "succeeded"]
    records_synced: int
    last_error: str | None
    retryable: bool
    failure: str | None = None
    attempts: int = 1


def _seed_sync_jobs() -> dict[str, _SyncJob]:
    rows = [
        _SyncJob("SYNC-7", "cus_1001", "salesforce", "failed", 1_204,
                 "401 invalid_grant: the Salesforce refresh token was revoked", False,
                 "The customer must reconnect Salesforce (Settings → Integrations); a retry cannot work."),
        _SyncJob("SYNC-8", "cus_1008", "outlook", "failed", 88, "429 Too Many Requests from Microsoft Graph",
                 True, "Rate limited upstream; a retry is safe.", 3),
        _SyncJob("SYNC-9", "cus_1003", "slack", "succeeded", 5_310, None, True),
    ]  # fmt: skip
    return {job.job_id: job for job in rows}


_SYNC_JOBS = _seed_sync_jobs()


def _components(
    *rows: tuple[str, Literal["operational", "degraded", "outage"], int],
) -> list[ComponentStatus]:
    return [ComponentStatus(name=name, status=status, p95_latency_ms=ms) for name, status, ms in rows]


_STATUS: dict[Region, ServiceStatus] = {
    "us": ServiceStatus(
        region="us",
        status="operational",
        components=_components(
            ("api", "operational", 180), ("web", "operational", 240), ("sync", "operational", 900)
        ),
        incident=None,
        checked_at=NOW,
        diagnostics=Diagnostics(source="status-probe", attempts=1, retryable=True),
    ),
    "eu": ServiceStatus(
        region="eu",
        status="degraded",
        components=_components(
            ("api", "degraded", 2_350), ("web", "operational", 310), ("sync", "degraded", 4_800)
        ),
        incident="Elevated API latency in eu-central since 13:20 UTC; mitigation in progress.",
        checked_at=NOW,
        diagnostics=Diagnostics(
            source="status-cache",
            attempts=3,
            retryable=True,
            stale=True,
            unstable=["components[].p95_latency_ms"],
            note="The live probe timed out twice; the latencies are a cached reading from 47 minutes ago.",
        ),
    ),
    "ap": ServiceStatus(
        region="ap",
        status="operational",
        components=_components(
            ("api", "operational", 210), ("web", "operational", 260), ("sync", "operational", 1_100)
        ),
        incident="Resolved: delayed notifications in ap-southeast (11:05–11:40 UTC).",
        checked_at=NOW,
        diagnostics=Diagnostics(source="status-probe", attempts=1, retryable=True),
    ),
}


def _sync_job(job_id: str) -> _SyncJob:
    found = _SYNC_JOBS.get(job_id.strip().upper())
    if found is None:
        raise ToolError(f"No sync job {job_id!r}. It does not exist; sync job ids look like SYNC-7.")
    return found


def _job_record(job: _SyncJob) -> SyncJob:
    return SyncJob(
        job_id=job.job_id,
        customer_id=job.customer_id,
        integration=job.integration,
        state=job.state,
        records_synced=job.records_synced,
        last_error=job.last_error,
        updated_at=NOW,
        diagnostics=Diagnostics(
            source="sync-scheduler", attempts=job.attempts, retryable=job.retryable, note=job.failure
        ),
    )


def get_service_status(
    region: Annotated[Region, Field(description="The region: us, eu or ap.")],
) -> ServiceStatus:
    """Get the live status of Lumen in one region: each component's status, p95 latency, any incident."""
    return _STATUS[region]


def get_sync_job(
    job_id: Annotated[str, Field(description="The sync job id, e.g. SYNC-7.")],
) -> SyncJob:
    """Get an integration sync job (Salesforce, Outlook, Google Calendar, Slack): its state and last error."""
    return _job_record(_sync_job(job_id))


def retry_sync_job(
    job_id: Annotated[str, Field(description="The failed sync job to run again, e.g. SYNC-8.")],
) -> SyncJob:
    """Run a failed integration sync job again."""
    job = _sync_job(job_id)
    if job.state != "failed":
        raise ToolError(f"{job.job_id} is {job.state}; only failed jobs can be retried.")
    if not job.retryable:
        raise ToolError(f"{job.job_id} cannot be retried: {job.last_error}. {job.failure}")
    job.state, job.last_error, job.attempts = "running", None, job.attempts + 1
    return _job_record(job)


def register_ops_tools() -> None:
    """Add the operations tools to the server (they are off by default)."""
    for fn in (get_service_status, get_sync_job, retry_sync_job):
        annotations = WRITE if fn is retry_sync_job else READ_ONLY
        server.add_tool(
            fn, description=" ".join(inspect.cleandoc(fn.__doc__ or "").split()), annotations=annotations
        )


# --------------------------------------------------------------------------- transports


class BearerTokenMiddleware:
    """Refuse HTTP requests that lack `Authorization: Bearer <token>`; lifespan events pass through."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="helpdesk"'),
                        ],
                    }
                )
                await send(
                    {"type": "http.response.body", "body": b'{"error":"missing or invalid bearer token"}'}
                )
                return
        await self.app(scope, receive, send)


def run_http(host: str, port: int) -> None:
    import uvicorn

    app: Any = server.streamable_http_app(host=host)
    token = os.environ.get("HELPDESK_TOKEN")
    if token:
        app = BearerTokenMiddleware(app, token)
    logger.info("helpdesk on http://%s:%d/mcp (bearer token %s)", host, port, "required" if token else "off")
    uvicorn.run(app, host=host, port=port, log_level="warning")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--http", action="store_true", help="serve Streamable HTTP at /mcp instead of stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument(
        "--ops-tools",
        action="store_true",
        help="also serve get_service_status, get_sync_job and retry_sync_job (for mcp-evals session)",
    )
    args = parser.parse_args(argv)
    if args.ops_tools:
        register_ops_tools()
    if args.http:
        run_http(args.host, args.port)
    else:
        server.run()


if __name__ == "__main__":
    main()
