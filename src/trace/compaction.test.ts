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
import type { TraceEventOf } from './events'
import { exportTrace, importTrace } from './file'
import { TraceReader } from './reader'
import { sampleEvent, sampleRun } from './testing/sample-trace'

// A session compaction is its own trace event: recorded by the observer from SessionMemoryAdvisor,
// checked on import, read by the run reader; traces from before, with a compaction note, read the same.

const file = (events: unknown[]) =>
  JSON.stringify({ format: 'advisor-chain-trace', version: 1, exportedAt: 'x', events })

/** A note as SessionMemoryAdvisor wrote a compaction before the event type existed. */
const legacyNote = (extra: Record<string, unknown> = {}) =>
  sampleEvent('note', {
    round: 0,
    seq: 50,
    advisor: 'Session Memory Advisor',
    message: 'session compacted: 6 events left the view (turn-window, turn-count)',
    data: {
      sessionId: 's',
      compaction: {
        trigger: 'turn-count',
        strategy: 'turn-window',
        covered: 6,
        preserved: 4,
        summary: '',
        tokensSaved: 120,
        tokensBefore: 300,
        tokensAfter: 180,
        ...extra,
      },
    },
  }) as TraceEventOf<'note'>

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
    expect(compaction!.left.map(({ role }) => role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(compaction!.left[0]!.text).toBe('first question')
    expect(compaction!.left[2]!.text).not.toContain('abcdefghijklmnopqrstuvwx')
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
    const left = (entry: unknown) => file([{ ...event, left: [entry] }])
    expect(() => importTrace(left({ role: 'robot', text: 'x' }))).toThrow(
      /event 0 \(compaction\): left\[0\]\.role must be one of "system", "user", "assistant", "tool"/,
    )
    expect(() => importTrace(left({ role: 'user' }))).toThrow('left[0].text must be a string')
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

  it("reads an older trace's compaction note as the compaction it was, and leaves other notes as notes", () => {
    const reader = new TraceReader()
    const plain = sampleEvent('note', { round: 0, seq: 51, message: 'memory loaded 4 messages' })
    const malformed = legacyNote({ covered: 'six' })
    for (const event of importTrace(file([legacyNote(), plain, { ...malformed, seq: 52 }]))) reader.add(event, false)
    const [run] = reader.runs()
    expect(run!.compactions).toEqual([
      {
        v: 1,
        seq: 50,
        runId: 'run-1',
        round: 0,
        advisor: 'Session Memory Advisor',
        t: 100,
        type: 'compaction',
        sessionId: 's',
        trigger: 'turn-count',
        strategy: 'turn-window',
        covered: 6,
        preserved: 4,
        left: [],
        summary: '',
        tokensSaved: 120,
        tokensBefore: 300,
        tokensAfter: 180,
      },
    ])
    expect(run!.notes.map((note) => note.seq)).toEqual([51, 52])
  })
})
