import { describe, expect, it } from 'vitest'
import {
  assistantMessage,
  assistantMessageOf,
  imagePart,
  filePart,
  userMessage,
  userMessageOf,
  type Message,
} from '../core'
import { IndexedDBChatMemoryRepository, MEMORY_DB_VERSION, type CorruptRecord } from './indexeddb-repository'
import { MessageWindowChatMemory } from './window'

let next = 0
const fresh = () => `test-memory-${Date.now()}-${next++}`
const texts = (messages: Message[]) => messages.map((m) => ('text' in m ? m.text : m.role))

function raw(name: string, version: number, upgrade: (db: IDBDatabase) => void): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(name, version)
    request.onupgradeneeded = () => upgrade(request.result)
    request.onsuccess = () => resolve(request.result)
    request.onerror = () => reject(request.error ?? new Error('open failed'))
  })
}

describe('IndexedDBChatMemoryRepository in Chromium', () => {
  it('keeps a conversation for a new repository on the same database (a reload)', async () => {
    const databaseName = fresh()
    const first = new IndexedDBChatMemoryRepository({ databaseName })
    await first.saveAll('c', [userMessage('hi'), assistantMessage('hello')])
    await first.close()
    const again = new IndexedDBChatMemoryRepository({ databaseName })
    expect(texts(await again.findByConversationId('c'))).toEqual(['hi', 'hello'])
    expect(await again.conversations()).toMatchObject([{ id: 'c', title: 'hi', messageCount: 2 }])
    await again.deleteByConversationId('c')
    expect([await again.findByConversationId('c'), await again.findConversationIds()]).toEqual([[], []])
  })

  it('leaves the old state when a save is aborted half-way', async () => {
    const databaseName = fresh()
    const repository = new IndexedDBChatMemoryRepository({ databaseName })
    await repository.saveAll('c', [userMessage('old')])
    const failing = repository.update('c', (messages) => {
      throw new Error(`refused after reading ${messages.length}`)
    })
    await expect(failing).rejects.toThrow('refused after reading 1')
    expect(texts(await repository.findByConversationId('c'))).toEqual(['old'])
  })

  it('loses nothing when two connections (two tabs) add to one conversation at once', async () => {
    const databaseName = fresh()
    const tabA = MessageWindowChatMemory.builder()
      .chatMemoryRepository(new IndexedDBChatMemoryRepository({ databaseName }))
      .maxMessages(500)
      .build()
    const tabB = MessageWindowChatMemory.builder()
      .chatMemoryRepository(new IndexedDBChatMemoryRepository({ databaseName }))
      .maxMessages(500)
      .build()
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? tabA : tabB).add('shared', [userMessage(`${i % 2 ? 'a' : 'b'}${i}`)]),
      ),
    )
    const stored = texts(await tabA.get('shared'))
    expect(stored).toHaveLength(40)
    expect(new Set(stored).size).toBe(40)
  })

  it('reports a corrupted record clearly and reads the others', async () => {
    const databaseName = fresh()
    const problems: CorruptRecord[] = []
    const repository = new IndexedDBChatMemoryRepository({
      databaseName,
      onCorruptRecord: (problem) => problems.push(problem),
    })
    await repository.saveAll('c', [userMessage('one'), userMessage('two'), userMessage('three')])
    await repository.close()
    const db = await raw(databaseName, MEMORY_DB_VERSION, () => {})
    await new Promise<void>((resolve) => {
      const tx = db.transaction('messages', 'readwrite')
      tx.objectStore('messages').put({ conversationId: 'c', seq: 1, message: { role: 'user', text: 42 } })
      tx.oncomplete = () => resolve()
    })
    db.close()
    expect(texts(await repository.findByConversationId('c'))).toEqual(['one', 'three'])
    expect(problems).toEqual([{ conversationId: 'c', seq: 1, reason: 'the stored record is not a valid message' }])
  })

  it('upgrades a version 1 database and keeps its conversations', async () => {
    const databaseName = fresh()
    const v1 = await raw(databaseName, 1, (db) => db.createObjectStore('conversations', { keyPath: 'id' }))
    await new Promise<void>((resolve) => {
      const tx = v1.transaction('conversations', 'readwrite')
      tx.objectStore('conversations').put({
        id: 'old',
        messages: [userMessage('from v1'), assistantMessage('still here')],
      })
      tx.oncomplete = () => resolve()
    })
    v1.close()
    const repository = new IndexedDBChatMemoryRepository({ databaseName })
    expect(texts(await repository.findByConversationId('old'))).toEqual(['from v1', 'still here'])
    expect(await repository.conversations()).toMatchObject([{ id: 'old', title: 'from v1', messageCount: 2 }])
  })

  it('lets a newer connection upgrade by closing on versionchange, then reopens', async () => {
    const databaseName = fresh()
    const repository = new IndexedDBChatMemoryRepository({ databaseName })
    await repository.saveAll('c', [userMessage('x')])
    const newer = await raw(databaseName, MEMORY_DB_VERSION + 1, () => {})
    newer.close()
    await expect(repository.findByConversationId('c')).rejects.toThrow(/Could not open IndexedDB/)
  })

  it('opens again after a failed open, and names what to use where there is no IndexedDB', async () => {
    let refuse = true
    const flaky = {
      open: (name: string, version?: number) => {
        if (refuse) throw new DOMException('The operation is insecure.', 'SecurityError')
        return indexedDB.open(name, version)
      },
    } as IDBFactory
    const repository = new IndexedDBChatMemoryRepository({ databaseName: fresh(), indexedDB: flaky })
    await expect(repository.findByConversationId('c')).rejects.toMatchObject({
      name: 'ChatMemoryError',
      code: 'unavailable',
      conversationId: 'c',
      message: expect.stringMatching(/Could not open IndexedDB .*: SecurityError: The operation is insecure/) as string,
    })
    refuse = false
    await repository.saveAll('c', [userMessage('x')])
    expect(texts(await repository.findByConversationId('c'))).toEqual(['x'])
    await repository.close()

    const original = Object.getOwnPropertyDescriptor(globalThis, 'indexedDB')!
    Object.defineProperty(globalThis, 'indexedDB', { value: undefined, configurable: true })
    try {
      await expect(new IndexedDBChatMemoryRepository({ databaseName: fresh() }).conversations()).rejects.toThrow(
        'This environment has no IndexedDB (a server, or a private mode without storage); use InMemoryChatMemoryRepository',
      )
    } finally {
      Object.defineProperty(globalThis, 'indexedDB', original)
    }
  })

  it('stores images and files as Blobs, a data: URL turned into one, and ordered parts as they were', async () => {
    const databaseName = fresh()
    const repository = new IndexedDBChatMemoryRepository({ databaseName })
    const photo = new Blob([new Uint8Array([137, 80, 78, 71])], { type: 'image/png' })
    const question = userMessageOf([
      { type: 'text', text: 'What is on these?' },
      imagePart(photo, { name: 'photo.png' }),
      imagePart('data:image/gif;base64,R0lGODlh'),
      filePart('data:text/plain;base64,' + btoa('milk'), { name: 'notes.txt' }),
    ])
    const answer = assistantMessageOf([
      { type: 'text', text: 'Let me look. ' },
      { type: 'tool-call', id: 'c1', name: 'zoom', arguments: '{}' },
      { type: 'text', text: 'A cat.' },
    ])
    await repository.saveAll('c', [question, answer])
    await repository.close()

    const db = await raw(databaseName, MEMORY_DB_VERSION, () => {})
    const records = await new Promise<Array<{ message: { parts?: Array<Record<string, unknown>> } }>>((resolve) => {
      const request = db.transaction('messages').objectStore('messages').getAll()
      request.onsuccess = () => resolve(request.result as never)
    })
    db.close()
    const storedParts = records[0]!.message.parts!
    expect(storedParts.slice(1).map((part) => part['image'] ?? part['data'])).toEqual([
      expect.any(Blob),
      expect.any(Blob),
      expect.any(Blob),
    ])
    expect(JSON.stringify(records)).not.toContain('base64')

    const again = new IndexedDBChatMemoryRepository({ databaseName })
    const [restored, restoredAnswer] = await again.findByConversationId('c')
    const parts = restored!.role === 'user' ? restored!.parts! : []
    expect(parts[1]).toMatchObject({ type: 'image', name: 'photo.png' })
    const gif = parts[2]! as { image: Blob; mediaType: string }
    expect([gif.mediaType, gif.image.type, [...new Uint8Array(await gif.image.arrayBuffer())]]).toEqual([
      'image/gif',
      'image/gif',
      [71, 73, 70, 56, 57, 97],
    ])
    expect(await (parts[3] as { data: Blob }).data.text()).toBe('milk')
    expect(restoredAnswer).toEqual(answer)
    await again.close()
  })
})
