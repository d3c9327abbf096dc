import { describe, expect, it } from 'vitest'
import { assistantMessage, systemMessage, toolResponseMessage, userMessage, type Message } from '../core'
import { ChatMemoryError } from './chat-memory-error'
import { dropOrphans } from './repair'
import { IndexedDBChatMemoryRepository, MEMORY_DB_VERSION, type CorruptRecord } from './indexeddb-repository'
import { InMemoryChatMemoryRepository } from './in-memory-repository'
import { MessageWindowChatMemory, windowOf } from './window'

// The log layout of IndexedDB memory (layout 3): an add appends and trims, a read takes only the
// window, a repair rewrites only what it touched — and each reads as the window rule says.

let next = 0
const fresh = () => `test-log-${Date.now()}-${next++}`

function open(name: string, version?: number, upgrade?: (db: IDBDatabase) => void): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(name, version)
    request.onupgradeneeded = () => upgrade?.(request.result)
    request.onsuccess = () => resolve(request.result)
    request.onerror = () => reject(request.error ?? new Error('open failed'))
  })
}

interface RawRecord {
  conversationId: string
  seq: number
  message: unknown
}

async function rawRecords(name: string, conversationId: string): Promise<RawRecord[]> {
  const db = await open(name)
  const records = await new Promise<RawRecord[]>((resolve) => {
    const request = db.transaction('messages').objectStore('messages').getAll()
    request.onsuccess = () => resolve(request.result as RawRecord[])
  })
  db.close()
  return records.filter((record) => record.conversationId === conversationId)
}

async function putRaw(name: string, store: string, ...records: unknown[]): Promise<void> {
  const db = await open(name)
  await new Promise<void>((resolve, reject) => {
    const tx = db.transaction(store, 'readwrite')
    for (const record of records) tx.objectStore(store).put(record)
    tx.oncomplete = () => resolve()
    tx.onerror = () => reject(tx.error ?? new Error('put failed'))
  })
  db.close()
}

/** A seeded generator, so a failing trial can be replayed. */
function random(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
}

function randomTurn(next: () => number, index: number): Message[] {
  const roll = next()
  if (roll < 0.05) return [systemMessage(`rules ${index}`)]
  if (roll < 0.4) return [userMessage(`q${index}`), assistantMessage(`a${index}`)]
  if (roll < 0.7) {
    const id = `c${index}`
    return [
      userMessage(`q${index}`),
      assistantMessage('', [{ id, name: 't', arguments: '{}' }]),
      toolResponseMessage([{ id, name: 't', responseData: 'r' }]),
      assistantMessage(`a${index}`),
    ]
  }
  return [next() < 0.5 ? userMessage(`u${index}`) : assistantMessage(`x${index}`)]
}

describe('IndexedDB memory as a log', () => {
  it('reads the same window as the in-memory repository after every add and change, from this tab or another, at random window sizes', async () => {
    const databaseName = fresh()
    const repository = new IndexedDBChatMemoryRepository({ databaseName })
    // Another tab on the same database: what it appends, this tab's cached windows must see.
    const otherTab = new IndexedDBChatMemoryRepository({ databaseName })
    const next = random(29)
    for (let trial = 0; trial < 12; trial++) {
      const maxMessages = trial === 11 ? 10_000 : 1 + Math.floor(next() * 12)
      const logged = MessageWindowChatMemory.builder().chatMemoryRepository(repository).maxMessages(maxMessages).build()
      const loggedByOther = MessageWindowChatMemory.builder()
        .chatMemoryRepository(otherTab)
        .maxMessages(maxMessages)
        .build()
      const narrower = MessageWindowChatMemory.builder()
        .chatMemoryRepository(repository)
        .maxMessages(Math.max(1, maxMessages - 3))
        .build()
      const reference = MessageWindowChatMemory.builder()
        .chatMemoryRepository(new InMemoryChatMemoryRepository())
        .maxMessages(maxMessages)
        .build()
      for (let add = 0; add < 30; add++) {
        const turn = randomTurn(next, add)
        await (next() < 0.3 ? loggedByOther : logged).add(`c${trial}`, turn)
        await reference.add(`c${trial}`, turn)
        if (next() < 0.15) {
          // A change of the window: some messages dropped, one rewritten (in place, or the window rewritten).
          const edit = (window: Message[]) =>
            window.filter((_, i) => i % 3 !== 1).map((m, i) => (i === 1 ? { ...m, metadata: { edited: add } } : m))
          await (next() < 0.3 ? loggedByOther : logged).update(`c${trial}`, edit)
          await reference.update(`c${trial}`, edit)
        }
        const window = await logged.get(`c${trial}`)
        expect(window, `trial ${trial} (max ${maxMessages}), add ${add}`).toEqual(await reference.get(`c${trial}`))
        const all = await repository.findByConversationId(`c${trial}`)
        expect(window).toEqual(windowOf(all, [], maxMessages))
        expect(await narrower.get(`c${trial}`)).toEqual(windowOf(all, [], narrower.maxMessages))
      }
    }
    await repository.close()
    await otherTab.close()
  })

  it('keeps about one window of records: what falls out of the window is deleted by the add that moves it', async () => {
    const databaseName = fresh()
    const memory = MessageWindowChatMemory.builder()
      .chatMemoryRepository(new IndexedDBChatMemoryRepository({ databaseName }))
      .maxMessages(10)
      .build()
    await memory.add('c', [systemMessage('rules')])
    for (let i = 0; i < 100; i++) await memory.add('c', [userMessage(`q${i}`), assistantMessage(`a${i}`)])
    const records = await rawRecords(databaseName, 'c')
    expect(records.map((record) => (record.message as Message).role)).toEqual([
      'system',
      ...Array.from({ length: 4 }, () => ['user', 'assistant']).flat(),
    ])
    expect(records.at(-1)!.seq).toBe(200)
  })

  it('reads a window lowered below what is stored at once, and the next add deletes the rest', async () => {
    const databaseName = fresh()
    const repository = new IndexedDBChatMemoryRepository({ databaseName })
    const wide = MessageWindowChatMemory.builder().chatMemoryRepository(repository).maxMessages(1000).build()
    for (let i = 0; i < 50; i++) await wide.add('c', [userMessage(`q${i}`), assistantMessage(`a${i}`)])
    const narrow = MessageWindowChatMemory.builder().chatMemoryRepository(repository).maxMessages(4).build()
    expect((await narrow.get('c')).map((m) => ('text' in m ? m.text : ''))).toEqual(['q48', 'a48', 'q49', 'a49'])
    expect(await rawRecords(databaseName, 'c')).toHaveLength(100)
    await narrow.add('c', [userMessage('q50')])
    expect((await rawRecords(databaseName, 'c')).map((record) => (record.message as Message).role)).toEqual([
      'user',
      'assistant',
      'user',
    ])
  })

  it('loads a conversation saved by layout 2 unchanged, and gives it layout 3 on its next add', async () => {
    const databaseName = fresh()
    const v2 = [systemMessage('rules'), userMessage('old question'), assistantMessage('old answer')]
    const db = await open(databaseName, 2, (created) => {
      created.createObjectStore('messages', { keyPath: ['conversationId', 'seq'] })
      created.createObjectStore('conversations', { keyPath: 'id' })
    })
    db.close()
    await putRaw(databaseName, 'messages', ...v2.map((message, seq) => ({ conversationId: 'old', seq, message })))
    await putRaw(databaseName, 'conversations', {
      id: 'old',
      title: 'old question',
      createdAt: 1,
      updatedAt: 2,
      messageCount: 3,
    })
    const repository = new IndexedDBChatMemoryRepository({ databaseName })
    const memory = MessageWindowChatMemory.builder().chatMemoryRepository(repository).maxMessages(3).build()
    expect(await memory.get('old')).toEqual(v2)
    expect(await repository.findByConversationId('old')).toEqual(v2)
    await memory.add('old', [userMessage('new question')])
    expect(await memory.get('old')).toEqual([systemMessage('rules'), userMessage('new question')])
    expect(await repository.conversations()).toMatchObject([
      { id: 'old', title: 'old question', createdAt: 1, messageCount: 2 },
    ])
    await repository.close()
    const upgraded = await open(databaseName)
    expect(upgraded.version).toBe(MEMORY_DB_VERSION)
    upgraded.close()
  })

  it('rebuilds where a conversation starts from its records when its conversation record is garbled', async () => {
    const databaseName = fresh()
    const repository = new IndexedDBChatMemoryRepository({ databaseName })
    const memory = MessageWindowChatMemory.builder().chatMemoryRepository(repository).maxMessages(10).build()
    await memory.add('c', [userMessage('q1'), assistantMessage('a1')])
    await repository.close()
    await putRaw(databaseName, 'conversations', { id: 'c', title: 'q1', start: 'x', next: -4, system: 7 })
    await memory.add('c', [userMessage('q2')])
    expect((await memory.get('c')).map((m) => ('text' in m ? m.text : ''))).toEqual(['q1', 'a1', 'q2'])
  })

  it('repairs in place: the orphan call is removed from its message, and no other record is rewritten', async () => {
    const databaseName = fresh()
    const repository = new IndexedDBChatMemoryRepository({ databaseName })
    const memory = MessageWindowChatMemory.builder().chatMemoryRepository(repository).maxMessages(20).build()
    await memory.add('c', [
      userMessage('Weather?'),
      assistantMessage('', [
        { id: 'x', name: 'weather', arguments: '{}' },
        { id: 'y', name: 'weather', arguments: '{}' },
      ]),
      toolResponseMessage([{ id: 'x', name: 'weather', responseData: 'sun' }]),
      assistantMessage('Sunny.'),
    ])
    const before = await rawRecords(databaseName, 'c')
    await memory.update('c', (window) => dropOrphans(window, false).messages)
    const after = await rawRecords(databaseName, 'c')
    expect(after.map((record) => record.seq)).toEqual([0, 1, 2, 3])
    expect(after[1]!.message).toMatchObject({ toolCalls: [{ id: 'x' }] })
    expect([after[0], after[2], after[3]]).toEqual([before[0], before[2], before[3]])
  })

  it('replaces an edited last message in its own record', async () => {
    const databaseName = fresh()
    const memory = MessageWindowChatMemory.builder()
      .chatMemoryRepository(new IndexedDBChatMemoryRepository({ databaseName }))
      .build()
    await memory.add('c', [
      userMessage('Delete note 1'),
      assistantMessage('', [{ id: 'd', name: 'del', arguments: '1' }]),
    ])
    await memory.update('c', (window) => [
      ...window.slice(0, -1),
      assistantMessage('', [{ id: 'd', name: 'del', arguments: '2' }]),
    ])
    const records = await rawRecords(databaseName, 'c')
    expect(records.map((record) => [record.seq, (record.message as { toolCalls?: unknown }).toolCalls])).toEqual([
      [0, undefined],
      [1, [{ id: 'd', name: 'del', arguments: '2' }]],
    ])
  })
})

describe('IndexedDB memory and records of the wrong shape', () => {
  const cycle: Record<string, unknown> = { role: 'user', text: 'loop' }
  cycle['metadata'] = { self: cycle }
  let deep: unknown = 'bottom'
  for (let i = 0; i < 300; i++) deep = { deeper: deep }
  const shapes: [string, unknown, RegExp][] = [
    ['a record with no message', undefined, /holds no message/],
    ['null', null, /not a valid message/],
    ['a string', 'hello', /not a valid message/],
    ['an unknown role', { role: 'robot', text: 'beep' }, /not a valid message/],
    ['a text that is a number', { role: 'user', text: 42 }, /not a valid message/],
    ['tool calls that are not a list', { role: 'assistant', text: '', toolCalls: 'x' }, /not a valid message/],
    [
      'a tool response without an id',
      { role: 'tool', responses: [{ name: 't', responseData: 'r' }] },
      /not a valid message/,
    ],
    ['a part of an unknown type', { role: 'user', text: '', parts: [{ type: 'video' }] }, /not a valid message/],
    ['a BigInt', { role: 'user', text: 'big', metadata: { tokens: 10n } }, /message\.metadata\.tokens is a BigInt/],
    ['a cycle', cycle, /message\.metadata\.self refers back to itself/],
    ['a Date', { role: 'user', text: 'when', metadata: { at: new Date(0) } }, /message\.metadata\.at is a Date/],
    ['a Map', { role: 'assistant', text: 'm', toolCalls: [], metadata: { m: new Map() } }, /is a Map/],
    ['nesting 300 levels deep', { role: 'user', text: 'deep', metadata: { deep } }, /deeper than 256 levels/],
  ]

  for (const [what, message, reason] of shapes) {
    it(`skips and reports a stored record with ${what}, and reads the rest`, async () => {
      const databaseName = fresh()
      const problems: CorruptRecord[] = []
      const repository = new IndexedDBChatMemoryRepository({ databaseName, onCorruptRecord: (p) => problems.push(p) })
      const memory = MessageWindowChatMemory.builder().chatMemoryRepository(repository).build()
      await memory.add('c', [userMessage('one'), assistantMessage('two'), userMessage('three')])
      await repository.close()
      await putRaw(databaseName, 'messages', {
        conversationId: 'c',
        seq: 1,
        ...(message === undefined ? {} : { message }),
      })
      expect((await memory.get('c')).map((m) => ('text' in m ? m.text : ''))).toEqual(['one', 'three'])
      expect(problems).toEqual([{ conversationId: 'c', seq: 1, reason: expect.stringMatching(reason) as string }])
      await memory.add('c', [assistantMessage('four')])
      expect((await repository.findByConversationId('c')).map((m) => ('text' in m ? m.text : ''))).toEqual([
        'one',
        'three',
        'four',
      ])
    })
  }

  it.each([
    ['a BigInt', { role: 'user', text: 'x', metadata: { n: 1n } }, /message 2 of 2: message\.metadata\.n is a BigInt/],
    ['a function', { role: 'user', text: 'x', metadata: { f: () => 1 } }, /message\.metadata\.f is a function/],
    ['a Date', { role: 'user', text: 'x', metadata: { at: new Date(0) } }, /message\.metadata\.at is a Date/],
    ['no role', { text: 'x' }, /message 2 of 2: it is not a message/],
  ])('refuses to store a message holding %s, naming it, and writes nothing', async (_what, bad, reason) => {
    const memory = MessageWindowChatMemory.builder()
      .chatMemoryRepository(new IndexedDBChatMemoryRepository({ databaseName: fresh() }))
      .build()
    await memory.add('c', [userMessage('before')])
    const refused = memory.add('c', [assistantMessage('fine'), bad as Message])
    await expect(refused).rejects.toBeInstanceOf(ChatMemoryError)
    await expect(refused).rejects.toMatchObject({
      code: 'unstorable',
      conversationId: 'c',
      message: expect.stringMatching(reason) as string,
    })
    expect(await memory.get('c')).toEqual([userMessage('before')])
  })

  it('says the storage is unavailable, naming it, when the database cannot be opened', async () => {
    const databaseName = fresh()
    const newer = await open(databaseName, MEMORY_DB_VERSION + 1)
    newer.close()
    const read = new IndexedDBChatMemoryRepository({ databaseName }).findWindow('c', 20)
    await expect(read).rejects.toMatchObject({
      name: 'ChatMemoryError',
      code: 'unavailable',
      conversationId: 'c',
      message: expect.stringMatching(/Could not open IndexedDB .test-log-.*.: .*reload the page/) as string,
    })
  })
})
