// Test kit for the proxy: a fake provider on 127.0.0.1, and the two ways a proxy is mounted — called
// as a Fetch handler, and behind a real Node http server with nodeHandler.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll } from 'vitest'
import { createModelProxy } from '../model-proxy'
import type { ModelProxyOptions } from '../proxy-options'
import { nodeHandler } from '../node-handler'

export interface Received {
  path: string
  headers: IncomingHttpHeaders
  body: string
}

export type Answer = (received: Received, response: ServerResponse) => void

export interface FakeProvider {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  readonly received: Received[]
  /** How the next requests are answered (default: 200 with `{}`). */
  answer: Answer
  /** Back to the default answer, nothing received. */
  reset(): void
  close(): Promise<void>
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers })
  response.end(JSON.stringify(body))
}

const byDefault: Answer = (_, response) => sendJson(response, 200, {})

export async function fakeProvider(): Promise<FakeProvider> {
  const received: Received[] = []
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const entry = { path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') }
      received.push(entry)
      provider.answer(entry, response)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const provider: FakeProvider = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    answer: byDefault,
    reset() {
      received.length = 0
      provider.answer = byDefault
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  return provider
}

/**
 * The fake provider of one test file: started before its tests, reset after each, closed after all.
 * Read it in tests (or hooks), not at the file's top level, where it has not started yet.
 */
export function loopbackProvider(): FakeProvider {
  let started: FakeProvider | undefined
  const current = (): FakeProvider => {
    if (!started) throw new Error('The loopback provider starts before the tests: use it inside them')
    return started
  }
  beforeAll(async () => {
    started = await fakeProvider()
  })
  afterEach(() => started?.reset())
  afterAll(() => started?.close())
  return {
    get url() {
      return current().url
    },
    get received() {
      return current().received
    },
    get answer() {
      return current().answer
    },
    set answer(answer: Answer) {
      current().answer = answer
    },
    reset: () => current().reset(),
    close: () => current().close(),
  }
}

/** An OpenAI proxy holding `apiKey` in front of `provider`, for the model `gpt-test` unless told otherwise. */
export function proxyTo(provider: FakeProvider, apiKey: string, options: Partial<ModelProxyOptions> = {}) {
  return createModelProxy({
    provider: 'openai',
    apiKey,
    baseURL: `${provider.url}/v1`,
    models: ['gpt-test'],
    ...options,
  })
}

export type Handler = (request: Request) => Promise<Response>

export interface Mounted {
  /** Sends the page's request to the mounted proxy. */
  send: Handler
  close(): Promise<void>
}

/** A proxy called directly as a Fetch handler, or behind Node's http; each test runs with both. */
export const MOUNTS: ReadonlyArray<readonly [string, (handler: Handler) => Promise<Mounted>]> = [
  ['as a Fetch handler', (handler) => Promise.resolve({ send: handler, close: () => Promise.resolve() })],
  ['behind a Node server', behindNode],
]

export async function behindNode(handler: Handler): Promise<Mounted> {
  const server = createServer(nodeHandler(handler))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    send: (request) => {
      const url = new URL(request.url)
      return fetch(`${origin}${url.pathname}${url.search}`, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: request.signal,
        // @ts-expect-error -- Node's fetch needs it for a streamed body; the DOM types do not know it.
        duplex: 'half',
      })
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A POST from the page to the proxy's route. */
export function post(path: string, body: unknown, init: RequestInit = {}): Request {
  return new Request(`http://app.test${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  })
}

export async function errorOf(response: Response): Promise<string> {
  const body = (await response.json()) as { error?: { message?: string } }
  return body.error?.message ?? ''
}
