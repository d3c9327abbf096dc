// Runs recorded for real, through the library's layers (a test may reach past the trace entry).
import { ObserverAdvisor, ToolApprovalAdvisor } from '../src/advisors'
import { ChatClient } from '../src/client'
import type { ToolCallback } from '../src/core'
import { ScriptedChatModel, type ScriptStep } from '../src/models'
import { defineTool } from '../src/tools'
import { TraceCollector } from 'advisor-chain/trace'
import { TRACE_VERSION, TraceReader, type RunView, type TraceEvent, type TraceEventBody } from 'advisor-chain/trace'
import { describe, expect, it } from 'vitest'
import { roundFigures, usageText } from './figures'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const weather = defineTool({
  name: 'weather',
  description: 'Weather in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  execute: ({ city }) => `sunny in ${String(city)}`,
})

const askWeather: ScriptStep = { toolCalls: [{ id: 't1', name: 'weather', arguments: { city: 'Oslo' } }] }

/** Runs a conversation through a real observer and groups its trace as the panel does. */
async function recorded(
  script: ScriptStep[],
  options: { tools?: ToolCallback[]; advisors?: ToolApprovalAdvisor[]; stream?: boolean } = {},
): Promise<RunView> {
  const sink = new TraceCollector()
  const client = ChatClient.builder(new ScriptedChatModel(script))
    .defaultTools(...(options.tools ?? [weather]))
    .defaultAdvisors(new ObserverAdvisor({ sink, performanceTrack: false }), ...(options.advisors ?? []))
    .build()
  const spec = client.prompt('Weather in Oslo?')
  if (options.stream) for await (const _ of spec.stream().content());
  else
    await spec
      .call()
      .content()
      .catch(() => undefined)
  return read(sink.events)
}

function read(events: readonly TraceEvent[]): RunView {
  const reader = new TraceReader()
  for (const event of events) reader.add(event, true)
  return reader.runs()[0]!
}

describe('figures that tell the truth', () => {
  it('counts the wait for an approval as its own span, not as model time', async () => {
    const approvals = new ToolApprovalAdvisor({
      handler: async () => (await sleep(200), { type: 'approve' }),
      defaultPolicy: 'always',
    })
    const run = await recorded([askWeather, { text: 'Sunny.' }], { advisors: [approvals] })

    const [first] = run.rounds
    const figures = roundFigures(first!)
    expect(first!.waits).toEqual([expect.objectContaining({ id: 't1', name: 'weather', decision: 'approve' })])
    expect(figures.approvalMs).toBeGreaterThanOrEqual(190)
    // The scripted model answers at once; before the fix it was charged the 200 ms of human time.
    expect(figures.modelMs).toBeLessThan(figures.approvalMs / 2)
    expect(figures.durationMs).toBeGreaterThanOrEqual(figures.approvalMs)
  })

  it('keeps the time to first token of a streamed round free of the approval wait', async () => {
    const approvals = new ToolApprovalAdvisor({
      handler: async () => (await sleep(200), { type: 'approve' }),
      defaultPolicy: 'always',
    })
    const run = await recorded([askWeather, { text: 'Sunny.' }], { advisors: [approvals], stream: true })

    const figures = roundFigures(run.rounds[0]!)
    expect(figures.timeToFirstTokenMs).toBeLessThan(100)
    expect(figures.modelMs).toBeLessThan(100)
  })

  it("reports a tool's setup apart from the tool's own time", async () => {
    const slowToPrepare: ToolCallback = {
      definition: { name: 'weather', description: 'Weather', inputSchema: { type: 'object' } },
      metadata: { returnDirect: false },
      prepare: async () => void (await sleep(150)),
      call: async () => 'sunny',
    }
    const run = await recorded([askWeather, { text: 'Sunny.' }], { tools: [slowToPrepare] })

    const [tool] = run.rounds[0]!.tools
    const figures = roundFigures(run.rounds[0]!)
    expect(tool!.setup!.end - tool!.setup!.start).toBeGreaterThanOrEqual(140)
    expect(figures.setupMs).toBeGreaterThanOrEqual(140)
    expect(figures.toolMs).toBeLessThan(figures.setupMs / 2)
  })

  it('gives a JSON Schema tool a prepare step that loads its validator, where ajv validates it', async () => {
    const lazy = defineTool({
      name: 'lazy',
      description: 'A schema the fast validator leaves to ajv',
      inputSchema: { type: 'object', patternProperties: { '^x': { type: 'string' } } },
      execute: () => 'done',
    })
    const prepare = lazy.prepare?.bind(lazy)
    expect(prepare).toBeTypeOf('function')
    await expect(prepare!()).resolves.toBeUndefined()
    expect('prepare' in weather, 'a schema the fast validator takes has nothing to load').toBe(false)
  })

  it('shows no tokens per second for a round that only calls tools, nor for an unstreamed call', async () => {
    const usage = { promptTokens: 10, completionTokens: 40, totalTokens: 50 }
    const streamed = await recorded(
      [
        { ...askWeather, usage },
        { text: 'Sunny and mild today.', usage },
      ],
      {
        stream: true,
      },
    )
    const called = await recorded([{ text: 'Sunny and mild today.', usage }])

    expect(roundFigures(streamed.rounds[0]!).tokensPerSecond).toBeUndefined()
    expect(roundFigures(called.rounds[0]!).tokensPerSecond).toBeUndefined()
    expect(streamed.events.some((event) => event.type === 'model-response' && event.tokensPerSecond)).toBe(
      roundFigures(streamed.rounds[1]!).tokensPerSecond !== undefined,
    )
  })

  it('measures tokens per second from the first token of streamed text to the end of the call', () => {
    const run = read([
      at(0, 0, { type: 'run-start', mode: 'stream', startedAt: 0, observer: 'inside-loop', chain: [] }),
      at(0, 1, { type: 'model-request', messages: [{ role: 'user', text: 'Hi' }], options: {} }),
      at(200, 1, { type: 'model-chunk', index: 0, text: 'Hel' }),
      at(700, 1, { type: 'model-chunk', index: 1, text: 'lo' }),
      at(700, 1, {
        type: 'model-response',
        text: 'Hello',
        toolCalls: [],
        durationMs: 700,
        usage: { promptTokens: 3, completionTokens: 50, totalTokens: 53 },
      }),
    ])
    expect(roundFigures(run.rounds[0]!)).toMatchObject({ timeToFirstTokenMs: 200, tokensPerSecond: 100 })
  })

  it("says a failed run's last round failed, not that it is still running", async () => {
    const run = await recorded([askWeather, { error: new Error('model overloaded') }])

    expect(run.status).toBe('error')
    expect(roundFigures(run.rounds[1]!).status).toBe('error')
  })

  it('says a span still open when the run ended was cut off: the round is no longer running', () => {
    const run = read([
      at(0, 0, { type: 'run-start', mode: 'call', startedAt: 0, observer: 'inside-loop', chain: [] }),
      at(0, 1, { type: 'model-request', messages: [{ role: 'user', text: 'Hi' }], options: {} }),
      at(50, 0, { type: 'run-end', status: 'aborted', durationMs: 50, rounds: 1 }),
    ])
    expect(run.rounds[0]!.closed).toBe(true)
    expect(roundFigures(run.rounds[0]!).status).toBe('aborted')
  })

  it('says when the model reported no tokens, instead of a dash', async () => {
    const run = await recorded([{ text: 'Sunny.' }])
    expect(run.usage).toBeUndefined()
    expect(usageText(run)).toBe('not reported by this model')
    expect(usageText({ ...run, status: 'running' })).toBe('none reported yet')
  })
})

let seq = 0
function at(t: number, round: number, body: TraceEventBody): TraceEvent {
  return { v: TRACE_VERSION, seq: seq++, runId: 'run-1', round, advisor: 'Observer Advisor', t, ...body }
}
