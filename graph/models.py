"""neomodel declarations of every node type: the single source of truth for property names,
types, required fields and allowed values.

We do not use neomodel's global connection (it is module-level state); repositories run the
statements in `cypher/` through the async driver. The models are used to validate and deflate
the property maps that write statements receive (`graph.props.node_props`), and the schema test
checks that every write statement only sets declared properties.
"""

from __future__ import annotations

from enum import StrEnum

from neomodel import (
    ArrayProperty,
    BooleanProperty,
    DateTimeNeo4jFormatProperty,
    FloatProperty,
    IntegerProperty,
    StringProperty,
    StructuredNode,
)


class ObservationLevel(StrEnum):
    """Where a belief sits in the derivation hierarchy (contradiction flags a conflict)."""

    EXPLICIT = "explicit"
    DEDUCTIVE = "deductive"
    INDUCTIVE = "inductive"
    CONTRADICTION = "contradiction"


OBSERVATION_LEVELS = {level.value: level.value for level in ObservationLevel}
JOB_STATUSES = {
    "pending": "pending",
    "running": "running",
    "done": "done",
    "dead": "dead",
}
SUMMARY_KINDS = {"short": "short", "long": "long"}
ORIGINS = {
    "deriver": "deriver",
    "dreamer:rules": "dreamer:rules",
    "dreamer:llm": "dreamer:llm",
    "correction": "correction",
    "api": "api",  # stated by an app through the API, with no source message
}
DREAM_TRIGGERS = {
    "threshold": "threshold",
    "idle": "idle",
    "manual": "manual",  # the app asked
    "reconcile": "reconcile",  # a change (edit, deletion, merge, another dream...) left some stale
}
DREAM_MODES = {"rules": "rules", "llm": "llm"}


class Workspace(StructuredNode):
    __label__ = "Workspace"
    name = StringProperty(required=True)
    metadata = StringProperty(default="{}")  # JSON text: Neo4j properties cannot hold maps
    # "key=<json value>" for each top-level metadata key, so equality filters run in Cypher.
    meta_kv = ArrayProperty(StringProperty(), default=list)
    configuration = StringProperty(default="{}")
    created_at = DateTimeNeo4jFormatProperty(required=True)
    deleting_at = DateTimeNeo4jFormatProperty()  # a deletion under way (its queue reads gone)


class Peer(StructuredNode):
    __label__ = "Peer"
    workspace = StringProperty(required=True)
    name = StringProperty(required=True)
    metadata = StringProperty(default="{}")
    # "key=<json value>" for each top-level metadata key, so equality filters run in Cypher.
    meta_kv = ArrayProperty(StringProperty(), default=list)
    configuration = StringProperty(default="{}")
    extraction_context = StringProperty()
    created_at = DateTimeNeo4jFormatProperty(required=True)
    purge_id = StringProperty()  # the Purge erasing this peer, until it has finished


class Session(StructuredNode):
    __label__ = "Session"
    workspace = StringProperty(required=True)
    name = StringProperty(required=True)
    metadata = StringProperty(default="{}")
    meta_kv = ArrayProperty(StringProperty(), default=list)
    configuration = StringProperty(default="{}")
    context = StringProperty()
    active = BooleanProperty(default=True)
    next_seq = IntegerProperty(default=0)  # allocates Message.seq inside the write transaction
    created_at = DateTimeNeo4jFormatProperty(required=True)


class Message(StructuredNode):
    __label__ = "Message"
    uid = StringProperty(required=True, db_property="id")
    workspace = StringProperty(required=True)
    session = StringProperty(required=True)
    peer = StringProperty(required=True)
    client_id = StringProperty()  # idempotency key: re-sending a batch creates nothing new
    content = StringProperty(required=True)
    context = StringProperty()
    metadata = StringProperty(default="{}")
    meta_kv = ArrayProperty(StringProperty(), default=list)
    created_at = DateTimeNeo4jFormatProperty(required=True)
    # Server time of arrival: who was present is judged by it, so imported histories (with old
    # created_at values) still reach the peers in the session.
    received_at = DateTimeNeo4jFormatProperty(required=True)
    seq = IntegerProperty(required=True)
    token_count = IntegerProperty(required=True)
    embedding = ArrayProperty(FloatProperty())
    # The vectors of the message's passages, one after another (empty for a one-passage
    # message, absent for one stored before passages existed): search scores a message by the
    # closer of itself and its best passage.
    passage_embeddings = ArrayProperty(FloatProperty())
    deleted_at = DateTimeNeo4jFormatProperty()
    edited_at = DateTimeNeo4jFormatProperty()  # the content was replaced by an edit
    # The message's own `reasoning.enabled` (null: its session's decides), for its edits and a
    # purge's re-derivation as for its first derivation.
    derive = BooleanProperty()
    # Keys of the workspace, session and peer (graph/keys.py): fulltext search requires them
    # inside the index, so its hits are the scope's own.
    workspace_key = StringProperty()
    session_key = StringProperty()
    peer_key = StringProperty()


class Observation(StructuredNode):
    __label__ = "Observation"
    uid = StringProperty(required=True, db_property="id")
    workspace = StringProperty(required=True)
    observer = StringProperty(required=True)
    observed = StringProperty(required=True)
    level = StringProperty(required=True, choices=OBSERVATION_LEVELS)
    content = StringProperty(required=True)
    content_key = StringProperty()  # normalized content for exact dedup
    # The representation's key (graph/keys.py): vector and fulltext searches filter on it
    # inside their index, for one representation or several at once.
    scope_key = StringProperty()
    embedding = ArrayProperty(FloatProperty())
    created_at = DateTimeNeo4jFormatProperty(required=True)
    valid_at = DateTimeNeo4jFormatProperty()
    session = StringProperty()
    confidence = FloatProperty()
    pattern_type = StringProperty()
    times_derived = IntegerProperty(default=1)
    stale = BooleanProperty(default=False)
    stale_reason = StringProperty()
    stale_at = DateTimeNeo4jFormatProperty()
    # Set with `stale` by an invalidation (a deleted source, a corrected or deleted premise);
    # the next dream of the representation reconciles these first. A dream's own prune marks
    # a belief stale without it: that verdict is final.
    reconcile_pending = BooleanProperty()
    facets = ArrayProperty(StringProperty(), default=list)
    superseded_at = DateTimeNeo4jFormatProperty()
    deleted_at = DateTimeNeo4jFormatProperty()
    # Set with deleted_at on a belief a purge tombstoned (it was not deleted before), until the
    # purge deletes it (cypher/purge/tombstone_purged.cypher says what reads it).
    purging = BooleanProperty()
    # What wrote it: "deriver", "dreamer:rules" (the zero-key dreamer), "dreamer:llm" or
    # "correction" (a new version written through the API).
    origin = StringProperty(choices=ORIGINS)
    # Set until a dream has read it (the dreamer's own index finds these).
    dream_pending = BooleanProperty()
    # Set on a belief a merge moved into another representation, until the merge has checked
    # it against the beliefs there by the dedup rule (reasoners/peers/merges.py).
    dedup_pending = BooleanProperty()
    # Written by the dream that read it, for later dreams' index lookups: the attribute the
    # fact fills (dreamer/slots.py), and its claim with polarity ("+..." / "-...",
    # dreamer/claims.py).
    slot = StringProperty()
    claim_key = StringProperty()
    # Written by the deriver's duplicate probe, which already searches the representation for
    # each new fact: the beliefs this one resembles (cosine >= BELIEFGRAPH_DREAM_SIMILARITY),
    # so the zero-key dreamer does not search again. Removed once a dream has read it.
    near_ids = ArrayProperty(StringProperty())
    near_similarities = ArrayProperty(FloatProperty())
    # Explicit beliefs: the number of the view's write that put it there (OBSERVES.writes after
    # that write). A derivation's race check reads the beliefs of writes it did not see by it.
    view_write = IntegerProperty()


class File(StructuredNode):
    __label__ = "File"
    uid = StringProperty(required=True, db_property="id")
    workspace = StringProperty(required=True)
    peer = StringProperty(required=True)
    path = StringProperty(required=True)
    content = StringProperty(required=True)
    managed_by = StringProperty()  # None = user, "system", or "dream:<name>"
    metadata = StringProperty(default="{}")
    created_at = DateTimeNeo4jFormatProperty(required=True)
    updated_at = DateTimeNeo4jFormatProperty(required=True)
    chunks = IntegerProperty(default=0)  # how many FileChunks it has: picks the search path
    # A peer card's file (managed_by "system"): whose card it is, its entries, and per entry
    # the space-separated ids of the observations it rests on ('' for a line the app wrote).
    card_observer = StringProperty()
    card_entries = ArrayProperty(StringProperty())
    card_support = ArrayProperty(StringProperty())


class FileChunk(StructuredNode):
    __label__ = "FileChunk"
    uid = StringProperty(required=True, db_property="id")
    workspace = StringProperty(required=True)
    file_id = StringProperty(required=True)
    peer = StringProperty(required=True)  # the file's peer: chunk search filters on it
    peer_key = StringProperty(required=True)  # graph/keys.py peer_key: scopes fulltext hits
    path = StringProperty(required=True)  # the file's path (files are never renamed)
    index = IntegerProperty(required=True)
    content = StringProperty(required=True)
    embedding = ArrayProperty(FloatProperty())


class Summary(StructuredNode):
    __label__ = "Summary"
    uid = StringProperty(required=True, db_property="id")
    workspace = StringProperty(required=True)
    session = StringProperty(required=True)
    kind = StringProperty(required=True, choices=SUMMARY_KINDS)
    content = StringProperty(required=True)
    up_to_message = IntegerProperty(required=True)  # Message.seq covered so far
    token_count = IntegerProperty(required=True)
    created_at = DateTimeNeo4jFormatProperty(required=True)


class Dream(StructuredNode):
    """A developer-defined dream: a reasoning task whose output is kept up to date."""

    __label__ = "Dream"
    uid = StringProperty(required=True, db_property="id")
    workspace = StringProperty(required=True)
    name = StringProperty(required=True)
    peer = StringProperty()
    prompt = StringProperty(required=True)
    sources = StringProperty(default="{}")
    output_type = StringProperty(required=True, choices={"conclusions": "c", "file": "f"})
    output_path = StringProperty()
    trigger_type = StringProperty(
        required=True, choices={"cron": "cron", "on_change": "on_change", "on_demand": "on_demand"}
    )
    cron_expression = StringProperty()
    debounce_seconds = IntegerProperty(default=300)
    enabled = BooleanProperty(default=True)
    last_run_at = DateTimeNeo4jFormatProperty()
    next_run_at = DateTimeNeo4jFormatProperty()
    run_count = IntegerProperty(default=0)
    metadata = StringProperty(default="{}")
    created_at = DateTimeNeo4jFormatProperty(required=True)


class DreamRun(StructuredNode):
    """One committed dream of a representation: what triggered it and what it changed."""

    __label__ = "DreamRun"
    uid = StringProperty(required=True, db_property="id")
    workspace = StringProperty(required=True)
    observer = StringProperty(required=True)
    observed = StringProperty(required=True)
    seq = IntegerProperty()  # the representation's run number, set in the commit
    trigger = StringProperty(required=True, choices=DREAM_TRIGGERS)
    mode = StringProperty(required=True, choices=DREAM_MODES)
    started_at = DateTimeNeo4jFormatProperty(required=True)
    finished_at = DateTimeNeo4jFormatProperty(required=True)
    observations = IntegerProperty(default=0)  # new beliefs it read
    created = IntegerProperty(default=0)
    superseded = IntegerProperty(default=0)
    contradictions = IntegerProperty(default=0)
    pruned = IntegerProperty(default=0)
    card_changes = IntegerProperty(default=0)
    tokens_in = IntegerProperty(default=0)
    tokens_out = IntegerProperty(default=0)
    events = StringProperty(default="[]")  # JSON list: what subscribers receive


class Job(StructuredNode):
    """The durable work queue: one node per unit of background work."""

    __label__ = "Job"
    uid = StringProperty(required=True, db_property="id")
    workspace = StringProperty(required=True)
    kind = StringProperty(required=True)
    work_unit = StringProperty(required=True)  # jobs of one unit run in order, one at a time
    seq = IntegerProperty()  # order inside the unit, assigned from WorkUnit.next_seq
    session = StringProperty()  # for queue status by session / peer
    peer = StringProperty()
    tokens = IntegerProperty(default=0)  # input size, for the deriver's token target
    payload = StringProperty(default="{}")
    status = StringProperty(required=True, choices=JOB_STATUSES)
    attempts = IntegerProperty(default=0)
    max_attempts = IntegerProperty(default=5)
    run_after = DateTimeNeo4jFormatProperty(required=True)
    lease_until = DateTimeNeo4jFormatProperty()
    lease_owner = StringProperty()
    error = StringProperty()
    notes = ArrayProperty(StringProperty(), default=list)  # what its work could not do
    tokens_in = IntegerProperty(default=0)
    tokens_out = IntegerProperty(default=0)
    created_at = DateTimeNeo4jFormatProperty(required=True)
    updated_at = DateTimeNeo4jFormatProperty(required=True)
    finished_at = DateTimeNeo4jFormatProperty()


class WorkUnit(StructuredNode):
    """The lock of one ordered stream of jobs: whoever holds its lease runs its jobs."""

    __label__ = "WorkUnit"
    key = StringProperty(required=True)
    workspace = StringProperty(required=True)
    next_seq = IntegerProperty(default=0)
    lease_owner = StringProperty()
    lease_until = DateTimeNeo4jFormatProperty()


class Purge(StructuredNode):
    """A purge's record, from before its first batch to after its last: a worker finishes a
    purge whose record outlived it (its lease ran out)."""

    __label__ = "Purge"
    uid = StringProperty(required=True, db_property="id")
    workspace = StringProperty(required=True)
    peer = StringProperty()  # a peer's purge; absent for messages
    message_ids = ArrayProperty(StringProperty(), default=list)
    started_at = DateTimeNeo4jFormatProperty(required=True)
    lease_until = DateTimeNeo4jFormatProperty(required=True)  # held by a running purge until
    owner = StringProperty()  # the run holding the lease: only it renews or releases it
    retry_after = DateTimeNeo4jFormatProperty()  # after a failed try: when a worker tries again
    attempts = IntegerProperty(default=0)  # times a worker took it up
    # What its end does (cypher/purge/note_purge_followups.cypher): the live messages to derive
    # again, and the views ("observer/observed") whose cards to dream again.
    rederive = ArrayProperty(StringProperty())
    card_views = ArrayProperty(StringProperty())
