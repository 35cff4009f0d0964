"""MCP test server on the official Python SDK (PyPI `mcp` 2.3, `mcp.server.mcpserver.MCPServer`),
served by uvicorn on 127.0.0.1, in one of four modes named on the command line:
  stateful-sse | stateful-json | stateless-sse | stateless-json
(`streamable_http_app(json_response=..., stateless_http=...)`). The SDK's default DNS-rebinding
protection stays ON: a request whose Origin is not http://127.0.0.1:*, http://localhost:* or
http://[::1]:* is answered 403 "Invalid Origin header", as a real local server would.
Usage: .venv/bin/python mcp_python.py <mode> [--port N]; prints `LISTENING <url>` when ready.
"""

import argparse
import asyncio
import json
import socket
import sys
from typing import Annotated

import uvicorn
from mcp.server.mcpserver import MCPServer
from pydantic import Field

MODES = {
    "stateful-sse": {"stateless_http": False, "json_response": False},
    "stateful-json": {"stateless_http": False, "json_response": True},
    "stateless-sse": {"stateless_http": True, "json_response": False},
    "stateless-json": {"stateless_http": True, "json_response": True},
}
MCP_PATH = "/mcp"
LOGGED_HEADERS = ("mcp-protocol-version", "mcp-session-id", "mcp-method", "mcp-name", "origin")


def new_server() -> MCPServer:
    """The server with the same three tools as the Node servers (schemas come from signatures)."""
    server = MCPServer(name="tsa-test-mcp-python", version="2.3.0")

    @server.tool(description="Returns the given text unchanged.")
    def echo(text: str) -> str:
        return text

    # `float` maps to JSON Schema "number" like the Node servers' zod `number`; the result text of
    # 2 + 3 is therefore "5.0" here and "5" on Node.
    @server.tool(description="Adds two numbers and returns the sum as text.")
    def add(a: float, b: float) -> str:
        return str(a + b)

    # The SDK builds the input schema from the signature; pydantic's `json_schema_extra` puts the
    # SEP-2243 `x-mcp-header` keyword on the property, and the SDK's modern path then checks the
    # `Mcp-Param-Region` header of every `tools/call`.
    @server.tool(
        description=(
            "Echoes a region and a query; the region is mirrored into the Mcp-Param-Region header (x-mcp-header)."
        )
    )
    def lookup(
        region: Annotated[
            str,
            Field(
                description="Region name, sent as Mcp-Param-Region too",
                json_schema_extra={"x-mcp-header": "Region"},
            ),
        ],
        query: Annotated[str, Field(description="Free text")],
    ) -> str:
        return f"{region}:{query}"

    return server


class RequestLog:
    """ASGI middleware writing one JSON line per HTTP request on stderr (the Node servers' format)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            raw = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
            headers = {name: raw.get(name) for name in LOGGED_HEADERS}
            headers.update({k: v for k, v in raw.items() if k.startswith("mcp-param-")})
            line = {"event": "request", "method": scope["method"], "path": scope["path"], "headers": headers}
            sys.stderr.write(json.dumps(line, ensure_ascii=False) + "\n")
            sys.stderr.flush()
        await self.app(scope, receive, send)


async def serve(mode: str, port: int) -> None:
    app = new_server().streamable_http_app(streamable_http_path=MCP_PATH, host="127.0.0.1", **MODES[mode])
    # Bind the socket ourselves so `--port 0` yields the real port before uvicorn starts.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    bound = sock.getsockname()[1]
    config = uvicorn.Config(RequestLog(app), log_level="warning", timeout_graceful_shutdown=1, lifespan="on")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            await task
            raise SystemExit("uvicorn stopped before it started")
        await asyncio.sleep(0.02)
    sys.stdout.write(f"LISTENING http://127.0.0.1:{bound}{MCP_PATH}\n")
    sys.stdout.flush()
    await task


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=sorted(MODES))
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    asyncio.run(serve(args.mode, args.port))


if __name__ == "__main__":
    main()
