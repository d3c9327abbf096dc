import { inject } from 'vitest'
import { commands } from 'vitest/browser'
import { hostileSuite } from './testing/hostile-suite'
import { mcpSuite } from './testing/mcp-suite'

// The page talks to the loopback MCP servers directly (they allow any origin).
mcpSuite(() => ({
  ...inject('mcpServers'),
  start: (kind, port) => commands.startMcpServer(kind, port),
  kill: (pid) => commands.stopMcpServer(pid),
}))

hostileSuite(() => inject('mcpServers').fixture)
