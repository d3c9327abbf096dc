import type { TestProject } from 'vitest/node'
import { startEverythingServer, startFixtureServer } from './servers'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Base URLs of the MCP servers the tests talk to (loopback, CORS open). */
    mcpServers: { everything: string; fixture: string }
  }
}

/** Starts the reference MCP server and the fixture servers once for a test run; stops them after. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [everything, fixture] = await Promise.all([startEverythingServer(), startFixtureServer()])
  project.provide('mcpServers', { everything: everything.origin, fixture: fixture.origin })
  return async () => {
    await Promise.all([everything.stop(), fixture.stop()])
  }
}
