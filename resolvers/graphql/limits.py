"""GraphQL document limits: depth, aliases, root-field cost and tokens, each failing with
LIMIT_EXCEEDED.

Depth and aliases are validation rules; the token limit runs before parsing, so a huge
document is refused without building its syntax tree.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
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
    StringValueNode,
    TokenKind,
)
from graphql.language import Lexer, Source
from strawberry.extensions import SchemaExtension

from graph.errors import ErrorCode
from graph.validation import is_text


def limit_error(message: str, limit: str) -> GraphQLError:
    return GraphQLError(
        message, extensions={"code": ErrorCode.LIMIT_EXCEEDED.value, "limit": limit}
    )


INTROSPECTION_FIELDS = frozenset({"__schema", "__type"})


class _Depths:
    """Depths of selection sets, each fragment measured once (a document that spreads
    fragments inside fragments is measured in time linear in its size, not in the size of its
    expansion). Introspection subtrees (`__schema`, `__type`) have a depth of their own: tools
    such as GraphiQL ask for `ofType` chains deeper than any data query needs."""

    def __init__(self, fragments: dict[str, FragmentDefinitionNode]) -> None:
        self.fragments = fragments
        # fragment name -> (depth, introspection depth); None while being measured (a cycle,
        # which graphql-core's own rule reports).
        self.memo: dict[str, tuple[int, int] | None] = {}

    def of(self, selection_set: SelectionSetNode | None, inside: bool) -> tuple[int, int]:
        """(data depth, introspection depth) below `selection_set`."""
        if selection_set is None:
            return 0, 0
        data = meta = 0
        for selection in selection_set.selections:
            if isinstance(selection, FieldNode):
                introspection = inside or selection.name.value in INTROSPECTION_FIELDS
                below, below_meta = self.of(selection.selection_set, introspection)
                if introspection:
                    meta = max(meta, 1 + max(below, below_meta))
                else:
                    data = max(data, 1 + below)
                    meta = max(meta, below_meta)
            elif isinstance(selection, InlineFragmentNode):
                below, below_meta = self.of(selection.selection_set, inside)
                data, meta = max(data, below), max(meta, below_meta)
            elif isinstance(selection, FragmentSpreadNode):
                below, below_meta = self.fragment(selection.name.value, inside)
                data, meta = max(data, below), max(meta, below_meta)
        return data, meta

    def fragment(self, name: str, inside: bool) -> tuple[int, int]:
        key = f"{name}\x00{inside}"
        if key in self.memo:
            return self.memo[key] or (0, 0)
        fragment = self.fragments.get(name)
        if fragment is None:
            return 0, 0
        self.memo[key] = None
        result = self.of(fragment.selection_set, inside)
        self.memo[key] = result
        return result


def depth_rule(max_depth: int, max_introspection_depth: int) -> type[ASTValidationRule]:
    class DepthLimit(ASTValidationRule):
        def enter_operation_definition(self, node: OperationDefinitionNode, *_: Any) -> None:
            context = self.context
            fragments = {
                d.name.value: d
                for d in context.document.definitions
                if isinstance(d, FragmentDefinitionNode)
            }
            depth, introspection = _Depths(fragments).of(node.selection_set, False)
            if depth > max_depth:
                self.report_error(
                    limit_error(f"query depth {depth} exceeds the limit of {max_depth}", "depth")
                )
            if introspection > max_introspection_depth:
                self.report_error(
                    limit_error(
                        f"introspection depth {introspection} exceeds the limit of "
                        f"{max_introspection_depth}",
                        "depth",
                    )
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


# What one root field costs in one document: a chat runs a tool loop of model calls, an
# addMessages or a file write embeds up to its batch, a context runs seven reads at once, a
# search two. Aliases repeated them past the per-key limits, which count operations, not
# fields: sixteen `chat`s in one query, 1,600 messages in one request.
ROOT_FIELD_COST = {
    "chat": 8,
    "chatStream": 8,
    "addMessages": 8,
    "createFile": 8,
    "updateFile": 8,
    "context": 2,
    "searchMessages": 1,
    "searchObservations": 1,
    "searchFiles": 1,
    "editMessage": 1,
    "correctObservation": 1,
}
MAX_DOCUMENT_COST = 10  # one chat with a search or a context, five contexts, ten searches
MAX_SCHEMA_FIELDS = 1  # a full introspection is some 3 MB built on the event loop


def _root_keys(
    selection_set: SelectionSetNode,
    fragments: dict[str, FragmentDefinitionNode],
    seen: set[str],
) -> Iterator[tuple[str, str]]:
    """(response key, field name) of an operation's root fields, through fragments (each
    once); fields of one response key run once, however often they are written."""
    for selection in selection_set.selections:
        if isinstance(selection, FieldNode):
            name = selection.name.value
            yield (selection.alias.value if selection.alias else name), name
        elif isinstance(selection, InlineFragmentNode):
            yield from _root_keys(selection.selection_set, fragments, seen)
        elif isinstance(selection, FragmentSpreadNode):
            fragment = fragments.get(selection.name.value)
            if fragment is not None and fragment.name.value not in seen:
                seen.add(fragment.name.value)
                yield from _root_keys(fragment.selection_set, fragments, seen)


def cost_rule() -> type[ASTValidationRule]:
    class RootFieldCost(ASTValidationRule):
        def enter_operation_definition(self, node: OperationDefinitionNode, *_: Any) -> None:
            fragments = {
                d.name.value: d
                for d in self.context.document.definitions
                if isinstance(d, FragmentDefinitionNode)
            }
            keys = dict(_root_keys(node.selection_set, fragments, set()))
            cost = sum(ROOT_FIELD_COST.get(name, 0) for name in keys.values())
            if cost > MAX_DOCUMENT_COST:
                costly = sorted({n for n in keys.values() if n in ROOT_FIELD_COST})
                self.report_error(
                    limit_error(
                        f"the operation costs {cost} (fields {costly}); the limit is "
                        f"{MAX_DOCUMENT_COST}: one chat, addMessages or file write (with a "
                        "search or a context), five contexts or ten searches an operation; "
                        "send the rest separately",
                        "cost",
                    )
                )
            schemas = sum(1 for name in keys.values() if name == "__schema")
            if schemas > MAX_SCHEMA_FIELDS:
                self.report_error(
                    limit_error(
                        f"the operation asks for __schema {schemas} times; the limit is "
                        f"{MAX_SCHEMA_FIELDS}",
                        "introspection",
                    )
                )

    return RootFieldCost


def surrogate_rule() -> type[ASTValidationRule]:
    class NoLoneSurrogates(ASTValidationRule):
        """A string literal with a lone surrogate (an escape such as \\ud800 with no pair) is
        not text: refused here, rather than failing when it reaches the database."""

        def enter_string_value(self, node: StringValueNode, *_: Any) -> None:
            if not is_text(node.value):
                self.report_error(
                    GraphQLError(
                        "a string in the document is not valid Unicode (a lone surrogate)",
                        node,
                        extensions={"code": ErrorCode.INVALID_INPUT.value},
                    )
                )

    return NoLoneSurrogates


# The parser and several validation rules recurse once per level of nesting or per fragment
# spread in a chain: bounded here, far below Python's recursion limit and far above what real
# documents use (GraphiQL's introspection query nests 13 deep and has 3 fragments).
MAX_NESTING = 64
MAX_FRAGMENTS = 64
_OPEN = {TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L}
_CLOSE = {TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R}
_NUMBERS = {TokenKind.INT, TokenKind.FLOAT}
_OPERATIONS = {"query", "mutation", "subscription"}
_DESCRIPTIONS = {TokenKind.STRING, TokenKind.BLOCK_STRING}
# Longest Int or Float literal: Python reads at most 4,300 digits into an int (graphql-core
# failed inside on a longer one), and no argument needs a tenth of this.
MAX_NUMBER_CHARS = 100


@dataclass(frozen=True)
class Shape:
    tokens: int  # counted up to the limit + 1
    nesting: int  # deepest nesting of {, [ and (
    fragments: int  # fragment definitions
    longest_number: int  # characters of the longest Int or Float literal
    operations: int  # operation definitions (an anonymous `{ ... }` counts)
    mutations: int = 0  # operation definitions that are mutations


def document_shape(document: str, stop_after: int) -> Shape:
    """Tokens, nesting, fragments and the longest number of `document` in one pass of the
    lexer, stopping after `stop_after` + 1 tokens (a lexing error ends the count: the parser
    reports it)."""
    lexer = Lexer(Source(document))
    count = depth = deepest = fragments = longest = operations = mutations = 0
    starts_definition = True  # the next token at depth 0 begins a definition
    try:
        while count <= stop_after:
            token = lexer.advance()
            if token.kind == TokenKind.EOF:
                break
            count += 1
            if depth == 0 and starts_definition:
                if token.kind in _DESCRIPTIONS:
                    continue  # a description before the definition: the keyword follows
                starts_definition = False
                if token.kind == TokenKind.NAME and token.value == "fragment":
                    fragments += 1
                elif token.kind == TokenKind.BRACE_L or token.value in _OPERATIONS:
                    operations += 1
                    mutations += token.value == "mutation"
            if token.kind in _OPEN:
                depth += 1
                deepest = max(deepest, depth)
            elif token.kind in _CLOSE:
                depth -= 1
                starts_definition = depth == 0 and token.kind == TokenKind.BRACE_R
            elif token.kind in _NUMBERS:
                longest = max(longest, token.end - token.start)
    except GraphQLError:
        pass
    return Shape(count, deepest, fragments, longest, operations, mutations)


SEVERAL_OPERATIONS = "the document has several operations: name one in `operationName`"


# Characters a document may have per token it may have. Comments, blank space and commas are
# not tokens, but the lexer reads them (in Python, on the event loop): 4 MB of comment around
# one field held the loop for four seconds.
CHARS_PER_TOKEN = 50


def max_document_chars(max_tokens: int) -> int:
    return CHARS_PER_TOKEN * max_tokens


def operations_of(document: str, stop_after: int) -> Shape | None:
    """The document's shape, read by the lexer (so it costs no parse); None for a document too
    long to be read at all, which TokenLimit refuses."""
    if len(document) > max_document_chars(stop_after):
        return None
    return document_shape(document, stop_after)


def unnamed_among_several(document: str, operation_name: str | None, stop_after: int) -> bool:
    """A document of several operations with no `operationName`: GraphQL requires the name
    then, and strawberry ran the first operation instead (a mutation the client may not have
    meant)."""
    shape = None if operation_name else operations_of(document, stop_after)
    return shape is not None and shape.operations > 1


def count_tokens(document: str, stop_after: int) -> int:
    """Lexical tokens in `document`, counting at most `stop_after` + 1."""
    return document_shape(document, stop_after).tokens


def document_refusal(query: str, max_tokens: int) -> GraphQLError | None:
    """Why the document's size, nesting, fragments or numbers refuse it, read by the lexer;
    None when they do not. (A subscription over a WebSocket is checked before strawberry sees
    it: a refusal raised in its parse ended the stream with no error, and a logged trace.)"""
    if len(query) > (most := max_document_chars(max_tokens)):
        return limit_error(
            f"the document has {len(query)} characters; the limit is {most} (comments and "
            "blank space included)",
            "document",
        )
    shape = document_shape(query, max_tokens)
    if shape.tokens > max_tokens:
        return limit_error(f"the document has more than {max_tokens} tokens", "tokens")
    if shape.nesting > MAX_NESTING:
        return limit_error(
            f"the document nests {shape.nesting} levels deep; the limit is {MAX_NESTING}",
            "depth",
        )
    if shape.fragments > MAX_FRAGMENTS:
        return limit_error(
            f"the document defines {shape.fragments} fragments; the limit is {MAX_FRAGMENTS}",
            "fragments",
        )
    if shape.longest_number > MAX_NUMBER_CHARS:
        return limit_error(
            f"a number in the document has {shape.longest_number} characters; the limit "
            f"is {MAX_NUMBER_CHARS}",
            "number",
        )
    return None


class TokenLimit(SchemaExtension):
    """Size, nesting and fragment count of the document, checked by the lexer before it is
    parsed: what is refused here never builds a syntax tree."""

    def __init__(self, max_tokens: int) -> None:
        self.max_tokens = max_tokens

    def on_parse(self) -> Iterator[None]:
        refused = document_refusal(self.execution_context.query or "", self.max_tokens)
        if refused is not None:
            raise refused
        yield
