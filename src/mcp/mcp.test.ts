import { inject } from 'vitest'
import { hostileSuite } from './testing/hostile-suite'
import { mcpSuite } from './testing/mcp-suite'
import { startServer, stopServer } from './testing/servers'

mcpSuite(() => ({
  ...inject('mcpServers'),
  async start(kind, port) {
    const { origin, port: actual, pid } = await startServer(kind, port)
    return { origin, port: actual, pid }
  },
  kill: stopServer,
}))

hostileSuite(() => inject('mcpServers').fixture)
