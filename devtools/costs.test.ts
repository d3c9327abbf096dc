import { describe, expect, it } from 'vitest'
import { TraceReader, TRACE_VERSION, type TraceEvent, type TraceEventBody } from 'advisor-chain/trace'
import { costText, runCosts, usd } from './costs'

let seq = 0
const event = (runId: string, round: number, body: TraceEventBody): TraceEvent => ({
  v: TRACE_VERSION,
  seq: seq++,
  runId,
  round,
  advisor: 'Observer Advisor',
  t: seq,
  ...body,
})

const start = (runId: string, parent?: string): TraceEvent =>
  event(runId, 0, {
    type: 'run-start',
    mode: 'call',
    startedAt: 0,
    observer: 'inside-loop',
    chain: [],
    ...(parent ? { parentRunId: parent, parentToolCallId: 'call_1' } : {}),
  })

const response = (runId: string, round: number, cost: Record<string, unknown>): TraceEvent =>
  event(runId, round, { type: 'model-response', text: 'x', toolCalls: [], durationMs: 1, ...cost })

function runsOf(events: TraceEvent[]) {
  const reader = new TraceReader()
  for (const each of events) reader.add(each, true)
  return reader.runs()
}

describe('devtools costs', () => {
  it('sums per run, per sub-agent and over the session, against hand-computed prices', () => {
    const runs = runsOf([
      start('app'),
      // A local round (free) that would have cost $0.00028 remotely, then an escalated one at $0.0057.
      response('app', 1, { model: 'local', costUsd: 0, fallbackCostUsd: 0.00028 }),
      response('app', 2, { model: 'gpt-remote', costUsd: 0.0057 }),
      start('child', 'app'),
      response('child', 1, { model: 'gpt-remote', costUsd: 0.001, costEstimated: true }),
      start('other'),
      response('other', 1, { model: 'unpriced' }),
    ])
    const app = runs.find((run) => run.id === 'app')!
    const costs = runCosts(runs, app)
    expect(costs.run.usd).toBeCloseTo(0.0057, 12)
    expect(costs.run.fallbackUsd).toBeCloseTo(0.00028, 12)
    expect(costs.subAgents).toMatchObject({ usd: 0.001, estimated: true, responses: 1 })
    expect(costs.session.usd).toBeCloseTo(0.0067, 12)
    expect(costs.session.unpriced).toBe(1)
    expect(costText(costs.subAgents)).toBe('~$0.001 (estimated)')
    expect(costText(costs.session)).toBe('~$0.0067 (estimated), 1 without a price')
  })

  it('shows no cost, never $0, for runs without prices', () => {
    const runs = runsOf([start('r'), response('r', 1, { model: 'unpriced' })])
    expect(costText(runCosts(runs, runs[0]!).run)).toBeUndefined()
  })

  it('writes dollars with the digits a sum needs', () => {
    expect([usd(0.0057), usd(1.234), usd(0), usd(0.1)]).toEqual(['$0.0057', '$1.23', '$0', '$0.1'])
  })
})
