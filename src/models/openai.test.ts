import { afterEach, describe, expect, it } from 'vitest'
import {
  assistantMessage,
  systemMessage,
  toolResponseMessage,
  userMessage,
  type ChatResponse,
  type Prompt,
  aggregateChunks,
} from '../core'
import { collect } from '../core/testing/collect'
import { defineTool } from '../tools'
import { ChatModelError } from './errors'
import { OpenAIChatModel } from './openai'
import { fakeFetch, loopback, recording, replay, responseOf } from './testing/fixtures'

const prompt: Prompt = { messages: [userMessage('hi')], options: {} }
const KEY = 'sk-test-0123456789abcdefghij'
const servers: Array<{ close(): Promise<void> }> = []
afterEach(async () => Promise.all(servers.splice(0).map((server) => server.close())))

async function viaFetch(file: string, stream: boolean): Promise<ChatResponse | ChatResponse[]> {
  const { fetch } = fakeFetch(responseOf(recording(file)))
  const model = new OpenAIChatModel({ model: 'test-model', fetch, apiKey: KEY })
  return stream ? collect(model.stream(prompt)) : model.call(prompt)
}

async function viaServer(file: string, stream: boolean): Promise<ChatResponse | ChatResponse[]> {
  const server = await loopback(replay(recording(file), 97))
  servers.push(server)
  const model = new OpenAIChatModel({ baseURL: `${server.url}/v1`, model: 'test-model', apiKey: KEY })
  return stream ? collect(model.stream(prompt)) : model.call(prompt)
}

const transports = { 'a fake fetch': viaFetch, 'a loopback server': viaServer }

describe('OpenAIChatModel request', () => {
  it('maps a whole conversation, tools and options to the Chat Completions body', async () => {
    const { fetch, calls } = fakeFetch(responseOf(recording('openai/chat-json-schema.json')))
    const weather = defineTool({
      name: 'weather',
      description: 'Weather',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
      execute: () => '',
    })
    const model = new OpenAIChatModel({
      model: 'gpt-4o',
      apiKey: KEY,
      fetch,
      headers: { 'x-team': 'web' },
      defaultOptions: { temperature: 0.3, seed: 1 },
    })
    await model.call({
      messages: [
        systemMessage('Be brief.'),
        userMessage('Weather in Oslo and Rome?'),
        assistantMessage('', [
          { id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' },
          { id: 'c2', name: 'weather', arguments: '{"city":"Rome"}' },
        ]),
        toolResponseMessage([
          { id: 'c1', name: 'weather', responseData: 'rain' },
          { id: 'c2', name: 'weather', responseData: 'sun' },
        ]),
      ],
      options: {
        tools: [weather],
        toolChoice: { name: 'weather' },
        responseFormat: { type: 'json_schema', schema: { type: 'object' }, name: 'answer', strict: true },
        stopSequences: ['END'],
        maxTokens: 100,
        topP: 0.9,
        providerOptions: { openai: { parallel_tool_calls: false } },
      },
    })
    const [call] = calls
    expect(call!.url).toBe('https://api.openai.com/v1/chat/completions')
    expect(call!.headers).toMatchObject({
      authorization: `Bearer ${KEY}`,
      'content-type': 'application/json',
      'x-team': 'web',
    })
    expect(call!.body).toEqual({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Oslo and Rome?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
            { id: 'c2', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'rain' },
        { role: 'tool', tool_call_id: 'c2', content: 'sun' },
      ],
      temperature: 0.3,
      seed: 1,
      top_p: 0.9,
      max_tokens: 100,
      stop: ['END'],
      tools: [
        {
          type: 'function',
          function: {
            name: 'weather',
            description: 'Weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'weather' } },
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', schema: { type: 'object' }, strict: true },
      },
      parallel_tool_calls: false,
    })
  })

  it('asks a stream for usage and sends no key to a server that needs none', async () => {
    const { fetch, calls } = fakeFetch(responseOf(recording('openrouter/chat-stream-usage.sse')))
    await collect(
      new OpenAIChatModel({ baseURL: 'http://localhost:11434/v1/', model: 'llama3.2', fetch }).stream(prompt),
    )
    expect(calls[0]!.url).toBe('http://localhost:11434/v1/chat/completions')
    expect(calls[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } })
    expect(calls[0]!.headers['authorization']).toBeUndefined()
  })
})

for (const [transport, run] of Object.entries(transports)) {
  describe(`OpenAIChatModel responses through ${transport}`, () => {
    it('reads two parallel tool calls (openai)', async () => {
      const response = (await run('openai/chat-tool-calls-parallel.json', false)) as ChatResponse
      expect(response.results).toHaveLength(1)
      expect(response.results[0]!.output).toEqual({
        role: 'assistant',
        text: '',
        toolCalls: [
          {
            id: expect.stringMatching(/^call_/) as string,
            name: 'secret_retrieval_tool',
            arguments: '{"password": "mellon"}',
          },
          {
            id: expect.stringMatching(/^call_/) as string,
            name: 'secret_retrieval_tool',
            arguments: '{"password": "radiance"}',
          },
        ],
      })
      expect(response.results[0]!.metadata.finishReason).toBe('tool_calls')
      expect(response.metadata.model).toMatch(/^gpt-4o/)
      expect(response.metadata.usage!.totalTokens).toBe(
        response.metadata.usage!.promptTokens + response.metadata.usage!.completionTokens,
      )
    })

    it('reads structured output as text (openai json_schema)', async () => {
      const response = (await run('openai/chat-json-schema.json', false)) as ChatResponse
      expect(JSON.parse(response.results[0]!.output.text)).toBeTypeOf('object')
      expect(response.results[0]!.metadata.finishReason).toBe('stop')
    })

    it('gives a tool call with an empty id a stable one (gemini openai-compat)', async () => {
      const first = (await run('gemini-openai-compat/chat-tool-call-empty-id.json', false)) as ChatResponse
      const again = (await run('gemini-openai-compat/chat-tool-call-empty-id.json', false)) as ChatResponse
      const call = first.results[0]!.output.toolCalls[0]!
      expect(call.id).toMatch(/^call_[0-9a-z]+$/)
      expect(call.id).toBe(again.results[0]!.output.toolCalls[0]!.id)
      expect(call.name).not.toBe('')
    })

    it('reads ollama /v1 and openrouter tool calls with their own ids', async () => {
      const ollama = (await run('ollama/v1-chat-tool-call.json', false)) as ChatResponse
      expect(ollama.results[0]!.output.toolCalls[0]!.id).toBe('call_o2vnpxrw')
      expect(ollama.results[0]!.output.reasoning).toBeTypeOf('string')
      const openrouter = (await run('openrouter/chat-tool-call.json', false)) as ChatResponse
      expect(openrouter.results[0]!.output.toolCalls).toEqual([
        { id: '3sniiMddS', name: 'divide', arguments: '{"numerator": 123, "denominator": 456, "on_inf": "infinity"}' },
      ])
      expect(openrouter.metadata.usage).toEqual({ promptTokens: 134, completionTokens: 43, totalTokens: 177 })
    })

    it('streams a tool call that arrives with the role, in fragments (openai)', async () => {
      const chunks = (await run('openai/chat-stream-tool-call-role-with-tool.sse', true)) as ChatResponse[]
      expect(chunks).toHaveLength(1)
      expect(chunks[0]!.results[0]!.output.toolCalls).toEqual([
        { id: 'call_ZR5UUuTt3pf61kjwAJIYdVMj', name: 'get_capital', arguments: '{"country":"UK"}' },
      ])
      expect(chunks[0]!.metadata).toEqual({
        id: 'chatcmpl-Dx0XpqH8w09uBXwq1zFGYdETjtnEl',
        model: 'gpt-4o-mini-2024-07-18',
        usage: { promptTokens: 53, completionTokens: 15, totalTokens: 68, reasoningTokens: 0, cacheReadTokens: 0 },
      })
    })

    it('streams two parallel tool calls assembled per index, whole in one chunk (openai)', async () => {
      const chunks = (await run('openai/chat-stream-tool-calls-parallel.sse', true)) as ChatResponse[]
      expect(chunks.filter((chunk) => chunk.results[0]!.output.toolCalls.length > 0)).toHaveLength(1)
      expect(chunks.at(-1)!.results[0]!.output.toolCalls).toEqual([
        { id: 'call_M26z19sncd7b4LBgzKRRbaUE', name: 'secret_retrieval_tool', arguments: '{"password": "mellon"}' },
        { id: 'call_KPXe5NX7IcKkaBUhc6dto2QV', name: 'secret_retrieval_tool', arguments: '{"password": "radiance"}' },
      ])
      expect(chunks.at(-1)!.results[0]!.metadata.finishReason).toBe('tool_calls')
    })

    it('streams reasoning as deltas apart from the text, then a whole call with usage on the finish chunk (groq)', async () => {
      const chunks = (await run('groq/chat-stream-tool-call.sse', true)) as ChatResponse[]
      const last = chunks.at(-1)
      const reasoning = chunks.slice(0, -1).map((chunk) => chunk.results[0]!.output)
      expect(reasoning.every((output) => output.text === '' && output.toolCalls.length === 0)).toBe(true)
      expect(reasoning.map((output) => output.reasoning).join('')).toMatch(/^We need to call the function/)
      expect(last!.results[0]!.output).toEqual({
        role: 'assistant',
        text: '',
        toolCalls: [
          {
            id: 'fc_bfb39741-3748-4def-9886-a93fc9c64a90',
            name: 'get_something_by_name',
            arguments: '{"name":"example"}',
          },
        ],
      })
      expect(last!.metadata.usage).toEqual({
        promptTokens: 304,
        completionTokens: 49,
        totalTokens: 353,
        reasoningTokens: 23,
      })
    })

    it('streams text after keep-alive comments, usage on the last chunk (openrouter)', async () => {
      const chunks = (await run('openrouter/chat-stream-usage.sse', true)) as ChatResponse[]
      expect(chunks.map((chunk) => chunk.results[0]!.output.text)).toEqual(['test response', ''])
      expect(chunks.slice(0, -1).every((chunk) => chunk.metadata.usage === undefined)).toBe(true)
      expect(chunks.at(-1)!.metadata.usage).toEqual({
        promptTokens: 586,
        completionTokens: 3,
        totalTokens: 589,
        reasoningTokens: 0,
        cacheReadTokens: 0,
      })
      expect(chunks.at(-1)!.results[0]!.metadata.finishReason).toBe('stop')
    })

    it('reports usage once though it comes on every chunk, and ignores the trailing empty fragment (vllm)', async () => {
      const chunks = (await run('vllm/chat-stream-tool-call-continuous-usage.sse', true)) as ChatResponse[]
      expect(chunks).toHaveLength(1)
      expect(chunks[0]!.results[0]!.output.toolCalls).toEqual([
        {
          id: 'chatcmpl-tool-b3b307239370432d9910d4b79b4dbbaa',
          name: 'searchGoogle',
          arguments: '{"query": "latest news on ai"}',
        },
      ])
      expect(chunks[0]!.metadata.usage).toEqual({ promptTokens: 226, completionTokens: 20, totalTokens: 246 })
    })

    it('streams a call without index or type (mistral)', async () => {
      const chunks = (await run('mistral/chat-stream-tool-call.chunks.jsonl', true)) as ChatResponse[]
      expect(chunks.at(-1)!.results[0]!.output.toolCalls).toEqual([
        { id: 'gSIMJiOkT', name: 'weather', arguments: '{"location": "San Francisco"}' },
      ])
      expect(chunks.at(-1)!.metadata.usage).toEqual({ promptTokens: 124, completionTokens: 22, totalTokens: 146 })
    })

    it('fails with the in-band error of an HTTP 200 stream (groq event: error)', async () => {
      const failure = run('groq/chat-stream-tool-use-failed.sse', true)
      await expect(failure).rejects.toBeInstanceOf(ChatModelError)
      await expect(run('groq/chat-stream-tool-use-failed.sse', true)).rejects.toMatchObject({
        status: 400,
        code: 'tool_use_failed',
        retryable: false,
      })
    })

    it('fails with an error object sent next to normal choices (openrouter)', async () => {
      await expect(run('openrouter/chat-stream-error-mid-stream.sse', true)).rejects.toMatchObject({
        name: 'ChatModelError',
        message: expect.stringContaining('Token limit reached') as string,
      })
    })

    it('turns a 401 into a ChatModelError that says to check the key, without the key', async () => {
      const error = (await run('openai/error-401-invalid-api-key.json', true).catch(
        (e: unknown) => e,
      )) as ChatModelError
      expect(error).toMatchObject({
        name: 'ChatModelError',
        provider: 'openai',
        status: 401,
        code: 'invalid_api_key',
        retryable: false,
      })
      expect(error.message).toMatch(/Check the API key/)
      expect(`${error.message} ${JSON.stringify(error)} ${String(error)}`).not.toContain(KEY)
    })

    it('turns a 404 into advice about the model name', async () => {
      await expect(run('openai/error-404-model-not-found.json', false)).rejects.toMatchObject({
        status: 404,
        code: 'model_not_found',
        message: expect.stringMatching(/Check the model name 'test-model'/) as string,
      })
    })

    it('turns a 429 into a retryable error (openrouter)', async () => {
      await expect(run('openrouter/error-429-rate-limit.json', false)).rejects.toMatchObject({
        status: 429,
        retryable: true,
        message: expect.stringMatching(/Rate limited/) as string,
      })
    })
  })
}

describe('OpenAIChatModel streams aggregate to what a call returns', () => {
  it('gives the same tool calls for the parallel recording streamed and not', async () => {
    const streamed = aggregateChunks(
      (await viaFetch('openai/chat-stream-tool-calls-parallel.sse', true)) as ChatResponse[],
    )
    const called = (await viaFetch('openai/chat-tool-calls-parallel.json', false)) as ChatResponse
    expect(streamed.results[0]!.output.toolCalls.map((c) => c.arguments)).toEqual(
      called.results[0]!.output.toolCalls.map((c) => c.arguments),
    )
  })
})
