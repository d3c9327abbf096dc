import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { resolve } from 'node:path'

// Starts real MCP servers on loopback ports for the tests (Node only): the protocol's reference
// server and the SDK-built fixtures. Each is a child process, stopped by its pid.

const root = resolve(import.meta.dirname, '../../..')
const EVERYTHING = resolve(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js')
const FIXTURE = resolve(import.meta.dirname, 'fixture-server.mjs')

export interface RunningServer {
  /** The server's base URL, e.g. `http://127.0.0.1:40123`. */
  origin: string
  port: number
  pid: number
  stop(): Promise<void>
}

/** The reference server (`@modelcontextprotocol/server-everything`), Streamable HTTP at `/mcp`, SSE at `/sse`. */
export async function startEverythingServer(
  transport: 'streamableHttp' | 'sse' = 'streamableHttp',
  port?: number,
): Promise<RunningServer> {
  return start([EVERYTHING, transport], /(?:listening on|running on) port (\d+)/i, port)
}

/** The fixture servers of `fixture-server.mjs`. */
export async function startFixtureServer(port?: number): Promise<RunningServer> {
  return start([FIXTURE], /listening on (\d+)/, port)
}

export type McpServerKind = 'everything' | 'everything-sse' | 'fixture'

const running = new Map<number, RunningServer>()

/** Starts a server of a test's own (to kill and restart), remembered by its pid for `stopServer`. */
export async function startServer(kind: McpServerKind, port?: number): Promise<RunningServer> {
  const server =
    kind === 'fixture'
      ? await startFixtureServer(port)
      : await startEverythingServer(kind === 'everything-sse' ? 'sse' : 'streamableHttp', port)
  running.set(server.pid, server)
  return server
}

export async function stopServer(pid: number): Promise<void> {
  await running.get(pid)?.stop()
  running.delete(pid)
}

async function start(args: string[], ready: RegExp, requestedPort?: number): Promise<RunningServer> {
  const port = requestedPort ?? (await freePort())
  const child = spawn(process.execPath, args, {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  await new Promise<void>((resolvePromise, reject) => {
    let output = ''
    const timer = setTimeout(() => fail(new Error(`MCP test server did not start within 15 s:\n${output}`)), 15_000)
    const fail = (error: Error) => {
      clearTimeout(timer)
      child.kill()
      reject(error)
    }
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (ready.test(output)) {
        clearTimeout(timer)
        resolvePromise()
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code) => fail(new Error(`MCP test server exited with ${code}:\n${output}`)))
  })
  // Keep reading, so a chatty server never blocks on a full pipe.
  child.stdout.resume()
  child.stderr.resume()
  return { origin: `http://127.0.0.1:${port}`, port, pid: child.pid!, stop: () => stop(child) }
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolvePromise) => {
    child.once('exit', () => resolvePromise())
    process.kill(child.pid!, 'SIGKILL')
  })
}

function freePort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolvePromise(typeof address === 'object' && address ? address.port : 0))
    })
  })
}
