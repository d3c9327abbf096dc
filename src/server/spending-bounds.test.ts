// Bounds: a page's body and a provider's error body are read within time and bytes, and one request
// costs at most maxTokens of output — no multipliers.
import { afterEach, describe, expect, it } from 'vitest'
import { type ModelProxyOptions } from './index'
import { errorOf, loopbackProvider, type Mounted, MOUNTS, post, proxyTo } from './testing/loopback'

const KEY = 'sk-bounds-SECRET-0123456789'
const provider = loopbackProvider()
const proxyOf = (options: Partial<ModelProxyOptions> = {}) => proxyTo(provider, KEY, { maxTokens: 100, ...options })

describe.each(MOUNTS)('the proxy %s', (_, mount) => {
  let mounted: Mounted | undefined
  afterEach(() => mounted?.close())
  async function send(request: Request, options: Partial<ModelProxyOptions> = {}) {
    mounted = await mount(proxyOf(options))
    return mounted.send(request)
  }

  it('answers 408 to a request body that never finishes, within bodyTimeoutMs', async () => {
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(new TextEncoder().encode('{"model":"gpt-test","messages":[')),
    })
    // @ts-expect-error -- Node's fetch needs it for a streamed body; the DOM types do not know it.
    const response = await send(post('/x/chat/completions', '', { body, duplex: 'half' }), { bodyTimeoutMs: 50 })
    expect(response.status).toBe(408)
    expect(await errorOf(response)).toMatch(/did not arrive within 50 ms/)
    expect(provider.received).toHaveLength(0)
  })

  it('answers 502 when an error body from the provider never ends, within bodyTimeoutMs', async () => {
    provider.answer = (_, response) => {
      response.writeHead(500, { 'content-type': 'application/json' })
      response.write('{"error":{"message":"still writ')
    }
    const response = await send(post('/x/chat/completions', { model: 'gpt-test' }), { bodyTimeoutMs: 50 })
    expect(response.status).toBe(502)
    expect(await errorOf(response)).toMatch(/error answer \(status 500\) did not end within 50 ms/)
  })

  it('answers 502 when an error body from the provider is over 64 KB, without reading it all', async () => {
    let written = 0
    provider.answer = (_, response) => {
      response.writeHead(503, { 'content-type': 'text/html' })
      const more = () => {
        if (response.destroyed || written > 10_000_000) return response.end()
        written += 16_384
        response.write('x'.repeat(16_384), () => setImmediate(more))
      }
      more()
    }
    const response = await send(post('/x/chat/completions', { model: 'gpt-test' }))
    expect(response.status).toBe(502)
    expect(await errorOf(response)).toMatch(/error answer \(status 503\) was over 65536 bytes/)
    expect(written).toBeLessThan(10_000_000)
  })

  it.each([
    ['n', { n: 100 }],
    ['n', { n: '2' }],
    ['best_of', { best_of: 5 }],
  ])('refuses %s above 1: one request is one completion of at most maxTokens', async (field, extra) => {
    const response = await send(post('/x/chat/completions', { model: 'gpt-test', ...extra }))
    expect(response.status).toBe(400)
    expect(await errorOf(response)).toMatch(new RegExp(`^${field} must be 1 at this model proxy`))
    expect(provider.received).toHaveLength(0)
  })

  it('forwards n: 1, with the output capped', async () => {
    const response = await send(post('/x/chat/completions', { model: 'gpt-test', n: 1, max_tokens: 100_000 }))
    expect(response.status).toBe(200)
    expect(JSON.parse(provider.received[0]!.body)).toEqual({ model: 'gpt-test', n: 1, max_tokens: 100 })
  })

  it('refuses n on the Responses and Anthropic routes as well', async () => {
    for (const [name, route] of [
      ['openai-responses', '/x/responses'],
      ['anthropic', '/x/v1/messages'],
    ] as const) {
      const response = await send(post(route, { model: 'gpt-test', n: 3 }), { provider: name, baseURL: provider.url })
      expect(response.status).toBe(400)
      await mounted?.close()
      mounted = undefined
    }
    expect(provider.received).toHaveLength(0)
  })
})
