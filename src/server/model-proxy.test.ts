import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { Hono } from 'hono'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createModelProxy, nodeHandler, type ModelProxyOptions } from './index'

const KEY = 'sk-proxy-SECRET-0123456789abcdef'

interface Received {
  path: string
  headers: IncomingMessage['headers']
  body: Record<string, unknown>
}

/** A provider on loopback: it records each request and answers as `answer` says. */
let answer: (received: Received, response: ServerResponse) => void = (_, response) => sendJson(response, 200, {})
const received: Received[] = []
let closedEarly = 0
let provider: Server
let providerURL: string

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers })
  response.end(JSON.stringify(body))
}

beforeAll(async () => {
  provider = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const entry = {
        path: request.url ?? '',
        headers: request.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>,
      }
      received.push(entry)
      response.on('close', () => {
        if (!response.writableEnded) closedEarly++
      })
      answer(entry, response)
    })
  })
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve))
  providerURL = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`
})

afterAll(() => new Promise<void>((resolve) => provider.close(() => resolve())))

afterEach(() => {
  received.length = 0
  closedEarly = 0
  answer = (_, response) => sendJson(response, 200, {})
})

function proxyOf(options: Partial<ModelProxyOptions> = {}) {
  return createModelProxy({
    provider: 'openai',
    apiKey: KEY,
    baseURL: `${providerURL}/v1`,
    models: ['gpt-test'],
    ...options,
  })
}

function post(path: string, body: unknown, init: RequestInit = {}): Request {
  return new Request(`http://app.test${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  })
}

async function errorOf(response: Response): Promise<string> {
  const body = (await response.json()) as { error?: { message?: string } }
  return body.error?.message ?? ''
}

describe('createModelProxy forwards', () => {
  it("a chat request to the provider with the key, and the provider's answer to the page", async () => {
    answer = (_, response) => sendJson(response, 200, { id: 'c1', choices: [] }, { 'x-request-id': 'req-1' })
    const response = await proxyOf()(post('/api/openai/chat/completions', { model: 'gpt-test', messages: [] }))
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ id: 'c1', choices: [] })
    expect(response.headers.get('x-request-id')).toBe('req-1')
    expect(received[0]).toMatchObject({ path: '/v1/chat/completions', headers: { authorization: `Bearer ${KEY}` } })
  })

  it('Responses and Anthropic requests to their endpoints, each with its key header', async () => {
    await proxyOf({ provider: 'openai-responses' })(post('/api/r/responses', { model: 'gpt-test', input: 'hi' }))
    await proxyOf({ provider: 'anthropic', baseURL: providerURL })(
      post(
        '/api/a/v1/messages',
        { model: 'gpt-test', messages: [] },
        {
          headers: { 'content-type': 'application/json', 'anthropic-beta': 'files-2025' },
        },
      ),
    )
    expect(received.map((request) => request.path)).toEqual(['/v1/responses', '/v1/messages'])
    expect(received[0]!.headers.authorization).toBe(`Bearer ${KEY}`)
    expect(received[1]!.headers).toMatchObject({
      'x-api-key': KEY,
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'files-2025',
    })
  })

  it('never the key or cookies the page sends', async () => {
    await proxyOf()(
      post(
        '/api/openai/chat/completions',
        { model: 'gpt-test' },
        {
          headers: { 'content-type': 'application/json', authorization: 'Bearer page-key', cookie: 'session=1' },
        },
      ),
    )
    expect(received[0]!.headers.authorization).toBe(`Bearer ${KEY}`)
    expect(received[0]!.headers.cookie).toBeUndefined()
  })

  it('a stream as it comes, before the provider has finished', async () => {
    let finish!: () => void
    answer = (_, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.write('data: {"first":true}\n\n')
      finish = () => response.end('data: [DONE]\n\n')
    }
    const response = await proxyOf()(post('/api/openai/chat/completions', { model: 'gpt-test', stream: true }))
    const reader = response.body!.getReader()
    const first = new TextDecoder().decode((await reader.read()).value)
    expect(first).toBe('data: {"first":true}\n\n')
    finish()
    const rest = new TextDecoder().decode((await reader.read()).value)
    expect(rest).toBe('data: [DONE]\n\n')
    expect(response.headers.get('content-type')).toBe('text/event-stream')
  })

  it('a gzip-encoded answer decoded, without the encoding header the body no longer has', async () => {
    answer = (_, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
      response.end(gzipSync(JSON.stringify({ ok: 'decoded' })))
    }
    const response = await proxyOf()(post('/api/openai/chat/completions', { model: 'gpt-test' }))
    expect(response.headers.get('content-encoding')).toBeNull()
    expect(response.headers.get('content-length')).toBeNull()
    expect(await response.json()).toEqual({ ok: 'decoded' })
  })

  it("the page's going away to the provider: the upstream request is cancelled mid-stream", async () => {
    answer = (_, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.write('data: {"n":1}\n\n')
    }
    const page = new AbortController()
    const response = await proxyOf()(
      post('/api/openai/chat/completions', { model: 'gpt-test', stream: true }, { signal: page.signal }),
    )
    const reader = response.body!.getReader()
    await reader.read()
    page.abort()
    await reader.cancel().catch(() => {})
    await expect.poll(() => closedEarly).toBe(1)
  })
})

describe('createModelProxy caps', () => {
  it('every output-token limit a request carries, and gives one to a request without', async () => {
    const proxy = proxyOf({ maxTokens: 100 })
    await proxy(post('/x/chat/completions', { model: 'gpt-test', max_tokens: 5000, max_completion_tokens: 50 }))
    await proxy(post('/x/chat/completions', { model: 'gpt-test' }))
    await proxyOf({ provider: 'openai-responses', maxTokens: 100 })(
      post('/x/responses', { model: 'gpt-test', max_output_tokens: 9999 }),
    )
    await proxyOf({ provider: 'anthropic', baseURL: providerURL, maxTokens: 100 })(
      post('/x/v1/messages', { model: 'gpt-test', max_tokens: 4096 }),
    )
    expect(received.map((request) => request.body)).toEqual([
      { model: 'gpt-test', max_tokens: 100, max_completion_tokens: 50 },
      { model: 'gpt-test', max_completion_tokens: 100 },
      { model: 'gpt-test', max_output_tokens: 100 },
      { model: 'gpt-test', max_tokens: 100 },
    ])
  })
})

describe('createModelProxy refuses', () => {
  const refusals: Array<[string, () => Promise<Response>, number, RegExp]> = [
    [
      'another model',
      () => proxyOf()(post('/x/chat/completions', { model: 'gpt-5-expensive' })),
      403,
      /"gpt-5-expensive" is not one this proxy serves/,
    ],
    ['a request without a model', () => proxyOf()(post('/x/chat/completions', { messages: [] })), 403, /not one/],
    [
      'a body over the limit',
      () => proxyOf({ maxBodyBytes: 1000 })(post('/x/chat/completions', { model: 'gpt-test', pad: 'x'.repeat(5000) })),
      413,
      /over 1000 bytes/,
    ],
    [
      'a body over the limit with a forged length',
      () =>
        proxyOf({ maxBodyBytes: 1000 })(
          post('/x/chat/completions', JSON.stringify({ model: 'gpt-test', pad: 'x'.repeat(5000) }), {
            headers: { 'content-type': 'application/json', 'content-length': '10' },
          }),
        ),
      413,
      /over 1000 bytes/,
    ],
    ['a body that is not JSON', () => proxyOf()(post('/x/chat/completions', '{model: gpt')), 400, /not JSON/],
    ['a JSON array', () => proxyOf()(post('/x/chat/completions', '[1,2]')), 400, /not a JSON object/],
    [
      'a token limit that is not a positive whole number',
      () => proxyOf()(post('/x/chat/completions', { model: 'gpt-test', max_tokens: '1e9' })),
      400,
      /max_tokens must be a whole number/,
    ],
    ['another endpoint', () => proxyOf()(post('/x/files', { model: 'gpt-test' })), 404, /chat\/completions only/],
    ['a GET', () => proxyOf()(new Request('http://app.test/x/chat/completions')), 405, /POST requests only/],
    [
      'a request its authorize hook turns down',
      () => proxyOf({ authorize: () => false })(post('/x/chat/completions', { model: 'gpt-test' })),
      401,
      /may not use the model/,
    ],
    [
      'a request whose authorize hook throws (a forged session)',
      () =>
        proxyOf({
          authorize: () => {
            throw new Error('bad signature')
          },
        })(post('/x/chat/completions', { model: 'gpt-test' })),
      401,
      /may not use the model/,
    ],
  ]

  for (const [what, send, status, message] of refusals) {
    it(`${what}, before anything reaches the provider`, async () => {
      const response = await send()
      expect(response.status).toBe(status)
      expect(await errorOf(response)).toMatch(message)
      expect(received).toHaveLength(0)
    })
  }

  it('asks authorize with the request itself, and forwards what it allows', async () => {
    const seen: string[] = []
    const proxy = proxyOf({ authorize: (request) => (seen.push(request.headers.get('x-session') ?? ''), true) })
    await proxy(
      post(
        '/x/chat/completions',
        { model: 'gpt-test' },
        {
          headers: { 'content-type': 'application/json', 'x-session': 'abc' },
        },
      ),
    )
    expect(seen).toEqual(['abc'])
    expect(received).toHaveLength(1)
  })
})

describe('createModelProxy never echoes the key', () => {
  it("when the provider refuses it: the page learns the proxy's key was refused, not the provider's words", async () => {
    answer = (_, response) =>
      sendJson(response, 401, { error: { message: `Incorrect API key provided: ${KEY.slice(0, 8)}****cdef` } })
    const response = await proxyOf()(post('/x/chat/completions', { model: 'gpt-test' }))
    expect(response.status).toBe(502)
    const text = await response.text()
    expect(text).toMatch(/refused the model proxy's key/)
    expect(text).not.toContain(KEY.slice(0, 8))
  })

  it('in any other error body that quotes it', async () => {
    answer = (_, response) => sendJson(response, 400, { error: { message: `bad request from ${KEY}` } })
    const response = await proxyOf()(post('/x/chat/completions', { model: 'gpt-test' }))
    expect(response.status).toBe(400)
    const text = await response.text()
    expect(text).not.toContain(KEY)
    expect(text).toContain('[redacted]')
  })

  it('when the provider cannot be reached', async () => {
    const proxy = createModelProxy({ provider: 'openai', apiKey: KEY, baseURL: 'http://127.0.0.1:9/v1', models: ['m'] })
    const response = await proxy(post('/x/chat/completions', { model: 'm' }))
    expect(response.status).toBe(502)
    expect(await errorOf(response)).toMatch(/could not reach the provider/)
  })
})

describe('the proxy in servers', () => {
  it("answers through Node's http with nodeHandler, streaming both ways", async () => {
    answer = (entry, response) => sendJson(response, 200, { echoed: entry.body['messages'] })
    const server = createServer(nodeHandler(proxyOf()))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/openai/chat/completions`
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-test', messages: ['hello'] }),
      })
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ echoed: ['hello'] })
      const refused = await fetch(url, { method: 'POST', body: JSON.stringify({ model: 'other' }) })
      expect(refused.status).toBe(403)
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })

  it('answers as a Hono route', async () => {
    const app = new Hono()
    const proxy = proxyOf()
    app.post('/api/openai/*', (context) => proxy(context.req.raw))
    const response = await app.request('/api/openai/chat/completions', {
      method: 'POST',
      body: JSON.stringify({ model: 'gpt-test' }),
    })
    expect(response.status).toBe(200)
    expect(received).toHaveLength(1)
  })
})

describe('createModelProxy is configured', () => {
  it('without a key it still loads (a build may load the route), and answers every request 500', async () => {
    const proxy = createModelProxy({ provider: 'openai', apiKey: '', models: ['m'] })
    const response = await proxy(post('/x/chat/completions', { model: 'm' }))
    expect(response.status).toBe(500)
    expect(await errorOf(response)).toMatch(/no API key: set it on the server/)
    expect(received).toHaveLength(0)
  })

  it('with a provider, a key and models, or refuses to start', () => {
    expect(() => createModelProxy({ provider: 'openai', apiKey: KEY, models: [] })).toThrow(/needs the models/)
    expect(() => createModelProxy({ provider: 'gemini' as 'openai', apiKey: KEY, models: ['m'] })).toThrow(
      /provider must be/,
    )
    expect(() => createModelProxy({ provider: 'openai', apiKey: KEY, models: ['m'], maxTokens: 0 })).toThrow(RangeError)
  })
})
