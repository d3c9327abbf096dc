import { describe, expect, it } from 'vitest'
import { ObserverAdvisor } from '../advisors'
import { ChatClient } from '../client'
import type { ChatModel } from '../core'
import { collect } from '../core/testing/collect'
import { defineTool, ToolCallError } from '../tools'
import { TraceCollector } from '../trace'
import { AnthropicChatModel } from './anthropic'
import { OpenAIChatModel } from './openai'
import { OpenAIResponsesChatModel } from './openai-responses'
import { fakeFetch, responseOf } from './testing/fixtures'

// A tool call that the answer's end cut off (token limit, content filter, the provider's failure) is
// never run, whatever its arguments look like: the caller gets a ToolCallError that says what to do,
// and the trace shows the cut call as it came. Blank arguments of a finished call still mean {}.

type Adapter = 'chat' | 'anthropic' | 'responses'
type Mode = 'streamed' | 'whole'

/** What the model wrote of the call's arguments before the end: nothing after the name, or half of them. */
const WRITTEN = ['', '{"confirm": tr']

function sse(events: unknown[]): Response {
  const body = events.map((event) => `data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`).join('')
  return responseOf({
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
    body: new TextEncoder().encode(body),
  })
}

function json(body: unknown): Response {
  const bytes = new TextEncoder().encode(JSON.stringify(body))
  return responseOf({ status: 200, headers: { 'content-type': 'application/json' }, body: bytes })
}

/** A Chat Completions answer whose only content is a call to `wipe`, ending with `finishReason`. */
function chatAnswer(mode: Mode, finishReason: string, args: string): Response {
  const call = { index: 0, id: 'call_1', type: 'function', function: { name: 'wipe', arguments: '' } }
  if (mode === 'whole') {
    const message = {
      role: 'assistant',
      content: null,
      tool_calls: [{ ...call, function: { name: 'wipe', arguments: args } }],
    }
    return json({ id: 'c1', model: 'm', choices: [{ index: 0, message, finish_reason: finishReason }] })
  }
  const chunk = (delta: unknown, finish: string | null) => ({
    id: 'c1',
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
  })
  return sse([
    chunk({ role: 'assistant', tool_calls: [call] }, null),
    ...(args ? [chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }, null)] : []),
    chunk({}, finishReason),
    '[DONE]',
  ])
}

/** A Messages API answer whose only content is a tool_use block for `wipe`, stopped with `stopReason`. */
function anthropicAnswer(mode: Mode, stopReason: string, args: string): Response {
  const usage = { input_tokens: 10, output_tokens: 5 }
  if (mode === 'whole') {
    const input: unknown = stopReason === 'tool_use' ? JSON.parse(args || '{}') : {}
    const content = [{ type: 'tool_use', id: 'toolu_1', name: 'wipe', input }]
    return json({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'c',
      content,
      stop_reason: stopReason,
      usage,
    })
  }
  return sse([
    {
      type: 'message_start',
      message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'c', content: [], usage },
    },
    {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 'toolu_1', name: 'wipe', input: {} },
    },
    ...(args
      ? [{ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: args } }]
      : []),
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } },
    { type: 'message_stop' },
  ])
}

/** A Responses API answer whose only output is a function call to `wipe`, incomplete for `reason` (or completed). */
function responsesAnswer(mode: Mode, reason: string, args: string): Response {
  const item = { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'wipe', arguments: args }
  const status = reason === 'completed' ? 'completed' : 'incomplete'
  const response = {
    id: 'resp_1',
    model: 'gpt-5-mini',
    status,
    incomplete_details: status === 'incomplete' ? { reason } : null,
    output: [{ ...item, status }],
    usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
  }
  if (mode === 'whole') return json(response)
  return sse([
    { type: 'response.created', response: { ...response, status: 'in_progress', output: [] } },
    { type: 'response.output_item.added', output_index: 0, item: { ...item, arguments: '', status: 'in_progress' } },
    ...(args
      ? [{ type: 'response.function_call_arguments.delta', output_index: 0, item_id: 'fc_1', delta: args }]
      : []),
    { type: `response.${status}`, response },
  ])
}

function modelOf(adapter: Adapter, response: Response): ChatModel {
  const { fetch } = fakeFetch(response)
  if (adapter === 'anthropic') return new AnthropicChatModel({ model: 'c', fetch })
  return adapter === 'chat'
    ? new OpenAIChatModel({ model: 'm', fetch })
    : new OpenAIResponsesChatModel({ model: 'r', fetch })
}

const answerOf = { chat: chatAnswer, anthropic: anthropicAnswer, responses: responsesAnswer }

function client(adapter: Adapter, mode: Mode, finish: string, args: string) {
  const wiped: unknown[] = []
  const wipe = defineTool({
    name: 'wipe',
    description: 'Deletes every note',
    inputSchema: { type: 'object', properties: { confirm: { type: 'boolean' } } } as const,
    execute: (input) => (wiped.push(input), 'every note deleted'),
  })
  const collector = new TraceCollector()
  const built = ChatClient.builder(modelOf(adapter, answerOf[adapter](mode, finish, args)))
    .defaultTools(wipe)
    .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
    .build()
  const spec = built.prompt('Tidy up my notes')
  const answer = mode === 'whole' ? spec.call().content() : collect(spec.stream().content()).then((t) => t.join(''))
  return { wiped, collector, answer }
}

/** Every finish reason each provider documents for an answer it cut off, and whether it is the token limit. */
const CUT: Array<[Adapter, string, boolean]> = [
  ['chat', 'length', true],
  ['chat', 'model_length', true],
  ['chat', 'content_filter', false],
  ['chat', 'insufficient_system_resource', false],
  ['chat', 'error', false],
  ['anthropic', 'max_tokens', true],
  ['anthropic', 'model_context_window_exceeded', true],
  ['anthropic', 'refusal', false],
  ['responses', 'max_output_tokens', true],
  ['responses', 'content_filter', false],
]

const cases = CUT.flatMap(([adapter, finish, limit]) =>
  (['streamed', 'whole'] as const).flatMap((mode) =>
    WRITTEN.map((args) => ({
      adapter,
      finish,
      limit,
      mode,
      args,
      written: args ? 'half its arguments' : 'no arguments',
    })),
  ),
)

describe('a tool call cut off by the end of the answer never runs', () => {
  it.each(cases)(
    '$adapter $mode, $finish after $written: nothing runs and the caller is told what to do',
    async ({ adapter, mode, finish, limit, args }) => {
      const { wiped, answer } = client(adapter, mode, finish, args)
      const error = (await answer.catch((thrown: unknown) => thrown)) as ToolCallError
      expect(error).toBeInstanceOf(ToolCallError)
      expect(error.message).toContain('in the middle of its tool calls, so none was run.')
      expect(error.message).toMatch(limit ? /Raise maxTokens/ : /Try again/)
      expect(wiped).toEqual([])
    },
  )
})

describe('the trace shows the cut call as it came', () => {
  it.each([
    ['chat', 'length'],
    ['anthropic', 'max_tokens'],
    ['responses', 'max_output_tokens'],
  ] as const)(
    '%s: the response with its finish reason, the call without made-up arguments, no tool run, the loop ended in error',
    async (adapter, finish) => {
      for (const mode of ['streamed', 'whole'] as const) {
        const { collector, answer } = client(adapter, mode, finish, '')
        await answer.catch(() => undefined)
        const response = collector.ofType('model-response')[0]!
        expect(response.finishReason).toBe('length')
        expect(response.toolCalls.map((call) => [call.name, call.arguments])).toEqual([
          ['wipe', adapter === 'anthropic' && mode === 'whole' ? '{}' : ''],
        ])
        expect(collector.ofType('tool-start')).toEqual([])
        expect(collector.ofType('tool-loop-end')[0]!.reason).toBe('error')
        const end = collector.ofType('run-end')[0]!
        expect(end.status).toBe('error')
        expect(end.error).toMatchObject({
          name: 'ToolCallError',
          message: expect.stringContaining('Raise maxTokens') as string,
        })
      }
    },
  )
})

describe('blank arguments of a finished call mean {}', () => {
  it.each([
    ['chat', 'tool_calls'],
    ['anthropic', 'tool_use'],
    ['responses', 'completed'],
  ] as const)('%s: the call runs with {}, streamed and whole', async (adapter, finish) => {
    for (const mode of ['streamed', 'whole'] as const) {
      const { wiped, answer } = client(adapter, mode, finish, '')
      await answer.catch(() => undefined)
      expect(wiped).toEqual([{}])
    }
  })
})

describe('a tool_use input that content_block_start brings whole (no input_json_delta)', () => {
  for (const [stopReason, runs] of [
    ['tool_use', true],
    ['max_tokens', false],
  ] as const) {
    it(`${stopReason}: ${runs ? 'runs with that input, as call() does' : 'still never runs: the answer was cut'}`, async () => {
      const usage = { input_tokens: 10, output_tokens: 5 }
      const response = sse([
        { type: 'message_start', message: { id: 'msg_1', role: 'assistant', model: 'c', content: [], usage } },
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 'toolu_1', name: 'wipe', input: { confirm: true } },
        },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: stopReason }, usage: { output_tokens: 5 } },
        { type: 'message_stop' },
      ])
      const model = new AnthropicChatModel({ model: 'c', fetch: fakeFetch(response).fetch })
      const chunks = await collect(model.stream({ messages: [], options: {} }))
      expect(chunks.at(-1)!.results[0]!.output.toolCalls).toEqual([
        { id: 'toolu_1', name: 'wipe', arguments: '{"confirm":true}' },
      ])
      const { wiped, answer } = anthropicAnswerWith(stopReason)
      const outcome = await answer.catch((thrown: unknown) => thrown)
      expect(wiped).toEqual(runs ? [{ confirm: true }] : [])
      if (!runs) expect(outcome).toBeInstanceOf(ToolCallError)
    })
  }
})

/** The loop over an Anthropic stream whose tool_use input comes whole in its start, then a plain answer. */
function anthropicAnswerWith(stopReason: string) {
  const usage = { input_tokens: 10, output_tokens: 5 }
  const start = { type: 'message_start', message: { id: 'msg_1', role: 'assistant', model: 'c', content: [], usage } }
  const { fetch } = fakeFetch(
    sse([
      start,
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'wipe', input: { confirm: true } },
      },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: stopReason }, usage: { output_tokens: 5 } },
      { type: 'message_stop' },
    ]),
    sse([
      start,
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'Done.' } },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } },
      { type: 'message_stop' },
    ]),
  )
  const wiped: unknown[] = []
  const wipe = defineTool({
    name: 'wipe',
    description: 'Deletes every note',
    inputSchema: { type: 'object', properties: { confirm: { type: 'boolean' } } } as const,
    execute: (input) => (wiped.push(input), 'every note deleted'),
  })
  const built = ChatClient.builder(new AnthropicChatModel({ model: 'c', fetch }))
    .defaultTools(wipe)
    .build()
  return { wiped, answer: collect(built.prompt('Tidy up').stream().content()) }
}
