// What a server sets for a page: the endpoints served (chat, embeddings), a system prompt first, the
// tools a page may send, and the tokens each request used.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { OpenAIEmbeddingModel } from '../retrieval'
import { type ModelProxyOptions } from './index'
import { errorOf, loopbackProvider, type Mounted, MOUNTS, post, proxyTo, sendJson } from './testing/loopback'

const KEY = 'sk-options-SECRET-0123456789'
// Recorded provider bytes, as the adapters' tests use them (see that folder's README).
const FIXTURES = resolve(import.meta.dirname, '../models/__fixtures__/providers')
const fixture = (path: string) => readFileSync(resolve(FIXTURES, path))
const provider = loopbackProvider()
const proxyOf = (options: Partial<ModelProxyOptions> = {}) =>
  proxyTo(provider, KEY, { models: ['gpt-test', 'embed-test'], ...options })

const sentBody = (index = 0) => JSON.parse(provider.received[index]!.body) as Record<string, unknown>

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

  describe('endpoints', () => {
    it("serves embeddings when asked, with the key, and without the chat's output cap", async () => {
      const response = await send(post('/api/openai/embeddings', { model: 'embed-test', input: ['a'] }), {
        endpoints: ['chat', 'embeddings'],
        maxTokens: 100,
      })
      expect(response.status).toBe(200)
      expect(provider.received[0]).toMatchObject({
        path: '/v1/embeddings',
        headers: { authorization: `Bearer ${KEY}` },
      })
      expect(sentBody()).toEqual({ model: 'embed-test', input: ['a'] })
    })

    it('answers embeddings 404 by default, saying how to serve them', async () => {
      const response = await send(post('/api/openai/embeddings', { model: 'embed-test', input: ['a'] }))
      expect(response.status).toBe(404)
      expect(await errorOf(response)).toMatch(/forwards chat\/completions only\. To serve embeddings, add 'embeddings'/)
    })

    it('answers chat 404 when only embeddings are served', async () => {
      const response = await send(post('/api/openai/chat/completions', { model: 'gpt-test' }), {
        endpoints: ['embeddings'],
      })
      expect(response.status).toBe(404)
      expect(provider.received).toHaveLength(0)
    })

    it('is what OpenAIEmbeddingModel needs: pointed at the proxy, it embeds without the key', async () => {
      provider.answer = (_, response) =>
        sendJson(response, 200, {
          data: [{ index: 0, embedding: [0.5, 0.25] }],
          usage: { prompt_tokens: 2, total_tokens: 2 },
        })
      mounted = await mount(proxyOf({ endpoints: ['chat', 'embeddings'] }))
      const { send: page } = mounted
      const embedding = new OpenAIEmbeddingModel({
        baseURL: 'http://app.test/api/openai',
        model: 'embed-test',
        fetch: (url, init) => page(new Request(url, init)),
      })
      expect(await embedding.embed(['hello'])).toEqual([new Float32Array([0.5, 0.25])])
    })

    it("makes OpenAIEmbeddingModel's error say that the proxy does not serve embeddings", async () => {
      mounted = await mount(proxyOf())
      const { send: page } = mounted
      const embedding = new OpenAIEmbeddingModel({
        baseURL: 'http://app.test/api/openai',
        model: 'embed-test',
        fetch: (url, init) => page(new Request(url, init)),
      })
      const refused = embedding.embed(['hello'])
      await expect(refused).rejects.toThrow(
        /is a model proxy that does not serve \/embeddings \(HTTP 404\): add 'embeddings' to its endpoints/,
      )
      await expect(refused).rejects.not.toThrow(/model name/)
    })
  })

  describe('system', () => {
    it("puts the server's system prompt first in an OpenAI chat, the page's own system message after it", async () => {
      await send(
        post('/x/chat/completions', {
          model: 'gpt-test',
          messages: [
            { role: 'system', content: 'Answer as a pirate.' },
            { role: 'user', content: 'hi' },
          ],
        }),
        { system: 'You answer questions about the weather only.' },
      )
      expect(sentBody().messages).toEqual([
        { role: 'system', content: 'You answer questions about the weather only.' },
        { role: 'system', content: 'Answer as a pirate.' },
        { role: 'user', content: 'hi' },
      ])
    })

    it("puts it before the page's instructions in a Responses request", async () => {
      await send(post('/x/responses', { model: 'gpt-test', input: 'hi', instructions: 'Be brief.' }), {
        provider: 'openai-responses',
        system: 'Weather only.',
      })
      await send(post('/x/responses', { model: 'gpt-test', input: 'hi' }), {
        provider: 'openai-responses',
        system: 'Weather only.',
      })
      expect(sentBody(0).instructions).toBe('Weather only.\n\nBe brief.')
      expect(sentBody(1).instructions).toBe('Weather only.')
    })

    it('puts it as the first system block in an Anthropic request', async () => {
      const options = { provider: 'anthropic', baseURL: provider.url, system: 'Weather only.' } as const
      await send(post('/x/v1/messages', { model: 'gpt-test', messages: [] }), options)
      await send(post('/x/v1/messages', { model: 'gpt-test', system: 'Be brief.', messages: [] }), options)
      const cached = { type: 'text', text: 'Docs', cache_control: { type: 'ephemeral' } }
      await send(post('/x/v1/messages', { model: 'gpt-test', system: [cached], messages: [] }), options)
      expect(sentBody(0).system).toBe('Weather only.')
      expect(sentBody(1).system).toEqual([
        { type: 'text', text: 'Weather only.' },
        { type: 'text', text: 'Be brief.' },
      ])
      expect(sentBody(2).system).toEqual([{ type: 'text', text: 'Weather only.' }, cached])
    })

    it('refuses a chat whose messages are not a list', async () => {
      const response = await send(post('/x/chat/completions', { model: 'gpt-test', messages: 'hi' }), { system: 'S' })
      expect(response.status).toBe(400)
      expect(provider.received).toHaveLength(0)
    })
  })

  describe('tools', () => {
    const weather = { type: 'function', function: { name: 'get_weather', parameters: {} } }
    const shell = { type: 'function', function: { name: 'run_shell', parameters: {} } }

    it('forwards the tools it names, and refuses any other, naming it', async () => {
      const ok = await send(post('/x/chat/completions', { model: 'gpt-test', tools: [weather] }), {
        tools: ['get_weather'],
      })
      expect(ok.status).toBe(200)
      const refused = await send(post('/x/chat/completions', { model: 'gpt-test', tools: [weather, shell] }), {
        tools: ['get_weather'],
      })
      expect(refused.status).toBe(403)
      expect(await errorOf(refused)).toBe('The tool "run_shell" is not one this model proxy allows.')
      expect(provider.received).toHaveLength(1)
    })

    it('refuses a tool with a decoy name in a field its API does not read', async () => {
      const decoy = { type: 'function', name: 'run_shell', function: { name: 'get_weather' } }
      const response = await send(post('/x/responses', { model: 'gpt-test', tools: [decoy] }), {
        provider: 'openai-responses',
        tools: ['get_weather'],
      })
      expect(response.status).toBe(403)
      expect(await errorOf(response)).toMatch(/"run_shell" is not one/)
    })

    it("refuses every tool with 'none', legacy functions included", async () => {
      for (const body of [{ tools: [weather] }, { functions: [{ name: 'get_weather' }] }]) {
        const response = await send(post('/x/chat/completions', { model: 'gpt-test', ...body }), { tools: 'none' })
        expect(response.status).toBe(403)
        expect(await errorOf(response)).toMatch(/takes no tools, but the request sent 1/)
      }
      const plain = await send(post('/x/chat/completions', { model: 'gpt-test', tools: [] }), { tools: 'none' })
      expect(plain.status).toBe(200)
    })

    it("names a provider's built-in tool by its type: a function of the same name does not allow it", async () => {
      const options = { provider: 'openai-responses', tools: ['web_search'] } as const
      const search = await send(
        post('/x/responses', { model: 'gpt-test', tools: [{ type: 'web_search_preview' }] }),
        options,
      )
      expect(search.status).toBe(403)
      const anthropic = await send(
        post('/x/v1/messages', { model: 'gpt-test', tools: [{ type: 'web_search_20250305', name: 'web_search' }] }),
        { provider: 'anthropic', baseURL: provider.url, tools: ['web_search'] },
      )
      expect(anthropic.status).toBe(403)
      const mcp = await send(post('/x/v1/messages', { model: 'gpt-test', mcp_servers: [{ url: 'https://x' }] }), {
        provider: 'anthropic',
        baseURL: provider.url,
        tools: 'none',
      })
      expect(mcp.status).toBe(403)
      const named = await send(
        post('/x/responses', { model: 'gpt-test', tools: [{ type: 'function', name: 'web_search' }] }),
        options,
      )
      expect(named.status).toBe(200)
    })

    it('forwards any tool by default', async () => {
      const response = await send(post('/x/chat/completions', { model: 'gpt-test', tools: [weather, shell] }))
      expect(response.status).toBe(200)
    })
  })

  describe('onUsage', () => {
    const usages: Array<{ inputTokens: number; outputTokens: number; model: string }> = []
    afterEach(() => void (usages.length = 0))
    const onUsage = (usage: (typeof usages)[number]) => void usages.push(usage)

    function answerWith(file: string, contentType: string) {
      provider.answer = (_, response) => {
        response.writeHead(200, { 'content-type': contentType })
        const bytes = fixture(file)
        // Split in 7-byte pieces: usage split across chunks is still read.
        for (let at = 0; at < bytes.length; at += 7) response.write(bytes.subarray(at, at + 7))
        response.end()
      }
    }

    it.each([
      [
        'an OpenAI chat stream',
        'openai',
        'openai/chat-stream-tool-call-role-with-tool.sse',
        'text/event-stream',
        53,
        15,
      ],
      ['an OpenRouter chat stream', 'openai', 'openrouter/chat-stream-usage.sse', 'text/event-stream', 586, 3],
      [
        'a vLLM stream with usage on every chunk',
        'openai',
        'vllm/chat-stream-tool-call-continuous-usage.sse',
        'text/event-stream',
        226,
        20,
      ],
      ['an OpenAI chat answer', 'openai', 'openai/chat-tool-calls-parallel.json', 'application/json', 75, 53],
      [
        'an Anthropic stream',
        'anthropic',
        'anthropic/messages-stream-tool-use-single.sse',
        'text/event-stream',
        853,
        72,
      ],
      [
        'a Responses stream',
        'openai-responses',
        'openai-responses/stream-after-function-calls.sse',
        'text/event-stream',
        136,
        32,
      ],
    ] as const)('reads the tokens of %s', async (_, name, file, contentType, inputTokens, outputTokens) => {
      answerWith(file, contentType)
      const route = { openai: '/x/chat/completions', 'openai-responses': '/x/responses', anthropic: '/x/v1/messages' }[
        name
      ]
      const response = await send(post(route, { model: 'gpt-test', stream: contentType !== 'application/json' }), {
        provider: name,
        baseURL: name === 'anthropic' ? provider.url : `${provider.url}/v1`,
        onUsage,
      })
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(new Uint8Array(fixture(file)))
      await expect.poll(() => usages).toEqual([{ inputTokens, outputTokens, model: 'gpt-test' }])
    })

    it('asks an OpenAI chat stream for its usage, keeping the stream options the page sent', async () => {
      await send(post('/x/chat/completions', { model: 'gpt-test', stream: true, stream_options: { other: 1 } }), {
        onUsage,
      })
      expect(sentBody().stream_options).toEqual({ other: 1, include_usage: true })
    })

    it('reads the tokens of an embeddings answer', async () => {
      provider.answer = (_, response) =>
        sendJson(response, 200, { data: [], usage: { prompt_tokens: 12, total_tokens: 12 } })
      const response = await send(post('/x/embeddings', { model: 'embed-test', input: ['a'] }), {
        endpoints: ['embeddings'],
        onUsage,
      })
      await response.text()
      await expect.poll(() => usages).toEqual([{ inputTokens: 12, outputTokens: 0, model: 'embed-test' }])
    })

    it('counts the output cap when the page leaves before the usage arrives', async () => {
      provider.answer = (_, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' })
        response.write('data: {"choices":[{"delta":{"content":"hi"}}]}\n\n')
      }
      const page = new AbortController()
      const response = await send(
        post('/x/chat/completions', { model: 'gpt-test', stream: true }, { signal: page.signal }),
        {
          maxTokens: 300,
          onUsage,
        },
      )
      const reader = response.body!.getReader()
      await reader.read()
      page.abort()
      await reader.cancel().catch(() => {})
      await expect.poll(() => usages).toHaveLength(1)
      expect(usages[0]).toMatchObject({ outputTokens: 300, model: 'gpt-test' })
      expect(usages[0]!.inputTokens).toBeGreaterThan(0)
    })

    it('counts the output cap when a whole stream never says its usage, whatever garbage it holds', async () => {
      provider.answer = (_, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' })
        response.write('data: {"usage":\n\ndata: [1,2]\n\ndata: {"usage":{"prompt_tokens":"many"}}\n\n')
        response.end(`data: {"pad":"${'x'.repeat(2_000_000)}","usage":{"prompt_tokens":1,"completion_tokens":1}}\n\n`)
      }
      const response = await send(post('/x/chat/completions', { model: 'gpt-test', stream: true }), {
        maxTokens: 250,
        onUsage,
      })
      await response.text()
      await expect.poll(() => usages).toHaveLength(1)
      expect(usages[0]).toMatchObject({ outputTokens: 250, model: 'gpt-test' })
    })

    it('is not called for an error answer', async () => {
      provider.answer = (_, response) => sendJson(response, 429, { error: { message: 'slow down' } })
      const response = await send(post('/x/chat/completions', { model: 'gpt-test' }), { onUsage })
      expect(response.status).toBe(429)
      await response.text()
      expect(usages).toEqual([])
    })
  })
})

describe('createModelProxy refuses to start', () => {
  it.each([
    [
      'an endpoint its provider lacks',
      { provider: 'anthropic', endpoints: ['embeddings'] },
      /anthropic provider has no endpoint "embeddings"/,
    ],
    ['an unknown endpoint', { endpoints: ['files'] }, /has no endpoint "files"/],
    ['no endpoint', { endpoints: [] }, /endpoints must list/],
    ['an empty system prompt', { system: ' ' }, /system must be a non-empty string/],
    ['tools that are not names', { tools: 'some' }, /tools must be 'any', 'none' or a list of tool names/],
    ['an onUsage that is not a function', { onUsage: 'log' }, /onUsage must be a function/],
  ])('with %s', (_, options, message) => {
    expect(() => proxyOf(options as Partial<ModelProxyOptions>)).toThrow(message)
  })
})
