import { afterEach, describe, expect, it } from 'vitest'
import {
  aggregateChunks,
  assistantMessage,
  systemMessage,
  toolResponseMessage,
  userMessage,
  type ChatResponse,
  type Prompt,
} from '../core'
import { collect } from '../core/testing/collect'
import { defineTool } from '../tools'
import { AnthropicChatModel } from './anthropic'
import type { ChatModelError } from './errors'
import { fakeFetch, loopback, recording, replay, responseOf } from './testing/fixtures'

const prompt: Prompt = { messages: [userMessage('hi')], options: {} }
const KEY = 'sk-ant-test-0123456789abcdefgh'
const servers: Array<{ close(): Promise<void> }> = []
afterEach(async () => Promise.all(servers.splice(0).map((server) => server.close())))

const transports = {
  'a fake fetch': async (file: string, stream: boolean) => {
    const { fetch } = fakeFetch(responseOf(recording(file)))
    const model = new AnthropicChatModel({ model: 'claude-test', apiKey: KEY, fetch })
    return stream ? collect(model.stream(prompt)) : model.call(prompt)
  },
  'a loopback server': async (file: string, stream: boolean) => {
    const server = await loopback(replay(recording(file), 61))
    servers.push(server)
    const model = new AnthropicChatModel({ baseURL: server.url, model: 'claude-test', apiKey: KEY })
    return stream ? collect(model.stream(prompt)) : model.call(prompt)
  },
}

describe('AnthropicChatModel request', () => {
  it('maps system, tool use and tool results (grouped in one user turn) to the Messages body', async () => {
    const { fetch, calls } = fakeFetch(responseOf(recording('anthropic/messages-tool-use-parallel.json')))
    const weather = defineTool({
      name: 'weather',
      description: 'Weather',
      inputSchema: { type: 'object' },
      execute: () => '',
    })
    await new AnthropicChatModel({ model: 'claude-sonnet-4-5', apiKey: KEY, fetch, maxTokens: 256 }).call({
      messages: [
        systemMessage('Be brief.'),
        userMessage('Weather in Oslo and Rome?'),
        assistantMessage('Checking.', [
          { id: 't1', name: 'weather', arguments: '{"city":"Oslo"}' },
          { id: 't2', name: 'weather', arguments: '' },
        ]),
        toolResponseMessage([
          { id: 't1', name: 'weather', responseData: 'rain' },
          { id: 't2', name: 'weather', responseData: 'Error: tool failed' },
        ]),
        userMessage('And Paris?'),
      ],
      options: { tools: [weather], toolChoice: 'required', temperature: 0, stopSequences: ['END'] },
    })
    const [call] = calls
    expect(call!.url).toBe('https://api.anthropic.com/v1/messages')
    expect(call!.headers).toMatchObject({
      'x-api-key': KEY,
      'anthropic-version': '2023-06-01',
      'anthropic-dangerous-direct-browser-access': 'true',
    })
    expect(call!.body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 256,
      system: 'Be brief.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo and Rome?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 't1', name: 'weather', input: { city: 'Oslo' } },
            { type: 'tool_use', id: 't2', name: 'weather', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: 'rain' },
            { type: 'tool_result', tool_use_id: 't2', content: 'Error: tool failed', is_error: true },
            { type: 'text', text: 'And Paris?' },
          ],
        },
      ],
      temperature: 0,
      stop_sequences: ['END'],
      tools: [{ name: 'weather', description: 'Weather', input_schema: { type: 'object' } }],
      tool_choice: { type: 'any' },
    })
  })

  it('sends the signed and redacted thinking blocks back unchanged, before the tool calls they led to', async () => {
    const { fetch, calls } = fakeFetch(responseOf(recording('anthropic/messages-tool-use-parallel.json')))
    const blocks = [
      { type: 'thinking', thinking: 'hmm', signature: 'sig' },
      { type: 'redacted_thinking', data: 'opaque' },
    ]
    const thought = {
      ...assistantMessage('', [{ id: 't1', name: 'x', arguments: '{}' }]),
      reasoning: 'hmm',
      metadata: { anthropicThinking: blocks },
    }
    await new AnthropicChatModel({ model: 'c', fetch }).call({
      messages: [userMessage('q'), thought, toolResponseMessage([{ id: 't1', name: 'x', responseData: 'ok' }])],
      options: {},
    })
    expect((calls[0]!.body['messages'] as Array<{ content: unknown[] }>)[1]!.content).toEqual([
      ...blocks,
      { type: 'tool_use', id: 't1', name: 'x', input: {} },
    ])
  })
})

for (const [transport, run] of Object.entries(transports)) {
  describe(`AnthropicChatModel responses through ${transport}`, () => {
    it('reads text and two tool_use blocks with parsed input', async () => {
      const response = (await run('anthropic/messages-tool-use-parallel.json', false)) as ChatResponse
      expect(response.results[0]!.output).toEqual({
        role: 'assistant',
        text: "I'll retrieve the secrets for both passwords you provided.",
        toolCalls: [
          { id: 'toolu_01BUvqBj8Yb34pNAbCJJY1oc', name: 'secret_retrieval_tool', arguments: '{"password":"mellon"}' },
          { id: 'toolu_01VPuQJ1LonDBYXrr8pqPkqQ', name: 'secret_retrieval_tool', arguments: '{"password":"radiance"}' },
        ],
      })
      expect(response.results[0]!.metadata).toEqual({ finishReason: 'tool_calls', stopReason: 'tool_use' })
      expect(response.metadata).toEqual({
        id: 'msg_018DaxGuCtuQ42XfuFiC1wxo',
        model: 'claude-sonnet-4-20250514',
        usage: { promptTokens: 416, completionTokens: 109, totalTokens: 525, cacheReadTokens: 0, cacheWriteTokens: 0 },
      })
    })

    it('streams text live and the parallel tool calls whole at the end, from input_json_delta fragments', async () => {
      const chunks = (await run('anthropic/messages-stream-tool-use-parallel.sse', true)) as ChatResponse[]
      expect(chunks.map((chunk) => chunk.results[0]!.output.text).join('')).toBe(
        "I'll retrieve the secrets for both passwords you provided.",
      )
      expect(chunks.filter((chunk) => chunk.results[0]!.output.toolCalls.length > 0)).toHaveLength(1)
      expect(chunks.at(-1)!.results[0]!.output.toolCalls).toEqual([
        { id: 'toolu_015cUijgET79LXjgeYQerN2h', name: 'secret_retrieval_tool', arguments: '{"password": "mellon"}' },
        { id: 'toolu_01XZTimPexA7h3EVKesnKt5T', name: 'secret_retrieval_tool', arguments: '{"password": "radiance"}' },
      ])
      expect(chunks.at(-1)!.metadata.usage).toEqual({
        promptTokens: 416,
        completionTokens: 109,
        totalTokens: 525,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      })
    })

    it('streams a tool_use that is the first block', async () => {
      const chunks = (await run('anthropic/messages-stream-tool-use-single.sse', true)) as ChatResponse[]
      expect(chunks).toHaveLength(1)
      expect(chunks[0]!.results[0]!.output.toolCalls).toEqual([
        { id: 'toolu_01GWMYVRPdJWuP8ywu1XZDW8', name: 'customAdditionImplementation', arguments: '{"a": 2, "b": 3}' },
      ])
      expect(chunks[0]!.results[0]!.metadata.finishReason).toBe('tool_calls')
    })

    it('streams thinking as reasoning deltas, never in the answer text, and keeps the signed block for the next round', async () => {
      const response = aggregateChunks((await run('anthropic/messages-stream-thinking.sse', true)) as ChatResponse[])
      const output = response.results[0]!.output
      expect(JSON.parse(output.text)).toEqual({ integer_a: 2, integer_b: 2, answer: 4 })
      expect(output.reasoning).toMatch(/^The user is asking me/)
      expect(output.text).not.toContain('The user is asking')
      expect(output.metadata!['anthropicThinking']).toEqual([
        { type: 'thinking', thinking: output.reasoning, signature: expect.stringMatching(/^Eo4E/) as string },
      ])
    })

    it('turns a 401 into advice to check the key, never showing it', async () => {
      const error = (await run('anthropic/error-401-authentication.json', true).catch(
        (e: unknown) => e,
      )) as ChatModelError
      expect(error).toMatchObject({
        name: 'ChatModelError',
        provider: 'anthropic',
        status: 401,
        code: 'authentication_error',
        retryable: false,
      })
      expect(error.requestId).toBe('req_011CWdMFGmmtqDd5uETFt98k')
      expect(`${error.message}${JSON.stringify(error)}`).not.toContain(KEY)
    })

    it('turns a 529 into a retryable overloaded error', async () => {
      await expect(run('anthropic/error-529-overloaded.synthetic.json', false)).rejects.toMatchObject({
        status: 529,
        code: 'overloaded_error',
        retryable: true,
        message: expect.stringMatching(/overloaded/) as string,
      })
    })
  })
}

describe('AnthropicChatModel stream faults', () => {
  it('fails with a retryable error on an in-band overloaded event', async () => {
    const body = new TextEncoder().encode(
      'event: message_start\ndata: {"type":"message_start","message":{"id":"m","model":"c","usage":{"input_tokens":1}}}\n\n' +
        'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n',
    )
    const { fetch } = fakeFetch(responseOf({ status: 200, headers: { 'content-type': 'text/event-stream' }, body }))
    await expect(collect(new AnthropicChatModel({ model: 'c', fetch }).stream(prompt))).rejects.toMatchObject({
      code: 'overloaded_error',
      retryable: true,
    })
  })

  it('fails when the stream ends before message_stop', async () => {
    const recorded = recording('anthropic/messages-stream-tool-use-single.sse')
    const cut = new TextDecoder().decode(recorded.body).indexOf('event: message_stop')
    const { fetch } = fakeFetch(responseOf({ ...recorded, body: recorded.body.slice(0, cut) }))
    await expect(collect(new AnthropicChatModel({ model: 'c', fetch }).stream(prompt))).rejects.toMatchObject({
      name: 'ChatModelError',
      message: expect.stringMatching(/cut before message_stop/) as string,
    })
  })
})
