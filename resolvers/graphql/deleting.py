"""A workspace whose deletion has begun is gone to every query and mutation that names it
(NOT_FOUND, "is being deleted"), but `deleteWorkspace`, which finishes a deletion cut short.
Writes acknowledged while a deletion ran (files, cards, metadata, memberships, keys) were
deleted with it, and reads showed what the deletion had not reached yet."""

from __future__ import annotations

from collections.abc import Callable
from inspect import isawaitable
from typing import Any

from graphql import GraphQLResolveInfo
from strawberry.extensions import SchemaExtension

from graph.repo import workspaces

ROOTS = ("Query", "Mutation")
NAMED_BY = {"workspace": "name", "createWorkspace": "name", "updateWorkspace": "name"}
FINISHES = "deleteWorkspace"


def named_workspace(info: GraphQLResolveInfo[Any], arguments: dict[str, Any]) -> str | None:
    """The workspace a root field of a query or mutation names, if any."""
    if info.path.prev is not None or info.parent_type.name not in ROOTS:
        return None
    if info.field_name == FINISHES:
        return None
    name = arguments.get(NAMED_BY.get(info.field_name, "workspace"))
    return name if isinstance(name, str) else None


class RefuseDeleting(SchemaExtension):
    def resolve(
        self,
        _next: Callable[..., Any],
        root: Any,
        info: GraphQLResolveInfo[Any],
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        name = named_workspace(info, kwargs)
        if name is None:
            return _next(root, info, *args, **kwargs)

        async def checked() -> Any:
            await workspaces.refuse_if_being_deleted(info.context.services.db, name)
            result = _next(root, info, *args, **kwargs)
            return await result if isawaitable(result) else result

        return checked()
