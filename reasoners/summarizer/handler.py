"""The summarizer: keeps a short and a long running summary per session.

Each run folds the messages since the previous summary of its kind into that summary, under
the kind's word limit: with the LLM when one is configured, else extractively.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from graph.configuration import instructions, joined
from graph.db import Database, Tx
from graph.errors import Conflict
from graph.records import MessageRecord
from graph.repo import messages as message_repo
from graph.repo import sessions, summaries, workspaces
from graph.repo.jobs import ClaimedUnit, JobResult
from graph.settings import Settings
from reasoners.embeddings.tokens import TokenCounter
from reasoners.llm.interface import LLM, LLMError, Usage, billed
from reasoners.queue.worker import Prepared
from reasoners.summarizer.extractive import extractive_summary
from reasoners.summarizer.prompt import summary_messages
from reasoners.summarizer.schema import bounded_summary


@dataclass
class SummarizerHandler:
    db: Database
    llm: LLM | None
    tokens: TokenCounter
    settings: Settings
    run_messages: int = 0  # the most messages one run folds in; 0: MAX_RUN_MESSAGES

    def word_limit(self, kind: str) -> int:
        if kind == "long":
            return self.settings.summary_long_words
        return self.settings.summary_short_words

    async def prepare(self, unit: ClaimedUnit) -> Prepared:
        # Jobs of a session run in order; each folds in what arrived since the last summary.
        plans: list[tuple[str, str, int]] = []  # kind, text, up_to
        usage_by_job: list[JobResult] = []
        again: list[str] = []
        latest: dict[str, tuple[str | None, int]] = {}
        based_on: dict[str, str | None] = {}  # kind -> the stored summary a plan folds into
        read: list[MessageRecord] = []
        head = unit.jobs[0]
        workspace, session = head.workspace, head.session or ""

        async def read_resets(tx: Tx) -> int:
            return await summaries.resets(tx, workspace, session)

        resets = await self.db.read_tx(read_resets)  # before anything the summary will quote
        guidance = await self._guidance(workspace, session) if self.llm is not None else None
        for job in unit.jobs:
            kind = str(job.payload.get("kind", "short"))
            wanted = int(job.payload.get("up_to_seq", 0))
            if kind not in latest:
                previous = await summaries.latest(self.db, workspace, session, kind)
                based_on[kind] = previous.id if previous else None
                latest[kind] = (
                    (previous.content, previous.up_to_message) if previous else (None, -1)
                )
            text, covered = latest[kind]
            if wanted <= covered:
                usage_by_job.append(JobResult(job.id))
                continue
            # A bounded part at a time: after an edit early in a session of 100,000 messages,
            # one run read them all and wrote nothing until the end.
            # A stretch with no live message left (all deleted) is passed over in the same run:
            # taken as a part of its own, it was read again, empty, on every claim for good.
            step = self.run_messages or MAX_RUN_MESSAGES
            up_to, new = covered, list[MessageRecord]()
            while not new and up_to < wanted:
                start, up_to = up_to + 1, min(wanted, up_to + step)
                new = await message_repo.by_seq(self.db, workspace, session, start, up_to)
            if new:
                try:
                    summary, usage = await self._summarize(kind, text, new, guidance)
                except LLMError as exc:  # the jobs of this claim before it were billed too
                    spent = sum((Usage(r.tokens_in, r.tokens_out) for r in usage_by_job), Usage())
                    raise billed(exc, spent) from None
                latest[kind] = (summary, up_to)
                plans.append((kind, summary, up_to))
                read += new
                usage_by_job.append(JobResult(job.id, usage.input_tokens, usage.output_tokens))
            else:
                # Every message it would fold in was deleted or purged since it was queued: a
                # summary of nothing (or the last one again) would claim messages it never read.
                # The claim's later jobs of this kind start past them.
                latest[kind] = (text, up_to)
                usage_by_job.append(JobResult(job.id))
            if up_to < wanted:
                again.append(job.id)  # it goes on from here in the unit's next claim
                break  # the unit's later jobs wait for it

        async def write(tx: Tx) -> None:
            await sessions.lock(tx, workspace, session)
            if await summaries.resets(tx, workspace, session) != resets and await self._moved_on(
                tx, workspace, session, read, plans, based_on
            ):
                # It may quote a message deleted, edited or purged since: the unit fails and
                # runs again on what is there now.
                raise Conflict(
                    f"messages of session {session!r} were deleted or edited while it was "
                    "summarized; it is summarized again"
                )
            for kind, text, up_to in plans:
                await summaries.create(
                    tx,
                    workspace,
                    session,
                    kind=kind,
                    content=text,
                    up_to_message=up_to,
                    token_count=self.tokens.count(text),
                )

        return Prepared(results=usage_by_job, write=write if plans else None, again=again)

    @staticmethod
    async def _moved_on(
        tx: Tx,
        workspace: str,
        session: str,
        read: list[MessageRecord],
        plans: list[tuple[str, str, int]],
        based_on: dict[str, str | None],
    ) -> bool:
        """Whether a change since the read touched what the plans quote: a message they fold
        in, or one the summary they fold into covered (the change removed that summary). A
        change past them (an app editing its latest message) left the session's count moved,
        and failed every long run again."""
        if read and (await message_repo.changed_since_read(tx, workspace, read)).gone:
            return True
        for kind in {kind for kind, _, _ in plans}:
            if await summaries.latest_id(tx, workspace, session, kind) != based_on[kind]:
                return True
        return False

    async def _guidance(self, workspace: str, session: str) -> str | None:
        """The `custom_instructions` (top-level and `summary`) of the workspace, then the
        session."""
        return joined(
            instructions(await workspaces.configuration_of(self.db, workspace), "summary"),
            instructions(await sessions.configuration_of(self.db, workspace, session), "summary"),
        )

    async def _summarize(
        self, kind: str, previous: str | None, new: list[MessageRecord], guidance: str | None
    ) -> tuple[str, Usage]:
        limit = self.word_limit(kind)
        if self.llm is None:
            # CPU work over up to a long cadence of long messages: off the event loop.
            return await asyncio.to_thread(extractive_summary, previous, new, limit), Usage()
        # In parts of at most FOLD_TOKENS, each folded into the summary of those before: after
        # a deletion early in a long session, or with a cadence of thousands, one prompt held
        # every message since the last summary, past any model's context, and the job died.
        summary, usage = previous, Usage()
        for part in parts_within(new, FOLD_TOKENS):
            try:
                result = await self.llm.structured(
                    "summarizer",
                    summary_messages(
                        "long" if kind == "long" else "short", summary, part, limit, guidance
                    ),
                    bounded_summary(limit),
                )
            except LLMError as exc:  # the parts before it were billed too
                raise billed(exc, usage) from None
            summary, usage = result.value.summary, usage + result.usage
        assert summary is not None  # `new` is never empty
        return summary, usage


# The most messages one run folds into a summary; the job goes on from there in a later claim.
MAX_RUN_MESSAGES = 2_000
# The most message tokens one summarizing prompt folds in (a model's context holds far more;
# the prompt's instructions and the summary so far come on top).
FOLD_TOKENS = 8000


def parts_within(messages: list[MessageRecord], budget: int) -> list[list[MessageRecord]]:
    """`messages` in order, in consecutive parts of at most `budget` tokens (a longer message
    is a part of its own)."""
    found: list[list[MessageRecord]] = []
    used = 0
    for message in messages:
        cost = message.token_count or 0
        if found and used + cost <= budget:
            found[-1].append(message)
            used += cost
        else:
            found.append([message])
            used = cost
    return found
