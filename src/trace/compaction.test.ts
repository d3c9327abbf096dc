import { describe, expect, it } from 'vitest'
import { ObserverAdvisor } from '../advisors'
import { SessionMemoryAdvisor } from '../advisors/memory/session-memory-advisor'
import { ChatClient } from '../client'
import { ScriptedChatModel } from '../models'
import {
  DefaultSessionService,
  InMemorySessionRepository,
  TurnCountTrigger,
  TurnWindowCompactionStrategy,
} from '../session'
import { TraceCollector } from './collector'
import { exportTrace, importTrace } from './file'
import { TraceReader } from './reader'
import { sampleEvent, sampleRun } from './testing/sample-trace'

// A session compaction is its own trace event: recorded by the observer from SessionMemoryAdvisor,
// checked on import, read by the run reader.

const file = (events: unknown[]) =>
  JSON.stringify({ format: 'advisor-chain-trace', version: 1, exportedAt: 'x', events })

describe('the compaction trace event', () => {
  it('is recorded by the observer: what left the view (masked), the summary, the tokens, the trigger', async () => {
    const collector = new TraceCollector()
    const service = new DefaultSessionService(new InMemorySessionRepository())
    const memory = SessionMemoryAdvisor.builder(service)
      .defaultSessionId('s')
      .compactionTrigger(new TurnCountTrigger(2))
      .compactionStrategy(TurnWindowCompactionStrategy.builder().maxTurns(1).build())
      .build()
    const model = new ScriptedChatModel(['one', 'two', 'three'])
    const client = ChatClient.builder(model)
      .defaultAdvisors(memory, new ObserverAdvisor({ sink: collector }))
      .build()
    for (const question of ['first question', 'my key is sk-proj-abcdefghijklmnopqrstuvwx', 'third'])
      await client.prompt(question).call().content()
    const [compaction, ...more] = collector.ofType('compaction')
    expect(more).toEqual([])
    expect(compaction).toMatchObject({
      advisor: memory.name,
      sessionId: 's',
      trigger: 'turn-count',
      strategy: 'turn-window',
      covered: 4,
      preserved: 2,
      summary: '',
      tokensSaved: expect.any(Number) as number,
    })
    expect(compaction!.left).toEqual([
      'user: first question',
      'assistant: one',
      expect.stringMatching(/^user: my key is (?!.*abcdefghijklmnopqrstuvwx)/) as string,
      'assistant: two',
    ])
    expect(compaction!.tokensBefore! - compaction!.tokensAfter!).toBeGreaterThan(0)
    expect(collector.ofType('note').some((note) => note.data?.['compaction'])).toBe(false)
    // Exported and imported as it was, and read as the run's compaction.
    const imported = importTrace(exportTrace(collector.events))
    const reader = new TraceReader()
    for (const event of imported) reader.add(event, false)
    expect(reader.runs().flatMap((run) => run.compactions)).toEqual([compaction])
  })

  it('is checked on import field by field, down to each message that left the view', () => {
    const event = sampleEvent('compaction')
    expect(importTrace(file([event]))).toEqual([event])
    expect(() => importTrace(file([{ ...event, left: ['user: hi', { role: 'user' }] }]))).toThrow(
      'event 0 (compaction): left[1] must be a string',
    )
    expect(() => importTrace(file([{ ...event, covered: -1 }]))).toThrow('covered must be a whole number ≥ 0')
    expect(() => importTrace(file([{ ...event, tokensBefore: 1.5 }]))).toThrow('tokensBefore must be a whole number')
  })

  it("is read into the run's compactions, from any round", () => {
    const run = sampleRun()
    const last = run.at(-1)!
    const reader = new TraceReader()
    for (const event of run) reader.add(event, true)
    const inLoop = sampleEvent('compaction', { runId: last.runId, round: 1, seq: last.seq + 1 })
    const after = sampleEvent('compaction', {
      runId: last.runId,
      round: 0,
      seq: last.seq + 2,
      trigger: 'turn-count',
    })
    reader.add(inLoop, true)
    const view = reader.add(after, true)
    expect(view.compactions).toEqual([inLoop, after])
    expect(view.notes).toEqual([])
  })
})
