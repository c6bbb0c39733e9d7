"""Action verbs, written once: what the words that begin tool names mean, for each reader of them.

``init`` skips a name's leading verbs to find what the tool is about (fixtures/scaffold.py); lint reads a
tool's verb and the kind of its effect (lint/actions.py), merges verbs a model reads as one
(lint/text.py), and tells a tool's name in prose by the verb it begins with (rule D007). Each verb is
listed once, under the kind of its effect; the other sets are drawn from that one table.
"""

from __future__ import annotations

# The kind of each verb's effect: "read" changes nothing; create, update and delete write; start and stop
# run or end work. Under None: verbs whose effect the word alone does not tell (``open`` a file reads,
# ``open`` an issue creates; ``copy``, ``close``, ``resolve``), or that name no data operation.
_BY_KIND: dict[str | None, str] = {
    "read": (
        "get fetch read retrieve load show view describe obtain list enumerate browse search find "
        "query lookup locate seek discover check verify validate inspect count download export scrape "
        "extract parse summarize analyze compare preview poll"
    ),
    "create": (
        "create add new make insert post register write upload import submit send reply publish push "
        "fork comment save store generate invite"
    ),
    "update": (
        "update edit modify change set patch alter rename move replace merge toggle enable disable "
        "assign configure mark reorder"
    ),
    "delete": "delete remove destroy drop erase purge clear unregister revoke",
    "start": "run execute invoke call perform trigger start launch queue schedule",
    "stop": "stop cancel abort kill halt terminate",
    None: (
        "accept activate aggregate allocate analyse append apply approve archive attach authenticate "
        "authorize autocomplete backup ban bind block build calculate capture categorize checkout "
        "classify clean cleanup click clone close collect combine commit compile complete compose "
        "compress compute confirm connect convert copy crawl decline decode decompress decrypt "
        "deduplicate deny deploy detach detect diagnose disconnect dismiss dispatch do drag draw "
        "duplicate echo embed emit encode encrypt end enqueue enrich ensure estimate evaluate expand "
        "explain extend file fill filter finish fix flag follow force format forward geocode give "
        "grant group gzip handle hide highlight hover ignore install issue join leave like link lock "
        "login logout manage map migrate monitor mount mute navigate normalize notify open optimize "
        "order pause pin ping play populate predict prepare press print process promote prune pull "
        "put rank reassign rebase reboot rebuild recommend reconcile record redact redo refresh "
        "refund regenerate reindex reject release reload render reopen report request rerun "
        "reschedule reset resize resolve restart restore resume retry return revert review rewrite "
        "rollback rotate route sample scale scan screenshot scroll see select setup share shutdown "
        "sign simulate skip snooze sort split stream subscribe suggest sum summarise suspend switch "
        "sync tag take test track train transcribe transfer transform translate truncate type "
        "unarchive unassign unban unblock undo unfollow uninstall unlink unlock unmute unpin "
        "unsubscribe unzip upgrade upsert use visit wait watch zip"
    ),
}
# Verbs that are as often the noun a name is about (``issue_refund`` but ``issue_read``, ``get_record``):
# a verb only as a name's first word, before a word that is no verb.
_NOUNS_TOO = (
    "backup block build call change checkout comment commit copy count end export file filter flag "
    "format group handle import issue link lock map monitor order patch pin post preview print "
    "process query queue record refund release reply report request return review route run sample "
    "scan schedule screenshot setup share store stream sum tag test toggle track train transfer "
    "trigger type view"
)
# Of those, the ones that begin a tool's name as its verb far more often than as its noun (``run_query``,
# ``call_tool``, ``post_message``, ``copy_file``): a snake_case word in prose that begins with one reads
# as a tool's name.
_LEADING_NOUNS_TOO = "call copy patch post query run"
# Verbs a model reads as the same action: each stands for the first of its group.
VERB_GROUPS: tuple[tuple[str, ...], ...] = (
    ("get", "fetch", "read", "retrieve", "load", "show", "view", "describe", "obtain"),
    ("search", "find", "query", "lookup", "locate", "seek", "discover"),
    ("list", "enumerate", "browse"),
    ("create", "add", "new", "make", "insert", "post", "register"),
    ("update", "edit", "modify", "change", "set", "patch", "alter"),
    ("delete", "remove", "destroy", "drop", "erase", "purge"),
    ("run", "execute", "invoke", "call", "perform", "trigger", "start", "launch"),
    ("send", "publish", "notify"),
    ("check", "verify", "validate", "test", "inspect"),
)

KIND: dict[str, str] = {
    verb: kind for kind, verbs in _BY_KIND.items() if kind is not None for verb in verbs.split()
}
VERBS: frozenset[str] = frozenset(verb for verbs in _BY_KIND.values() for verb in verbs.split())
VERB_OR_NOUN: frozenset[str] = frozenset(_NOUNS_TOO.split())
VERB_ONLY: frozenset[str] = VERBS - VERB_OR_NOUN
# The first words of a snake_case or camelCase word in prose that make it read as a tool's name.
NAME_VERBS: frozenset[str] = VERB_ONLY | frozenset(_LEADING_NOUNS_TOO.split())
SYNONYM: dict[str, str] = {verb: group[0] for group in reversed(VERB_GROUPS) for verb in group}
