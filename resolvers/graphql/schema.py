"""Builds the strawberry schema with the configured limits."""

from __future__ import annotations

import strawberry
from graphql import ASTValidationRule
from strawberry.extensions import AddValidationRules
from strawberry.schema.config import StrawberryConfig

from graph.settings import Settings
from resolvers.fair_share import FairShare
from resolvers.graphql.deleting import RefuseDeleting
from resolvers.graphql.dialectic import DialecticQuery, DialecticSubscription
from resolvers.graphql.dreams import DreamMutation, DreamQuery, DreamSubscription
from resolvers.graphql.errors import ErrorCodes, QuietSchema
from resolvers.graphql.files import FileMutation, FileQuery
from resolvers.graphql.limits import TokenLimit, alias_rule, cost_rule, depth_rule, surrogate_rule
from resolvers.graphql.members import SCALARS, MemberMutation, MemberQuery
from resolvers.graphql.mutations import Mutation as CoreMutation
from resolvers.graphql.queries import Query as CoreQuery
from resolvers.graphql.queue import QueueMutation, QueueQuery
from resolvers.graphql.queue import Subscription as QueueSubscription
from resolvers.graphql.representation import RepresentationMutation, RepresentationQuery
from resolvers.graphql.restructure import RestructureMutation
from resolvers.graphql.session_members import SessionMemberMutation
from resolvers.graphql.session_peers import SessionPeerQuery


@strawberry.type(
    description="Reads: workspaces, peers, sessions, messages, beliefs, the queue, dreams, "
    "files, and answers about peers."
)
class Query(
    CoreQuery,
    SessionPeerQuery,
    QueueQuery,
    RepresentationQuery,
    DialecticQuery,
    DreamQuery,
    MemberQuery,
    FileQuery,
):
    pass


@strawberry.type(
    description="Writes: create, update and delete data, post messages, issue keys, and steer "
    "the background work."
)
class Mutation(
    CoreMutation,
    QueueMutation,
    RepresentationMutation,
    DreamMutation,
    MemberMutation,
    SessionMemberMutation,
    FileMutation,
    RestructureMutation,
):
    pass


@strawberry.type(
    description="Streams over graphql-transport-ws: queue status, streamed answers and dream "
    "events."
)
class Subscription(QueueSubscription, DialecticSubscription, DreamSubscription):
    pass


# GraphiQL's and codegen's standard introspection query nests `ofType` to depth 15 or so.
INTROSPECTION_DEPTH = 20


def validation_rules(settings: Settings) -> list[type[ASTValidationRule]]:
    """The document limits, run with graphql-core's own validation rules."""
    return [
        depth_rule(settings.max_query_depth, INTROSPECTION_DEPTH),
        alias_rule(settings.max_aliases),
        cost_rule(),
        surrogate_rule(),
    ]


def build_schema(settings: Settings) -> strawberry.Schema:
    rules = validation_rules(settings)
    return QuietSchema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        config=StrawberryConfig(scalar_map=SCALARS),
        extensions=[
            # Factories, not instances: strawberry builds fresh extensions per request.
            ErrorCodes,
            RefuseDeleting,
            # Shares are per key holder, which only auth tells apart (and its hook waits, so
            # a schema without it still runs synchronously).
            *([FairShare] if settings.auth_enabled else []),
            lambda: TokenLimit(settings.max_query_tokens),
            lambda: AddValidationRules(rules),
        ],
    )
