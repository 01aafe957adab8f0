"""Pages and files for browsers: GraphiQL (its assets from the cache, resolvers/web/assets.py)
and the Neo4j Browser guide and style, which Browser fetches from this server."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response

from graph.errors import ErrorCode
from resolvers.graphql.http import error_response
from resolvers.web import assets

_TYPES = {
    ".js": "application/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".grass": "text/plain; charset=utf-8",
}
# GraphiQL's page runs only this server's scripts and talks only to this server.
_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'"
)
# The guide and style are public, fixed texts; Neo4j Browser fetches them from its own origin.
_ANYONE = {"Access-Control-Allow-Origin": "*"}


def _packaged(name: str) -> str:
    return resources.files("resolvers.web").joinpath("static", name).read_text(encoding="utf-8")


def _kind(name: str) -> str:
    return _TYPES.get(Path(name).suffix, "application/octet-stream")


class WebPages:
    def __init__(self, home: Path) -> None:
        self.home = home

    async def graphiql(self, request: Request) -> Response:
        return Response(
            _packaged("graphiql.html"),
            media_type=_TYPES[".html"],
            headers={"Content-Security-Policy": _CSP, "Cache-Control": "no-store"},
        )

    async def static(self, request: Request) -> Response:
        name = str(request.path_params["name"])
        if name == "start.js":
            return Response(_packaged(name), media_type=_kind(name))
        if name not in assets.SERVED:
            return error_response(404, ErrorCode.NOT_FOUND, f"no file {name!r}")
        if not assets.present(self.home):
            return error_response(
                503,
                ErrorCode.UNAVAILABLE,
                "GraphiQL's files are not downloaded yet: run `beliefgraph web-assets` (it "
                "fetches them from the npm registry once)",
            )
        return FileResponse(
            assets.folder(self.home) / name,
            media_type=_kind(name),
            headers={"Cache-Control": "public, max-age=86400"},
        )

    async def guide(self, request: Request) -> Response:
        if request.method == "OPTIONS":
            return _preflight()
        return Response(_packaged("guide.html"), media_type=_TYPES[".html"], headers=_ANYONE)

    async def style(self, request: Request) -> Response:
        if request.method == "OPTIONS":
            return _preflight()
        return PlainTextResponse(_packaged("style.grass"), headers=_ANYONE)


def _preflight() -> Response:
    """Browser asks before fetching (its request carries headers that need permission)."""
    return Response(
        status_code=204,
        headers={
            **_ANYONE,
            "Access-Control-Allow-Methods": "GET, OPTIONS",
            "Access-Control-Allow-Headers": "*",
            "Access-Control-Max-Age": "600",
        },
    )
