// The key never leaves: no redirect is followed, and the key is scrubbed from every byte and header
// that passes back to the page, streamed or not, split across chunks or not.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createModelProxy, type ModelProxyOptions } from './index'
import { keyScrubber } from './key-scrubber'
import { fakeProvider, MOUNTS, post, sendJson, type FakeProvider, type Mounted } from './testing/loopback'

const KEY = 'sk-leak-SECRET-0123456789abcdef'
let provider: FakeProvider
/** Another origin, where a redirect would take the request. */
let elsewhere: Server
let elsewhereURL: string
const elsewhereGot: Array<Record<string, string | string[] | undefined>> = []

beforeAll(async () => {
  provider = await fakeProvider()
  elsewhere = createServer((request, response) => {
    elsewhereGot.push(request.headers)
    request.resume()
    sendJson(response, 200, { choices: [{ message: { content: 'from elsewhere' } }] })
  })
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve))
  elsewhereURL = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`
})
afterAll(async () => {
  await provider.close()
  await new Promise<void>((resolve) => elsewhere.close(() => resolve()))
})
afterEach(() => {
  provider.reset()
  elsewhereGot.length = 0
})

function proxyOf(options: Partial<ModelProxyOptions> = {}) {
  return createModelProxy({
    provider: 'openai',
    apiKey: KEY,
    baseURL: `${provider.url}/v1`,
    models: ['gpt-test'],
    ...options,
  })
}

describe.each(MOUNTS)('the proxy %s', (_, mount) => {
  let mounted: Mounted | undefined
  afterEach(() => mounted?.close())
  async function send(request: Request, options: Partial<ModelProxyOptions> = {}) {
    mounted = await mount(proxyOf(options))
    return mounted.send(request)
  }

  it.each([
    ['openai', '/v1', '/x/chat/completions'],
    ['anthropic', '', '/x/v1/messages'],
  ] as const)(
    'follows no redirect with the %s key, and names the status, never the location',
    async (name, path, route) => {
      provider.answer = (_, response) => {
        response.writeHead(307, { location: `${elsewhereURL}/steal?token=${KEY}` })
        response.end()
      }
      const response = await send(post(route, { model: 'gpt-test', messages: [] }), {
        provider: name,
        baseURL: `${provider.url}${path}`,
      })
      expect(response.status).toBe(502)
      const text = await response.text()
      expect(text).toMatch(/answered 307; the model proxy follows no redirect/)
      expect(text).not.toContain(elsewhereURL)
      expect(response.headers.get('location')).toBeNull()
      expect(elsewhereGot).toHaveLength(0)
    },
  )

  it('scrubs the key from a 200 event stream, whichever bytes it is split at', async () => {
    const stream = `data: {"choices":[{"delta":{"content":"hi"}}]}\n\nevent: error\ndata: {"error":{"message":"invalid x-api-key ${KEY}"}}\n\ndata: [DONE]\n\n`
    const at = stream.indexOf(KEY)
    provider.answer = (_, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      // Pieces that each hold part of the key, each flushed before the next is written.
      const pieces = [
        stream.slice(0, at + 3),
        stream.slice(at + 3, at + 10),
        stream.slice(at + 10, at + 11),
        stream.slice(at + 11),
      ]
      const write = () => {
        const piece = pieces.shift()
        if (piece === undefined) return response.end()
        response.write(piece, () => setImmediate(write))
      }
      write()
    }
    const response = await send(post('/x/chat/completions', { model: 'gpt-test', stream: true }))
    const text = await response.text()
    expect(text).not.toContain(KEY)
    expect(text).toBe(stream.replace(KEY, '[redacted]'))
  })

  it('scrubs the key from a 200 JSON answer', async () => {
    provider.answer = (_, response) => sendJson(response, 200, { echo: `${KEY} and ${KEY}` })
    const text = await (await send(post('/x/chat/completions', { model: 'gpt-test' }))).text()
    expect(text).toBe('{"echo":"[redacted] and [redacted]"}')
  })

  it('passes only allow-listed headers back, the key scrubbed from their values', async () => {
    provider.answer = (_, response) =>
      sendJson(
        response,
        200,
        {},
        {
          'x-request-id': `req-${KEY}`,
          'x-ratelimit-remaining-requests': '99',
          'set-cookie': 'provider-session=1',
          'x-debug-key': KEY,
          'www-authenticate': `Bearer ${KEY}`,
        },
      )
    const response = await send(post('/x/chat/completions', { model: 'gpt-test' }))
    expect(response.headers.get('x-request-id')).toBe('req-[redacted]')
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('99')
    for (const name of ['set-cookie', 'x-debug-key', 'www-authenticate']) expect(response.headers.get(name)).toBeNull()
  })

  it("passes only its own headers to the provider: never the page's cookies, forwarding or organisation headers", async () => {
    await send(
      post(
        '/x/chat/completions',
        { model: 'gpt-test' },
        {
          headers: {
            'content-type': 'application/json',
            cookie: 'session=1',
            'x-forwarded-for': '10.0.0.1',
            'openai-organization': 'org-other',
            'api-key': 'page-key',
          },
        },
      ),
    )
    const headers = provider.received[0]!.headers
    expect(headers.authorization).toBe(`Bearer ${KEY}`)
    for (const name of ['cookie', 'x-forwarded-for', 'openai-organization', 'api-key'])
      expect(headers[name]).toBeUndefined()
  })
})

describe('the key scrubber', () => {
  const text = `before ${KEY} middle ${KEY}${KEY} after ${KEY.slice(0, 10)}`
  const bytes = new TextEncoder().encode(text)
  const expected = `before [redacted] middle [redacted][redacted] after ${KEY.slice(0, 10)}`

  it('takes the key out at every split of the stream into two and three chunks', () => {
    for (let first = 0; first <= bytes.length; first++) {
      for (const second of [first, Math.min(bytes.length, first + 5), Math.min(bytes.length, first + 17)]) {
        const scrubber = keyScrubber(KEY)
        const out = [bytes.subarray(0, first), bytes.subarray(first, second), bytes.subarray(second)].map((chunk) =>
          scrubber.scrub(chunk),
        )
        out.push(scrubber.end())
        expect(out.map((chunk) => new TextDecoder().decode(chunk)).join('')).toBe(expected)
      }
    }
  })

  it('holds back only what could be the start of the key', () => {
    const scrubber = keyScrubber(KEY)
    expect(new TextDecoder().decode(scrubber.scrub(new TextEncoder().encode('data: {}\n\n')))).toBe('data: {}\n\n')
    expect(new TextDecoder().decode(scrubber.scrub(new TextEncoder().encode('x sk-le')))).toBe('x ')
    expect(new TextDecoder().decode(scrubber.end())).toBe('sk-le')
  })
})
