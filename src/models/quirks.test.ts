import { describe, expect, it } from 'vitest'
import { ChatClient } from '../client'
import { aggregateChunks, userMessage, type ChatModel, type ChatResponse, type Prompt } from '../core'
import { collect } from '../core/testing/collect'
import { defineTool } from '../tools'
import { AnthropicChatModel } from './anthropic'
import type { ChatModelError } from './errors'
import { OpenAIChatModel } from './openai'
import { MAX_STREAMED_TOOL_CALLS } from './openai-stream'
import { fakeFetch, randomCuts, responseOf, seededRandom, written, writtenOf, type Recording } from './testing/fixtures'

const quirk = (file: string) => written('quirks', file)

// What servers other than our recorded ones send: one written fixture per quirk (see __fixtures__/quirks/README.md).

const CUTS_PER_FILE = 100
const prompt: Prompt = { messages: [userMessage('hi')], options: {} }

function modelFor(file: string, ...responses: Response[]): ChatModel {
  const { fetch } = fakeFetch(...responses)
  return file.startsWith('anthropic-')
    ? new AnthropicChatModel({ model: 'claude-sonnet-4-5', fetch })
    : new OpenAIChatModel({ model: 'm', fetch })
}

async function streamed(file: string, cuts: number[] = []): Promise<ChatResponse[]> {
  return collect(modelFor(file, responseOf(quirk(file), cuts)).stream(prompt))
}

async function outcome(file: string, recorded: Recording, cuts: number[]): Promise<ChatResponse[] | string> {
  try {
    return await collect(modelFor(file, responseOf(recorded, cuts)).stream(prompt))
  } catch (error) {
    return String(error)
  }
}

function reasoningOf(chunks: ChatResponse[]): string {
  return chunks.map((chunk) => chunk.results[0]!.output.reasoning ?? '').join('')
}

function textOf(chunks: ChatResponse[]): string {
  return chunks.map((chunk) => chunk.results[0]!.output.text).join('')
}

const weather = defineTool({
  name: 'weather',
  description: 'Weather in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } as const,
  execute: ({ city }) => `rain in ${city}`,
})

function openAIAnswer(text: string): Response {
  const chunk = { id: 'a', model: 'm', choices: [{ index: 0, delta: { content: text }, finish_reason: 'stop' }] }
  return responseOf({
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
    body: new TextEncoder().encode(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`),
  })
}

describe('every quirk fixture reads the same whole and cut at random bytes', () => {
  for (const file of writtenOf('quirks', '.sse')) {
    it(`${file}: ${CUTS_PER_FILE} random splits give what the whole body gives`, async () => {
      const recorded = quirk(file)
      const whole = await outcome(file, recorded, [])
      const next = seededRandom(file.length * 104729)
      for (let i = 0; i < CUTS_PER_FILE; i++) {
        expect(await outcome(file, recorded, randomCuts(next, recorded.body.length))).toEqual(whole)
      }
    })
  }
})

describe('OpenAI-compatible servers', () => {
  it('gives one whole call when the tool index starts at 1 (Claude behind LiteLLM)', async () => {
    const chunks = await streamed('litellm-claude-tool-index-1.sse')
    expect(textOf(chunks)).toBe('Let me check the weather.')
    expect(aggregateChunks(chunks).results[0]!.output.toolCalls).toEqual([
      { id: 'toolu_01A2b3C4d5E6f7G8h9', name: 'weather', arguments: '{"city": "Oslo"}' },
    ])
  })

  it('runs the streaming tool loop over a call whose index starts at 1', async () => {
    const file = 'litellm-claude-tool-index-1.sse'
    const model = modelFor(file, responseOf(quirk(file)), openAIAnswer('Rain in Oslo.'))
    const client = ChatClient.builder(model).defaultTools(weather).build()
    expect((await collect(client.prompt('Weather in Oslo?').stream().content())).join('')).toBe(
      'Let me check the weather.Rain in Oslo.',
    )
  })

  it('keeps a hostile tool index of 50,000,000 as one entry', async () => {
    const chunks = await streamed('hostile-tool-index-huge.sse')
    expect(chunks.at(-1)!.results[0]!.output.toolCalls).toEqual([
      { id: 'call_far', name: 'weather', arguments: '{"city":"Rome"}' },
    ])
  })

  it(`fails with invalid_response past ${MAX_STREAMED_TOOL_CALLS} tool calls in one response`, async () => {
    const fragments = Array.from({ length: MAX_STREAMED_TOOL_CALLS + 1 }, (_, index) => ({
      index: index * 1000,
      id: `c${index}`,
      function: { name: 'weather', arguments: '{}' },
    }))
    const body = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: fragments } }] })}\n\n`
    const model = modelFor('many.sse', responseOf({ status: 200, headers: {}, body: new TextEncoder().encode(body) }))
    await expect(collect(model.stream(prompt))).rejects.toMatchObject({
      name: 'ChatModelError',
      code: 'invalid_response',
      message: expect.stringContaining(`more than ${MAX_STREAMED_TOOL_CALLS} tool calls`) as string,
    })
  })

  it('reads content parts: text as a string and thinking as reasoning, streamed (Mistral magistral)', async () => {
    const chunks = await streamed('mistral-magistral-thinking-parts.sse')
    expect(chunks.every((chunk) => typeof chunk.results[0]!.output.text === 'string')).toBe(true)
    expect(textOf(chunks)).toBe('2 + 2 = 4.')
    expect(reasoningOf(chunks)).toBe('The user asks for 2+2. That is 4.')
  })

  it('reads content parts: text as a string and thinking as reasoning, called (Mistral magistral)', async () => {
    const file = 'mistral-magistral-thinking-parts.json'
    const response = await modelFor(file, responseOf(quirk(file))).call(prompt)
    expect(response.results[0]!.output).toEqual({
      role: 'assistant',
      text: '2 + 2 = 4.',
      toolCalls: [],
      reasoning: 'The user asks for 2+2. That is 4.',
    })
  })

  it('keeps the first non-empty id and model (Azure model router)', async () => {
    const chunks = await streamed('azure-router-empty-id-model.sse')
    expect(textOf(chunks)).toBe('Hello there')
    expect(chunks.at(-1)!.metadata).toMatchObject({ id: 'chatcmpl-CAzure9k2', model: 'gpt-5-nano-2025-08-07' })
    expect(chunks.at(-1)!.metadata.usage).toEqual({
      promptTokens: 9,
      completionTokens: 74,
      totalTokens: 83,
      reasoningTokens: 64,
      cacheReadTokens: 0,
    })
  })

  it('accepts a stream that closes after its finish reason without [DONE] (llama.cpp server)', async () => {
    const chunks = await streamed('llamacpp-reasoning-no-done.sse')
    expect(textOf(chunks)).toBe('Paris.')
    expect(reasoningOf(chunks)).toBe('Short question; answer briefly.')
    expect(chunks.at(-1)!.results[0]!.metadata.finishReason).toBe('stop')
  })

  it('streams reasoning_content as reasoning, with reasoning and cache tokens in usage (DeepSeek, CRLF)', async () => {
    const chunks = await streamed('deepseek-reasoning-content.sse')
    expect(textOf(chunks)).toBe('9.8 is larger.')
    expect(reasoningOf(chunks)).toBe('9.11 vs 9.8: compare tenths, 8 > 1.')
    expect(chunks.at(-1)!.metadata.usage).toEqual({
      promptTokens: 18,
      completionTokens: 40,
      totalTokens: 58,
      reasoningTokens: 34,
      cacheReadTokens: 0,
    })
  })

  it('counts reasoning tokens that xAI reports outside completion_tokens as completion tokens', async () => {
    const usage = (await streamed('xai-reasoning-tokens.sse')).at(-1)!.metadata.usage!
    expect(usage).toEqual({
      promptTokens: 14,
      completionTokens: 213,
      totalTokens: 227,
      reasoningTokens: 212,
      cacheReadTokens: 6,
    })
    expect(usage.promptTokens + usage.completionTokens).toBe(usage.totalTokens)
  })

  it('maps refusal deltas to content_filter with the refusal text in metadata (OpenAI)', async () => {
    const chunks = await streamed('openai-refusal.sse')
    expect(textOf(chunks)).toBe('')
    expect(chunks.at(-1)!.results[0]!.metadata).toEqual({
      finishReason: 'content_filter',
      refusal: "I'm sorry, I can't help with that.",
      providerFinishReason: 'stop',
    })
  })

  it('maps a called refusal to content_filter with the refusal text in metadata (OpenAI)', async () => {
    const body = {
      id: 'r',
      model: 'm',
      choices: [{ message: { content: null, refusal: 'No.' }, finish_reason: 'stop' }],
    }
    const response = await modelFor('refusal.json', Response.json(body)).call(prompt)
    expect(response.results[0]!.output.text).toBe('')
    expect(response.results[0]!.metadata).toEqual({
      finishReason: 'content_filter',
      refusal: 'No.',
      providerFinishReason: 'stop',
    })
  })

  it('reads the reasoning field (Ollama /v1)', async () => {
    const chunks = await streamed('ollama-v1-reasoning.sse')
    expect([textOf(chunks), reasoningOf(chunks)]).toEqual(['Hi!', 'User greets; reply kindly.'])
  })

  it('does not double reasoning sent as both reasoning and reasoning_details (OpenRouter)', async () => {
    const chunks = await streamed('openrouter-reasoning-details.sse')
    expect([textOf(chunks), reasoningOf(chunks)]).toEqual(['Done.', 'Think. '])
    expect(chunks.at(-1)!.metadata.usage).toMatchObject({ completionTokens: 10, reasoningTokens: 4 })
  })

  it('keeps the first id and name when later fragments send them empty (Qwen on DashScope)', async () => {
    const chunks = await streamed('dashscope-qwen-tool-fragments.sse')
    expect(chunks.at(-1)!.results[0]!.output.toolCalls).toEqual([
      { id: 'call_8f0a3c', name: 'weather', arguments: '{"city": "Tokyo"}' },
    ])
  })

  it('reads usage sent inside the choice (Moonshot Kimi)', async () => {
    const last = (await streamed('moonshot-usage-in-choice.sse')).at(-1)!
    expect(last.results[0]!.output.toolCalls).toEqual([
      { id: 'weather:0', name: 'weather', arguments: '{"city":"Seoul"}' },
    ])
    expect(last.metadata.usage).toEqual({
      promptTokens: 90,
      completionTokens: 18,
      totalTokens: 108,
      cacheReadTokens: 64,
    })
  })

  it('reads usage sent under x_groq (Groq)', async () => {
    const last = (await streamed('groq-usage-in-x-groq.sse')).at(-1)!
    expect(last.metadata.usage).toEqual({ promptTokens: 10, completionTokens: 2, totalTokens: 12 })
  })
})

describe('Anthropic streams', () => {
  it('fails with invalid_response when a second message_start is spliced in', async () => {
    const error = (await streamed('anthropic-second-message-start.sse').catch((e: unknown) => e)) as ChatModelError
    expect(error).toMatchObject({ name: 'ChatModelError', provider: 'anthropic', code: 'invalid_response' })
    expect(error.message).toMatch(/second message_start/)
  })

  it('maps stop_reason refusal to content_filter with the refusal text in metadata', async () => {
    const chunks = await streamed('anthropic-refusal.sse')
    expect(chunks.at(-1)!.results[0]!.metadata).toEqual({
      finishReason: 'content_filter',
      stopReason: 'refusal',
      refusal: "I can't help with that request.",
    })
  })

  it('maps a called stop_reason refusal to content_filter with the refusal text in metadata', async () => {
    const body = { id: 'msg', content: [{ type: 'text', text: 'I will not.' }], stop_reason: 'refusal' }
    const response = await modelFor('anthropic-refusal.json', Response.json(body)).call(prompt)
    expect(response.results[0]!.metadata).toEqual({
      finishReason: 'content_filter',
      stopReason: 'refusal',
      refusal: 'I will not.',
    })
  })

  it('streams thinking as reasoning and keeps signed and redacted blocks with the tool call', async () => {
    const response = aggregateChunks(await streamed('anthropic-thinking-redacted-tool-use.sse'))
    const output = response.results[0]!.output
    expect(output.text).toBe('')
    expect(output.reasoning).toBe('The user wants the weather in Oslo. I should call the weather tool.')
    expect(output.toolCalls).toEqual([{ id: 'toolu_01Weather', name: 'weather', arguments: '{"city": "Oslo"}' }])
    expect(output.metadata!['anthropicThinking']).toEqual([
      {
        type: 'thinking',
        thinking: output.reasoning,
        signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds',
      },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' },
    ])
    expect(response.metadata.usage).toEqual({
      promptTokens: 800,
      completionTokens: 88,
      totalTokens: 888,
      cacheReadTokens: 380,
      cacheWriteTokens: 0,
    })
  })

  it('sends the thinking blocks back unchanged in the next round of the tool loop', async () => {
    const file = 'anthropic-thinking-redacted-tool-use.sse'
    const answer = new TextEncoder().encode(
      [
        'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_2","model":"c","usage":{"input_tokens":5}}}',
        'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":"Rain."}}',
        'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}',
        'event: message_stop\ndata: {"type":"message_stop"}',
      ].join('\n\n') + '\n\n',
    )
    const { fetch, calls } = fakeFetch(
      responseOf(quirk(file)),
      responseOf({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: answer }),
    )
    const client = ChatClient.builder(new AnthropicChatModel({ model: 'c', fetch }))
      .defaultTools(weather)
      .build()
    expect((await collect(client.prompt('Weather in Oslo?').stream().content())).join('')).toBe('Rain.')
    const sent = calls[1]!.body['messages'] as Array<{ role: string; content: Array<Record<string, unknown>> }>
    expect(sent[1]!.content.map((block) => block['type'])).toEqual(['thinking', 'redacted_thinking', 'tool_use'])
    expect(sent[1]!.content[0]).toEqual({
      type: 'thinking',
      thinking: 'The user wants the weather in Oslo. I should call the weather tool.',
      signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds',
    })
    expect(sent[1]!.content[1]).toEqual({
      type: 'redacted_thinking',
      data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP',
    })
  })
})
