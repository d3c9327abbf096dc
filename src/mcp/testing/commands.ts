import type { BrowserCommand } from 'vitest/node'
import type { OwnServer } from './mcp-suite'
import { startServer, stopServer, type McpServerKind } from './servers'

// Browser tests cannot start or kill processes; these commands run in the Vitest process for them.

const startMcpServer: BrowserCommand<[kind: McpServerKind, port?: number]> = async (_context, kind, port) => {
  const { origin, port: actual, pid } = await startServer(kind, port)
  return { origin, port: actual, pid } satisfies OwnServer
}

const stopMcpServer: BrowserCommand<[pid: number]> = (_context, pid) => stopServer(pid)

export const mcpServerCommands = { startMcpServer, stopMcpServer }

declare module 'vitest/browser' {
  interface BrowserCommands {
    startMcpServer(kind: McpServerKind, port?: number): Promise<OwnServer>
    stopMcpServer(pid: number): Promise<void>
  }
}
