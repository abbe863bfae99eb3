"""ServerLog: every business call and model exchange the server saw, in order."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, SerializeAsAny

from pling_harness.project.business_state import BusinessState
from pling_harness.server.model.conversation import ModelExchange
from pling_harness.server.model.wire import AssistantMessage, ModelRequest

# "static": a static request refused on purpose (a dotfile, a source map, a path naming no
# file); static files served, or simply missing, are not logged.
RecordKind = Literal["api", "model.request", "model.reply", "model.error", "static"]


class ServerRecord(BaseModel):
    """One entry. `body` is the parsed request JSON (None if absent or not JSON); a model
    exchange also carries its wire models, parsed once where the gateway read them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seq: int
    kind: RecordKind
    method: str
    path: str
    body: Any = None
    status: int | None = None
    response: Any = None
    state: SerializeAsAny[BusinessState]
    """The tutorial's business state after the call (pling_harness.project.business_state)."""
    # Why a call failed, for people reading the log; never shown to the page.
    detail: str | None = None
    model_request: ModelRequest | None = None
    """The validated model request (`model.request`, and the reply or error answering it)."""
    model_reply: AssistantMessage | None = None
    """The reply the page was sent (`model.reply`)."""
    answers: int | None = None
    """The seq of the `model.request` a `model.reply` or `model.error` answers (None for a
    request refused before it reached the model)."""

    @property
    def error_code(self) -> str | None:
        """The code a refused model request was answered with, on either wire: the
        gateway's `{"ok": false, "code": "MODEL_BAD_REPLY"}` or OpenAI's error object
        (`{"error": {"code": "model_bad_reply"}}`, which names codes in lower case)."""
        response = self.response if isinstance(self.response, dict) else {}
        error = response.get("error")
        code = error.get("code") if isinstance(error, dict) else response.get("code")
        return code.upper() if isinstance(code, str) else None


class ServerLog:
    """Thread-safe, append-only; seq starts at 1 and only grows (also across `clear()`).

    A log the checks read keeps every record since the last `clear()`, bodies and all. A log
    nobody reads (`pling-tutorial dev`, which is never reset) passes `retain`: it keeps only
    that many of the latest records and none of their bodies, requests, replies or
    answers, so a server that runs for days holds what it held at its start.
    """

    def __init__(self, *, retain: int | None = None) -> None:
        if retain is not None and retain < 0:
            raise ValueError(f"retain must be >= 0 or None. Current input: {retain}")
        self.retain = retain
        self._changed = threading.Condition()
        self._records: deque[ServerRecord] = deque(maxlen=retain)
        self._last_seq = 0

    def append(
        self,
        *,
        kind: RecordKind,
        method: str,
        path: str,
        state: BusinessState,
        body: Any = None,
        status: int | None = None,
        response: Any = None,
        detail: str | None = None,
        model_request: ModelRequest | None = None,
        model_reply: AssistantMessage | None = None,
        answers: int | None = None,
    ) -> ServerRecord:
        if self.retain is not None:
            body = response = model_request = model_reply = None
        with self._changed:
            self._last_seq += 1
            record = ServerRecord(
                seq=self._last_seq, kind=kind, method=method, path=path, body=body,
                status=status, response=response, state=state, detail=detail,
                model_request=model_request, model_reply=model_reply, answers=answers,
            )
            self._records.append(record)
            self._changed.notify_all()
            return record

    def records(
        self,
        *,
        kind: RecordKind | None = None,
        path: str | None = None,
        after: int = 0,
    ) -> list[ServerRecord]:
        """A copy of the records, optionally only one kind, one path, or those after a seq."""
        with self._changed:
            return [
                record for record in self._records
                if (kind is None or record.kind == kind)
                and (path is None or record.path == path)
                and record.seq > after
            ]

    def model_exchanges(self) -> list[ModelExchange]:
        """Every model request the gateway forwarded, with the reply it answered (None: a
        fault, or not answered yet), oldest first, indexed as `model.requests` is."""
        records = self.records()
        replies = {r.answers: r.model_reply for r in records if r.kind == "model.reply"}
        requests = [r for r in records if r.kind == "model.request" and r.model_request]
        return [ModelExchange(index=index, seq=record.seq, request=record.model_request,
                              reply=replies.get(record.seq))
                for index, record in enumerate(requests) if record.model_request is not None]

    def __len__(self) -> int:
        with self._changed:
            return len(self._records)

    @property
    def last_seq(self) -> int:
        with self._changed:
            return self._last_seq

    def clear(self) -> None:
        with self._changed:
            self._records.clear()

    def wait_for(
        self, predicate: Callable[[ServerRecord], bool], *, timeout: float, after: int = 0
    ) -> ServerRecord:
        """The first record after `after` matching `predicate`, waiting up to `timeout` s.

        Woken by each append, so it never polls; raises TimeoutError naming the wait.
        """
        def first_match() -> ServerRecord | None:
            return next(
                (r for r in self._records if r.seq > after and predicate(r)), None
            )

        with self._changed:
            found = self._changed.wait_for(first_match, timeout=timeout)
            if found is None:
                raise TimeoutError(
                    f"no server log record matched within {timeout} s "
                    f"({len(self._records)} records so far)"
                )
            return found
