"""Drives an MCP server with the official MCP Python SDK's streamable-HTTP client: initialize, tools/list and
tools/call brand_lookup. Prints one JSON line with what it saw; exits non-zero when any step fails.

Usage: python mcp_sdk_client.py <endpoint> <brand>
"""
import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def main(endpoint: str, brand: str) -> None:
    async with streamable_http_client(endpoint) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            listed = await session.list_tools()
            called = await session.call_tool("brand_lookup", {"brand": brand})
            texts = [part.text for part in called.content if getattr(part, "type", "") == "text"]
            print(json.dumps({
                "server": init.server_info.name,
                "protocolVersion": init.protocol_version,
                "tools": [tool.name for tool in listed.tools],
                "isError": bool(called.is_error),
                "text": texts[0] if texts else None,
            }))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
