"""What grading found besides test results: evidence of forgery, and what it neutralized.

*Evidence* (severity ``tamper``) comes only from channels a patch cannot predict: canary
tests, the harness's own result channel, the integrity of the graded files and of the
repository. Under ``strict`` an item with evidence cannot be resolved. *Notes* (severity
``suspicious``) are flags for a reader and never change a verdict. What was restored before
the tests is recorded as ``neutralized`` and is not a finding: it cannot influence the run.
"""

from __future__ import annotations

from dataclasses import dataclass

TAMPER = "tamper"
SUSPICIOUS = "suspicious"


@dataclass(frozen=True)
class Finding:
    """One observation about a patch or its run."""

    severity: str
    """``tamper`` (evidence of forgery) or ``suspicious`` (a note)."""
    rule: str
    """A short, stable name (``canary``, ``channel``, ``graded-file``, ``forged-marker``, ...)."""
    message: str

    def __str__(self) -> str:
        # One line without ";": the ledger joins findings with "; " into one property.
        message = self.message.replace(";", ",").replace("\r", "\\r").replace("\n", "\\n")
        return f"{self.rule}: {message}"


def evidence(rule: str, message: str) -> Finding:
    return Finding(TAMPER, rule, message)


def note(rule: str, message: str) -> Finding:
    return Finding(SUSPICIOUS, rule, message)


def dedupe(findings: list[Finding]) -> list[Finding]:
    return list(dict.fromkeys(findings))
