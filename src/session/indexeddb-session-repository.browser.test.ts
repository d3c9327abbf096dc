import { afterEach, describe, expect, it, vi } from 'vitest'
import { userMessage } from '../core'
import { DefaultSessionService } from './default-session-service'
import { EventFilter } from './event-filter'
import { IndexedDBSessionRepository, type CorruptEvent } from './indexeddb-session-repository'
import { boundaryOf, sessionEvent } from './session'
import { SessionError } from './session-error'
import { turn } from './testing/events'
import { TurnCountTrigger } from './triggers'
import { TurnWindowCompactionStrategy } from './turn-window-compaction-strategy'

let next = 0
const fresh = () => `test-sessions-${Date.now()}-${next++}`

async function serviceOn(name: string) {
  const repository = new IndexedDBSessionRepository({ name })
  return { repository, service: new DefaultSessionService(repository) }
}

afterEach(() => vi.restoreAllMocks())

describe('IndexedDBSessionRepository in Chromium', () => {
  it('keeps a session and its log for a new repository on the same database (a reload)', async () => {
    const name = fresh()
    const { repository, service } = await serviceOn(name)
    await service.create({ id: 's', userId: 'ann' })
    for (const event of turn('s', 0, 1)) await service.appendEvent(event)
    await repository.close()
    const again = new DefaultSessionService(new IndexedDBSessionRepository({ name }))
    expect(await again.findById('s')).toMatchObject({ id: 's', userId: 'ann' })
    expect((await again.getEvents('s')).map((event) => event.message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
  })

  it('compacts by appending: the view shrinks, covered events stay readable, nothing is rewritten', async () => {
    const { service } = await serviceOn(fresh())
    await service.create({ id: 's' })
    for (let n = 0; n < 5; n++) for (const event of turn('s', n, 1)) await service.appendEvent(event)
    const before = await service.getEvents('s', EventFilter.all())
    const result = await service.compact('s', new TurnCountTrigger(2), new TurnWindowCompactionStrategy(2))
    expect(result.coveredEvents).toHaveLength(12)
    const after = await service.getEvents('s', EventFilter.all())
    expect(after.slice(0, before.length)).toEqual(before)
    expect(boundaryOf(after.at(-1)!)?.covered).toBe(12)
    expect((await service.getEvents('s')).map((event) => event.id)).toEqual(result.preservedEvents.map((e) => e.id))
  })

  it('lets one of two tabs win a version-checked append; the other writes nothing', async () => {
    const name = fresh()
    const tabA = (await serviceOn(name)).service
    const tabB = (await serviceOn(name)).service
    await tabA.create({ id: 's' })
    const version = await tabA.getEventVersion('s')
    const results = await Promise.all([
      tabA.appendEvents('s', turn('s', 1), version),
      tabB.appendEvents('s', turn('s', 2), version),
    ])
    expect(results.sort()).toEqual([false, true])
    expect(await tabB.getEvents('s', EventFilter.all())).toHaveLength(2)
  })

  it('lets one of two tabs compacting at once win; the other reads again, nothing doubled or lost', async () => {
    const name = fresh()
    const tabA = (await serviceOn(name)).service
    const tabB = (await serviceOn(name)).service
    await tabA.create({ id: 's' })
    for (let n = 0; n < 6; n++) for (const event of turn('s', n, 1)) await tabA.appendEvent(event)
    const results = await Promise.all([
      tabA.compact('s', new TurnCountTrigger(2), new TurnWindowCompactionStrategy(2)),
      tabB.compact('s', new TurnCountTrigger(2), new TurnWindowCompactionStrategy(2)),
    ])
    expect(results.filter((result) => !result.unchanged)).toHaveLength(1)
    const all = await tabB.getEvents('s', EventFilter.all())
    expect(all.filter((event) => boundaryOf(event))).toHaveLength(1)
    expect(all).toHaveLength(6 * 4 + 1)
    expect((await tabA.getEvents('s')).filter((event) => event.message.role === 'user')).toHaveLength(2)
  })

  it('names a full disk and writes nothing of the step', async () => {
    const { service } = await serviceOn(fresh())
    await service.create({ id: 's' })
    vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementationOnce(() => {
      throw new DOMException('full', 'QuotaExceededError')
    })
    const failure = await service.appendEvents('s', turn('s', 0), 0).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(SessionError)
    expect((failure as SessionError).code).toBe('quota')
    expect((failure as SessionError).message).toMatch(/storage quota.*Nothing of this step was written/)
    expect(await service.getEventVersion('s')).toBe(0)
  })

  it('skips and reports a stored record of an unknown shape, reading the rest', async () => {
    const name = fresh()
    const reported: CorruptEvent[] = []
    const repository = new IndexedDBSessionRepository({ name, onCorruptEvent: (record) => reported.push(record) })
    const service = new DefaultSessionService(repository)
    await service.create({ id: 's' })
    await service.appendEvents('s', [sessionEvent('s', userMessage('one')), sessionEvent('s', userMessage('two'))], 0)
    await repository.close()
    await new Promise<void>((resolve, reject) => {
      const open = indexedDB.open(name)
      open.onsuccess = () => {
        const tx = open.result.transaction('events', 'readwrite')
        tx.objectStore('events').put({ sessionId: 's', seq: 0, event: { what: 'not an event' } })
        tx.oncomplete = () => (open.result.close(), resolve())
        tx.onerror = () => reject(tx.error ?? new Error('write failed'))
      }
    })
    expect((await service.getEvents('s')).map((event) => event.message)).toEqual([userMessage('two')])
    expect(reported).toEqual([{ sessionId: 's', seq: 0, reason: 'it has no id' }])
  })
})
