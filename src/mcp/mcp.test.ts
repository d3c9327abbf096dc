import { inject } from 'vitest'
import { mcpSuite, type OwnServer } from './testing/mcp-suite'
import { startEverythingServer, startFixtureServer, type RunningServer } from './testing/servers'

const running = new Map<number, RunningServer>()

mcpSuite(() => ({
  ...inject('mcpServers'),
  async start(kind, port): Promise<OwnServer> {
    const server =
      kind === 'fixture'
        ? await startFixtureServer(port)
        : await startEverythingServer(kind === 'everything-sse' ? 'sse' : 'streamableHttp', port)
    running.set(server.pid, server)
    return { origin: server.origin, port: server.port, pid: server.pid }
  },
  async kill(pid) {
    await running.get(pid)?.stop()
    running.delete(pid)
  },
}))
