import { describe, expect, it } from 'vitest'
import {
  aggregateChunks,
  assistantMessageOf,
  filePart,
  imagePart,
  partsOf,
  userMessage,
  userMessageOf,
  type Prompt,
} from '../core'
import { collect } from '../core/testing/collect'
import { AnthropicChatModel } from './anthropic'
import { toAnthropicRequest, fromAnthropicMessage, THINKING_BLOCKS } from './anthropic-mapping'
import type { ChatModelError } from './errors'
import { OpenAIChatModel } from './openai'
import { toOpenAIRequest } from './openai-request'
import { OpenAIResponsesChatModel } from './openai-responses'
import { fromResponsesBody, toResponsesRequest } from './openai-responses-mapping'
import { fakeFetch, recording, responseOf } from './testing/fixtures'

// Request shapes as the providers document them: OpenAI "Images and vision" and "File inputs",
// Anthropic "Vision" and "PDF support" (plus plain-text documents), the Responses API's input items.

const PNG = 'data:image/png;base64,iVBORw0KGgo='
const PDF = 'data:application/pdf;base64,JVBERi0xLjcK'
const TEXT = 'data:text/plain;base64,' + btoa('line one\nline two')
const context = { provider: 'test', label: 'Test', model: 'm' }

const withAttachments = userMessageOf([
  { type: 'text', text: 'What is in these?' },
  imagePart(PNG),
  imagePart('https://example.com/cat.jpg'),
  filePart(PDF, { name: 'report.pdf' }),
  filePart(TEXT, { name: 'notes.txt' }),
])

const sseOf = (events: Array<Record<string, unknown>>) =>
  responseOf({
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
    body: new TextEncoder().encode(events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('')),
  })

describe('OpenAI Chat Completions parts', () => {
  it('sends text, image_url, file and a text file as content parts', () => {
    const body = toOpenAIRequest('gpt-4o', [withAttachments, userMessage('plain')], {}, false)
    expect(body['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in these?' },
          { type: 'image_url', image_url: { url: PNG } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          { type: 'file', file: { filename: 'report.pdf', file_data: PDF } },
          { type: 'text', text: 'notes.txt:\nline one\nline two' },
        ],
      },
      { role: 'user', content: 'plain' },
    ])
  })

  it('reads a Blob into a data URL in the request body', async () => {
    const { fetch, calls } = fakeFetch(responseOf(recording('openai/chat-json-schema.json')))
    const blob = new Blob([new Uint8Array([137, 80, 78, 71])], { type: 'image/png' })
    const model = new OpenAIChatModel({ model: 'gpt-4o', fetch })
    await model.call({ messages: [userMessageOf([{ type: 'text', text: 'Hi' }, imagePart(blob)])], options: {} })
    const content = (calls[0]!.body['messages'] as Array<{ content: unknown }>)[0]!.content
    expect(content).toEqual([
      { type: 'text', text: 'Hi' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw==' } },
    ])
  })

  it('refuses an unsupported image type before any request, naming the model and the part', async () => {
    const { fetch, calls } = fakeFetch()
    const model = new OpenAIChatModel({ model: 'gpt-4o-mini', fetch })
    const bmp = new File([new Uint8Array(10)], 'scan.bmp', { type: 'image/bmp' })
    const prompt: Prompt = { messages: [userMessage('a'), userMessageOf([imagePart(bmp)])], options: {} }
    const error = (await model.call(prompt).catch((failure: unknown) => failure)) as ChatModelError
    expect(error.message).toBe(
      "OpenAI model 'gpt-4o-mini' cannot take the image 'scan.bmp' (message 2, part 1): image/bmp is not an image type it takes (PNG, JPEG, WEBP, GIF). Convert the image first.",
    )
    expect(error.code).toBe('unsupported_attachment')
    expect(error.retryable).toBe(false)
    await expect(collect(model.stream(prompt))).rejects.toThrow(/image\/bmp/)
    expect(calls).toHaveLength(0)
  })
})

describe('Anthropic parts', () => {
  it('sends images and documents as base64 or URL sources, a text file as a text document', () => {
    const body = toAnthropicRequest('claude', 100, [withAttachments], {}, false)
    expect(body['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in these?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
          {
            type: 'document',
            source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjcK' },
            title: 'report.pdf',
          },
          {
            type: 'document',
            source: { type: 'text', media_type: 'text/plain', data: 'notes.txt:\nline one\nline two' },
            title: 'notes.txt',
          },
        ],
      },
    ])
  })

  it('reads text and tool_use blocks in their order as parts, and sends them back in that order', () => {
    const response = fromAnthropicMessage(
      {
        id: 'msg_1',
        model: 'claude',
        stop_reason: 'tool_use',
        content: [
          { type: 'thinking', thinking: 'Two cities.', signature: 'sig-1' },
          { type: 'text', text: 'Oslo first. ' },
          { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Oslo' } },
          { type: 'text', text: 'Now Rome.' },
          { type: 'tool_use', id: 'toolu_2', name: 'weather', input: { city: 'Rome' } },
        ],
      },
      context,
    )
    const output = response.results[0]!.output
    expect(output.text).toBe('Oslo first. Now Rome.')
    expect(partsOf(output).map((part) => part.type)).toEqual(['reasoning', 'text', 'tool-call', 'text', 'tool-call'])
    const body = toAnthropicRequest('claude', 100, [userMessage('Weather?'), output], {}, false)
    expect((body['messages'] as Array<{ content: unknown }>)[1]!.content).toEqual([
      { type: 'thinking', thinking: 'Two cities.', signature: 'sig-1' },
      { type: 'text', text: 'Oslo first. ' },
      { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Oslo' } },
      { type: 'text', text: 'Now Rome.' },
      { type: 'tool_use', id: 'toolu_2', name: 'weather', input: { city: 'Rome' } },
    ])
  })

  it('keeps the interleaved order of a stream in the last chunk, so the aggregate has it', async () => {
    const events = [
      { type: 'message_start', message: { id: 'msg_2', model: 'claude', usage: { input_tokens: 5 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Oslo: ' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'weather' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"Oslo"}' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'then Rome.' } },
      { type: 'content_block_stop', index: 2 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
      { type: 'message_stop' },
    ]
    const { fetch } = fakeFetch(sseOf(events))
    const chunks = await collect(
      new AnthropicChatModel({ model: 'claude', fetch }).stream({ messages: [userMessage('?')], options: {} }),
    )
    const output = aggregateChunks(chunks).results[0]!.output
    expect(output.text).toBe('Oslo: then Rome.')
    expect(output.parts).toEqual([
      { type: 'text', text: 'Oslo: ' },
      { type: 'tool-call', id: 'toolu_1', name: 'weather', arguments: '{"city":"Oslo"}' },
      { type: 'text', text: 'then Rome.' },
    ])
  })

  it('refuses an image over its 5 MB limit before any request', async () => {
    const { fetch, calls } = fakeFetch()
    const big = new Blob([new Uint8Array(6 * 1024 * 1024)], { type: 'image/png' })
    const model = new AnthropicChatModel({ model: 'claude-sonnet-4-5', fetch })
    await expect(
      model.call({ messages: [userMessageOf([imagePart(big, { name: 'big.png' })])], options: {} }),
    ).rejects.toThrow(
      "Anthropic model 'claude-sonnet-4-5' cannot take the image 'big.png' (message 1, part 1): 6 MB is over its limit of 5 MB per image. Make the image smaller first.",
    )
    expect(calls).toHaveLength(0)
  })

  it('sends thinking blocks of a message without parts first, as before', () => {
    const message = {
      ...assistantMessageOf([
        { type: 'text', text: 'Checking.' },
        { type: 'tool-call', id: 't1', name: 'a', arguments: '{}' },
      ]),
      metadata: { [THINKING_BLOCKS]: [{ type: 'redacted_thinking', data: 'xyz' }] },
    }
    const body = toAnthropicRequest('claude', 100, [userMessage('go'), message], {}, false)
    expect((body['messages'] as Array<{ content: Array<{ type: string }> }>)[1]!.content.map((b) => b.type)).toEqual([
      'redacted_thinking',
      'text',
      'tool_use',
    ])
  })
})

describe('OpenAI Responses parts', () => {
  it('sends input_text, input_image and input_file items', () => {
    const body = toResponsesRequest('gpt-5', [withAttachments], {}, false)
    expect(body['input']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'What is in these?' },
          { type: 'input_image', image_url: PNG },
          { type: 'input_image', image_url: 'https://example.com/cat.jpg' },
          { type: 'input_file', filename: 'report.pdf', file_data: PDF },
          { type: 'input_text', text: 'notes.txt:\nline one\nline two' },
        ],
      },
    ])
  })

  it('reads reasoning items between function calls as parts in order', () => {
    const response = fromResponsesBody(
      {
        id: 'resp_1',
        status: 'completed',
        output: [
          { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Oslo first.' }] },
          { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
          { type: 'reasoning', id: 'rs_2', summary: [{ type: 'summary_text', text: 'Then Rome.' }] },
          { type: 'function_call', id: 'fc_2', call_id: 'call_2', name: 'weather', arguments: '{"city":"Rome"}' },
        ],
      },
      context,
    )
    const output = response.results[0]!.output
    expect(output.reasoning).toBe('Oslo first.\n\nThen Rome.')
    expect(output.parts).toEqual([
      { type: 'reasoning', text: 'Oslo first.' },
      { type: 'tool-call', id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
      { type: 'reasoning', text: '\n\nThen Rome.' },
      { type: 'tool-call', id: 'call_2', name: 'weather', arguments: '{"city":"Rome"}' },
    ])
    expect(partsOf(output)).toEqual(output.parts)
  })

  it('sends text between calls in order when a message has parts but no recorded items', () => {
    const message = assistantMessageOf([
      { type: 'tool-call', id: 'c1', name: 'a', arguments: '{}' },
      { type: 'text', text: 'between' },
      { type: 'tool-call', id: 'c2', name: 'b', arguments: '{}' },
    ])
    const body = toResponsesRequest('gpt-5', [message], {}, false)
    expect((body['input'] as Array<Record<string, unknown>>).map((item) => item['type'] ?? item['role'])).toEqual([
      'function_call',
      'assistant',
      'function_call',
    ])
  })

  it('refuses a file type it does not take before any request', async () => {
    const { fetch, calls } = fakeFetch()
    const model = new OpenAIResponsesChatModel({ model: 'gpt-5-mini', fetch })
    const sheet = filePart('data:application/vnd.ms-excel;base64,AAAA', { name: 'q3.xls' })
    await expect(model.call({ messages: [userMessageOf([sheet])], options: {} })).rejects.toThrow(
      "OpenAI model 'gpt-5-mini' cannot take the file 'q3.xls' (message 1, part 1): application/vnd.ms-excel is not a file type it takes (PDF, PLAIN).",
    )
    expect(calls).toHaveLength(0)
  })
})

describe('tool-call progress on a stream (toolCallDeltas)', () => {
  const models = {
    'openai/chat-stream-tool-calls-parallel.sse': (fetch: typeof globalThis.fetch) =>
      new OpenAIChatModel({ model: 'gpt-4o', fetch }),
    'anthropic/messages-stream-tool-use-parallel.sse': (fetch: typeof globalThis.fetch) =>
      new AnthropicChatModel({ model: 'claude', fetch }),
    'openai-responses/stream-parallel-function-calls.sse': (fetch: typeof globalThis.fetch) =>
      new OpenAIResponsesChatModel({ model: 'gpt-5', fetch }),
  }

  for (const [file, create] of Object.entries(models)) {
    it(`${file}: each call starts, its fragments add up to the whole call at the end`, async () => {
      const { fetch } = fakeFetch(responseOf(recording(file)), responseOf(recording(file)))
      const model = create(fetch)
      const prompt: Prompt = { messages: [userMessage('?')], options: { toolCallDeltas: true } }
      const chunks = await collect(model.stream(prompt))
      const progress = chunks.flatMap((chunk) => chunk.results[0]!.output.toolCallDeltas ?? [])
      const whole = aggregateChunks(chunks).results[0]!.output.toolCalls
      expect(whole.length).toBeGreaterThan(1)
      whole.forEach((call, index) => {
        const own = progress.filter((delta) => delta.index === index)
        expect(own[0]).toMatchObject({ id: call.id, name: call.name })
        expect(own.every((delta) => delta.id === call.id)).toBe(true)
        expect(own.map((delta) => delta.argumentsDelta).join('')).toBe(call.arguments)
      })
      // The whole calls come after all their progress, in the last chunk.
      expect(chunks.findIndex((chunk) => chunk.results[0]!.output.toolCalls.length > 0)).toBe(chunks.length - 1)
      const plain = await collect(model.stream({ ...prompt, options: {} }))
      expect(plain.some((chunk) => chunk.results[0]!.output.toolCallDeltas)).toBe(false)
    })
  }
})
