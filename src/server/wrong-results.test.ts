// Answers that were wrong: a baseURL's query moved into the path, a null-body status from the
// provider rejected, an inherited name taken for a provider.
import { afterEach, describe, expect, it } from 'vitest'
import { type ModelProxyOptions } from './index'
import { PROVIDERS } from './providers'
import { errorOf, loopbackProvider, type Mounted, MOUNTS, post, proxyTo } from './testing/loopback'

const KEY = 'sk-results-SECRET-0123456789'
const provider = loopbackProvider()
const proxyOf = (options: Partial<ModelProxyOptions> = {}) => proxyTo(provider, KEY, options)

describe.each(MOUNTS)('the proxy %s', (_, mount) => {
  let mounted: Mounted | undefined
  afterEach(async () => {
    await mounted?.close()
    mounted = undefined
  })
  async function send(request: Request, options: Partial<ModelProxyOptions> = {}) {
    await mounted?.close()
    mounted = await mount(proxyOf(options))
    return mounted.send(request)
  }

  it("keeps baseURL's path and query: the endpoint goes into the path (Azure's api-version)", async () => {
    await send(post('/x/chat/completions', { model: 'gpt-test' }), {
      baseURL: `${provider.url}/openai/deployments/gpt-test?api-version=2024-10-21`,
    })
    await send(post('/x/embeddings', { model: 'gpt-test', input: 'a' }), {
      baseURL: `${provider.url}/openai/v1/?api-version=preview`,
      endpoints: ['embeddings'],
    })
    expect(provider.received.map((request) => request.path)).toEqual([
      '/openai/deployments/gpt-test/chat/completions?api-version=2024-10-21',
      '/openai/v1/embeddings?api-version=preview',
    ])
  })

  it.each([304, 301, 308])('answers 502 naming the status when the provider answers %i', async (status) => {
    provider.answer = (_, response) => {
      response.writeHead(status, { location: '/elsewhere' })
      response.end()
    }
    const response = await send(post('/x/chat/completions', { model: 'gpt-test' }))
    expect(response.status).toBe(502)
    expect(await errorOf(response)).toMatch(new RegExp(`answered ${status};`))
  })

  it('answers 204 and 205 from the provider as they are, without a body', async () => {
    for (const status of [204, 205]) {
      provider.answer = (_, response) => {
        response.writeHead(status, { 'x-request-id': 'r' })
        response.end()
      }
      const response = await send(post('/x/chat/completions', { model: 'gpt-test' }))
      expect(response.status).toBe(status)
      expect(await response.text()).toBe('')
    }
  })

  it('answers other successes (202) with their body', async () => {
    provider.answer = (_, response) => {
      response.writeHead(202, { 'content-type': 'application/json' })
      response.end('{"status":"queued"}')
    }
    const response = await send(post('/x/chat/completions', { model: 'gpt-test' }))
    expect(response.status).toBe(202)
    expect(await response.json()).toEqual({ status: 'queued' })
  })

  it('answers 405 with a clear error to a method other than POST', async () => {
    const response = await send(new Request('http://app.test/x/chat/completions', { method: 'PUT', body: '{}' }))
    expect(response.status).toBe(405)
    expect(await errorOf(response)).toMatch(/POST requests only/)
  })
})

describe('createModelProxy', () => {
  it.each(['toString', '__proto__', 'constructor', 'hasOwnProperty'])(
    'refuses the inherited name %s as a provider, with a clear error',
    (name) => {
      expect(() => proxyOf({ provider: name as 'openai' })).toThrow(
        new TypeError(`createModelProxy: provider must be 'openai', 'openai-responses' or 'anthropic', got "${name}"`),
      )
    },
  )

  it.each(['not a url', 'ftp://files.test/v1', ''])('refuses the baseURL %j, saying what it should be', (baseURL) => {
    expect(() => proxyOf({ baseURL })).toThrow(
      /baseURL must be an http\(s\) URL such as 'https:\/\/api.openai.com\/v1'/,
    )
  })

  it('sends an Azure host the key in api-key, every other host as a bearer token', () => {
    expect(PROVIDERS.openai.keyHeader(KEY, 'res.openai.azure.com')).toEqual({ 'api-key': KEY })
    expect(PROVIDERS['openai-responses'].keyHeader(KEY, 'res.cognitiveservices.azure.com')).toEqual({ 'api-key': KEY })
    expect(PROVIDERS.openai.keyHeader(KEY, 'api.openai.com')).toEqual({ authorization: `Bearer ${KEY}` })
    expect(PROVIDERS.openai.keyHeader(KEY, 'openai.azure.com.evil.test')).toEqual({ authorization: `Bearer ${KEY}` })
  })
})
