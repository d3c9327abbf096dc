// advisor-chain/mcp: the tools of MCP servers as ToolCallbacks. The only place that imports the
// MCP SDK (an optional peer dependency), so the core entry does not pay for it.
export { mcpTools, type McpToolSet, type McpToolsOptions, type SkippedMcpTool } from './tool-set'
