import { describe, expect, it } from 'vitest'
import { ToolCallingAdvisor, ObserverAdvisor } from '../../advisors'
import { ChatClient } from '../../client'
import type { ChatModel, Usage } from '../../core'
import { OpenAIChatModel } from '../../models'
import { collect } from '../../core/testing/collect'
import { defineTool } from '../../tools'
import { TraceCollector, type TraceEvent, cassetteFromTrace, type Cassette } from '../../trace'
import { ReplayChatModel, ReplayMismatchError } from '../replay-model'
import { summarizeRun, type RunSummary } from '../run-summary'

// One replay scenario for Node and Chromium: a real two-round tool session recorded from provider
// bytes, turned into a cassette, and played back. Each environment only says how a model gets the bytes.

/** A fetch that answers each request with the next recorded provider response (a path under providers/). */
export type RecordedFetch = (...fixtures: string[]) => typeof fetch

type Mode = 'call' | 'stream'

const SYSTEM = 'Answer briefly, using the tools.'

/** The two recordings: per mode, the provider responses of a tool round and of the answer after it. */
const recordings = {
  stream: {
    question: 'Capital of the UK?',
    fixtures: ['openai/chat-stream-tool-call-role-with-tool.sse', 'openrouter/chat-stream-usage.sse'],
  },
  call: {
    question: 'What do the passwords mellon and radiance unlock?',
    fixtures: ['openai/chat-tool-calls-parallel.json', 'openai/chat-json-schema.json'],
  },
} satisfies Record<Mode, { question: string; fixtures: string[] }>

/** What the recorded bytes say happened, written out by hand, so a broken recording cannot pass. */
const expectedRounds: Record<Mode, RunSummary['rounds']> = {
  stream: [
    {
      round: 1,
      text: '',
      toolCalls: [
        { id: 'call_ZR5UUuTt3pf61kjwAJIYdVMj', name: 'get_capital', arguments: { country: 'UK' }, result: 'London' },
      ],
    },
    { round: 2, text: 'test response', toolCalls: [] },
  ],
  call: [
    {
      round: 1,
      text: '',
      toolCalls: [
        {
          id: 'call_v6LacIrChvs6ITVpIZqy5tFc',
          name: 'secret_retrieval_tool',
          arguments: { password: 'mellon' },
          result: 'the Doors of Durin',
        },
        {
          id: 'call_onyWzk4mLTGKzW9cthmf4Llq',
          name: 'secret_retrieval_tool',
          arguments: { password: 'radiance' },
          result: 'the vault of light',
        },
      ],
    },
    { round: 2, text: '{"final_answer":"4"}', toolCalls: [] },
  ],
}

interface Variation {
  /** Replaces what get_capital answers, to make a later round's prompt differ. */
  capitals?: Record<string, string>
}

interface Session {
  answer: string
  /** The text deltas the caller received (stream mode). */
  deltas?: string[]
  events: TraceEvent[]
  summary: RunSummary
  usage: Usage | undefined
}

function tools(variation: Variation) {
  const capitals = variation.capitals ?? { UK: 'London', France: 'Paris' }
  const secrets: Record<string, string> = { mellon: 'the Doors of Durin', radiance: 'the vault of light' }
  return [
    defineTool({
      name: 'get_capital',
      description: 'The capital of a country',
      inputSchema: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'] } as const,
      execute: ({ country }) => capitals[country] ?? `Error: no capital known for ${country}`,
    }),
    defineTool({
      name: 'secret_retrieval_tool',
      description: 'What a password unlocks',
      inputSchema: { type: 'object', properties: { password: { type: 'string' } }, required: ['password'] } as const,
      execute: ({ password }) => secrets[password] ?? 'nothing',
    }),
  ]
}

/** One conversation through a ChatClient: the tool loop, with an observer inside it recording the trace. */
async function runSession(model: ChatModel, mode: Mode, question: string, variation: Variation = {}): Promise<Session> {
  const collector = new TraceCollector()
  const client = ChatClient.builder(model)
    .defaultSystem(SYSTEM)
    .defaultTools(...tools(variation))
    // The recording's `password` is a made-up one that a replay must hand back to the tool, so it is not masked.
    .defaultAdvisors(
      ToolCallingAdvisor.builder().build(),
      new ObserverAdvisor({ sink: collector, redact: { keep: ['password'] } }),
    )
    .build()
  const spec = client.prompt(question)
  let session: Omit<Session, 'events' | 'summary' | 'usage'>
  if (mode === 'call') session = { answer: (await spec.call().content()) ?? '' }
  else {
    const deltas = await collect(spec.stream().content())
    session = { answer: deltas.join(''), deltas }
  }
  const runIds = collector.runIds()
  if (runIds.length !== 1) throw new Error(`Expected one run in the trace, found ${runIds.length}`)
  return {
    ...session,
    events: collector.events,
    summary: summarizeRun(collector.events, runIds[0]!),
    usage: collector.ofType('run-end')[0]?.usage,
  }
}

/** Records the session of a mode from the provider bytes, through the real OpenAI adapter. */
async function recordSession(recordedFetch: RecordedFetch, mode: Mode) {
  const { question, fixtures } = recordings[mode]
  const model = new OpenAIChatModel({
    model: 'gpt-4o-mini',
    apiKey: 'sk-replay-0123456789abcdef',
    fetch: recordedFetch(...fixtures),
  })
  const session = await runSession(model, mode, question)
  return { session, cassette: cassetteFromTrace(session.events) }
}

/** The summary without the run id, which is new on every run. */
const comparable = ({ runId: _runId, ...summary }: RunSummary) => summary

/** What a session that must fail was rejected with. */
const failureOf = (session: Promise<Session>): Promise<unknown> =>
  session.then(
    () => undefined,
    (failure: unknown) => failure,
  )

const modes: Mode[] = ['stream', 'call']

/** The replay specification, declared for one environment. */
export function describeReplay(environment: string, recordedFetch: RecordedFetch): void {
  describe(`Replaying a recorded tool session ${environment}`, () => {
    describe.each(modes)('recorded with %s()', (recordedMode) => {
      it('records both rounds from the provider bytes: the tool call, its result, the answer', async () => {
        const { session, cassette } = await recordSession(recordedFetch, recordedMode)
        expect(session.summary.status).toBe('ok')
        expect(session.summary.rounds).toEqual(expectedRounds[recordedMode])
        expect(session.answer).toBe(expectedRounds[recordedMode][1]!.text)
        expect(cassette.interactions.map((interaction) => interaction.request.messages.map((m) => m.role))).toEqual([
          ['system', 'user'],
          ['system', 'user', 'assistant', 'tool'],
        ])
        expect(cassette.interactions[0]!.request.tools).toEqual(['get_capital', 'secret_retrieval_tool'])
      })

      it.each(modes)('replays with %s() to the same answer, tool calls, tool results and usage', async (replayMode) => {
        const { session: recorded, cassette } = await recordSession(recordedFetch, recordedMode)
        const model = new ReplayChatModel(cassette)
        const replayed = await runSession(model, replayMode, recordings[recordedMode].question)
        expect(comparable(replayed.summary)).toEqual(comparable(recorded.summary))
        expect(replayed.answer).toBe(recorded.answer)
        expect(replayed.usage).toEqual(recorded.usage)
        expect(replayed.usage?.totalTokens).toBeGreaterThan(0)
        expect(model.remaining).toBe(0)
      })

      it('survives a JSON round trip and replays the same', async () => {
        const { session: recorded, cassette } = await recordSession(recordedFetch, recordedMode)
        const revived = JSON.parse(JSON.stringify(cassette)) as Cassette
        expect(revived).toEqual(cassette)
        const replayed = await runSession(new ReplayChatModel(revived), recordedMode, recordings[recordedMode].question)
        expect(comparable(replayed.summary)).toEqual(comparable(recorded.summary))
      })
    })

    it('streams the recorded deltas again, not just the whole text', async () => {
      const { session: recorded, cassette } = await recordSession(recordedFetch, 'stream')
      expect(cassette.interactions[1]!.response.chunks).toEqual(['test response'])
      const replayed = await runSession(new ReplayChatModel(cassette), 'stream', recordings.stream.question)
      expect(replayed.deltas).toEqual(recorded.deltas)
      // The recording has one text delta; a cassette edited to hold two streams two.
      const [first, answer] = cassette.interactions
      const edited: Cassette = {
        ...cassette,
        interactions: [first!, { ...answer!, response: { ...answer!.response, chunks: ['test ', 'response'] } }],
      }
      const split = await runSession(new ReplayChatModel(edited), 'stream', recordings.stream.question)
      expect(split.deltas).toEqual(['test ', 'response'])
    })

    it('fails a diverging question on the first model call, with the differing lines', async () => {
      const { cassette } = await recordSession(recordedFetch, 'stream')
      const model = new ReplayChatModel(cassette)
      const error = await failureOf(runSession(model, 'call', 'Capital of France?'))
      expect(error).toBeInstanceOf(ReplayMismatchError)
      const mismatch = error as ReplayMismatchError
      expect(mismatch.interaction).toBe(0)
      expect(mismatch.message.split('\n')).toEqual([
        'Model call #1 sent a different prompt than the recording:',
        `  1. system: ${SYSTEM}`,
        '- 2. user: Capital of the UK?',
        '+ 2. user: Capital of France?',
      ])
      expect(model.remaining).toBe(2)
    })

    it('fails a diverging tool result on the second model call, naming the tool response', async () => {
      const { cassette } = await recordSession(recordedFetch, 'stream')
      const error = await failureOf(
        runSession(new ReplayChatModel(cassette), 'stream', recordings.stream.question, {
          capitals: { UK: 'Edinburgh' },
        }),
      )
      expect(error).toBeInstanceOf(ReplayMismatchError)
      const lines = (error as ReplayMismatchError).message.split('\n')
      expect(lines[0]).toBe('Model call #2 sent a different prompt than the recording:')
      expect(lines).toContain('  2. user: Capital of the UK?')
      expect(lines).toContain('  3. assistant:  [get_capital({"country":"UK"})]')
      expect(lines).toContain('- 4. tool: get_capital#call_ZR5UUuTt3pf61kjwAJIYdVMj → London')
      expect(lines).toContain('+ 4. tool: get_capital#call_ZR5UUuTt3pf61kjwAJIYdVMj → Edinburgh')
    })

    it('replays a diverging prompt when strict is off', async () => {
      const { cassette } = await recordSession(recordedFetch, 'stream')
      const replayed = await runSession(new ReplayChatModel(cassette, { strict: false }), 'call', 'Capital of France?')
      expect(replayed.answer).toBe('test response')
    })

    it('says the cassette ran out when the conversation makes more model calls than were recorded', async () => {
      const { cassette } = await recordSession(recordedFetch, 'stream')
      const short: Cassette = { ...cassette, interactions: cassette.interactions.slice(0, 1) }
      const error = await failureOf(runSession(new ReplayChatModel(short), 'stream', recordings.stream.question))
      expect(error).toBeInstanceOf(ReplayMismatchError)
      expect((error as ReplayMismatchError).interaction).toBe(1)
      expect((error as Error).message.split('\n')).toEqual([
        'Model call #2 was not recorded: the cassette holds 1 model call. Record the session again, or find out why the model is called more often now. It sent:',
        `+ 1. system: ${SYSTEM}`,
        '+ 2. user: Capital of the UK?',
        '+ 3. assistant:  [get_capital({"country":"UK"})]',
        '+ 4. tool: get_capital#call_ZR5UUuTt3pf61kjwAJIYdVMj → London',
      ])
    })

    it('counts the model calls of a cassette played twice', async () => {
      const { cassette } = await recordSession(recordedFetch, 'stream')
      const model = new ReplayChatModel(cassette)
      await runSession(model, 'stream', recordings.stream.question)
      await expect(runSession(model, 'stream', recordings.stream.question)).rejects.toThrow(
        /^Model call #3 was not recorded: the cassette holds 2 model calls\./,
      )
    })

    it.each([
      ['a trace file', { format: 'advisor-chain-trace', version: 1, events: [] }],
      ['a cassette without interactions', { format: 'advisor-chain-cassette', version: 1 }],
      ['null', null],
    ])('refuses %s as a cassette', (_what, value) => {
      expect(() => new ReplayChatModel(value as unknown as Cassette)).toThrow(
        new TypeError('Not an advisor-chain cassette (format must be "advisor-chain-cassette")'),
      )
    })

    it('refuses to make a cassette from a trace without a model call', () => {
      expect(() => cassetteFromTrace([])).toThrow(/The trace holds no model call with its request and response/)
    })
  })
}
