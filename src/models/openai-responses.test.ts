import { describe, expect, it } from 'vitest'
import { ObserverAdvisor } from '../advisors'
import { ChatClient } from '../client'
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
import { TraceCollector } from '../trace'
import type { ChatModelError } from './errors'
import { OpenAIResponsesChatModel } from './openai-responses'
import {
  fakeFetch,
  randomCuts,
  recording,
  recordingsOf,
  responseOf,
  seededRandom,
  written,
  writtenOf,
  type Recording,
} from './testing/fixtures'

const prompt: Prompt = { messages: [userMessage('hi')], options: {} }
const KEY = 'sk-test-responses-0123456789'
const fixture = (file: string, status = 200) => written('responses', file, status)

function model(...files: Array<string | [string, number]>) {
  const { fetch, calls } = fakeFetch(
    ...files.map((file) => responseOf(typeof file === 'string' ? fixture(file) : fixture(...file))),
  )
  return { model: new OpenAIResponsesChatModel({ model: 'gpt-5-mini', apiKey: KEY, fetch }), calls }
}

const weather = defineTool({
  name: 'weather',
  description: 'Weather in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } as const,
  execute: ({ city }) => `rain in ${city}`,
})

const REASONING =
  "**Checking the weather**\n\nThe user asks for Oslo's weather; I should call the tool.\n\n**Choosing arguments**\n\nThe city is Oslo."

describe('OpenAIResponsesChatModel request', () => {
  it('maps a conversation, tools and options to a Responses body at /responses', async () => {
    const { model: responses, calls } = model('text.sse')
    await collect(
      responses.stream({
        messages: [
          systemMessage('Be brief.'),
          userMessage('Weather in Oslo?'),
          assistantMessage('Checking.', [{ id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' }]),
          toolResponseMessage([{ id: 'call_1', name: 'weather', responseData: 'rain' }]),
        ],
        options: {
          tools: [weather],
          toolChoice: { name: 'weather' },
          maxTokens: 200,
          temperature: 0.2,
          responseFormat: { type: 'json_schema', schema: { type: 'object' }, name: 'answer', strict: true },
          providerOptions: { 'openai-responses': { reasoning: { effort: 'low', summary: 'auto' } } },
        },
      }),
    )
    expect(calls[0]!.url).toBe('https://api.openai.com/v1/responses')
    expect(calls[0]!.headers['authorization']).toBe(`Bearer ${KEY}`)
    expect(calls[0]!.body).toEqual({
      model: 'gpt-5-mini',
      stream: true,
      input: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Oslo?' },
        { role: 'assistant', content: 'Checking.' },
        { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'rain' },
      ],
      temperature: 0.2,
      max_output_tokens: 200,
      tools: [
        {
          type: 'function',
          name: 'weather',
          description: 'Weather in a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          strict: false,
        },
      ],
      tool_choice: { type: 'function', name: 'weather' },
      text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true } },
      reasoning: { effort: 'low', summary: 'auto' },
    })
  })
})

describe('OpenAIResponsesChatModel responses', () => {
  it('streams text deltas live, usage and the stop reason on the last chunk', async () => {
    const chunks = await collect(model('text.sse').model.stream(prompt))
    expect(chunks.map((chunk) => chunk.results[0]!.output.text)).toEqual(['Hello!', ' Grüße aus', ' Tokyo 東京.', ''])
    expect(chunks.at(-1)!.results[0]!.metadata).toEqual({ finishReason: 'stop' })
    expect(chunks.at(-1)!.metadata).toEqual({
      id: 'resp_68d1a0c3b5e08190a1b2c3d4e5f60718',
      model: 'gpt-4.1-mini-2025-04-14',
      usage: { promptTokens: 12, completionTokens: 9, totalTokens: 21, reasoningTokens: 0, cacheReadTokens: 0 },
    })
  })

  it('streams two parallel function calls whole, in one last chunk, with their call ids', async () => {
    const chunks = await collect(model('parallel-tool-calls.sse').model.stream(prompt))
    expect(chunks).toHaveLength(1)
    expect(chunks[0]!.results[0]!.output.toolCalls).toEqual([
      { id: 'call_Wq1pX2rS3tU4vV5w', name: 'weather', arguments: '{"city":"Oslo"}' },
      { id: 'call_Ab6cD7eF8gH9iJ0k', name: 'weather', arguments: '{"city":"Rome"}' },
    ])
    expect(chunks[0]!.results[0]!.metadata.finishReason).toBe('tool_calls')
  })

  it('streams reasoning summary parts as reasoning deltas and keeps the reasoning item for the next round', async () => {
    const chunks = await collect(model('reasoning-tool-call.sse').model.stream(prompt))
    const response = aggregateChunks(chunks)
    const output = response.results[0]!.output
    expect(output.text).toBe('')
    expect(output.reasoning).toBe(REASONING)
    expect(output.toolCalls).toEqual([{ id: 'call_Rk9sLmN0pQ1rS2tU', name: 'weather', arguments: '{"city":"Oslo"}' }])
    expect(output.metadata!['openaiResponsesItems']).toEqual([
      {
        type: 'reasoning',
        item: expect.objectContaining({
          id: 'rs_68d1a2ab12c08190d4e5f6a7b8c9d0e1',
          encrypted_content: expect.stringMatching(/^gAAAA/) as string,
        }) as unknown,
      },
      { type: 'function_call', id: 'fc_68d1a2b5e3f48190e5f6a7b8c9d0e1f2', callId: 'call_Rk9sLmN0pQ1rS2tU' },
    ])
    expect(response.metadata.usage).toEqual({
      promptTokens: 310,
      completionTokens: 212,
      totalTokens: 522,
      reasoningTokens: 192,
      cacheReadTokens: 128,
    })
  })

  it('reads the same answer from a call as from the stream', async () => {
    const called = await model('reasoning-tool-call.json').model.call(prompt)
    const streamed = aggregateChunks(await collect(model('reasoning-tool-call.sse').model.stream(prompt)))
    expect(called.results[0]!.output).toEqual(streamed.results[0]!.output)
    expect(called.results[0]!.metadata).toEqual(streamed.results[0]!.metadata)
    expect(called.metadata).toEqual(streamed.metadata)
  })

  it('maps an incomplete response cut by max_output_tokens to finishReason length', async () => {
    const chunks = await collect(model('incomplete.sse').model.stream(prompt))
    expect(chunks.map((chunk) => chunk.results[0]!.output.text).join('')).toBe('Once upon a')
    expect(chunks.at(-1)!.results[0]!.metadata.finishReason).toBe('length')
  })

  it('fails with a retryable ChatModelError on response.failed with a server error', async () => {
    await expect(collect(model('failed.sse').model.stream(prompt))).rejects.toMatchObject({
      name: 'ChatModelError',
      provider: 'openai-responses',
      code: 'server_error',
      retryable: true,
      message: expect.stringContaining('The server had an error') as string,
    })
  })

  it('fails with the error event sent inside the stream', async () => {
    await expect(collect(model('error-event.sse').model.stream(prompt))).rejects.toMatchObject({
      name: 'ChatModelError',
      code: 'rate_limit_exceeded',
      retryable: true,
    })
  })

  it('turns an HTTP 400 into a ChatModelError with the parameter problem, without the key', async () => {
    const error = (await model(['error-400-unsupported-parameter.json', 400])
      .model.call(prompt)
      .catch((e: unknown) => e)) as ChatModelError
    expect(error).toMatchObject({
      name: 'ChatModelError',
      status: 400,
      code: 'unsupported_parameter',
      retryable: false,
    })
    expect(error.message).toContain("'reasoning.effort' is not supported")
    expect(error.message).not.toContain(KEY)
  })

  it('fails as retryable when the stream ends before response.completed', async () => {
    const recorded = fixture('text.sse')
    const text = new TextDecoder().decode(recorded.body)
    const cut = {
      ...recorded,
      body: new TextEncoder().encode(text.slice(0, text.indexOf('event: response.completed'))),
    }
    const { fetch } = fakeFetch(responseOf(cut))
    await expect(collect(new OpenAIResponsesChatModel({ model: 'm', fetch }).stream(prompt))).rejects.toMatchObject({
      name: 'ChatModelError',
      retryable: true,
    })
  })

  const streams: Array<[string, () => Recording]> = [
    ...writtenOf('responses', '.sse').map((file): [string, () => Recording] => [file, () => fixture(file)]),
    ...recordingsOf(['openai-responses/'], '.sse').map((file): [string, () => Recording] => [
      file,
      () => recording(file),
    ]),
  ]
  for (const [file, load] of streams) {
    it(`${file}: 100 random byte cuts give what the whole body gives`, async () => {
      const recorded = load()
      const read = async (cuts: number[]): Promise<ChatResponse[] | string> => {
        const { fetch } = fakeFetch(responseOf(recorded, cuts))
        return collect(new OpenAIResponsesChatModel({ model: 'm', fetch }).stream(prompt)).catch(String)
      }
      const whole = await read([])
      const next = seededRandom(file.length * 31337)
      for (let i = 0; i < 100; i++) expect(await read(randomCuts(next, recorded.body.length))).toEqual(whole)
    })
  }
})

describe('OpenAIResponsesChatModel against recorded OpenAI streams', () => {
  const replayed = (...files: string[]) => {
    const { fetch, calls } = fakeFetch(...files.map((file) => responseOf(recording(file))))
    return { model: new OpenAIResponsesChatModel({ model: 'gpt-5', fetch }), calls }
  }

  it('streams a gpt-5 reasoning summary as reasoning deltas, its parts a paragraph apart, then the answer', async () => {
    const chunks = await collect(replayed('openai-responses/stream-reasoning-summary.sse').model.stream(prompt))
    const response = aggregateChunks(chunks)
    const output = response.results[0]!.output
    expect(output.text).toBe('3')
    expect(output.reasoning).toMatch(/^\*\*Exploring prime numbers\*\*\n\nI need to find prime numbers/)
    expect(output.reasoning!.split('\n\n**')).toHaveLength(3)
    expect(output.reasoning).toMatch(/finalizing my answer as "3\."$/)
    expect(chunks.filter((chunk) => chunk.results[0]!.output.reasoning).length).toBeGreaterThan(300)
    expect(response.metadata.usage).toEqual({
      promptTokens: 32,
      completionTokens: 839,
      totalTokens: 871,
      reasoningTokens: 832,
      cacheReadTokens: 0,
    })
  })

  it('sends the recorded reasoning item and message back as the next request did', async () => {
    const { model: responses, calls } = replayed(
      'openai-responses/stream-reasoning-summary.sse',
      'openai-responses/stream-after-reasoning.sse',
    )
    const first = aggregateChunks(await collect(responses.stream(prompt)))
    await collect(
      responses.stream({ messages: [userMessage('hi'), first.results[0]!.output, userMessage('Which?')], options: {} }),
    )
    const input = calls[1]!.body['input'] as Array<Record<string, unknown>>
    expect(input.map((item) => item['type'] ?? item['role'])).toEqual(['user', 'reasoning', 'message', 'user'])
    expect(input[1]).toMatchObject({ type: 'reasoning', id: 'rs_0a1097cbfef27a8c00696afa2459008196a08a4261aba00f56' })
    expect(input[2]).toEqual({
      type: 'message',
      role: 'assistant',
      id: 'msg_0a1097cbfef27a8c00696afa33407081969902b1b1da52f678',
      status: 'completed',
      content: [{ type: 'output_text', text: '3', annotations: [] }],
    })
  })

  it('runs the tool loop over recorded parallel function calls and the recorded answer', async () => {
    const { model: responses, calls } = replayed(
      'openai-responses/stream-parallel-function-calls.sse',
      'openai-responses/stream-after-function-calls.sse',
    )
    const secrets: Record<string, string> = { mellon: 'Welcome to Moria!', radiance: 'Life before Death' }
    const secretTool = defineTool({
      name: 'secret_retrieval_tool',
      description: 'A tool that requires a password to retrieve a secret.',
      inputSchema: { type: 'object', properties: { password: { type: 'string' } }, required: ['password'] } as const,
      execute: ({ password }) => secrets[password] ?? 'no secret',
    })
    const client = ChatClient.builder(responses).defaultTools(secretTool).build()
    const answer = (await collect(client.prompt('Secrets for mellon and radiance?').stream().content())).join('')
    expect(answer).toContain('Welcome to Moria!')
    const input = calls[1]!.body['input'] as Array<Record<string, unknown>>
    expect(input.slice(1)).toEqual([
      {
        type: 'function_call',
        call_id: 'call_sKC7OABqf2A2PTLCm0CLeRWV',
        name: 'secret_retrieval_tool',
        arguments: '{"password":"mellon"}',
      },
      {
        type: 'function_call',
        call_id: 'call_OdR3s3xop0vtgkDyWRMLafuH',
        name: 'secret_retrieval_tool',
        arguments: '{"password":"radiance"}',
      },
      { type: 'function_call_output', call_id: 'call_sKC7OABqf2A2PTLCm0CLeRWV', output: 'Welcome to Moria!' },
      { type: 'function_call_output', call_id: 'call_OdR3s3xop0vtgkDyWRMLafuH', output: 'Life before Death' },
    ])
  })
})

describe('OpenAIResponsesChatModel in the tool loop', () => {
  it('runs the tool and sends the reasoning item, the call by its item id and the output back unchanged', async () => {
    const { model: responses, calls } = model('reasoning-tool-call.sse', 'text.sse')
    const trace = new TraceCollector()
    const client = ChatClient.builder(responses)
      .defaultTools(weather)
      .defaultAdvisors(new ObserverAdvisor({ sink: trace }))
      .build()
    expect((await collect(client.prompt('Weather in Oslo?').stream().content())).join('')).toBe(
      'Hello! Grüße aus Tokyo 東京.',
    )
    const input = calls[1]!.body['input'] as Array<Record<string, unknown>>
    expect(input.map((item) => item['type'] ?? item['role'])).toEqual([
      'user',
      'reasoning',
      'function_call',
      'function_call_output',
    ])
    expect(input[1]).toMatchObject({
      id: 'rs_68d1a2ab12c08190d4e5f6a7b8c9d0e1',
      encrypted_content: expect.stringMatching(/^gAAAA/) as string,
    })
    expect(input[2]).toEqual({
      type: 'function_call',
      id: 'fc_68d1a2b5e3f48190e5f6a7b8c9d0e1f2',
      call_id: 'call_Rk9sLmN0pQ1rS2tU',
      name: 'weather',
      arguments: '{"city":"Oslo"}',
    })
    expect(input[3]).toEqual({ type: 'function_call_output', call_id: 'call_Rk9sLmN0pQ1rS2tU', output: 'rain in Oslo' })
    const responsesTraced = trace.events.filter((event) => event.type === 'model-response')
    expect(responsesTraced[0]).toMatchObject({ reasoning: REASONING })
  })
})
