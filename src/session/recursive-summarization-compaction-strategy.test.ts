import { describe, expect, it } from 'vitest'
import { DefaultSessionService } from './default-session-service'
import { EventFilter } from './event-filter'
import { InMemorySessionRepository } from './in-memory-session-repository'
import {
  RecursiveSummarizationCompactionStrategy,
  type SummarizationFailure,
  type SummaryClient,
} from './recursive-summarization-compaction-strategy'
import { isReal } from './session-view'
import { isSynthetic } from './session'
import { turn } from './testing/events'
import { TurnCountTrigger } from './triggers'

/** A summary client answering with `answer` (a text, or a failure), recording what it was asked. */
function client(answer: () => Promise<string | null>) {
  const asked: string[] = []
  const spec = {
    system: () => spec,
    user: (text: string) => (asked.push(text), spec),
    signal: () => spec,
    call: () => ({ content: answer }),
  }
  return { asked, summaryClient: { prompt: () => spec } satisfies SummaryClient }
}

async function sessionWith(turns: number) {
  const service = new DefaultSessionService(new InMemorySessionRepository())
  await service.create({ id: 's' })
  for (let n = 0; n < turns; n++) for (const event of turn('s', n, 1)) await service.appendEvent(event)
  return service
}

describe('RecursiveSummarizationCompactionStrategy', () => {
  it('puts a summary of the older turns in front of the newest events, and folds it into the next one', async () => {
    const service = await sessionWith(4)
    let n = 0
    const { asked, summaryClient } = client(async () => `summary ${++n}`)
    const strategy = RecursiveSummarizationCompactionStrategy.builder(summaryClient).maxEventsToKeep(4).build()
    const result = await service.compact('s', new TurnCountTrigger(1), strategy)
    expect(result.summary.map((message) => message.role)).toEqual(['user', 'assistant'])
    const view = await service.getEvents('s')
    expect(view.slice(0, 2).every(isSynthetic)).toBe(true)
    expect(view[1]!.message).toMatchObject({ text: 'summary 1' })
    expect(asked[0]).toMatch(/=== CONVERSATION TO SUMMARIZE ===\nUser: question 0/)
    for (const event of turn('s', 9, 1)) await service.appendEvent(event)
    await service.compact('s', new TurnCountTrigger(1), strategy)
    expect(asked[1]).toMatch(/=== PRIOR SUMMARY ===\nsummary 1/)
    expect((await service.getEvents('s')).filter(isSynthetic).map((event) => event.message)).toMatchObject([
      { role: 'user' },
      { text: 'summary 2' },
    ])
  })

  it.each([
    ['fails', () => Promise.reject(new Error('offline')), 'failed'],
    ['comes back blank', () => Promise.resolve('  '), 'blank'],
    ['is longer than what it replaces', () => Promise.resolve('words '.repeat(2000)), 'longer'],
  ] as const)('keeps a plain window when the summary %s, losing no turn', async (_how, answer, reason) => {
    const service = await sessionWith(4)
    const failures: SummarizationFailure[] = []
    const strategy = RecursiveSummarizationCompactionStrategy.builder(client(answer).summaryClient)
      .maxEventsToKeep(4)
      .onSummarizationFailure((failure) => failures.push(failure))
      .build()
    const result = await service.compact('s', new TurnCountTrigger(1), strategy)
    expect(failures.map((failure) => failure.reason)).toEqual([reason])
    expect(result.summary).toEqual([])
    const view = await service.getEvents('s')
    expect(view.filter(isSynthetic)).toEqual([])
    expect(view.filter(isReal)).toHaveLength(4)
    expect((await service.getEvents('s', EventFilter.all())).filter(isReal)).toHaveLength(16)
  })

  it('keeps a plain window when the summary is aborted', async () => {
    const service = await sessionWith(4)
    const controller = new AbortController()
    const failures: SummarizationFailure[] = []
    const strategy = RecursiveSummarizationCompactionStrategy.builder(
      client(() => {
        controller.abort()
        return Promise.reject(new DOMException('stopped', 'AbortError'))
      }).summaryClient,
    )
      .maxEventsToKeep(4)
      .onSummarizationFailure((failure) => failures.push(failure))
      .build()
    const result = await service.compact('s', new TurnCountTrigger(1), strategy, { signal: controller.signal })
    expect(failures.map((failure) => failure.reason)).toEqual(['aborted'])
    expect(result.preservedEvents).toHaveLength(4)
  })

  it('refuses an overlap as large as what it keeps', () => {
    expect(() =>
      RecursiveSummarizationCompactionStrategy.builder(client(async () => '').summaryClient)
        .maxEventsToKeep(2)
        .overlapSize(2)
        .build(),
    ).toThrow(/overlapSize must be a whole number from 0 to maxEventsToKeep - 1 \(1\), got 2/)
  })
})
