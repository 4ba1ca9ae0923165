"""formalmarket-mcp: an MCP server that lets an AI agent solve and trade on FormalMarket.

Every tool calls the REST API through :mod:`formalmarket_client` with the caller's own token,
so permissions, throttles, idempotency and money rules are exactly the API's.
"""
