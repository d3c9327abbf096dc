import { describe, expect, it } from 'vitest'
import { userMessage } from '../core'
import { DefaultSessionService } from './default-session-service'
import { EventFilter } from './event-filter'
import { InMemorySessionRepository } from './in-memory-session-repository'
import { SlidingWindowCompactionStrategy } from './sliding-window-compaction-strategy'
import { TurnCountTrigger } from './triggers'
import { TurnWindowCompactionStrategy } from './turn-window-compaction-strategy'
import { boundaryOf, isSynthetic, sessionEvent } from './session'
import { SessionError } from './session-error'
import { turn } from './testing/events'
import type { CompactionStrategy } from './compaction'

async function sessionWith(turns: number, rounds = 1) {
  const service = new DefaultSessionService(new InMemorySessionRepository())
  await service.create({ id: 's', userId: 'ann' })
  for (let n = 0; n < turns; n++) {
    const events = turn('s', n, rounds)
    expect(await service.appendEvents('s', events, await service.getEventVersion('s'))).toBe(true)
  }
  return service
}

describe('DefaultSessionService', () => {
  it('creates a session with its owner and finds it', async () => {
    const service = new DefaultSessionService(new InMemorySessionRepository())
    const created = await service.create({ id: 's', userId: 'ann', metadata: { topic: 'x' } })
    expect(await service.findById('s')).toEqual(created)
    expect(created).toMatchObject({ id: 's', userId: 'ann', metadata: { topic: 'x' } })
    expect((await service.create()).id).not.toBe('')
  })

  it('gives the events back oldest first', async () => {
    const service = await sessionWith(2, 0)
    expect((await service.getEvents('s')).map((event) => event.message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ])
  })

  it('refuses an append at a stale version and writes nothing of it', async () => {
    const service = await sessionWith(1, 0)
    const version = await service.getEventVersion('s')
    expect(await service.appendEvents('s', turn('s', 1), version)).toBe(true)
    expect(await service.appendEvents('s', turn('s', 2), version)).toBe(false)
    expect(await service.getEvents('s', EventFilter.all())).toHaveLength(4)
  })

  it('refuses an event that is not plain data or belongs to another session, naming it', async () => {
    const service = await sessionWith(0)
    const other = sessionEvent('t', userMessage('hi'))
    await expect(service.appendEvent(other)).rejects.toThrow(SessionError)
    const odd = { ...sessionEvent('s', userMessage('hi')), metadata: { when: new Date() } }
    await expect(service.appendEvents('s', [odd], 0)).rejects.toThrow(/event 1 of 1: .*Date/)
    await expect(service.appendEvent(sessionEvent('nope', userMessage('hi')))).rejects.toThrow(/does not exist/)
  })

  it('compacts by appending one boundary, never rewriting the log; covered events stay readable', async () => {
    const service = await sessionWith(5)
    const before = await service.getEvents('s', EventFilter.all())
    const result = await service.compact('s', new TurnCountTrigger(2), new TurnWindowCompactionStrategy(2))
    expect(result.unchanged).toBe(false)
    expect(result.coveredEvents).toHaveLength(12)
    expect(result.preservedEvents).toHaveLength(8)
    const after = await service.getEvents('s', EventFilter.all())
    expect(after.slice(0, before.length)).toEqual(before)
    expect(after).toHaveLength(before.length + 1)
    expect(boundaryOf(after.at(-1)!)).toMatchObject({ firstKept: result.preservedEvents[0]!.id, covered: 12 })
    const view = await service.getEvents('s')
    expect(view.map((event) => event.id)).toEqual(result.preservedEvents.map((event) => event.id))
    expect(result).toMatchObject({ trigger: 'turn-count', strategy: 'turn-window' })
  })

  it('writes nothing when the trigger does not fire or nothing leaves the view', async () => {
    const service = await sessionWith(3)
    const version = await service.getEventVersion('s')
    expect((await service.compact('s', new TurnCountTrigger(5), new TurnWindowCompactionStrategy(1))).unchanged).toBe(
      true,
    )
    expect((await service.compact('s', new TurnCountTrigger(1), new TurnWindowCompactionStrategy(5))).unchanged).toBe(
      true,
    )
    expect(await service.getEventVersion('s')).toBe(version)
  })

  it('lets one of two compactions at once win; the other reads again and writes nothing', async () => {
    const service = await sessionWith(6)
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const slow: CompactionStrategy = {
      name: 'slow',
      async compact(request) {
        await gate
        return new TurnWindowCompactionStrategy(2).compact(request)
      },
    }
    const first = service.compact('s', new TurnCountTrigger(2), slow)
    const second = service.compact('s', new TurnCountTrigger(2), slow)
    release()
    const results = await Promise.all([first, second])
    expect(results.filter((result) => !result.unchanged)).toHaveLength(1)
    const all = await service.getEvents('s', EventFilter.all())
    expect(all.filter((event) => boundaryOf(event))).toHaveLength(1)
    expect((await service.getEvents('s')).filter((event) => event.message.role === 'user')).toHaveLength(2)
  })

  it('refuses a strategy that would split a turn', async () => {
    const service = await sessionWith(3)
    const splitting: CompactionStrategy = {
      name: 'splitting',
      async compact(request) {
        const result = await new SlidingWindowCompactionStrategy(2).compact(request)
        return { ...result, coveredEvents: request.events.slice(0, 1), preservedEvents: request.events.slice(1) }
      },
    }
    await expect(service.compact('s', new TurnCountTrigger(1), splitting)).rejects.toThrow(
      /'splitting' did not split the view at the start of a turn/,
    )
  })

  it('keeps a summary in front of the view until a later summary replaces it', async () => {
    const service = await sessionWith(4)
    const summarizing = (text: string): CompactionStrategy => ({
      name: 'summarizing',
      async compact(request) {
        const result = await new TurnWindowCompactionStrategy(1).compact(request)
        return {
          ...result,
          pinnedEvents: result.pinnedEvents.filter((event) => !isSynthetic(event)),
          summary: [userMessage(text)],
        }
      },
    })
    await service.compact('s', new TurnCountTrigger(1), summarizing('first'))
    expect((await service.getEvents('s'))[0]!.message).toMatchObject({ text: 'first' })
    for (const event of turn('s', 9)) await service.appendEvent(event)
    await service.compact('s', new TurnCountTrigger(1), summarizing('second'))
    const view = await service.getEvents('s')
    expect(view.filter(isSynthetic).map((event) => event.message)).toEqual([userMessage('second')])
    expect(view.at(-1)!.message).toMatchObject({ text: 'answer 9' })
  })
})
