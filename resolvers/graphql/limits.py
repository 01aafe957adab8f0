"""GraphQL document limits: depth, aliases and tokens, each failing with LIMIT_EXCEEDED.

Depth and aliases are validation rules; the token limit runs before parsing, so a huge
document is refused without building its syntax tree.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from graphql import (
    ASTValidationRule,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    TokenKind,
)
from graphql.language import Lexer, Source
from strawberry.extensions import SchemaExtension

from graph.errors import ErrorCode


def limit_error(message: str, limit: str) -> GraphQLError:
    return GraphQLError(
        message, extensions={"code": ErrorCode.LIMIT_EXCEEDED.value, "limit": limit}
    )


def _depth(
    selection_set: SelectionSetNode | None,
    fragments: dict[str, FragmentDefinitionNode],
    visiting: frozenset[str],
) -> int:
    if selection_set is None:
        return 0
    deepest = 0
    for selection in selection_set.selections:
        if isinstance(selection, FieldNode):
            deepest = max(deepest, 1 + _depth(selection.selection_set, fragments, visiting))
        elif isinstance(selection, InlineFragmentNode):
            deepest = max(deepest, _depth(selection.selection_set, fragments, visiting))
        elif isinstance(selection, FragmentSpreadNode):
            name = selection.name.value
            fragment = fragments.get(name)
            if fragment is not None and name not in visiting:
                deepest = max(deepest, _depth(fragment.selection_set, fragments, visiting | {name}))
    return deepest


def depth_rule(max_depth: int) -> type[ASTValidationRule]:
    class DepthLimit(ASTValidationRule):
        def enter_operation_definition(self, node: OperationDefinitionNode, *_: Any) -> None:
            context = self.context
            fragments = {
                d.name.value: d
                for d in context.document.definitions
                if isinstance(d, FragmentDefinitionNode)
            }
            depth = _depth(node.selection_set, fragments, frozenset())
            if depth > max_depth:
                self.report_error(
                    limit_error(f"query depth {depth} exceeds the limit of {max_depth}", "depth")
                )

    return DepthLimit


def alias_rule(max_aliases: int) -> type[ASTValidationRule]:
    class AliasLimit(ASTValidationRule):
        count = 0

        def enter_field(self, node: FieldNode, *_: Any) -> None:
            if node.alias is not None:
                self.count += 1
                if self.count == max_aliases + 1:
                    self.report_error(
                        limit_error(f"the document uses more than {max_aliases} aliases", "aliases")
                    )

    return AliasLimit


def count_tokens(document: str, stop_after: int) -> int:
    """Lexical tokens in `document`, counting at most `stop_after` + 1."""
    lexer = Lexer(Source(document))
    count = 0
    try:
        while count <= stop_after:
            token = lexer.advance()
            if token.kind == TokenKind.EOF:
                break
            count += 1
    except GraphQLError:
        pass  # a lexing error is reported by the parser with its location
    return count


class TokenLimit(SchemaExtension):
    def __init__(self, max_tokens: int) -> None:
        self.max_tokens = max_tokens

    def on_parse(self) -> Iterator[None]:
        query = self.execution_context.query or ""
        tokens = count_tokens(query, self.max_tokens)
        if tokens > self.max_tokens:
            raise limit_error(f"the document has more than {self.max_tokens} tokens", "tokens")
        yield
