import { readdirSync, readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'

// Test helpers (Node only): the recorded provider responses, served by a fake fetch or a real server.

const root = join(import.meta.dirname, '..', '__fixtures__', 'providers')

interface ManifestEntry {
  file: string
  response: { status: number; content_type?: string | null; headers?: Record<string, string[]> }
}

const manifest = JSON.parse(readFileSync(join(root, 'manifest.json'), 'utf8')) as { fixtures: ManifestEntry[] }

export interface Recording {
  file: string
  status: number
  headers: Record<string, string>
  body: Uint8Array
}

/** A recorded response: its body bytes, status and the headers that matter to clients. */
export function recording(file: string): Recording {
  const entry = manifest.fixtures.find((fixture) => fixture.file === file)
  if (!entry) throw new Error(`No fixture ${file} in the manifest`)
  let body: Uint8Array = readFileSync(join(root, file))
  // Payload-only recordings (one SSE data payload per line) are framed as the server sent them.
  if (file.endsWith('.chunks.jsonl')) {
    const lines = new TextDecoder().decode(body).split('\n').filter(Boolean)
    body = new TextEncoder().encode(lines.map((line) => `data: ${line}\n\n`).join('') + 'data: [DONE]\n\n')
  }
  const headers: Record<string, string> = { 'content-type': entry.response.content_type ?? 'text/event-stream' }
  for (const [name, values] of Object.entries(entry.response.headers ?? {})) {
    if (/^(retry-after|retry-after-ms|x-should-retry|x-request-id|request-id)$/i.test(name))
      headers[name.toLowerCase()] = values[0]!
  }
  return { file, status: entry.response.status, headers, body }
}

/** Fixtures written by hand in a documented shape (see each folder's README), not recorded. */
export type WrittenFolder = 'quirks' | 'responses'

export function written(folder: WrittenFolder, file: string, status = 200): Recording {
  const type = file.endsWith('.json') ? 'application/json' : 'text/event-stream'
  const body = readFileSync(join(root, '..', folder, file))
  return { file, status, headers: { 'content-type': type }, body }
}

export function writtenOf(folder: WrittenFolder, suffix: string): string[] {
  return readdirSync(join(root, '..', folder))
    .filter((file) => file.endsWith(suffix))
    .sort()
}

/** A seeded generator of numbers in [0, 1), so random byte cuts are the same on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0
    return state / 2 ** 32
  }
}

/** Up to 12 byte offsets inside a body of `length` bytes. */
export function randomCuts(next: () => number, length: number): number[] {
  const count = 1 + Math.floor(next() * 12)
  return Array.from({ length: count }, () => 1 + Math.floor(next() * (length - 1)))
}

export function recordingsOf(prefixes: string[], suffix: string): string[] {
  return manifest.fixtures
    .map((fixture) => fixture.file)
    .filter((file) => prefixes.some((prefix) => file.startsWith(prefix)) && file.endsWith(suffix))
}

/** A response whose body arrives in the given pieces (byte offsets where it is cut). */
export function responseOf(recorded: Pick<Recording, 'status' | 'headers' | 'body'>, cuts: number[] = []): Response {
  const pieces: Uint8Array[] = []
  let start = 0
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    if (cut > start && cut < recorded.body.length) {
      pieces.push(recorded.body.slice(start, cut))
      start = cut
    }
  }
  pieces.push(recorded.body.slice(start))
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(piece)
      controller.close()
    },
  })
  return new Response(body, { status: recorded.status, headers: recorded.headers })
}

export interface FetchCall {
  url: string
  init: RequestInit
  body: Record<string, unknown>
  headers: Record<string, string>
}

/** A fetch that answers with the given responses in turn and records each request. */
export function fakeFetch(...responses: Array<Response | (() => Response | Promise<Response>)>) {
  const calls: FetchCall[] = []
  const fetch = async (url: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    calls.push({
      url: url instanceof Request ? url.url : url.toString(),
      init,
      body: JSON.parse(typeof init.body === 'string' ? init.body : '{}') as Record<string, unknown>,
      headers: Object.fromEntries(new Headers(init.headers).entries()),
    })
    const next = responses[calls.length - 1]
    if (!next) throw new Error(`fakeFetch has no response for request #${calls.length}`)
    return typeof next === 'function' ? next() : next
  }
  return { fetch: fetch, calls }
}

export type Handler = (request: IncomingMessage & { body: string }, response: ServerResponse) => void | Promise<void>

/** A real HTTP server on 127.0.0.1; each request is handled by the next handler in turn. */
export async function loopback(...handlers: Handler[]) {
  const requests: Array<{ path: string; headers: IncomingMessage['headers']; body: string }> = []
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => (body += chunk.toString()))
    request.on('end', () => {
      requests.push({ path: request.url ?? '', headers: request.headers, body })
      const handler = handlers[requests.length - 1] ?? handlers.at(-1)!
      void handler(Object.assign(request, { body }), response)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A handler that replays a recording, optionally in pieces with a pause between them. */
export function replay(recorded: Recording, pieceSize = 0, pauseMs = 0): Handler {
  return async (_request, response) => {
    response.writeHead(recorded.status, recorded.headers)
    if (!pieceSize) return void response.end(Buffer.from(recorded.body))
    for (let offset = 0; offset < recorded.body.length; offset += pieceSize) {
      if (response.destroyed) return
      response.write(Buffer.from(recorded.body.slice(offset, offset + pieceSize)))
      if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs))
    }
    response.end()
  }
}
