import { describe, expect, it } from 'vitest'
import { aggregateChunks, userMessage, type ChatResponse, type Prompt } from '../core'
import { collect } from '../core/testing/collect'
import { OpenAIResponsesChatModel } from './openai-responses'
import { fakeFetch, responseOf } from './testing/fixtures'

// A Responses stream may bring text, reasoning, a refusal or a call's arguments only in a 'done'
// event (or only in the finished response): the stream gives the caller what call() gives.

const prompt: Prompt = { messages: [userMessage('hi')], options: {} }

const message = (text: string) => ({
  type: 'message',
  id: 'msg_1',
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text, annotations: [] }],
})
const reasoning = (summary: string[]) => ({
  type: 'reasoning',
  id: 'rs_1',
  summary: summary.map((text) => ({ type: 'summary_text', text })),
})
const call = { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' }

function response(output: unknown[], status = 'completed') {
  return {
    id: 'resp_1',
    model: 'gpt-5-mini',
    status,
    output,
    usage: { input_tokens: 5, output_tokens: 7, total_tokens: 12 },
  }
}

function serve(body: string | unknown[]) {
  const bytes =
    typeof body === 'string'
      ? new TextEncoder().encode(body)
      : new TextEncoder().encode(body.map((event) => `data: ${JSON.stringify(event)}\n\n`).join(''))
  return new OpenAIResponsesChatModel({
    model: 'gpt-5-mini',
    fetch: fakeFetch(responseOf({ status: 200, headers: {}, body: bytes })).fetch,
  })
}

/** What the caller sees of an answer: the message and how it ended, from one response. */
function seen(answer: ChatResponse) {
  const { output, metadata } = answer.results[0]!
  return { text: output.text, reasoning: output.reasoning, toolCalls: output.toolCalls, metadata }
}

async function streamedAndCalled(events: unknown[], whole: unknown) {
  const streamed = seen(aggregateChunks(await collect(serve(events).stream(prompt))))
  const called = seen(await serve(JSON.stringify(whole)).call(prompt))
  return { streamed, called }
}

const created = { type: 'response.created', response: response([], 'in_progress') }
/** The end of a stream whose finished response lists no output: only the events before it can bring any. */
const completedEmpty = { type: 'response.completed', response: response([]) }

describe('a Responses stream gives what call() gives when words come only in done events', () => {
  it('text that comes only in response.output_item.done', async () => {
    const { streamed, called } = await streamedAndCalled(
      [
        created,
        { type: 'response.output_item.added', output_index: 0, item: { ...message(''), content: [] } },
        { type: 'response.output_item.done', output_index: 0, item: message('Rain in Oslo.') },
        completedEmpty,
      ],
      response([message('Rain in Oslo.')]),
    )
    expect(called.text).toBe('Rain in Oslo.')
    expect(streamed).toEqual(called)
  })

  it('text that comes only in response.output_text.done', async () => {
    const { streamed, called } = await streamedAndCalled(
      [
        created,
        { type: 'response.output_item.added', output_index: 0, item: { ...message(''), content: [] } },
        { type: 'response.output_text.done', output_index: 0, content_index: 0, item_id: 'msg_1', text: 'Rain.' },
        completedEmpty,
      ],
      response([message('Rain.')]),
    )
    expect(streamed.text).toBe('Rain.')
    expect(streamed).toEqual(called)
  })

  it('text that comes only in response.content_part.done', async () => {
    const part = { type: 'output_text', text: 'Rain.', annotations: [] }
    const { streamed, called } = await streamedAndCalled(
      [
        created,
        { type: 'response.output_item.added', output_index: 0, item: { ...message(''), content: [] } },
        { type: 'response.content_part.done', output_index: 0, content_index: 0, item_id: 'msg_1', part },
        completedEmpty,
      ],
      response([message('Rain.')]),
    )
    expect(streamed.text).toBe('Rain.')
    expect(streamed).toEqual(called)
  })

  it('text, reasoning and a call that come only in the finished response', async () => {
    const output = [reasoning(['Check the weather.']), call, message('Calling.')]
    const { streamed, called } = await streamedAndCalled(
      [created, { type: 'response.completed', response: response(output) }],
      response(output),
    )
    expect(called.toolCalls).toEqual([{ id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' }])
    expect(streamed).toEqual(called)
  })

  it('reasoning that comes only in response.reasoning_summary_text.done and .part.done', async () => {
    const { streamed, called } = await streamedAndCalled(
      [
        created,
        { type: 'response.output_item.added', output_index: 0, item: reasoning([]) },
        {
          type: 'response.reasoning_summary_text.done',
          output_index: 0,
          item_id: 'rs_1',
          summary_index: 0,
          text: 'First.',
        },
        {
          type: 'response.reasoning_summary_part.done',
          output_index: 0,
          item_id: 'rs_1',
          summary_index: 1,
          part: { type: 'summary_text', text: 'Second.' },
        },
        { type: 'response.output_item.added', output_index: 1, item: { ...message(''), content: [] } },
        { type: 'response.output_item.done', output_index: 1, item: message('Done.') },
        completedEmpty,
      ],
      response([reasoning(['First.', 'Second.']), message('Done.')]),
    )
    expect(streamed.reasoning).toBe('First.\n\nSecond.')
    expect(streamed).toEqual(called)
  })

  it("a call's arguments that come only in response.function_call_arguments.done", async () => {
    const { streamed, called } = await streamedAndCalled(
      [
        created,
        { type: 'response.output_item.added', output_index: 0, item: { ...call, arguments: '' } },
        {
          type: 'response.function_call_arguments.done',
          output_index: 0,
          item_id: 'fc_1',
          arguments: '{"city":"Oslo"}',
        },
        completedEmpty,
      ],
      response([call]),
    )
    expect(streamed.toolCalls).toEqual([{ id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' }])
    expect(streamed).toEqual(called)
  })

  it('a refusal that comes only in response.refusal.done', async () => {
    const refused = { ...message(''), content: [{ type: 'refusal', refusal: 'I cannot help with that.' }] }
    const { streamed, called } = await streamedAndCalled(
      [
        created,
        { type: 'response.output_item.added', output_index: 0, item: { ...message(''), content: [] } },
        {
          type: 'response.refusal.done',
          output_index: 0,
          content_index: 0,
          item_id: 'msg_1',
          refusal: 'I cannot help with that.',
        },
        completedEmpty,
      ],
      response([refused]),
    )
    expect(streamed.metadata).toEqual({ finishReason: 'content_filter', refusal: 'I cannot help with that.' })
    expect(streamed).toEqual(called)
  })

  it('text that comes as deltas and again whole in the done events is given once', async () => {
    const { streamed, called } = await streamedAndCalled(
      [
        created,
        { type: 'response.output_item.added', output_index: 0, item: { ...message(''), content: [] } },
        { type: 'response.output_text.delta', output_index: 0, content_index: 0, item_id: 'msg_1', delta: 'Rain ' },
        { type: 'response.output_text.delta', output_index: 0, content_index: 0, item_id: 'msg_1', delta: 'in Oslo.' },
        {
          type: 'response.output_text.done',
          output_index: 0,
          content_index: 0,
          item_id: 'msg_1',
          text: 'Rain in Oslo.',
        },
        { type: 'response.output_item.done', output_index: 0, item: message('Rain in Oslo.') },
        { type: 'response.completed', response: response([message('Rain in Oslo.')]) },
      ],
      response([message('Rain in Oslo.')]),
    )
    expect(streamed.text).toBe('Rain in Oslo.')
    expect(streamed).toEqual(called)
  })
})
