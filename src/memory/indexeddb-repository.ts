import { isMessage, type Message } from '../core'
import { withBlobAttachments } from './stored-attachments'
import type { ChatMemoryRepository } from './chat-memory'

/** The schema version; `upgrade` moves older databases forward. */
export const MEMORY_DB_VERSION = 2

export interface ConversationInfo {
  id: string
  /** The first user message, shortened. */
  title: string
  createdAt: number
  updatedAt: number
  messageCount: number
}

export interface CorruptRecord {
  conversationId: string
  seq: number
  reason: string
}

export interface IndexedDBChatMemoryRepositoryOptions {
  databaseName?: string
  /** Told about a stored record that is not a valid message; it is skipped and the rest are read. */
  onCorruptRecord?: (record: CorruptRecord) => void
  /** Another IndexedDB (tests); default the page's. */
  indexedDB?: IDBFactory
}

interface MessageRecord {
  conversationId: string
  seq: number
  message: unknown
}

const MESSAGES = 'messages'
const CONVERSATIONS = 'conversations'

/**
 * Conversations in the browser's IndexedDB: they survive a reload. Each message is its own record,
 * every save or update is one transaction (all or nothing), and `update` reads and writes inside
 * that transaction, so two tabs writing one conversation lose nothing. Images and files are kept as
 * Blobs (a `data:` URL is turned into one), never as base64 text inside the record.
 */
export class IndexedDBChatMemoryRepository implements ChatMemoryRepository {
  readonly databaseName: string
  readonly #options: IndexedDBChatMemoryRepositoryOptions
  #db: Promise<IDBDatabase> | undefined

  constructor(options: IndexedDBChatMemoryRepositoryOptions = {}) {
    this.databaseName = options.databaseName ?? 'advisor-chain-memory'
    this.#options = options
  }

  async findConversationIds(): Promise<string[]> {
    return (await this.conversations()).map((conversation) => conversation.id)
  }

  /** Every conversation with its title and times, most recently updated first. */
  async conversations(): Promise<ConversationInfo[]> {
    const records = await this.#run<ConversationInfo[]>([CONVERSATIONS], 'readonly', (tx, done) => {
      const request = tx.objectStore(CONVERSATIONS).getAll()
      request.onsuccess = () => done(request.result as ConversationInfo[])
    })
    return records.sort((a, b) => b.updatedAt - a.updatedAt)
  }

  findByConversationId(conversationId: string): Promise<Message[]> {
    return this.#run<Message[]>([MESSAGES], 'readonly', (tx, done) => {
      const request = tx.objectStore(MESSAGES).getAll(range(conversationId))
      request.onsuccess = () => done(this.#valid(request.result as MessageRecord[]))
    })
  }

  saveAll(conversationId: string, messages: Message[]): Promise<void> {
    return this.update(conversationId, () => messages)
  }

  update(conversationId: string, change: (messages: Message[]) => Message[]): Promise<void> {
    return this.#run<void>([MESSAGES, CONVERSATIONS], 'readwrite', (tx, done, fail) => {
      const messages = tx.objectStore(MESSAGES)
      const conversations = tx.objectStore(CONVERSATIONS)
      const read = messages.getAll(range(conversationId))
      read.onsuccess = () => {
        let next: Message[]
        try {
          next = change(this.#valid(read.result as MessageRecord[]))
        } catch (error) {
          // Aborting makes the whole update as if it never started.
          fail(error)
          return
        }
        const info = conversations.get(conversationId)
        info.onsuccess = () => {
          messages.delete(range(conversationId))
          next.forEach((message, seq) =>
            messages.put({ conversationId, seq, message: withBlobAttachments(message) } satisfies MessageRecord),
          )
          const now = Date.now()
          const previous = info.result as ConversationInfo | undefined
          conversations.put({
            id: conversationId,
            title: titleOf(next) || previous?.title || conversationId,
            createdAt: previous?.createdAt ?? now,
            updatedAt: now,
            messageCount: next.length,
          } satisfies ConversationInfo)
          done(undefined)
        }
      }
    })
  }

  deleteByConversationId(conversationId: string): Promise<void> {
    return this.#run<void>([MESSAGES, CONVERSATIONS], 'readwrite', (tx, done) => {
      tx.objectStore(MESSAGES).delete(range(conversationId))
      tx.objectStore(CONVERSATIONS).delete(conversationId)
      done(undefined)
    })
  }

  /** Closes the connection (it reopens on the next use). */
  async close(): Promise<void> {
    const db = this.#db
    this.#db = undefined
    ;(await db?.catch(() => undefined))?.close()
  }

  /** Runs `body` in one transaction; resolves with what it passed to `done` once the transaction commits. */
  async #run<T>(
    stores: string[],
    mode: IDBTransactionMode,
    body: (tx: IDBTransaction, done: (value: T) => void, fail: (error: unknown) => void) => void,
  ): Promise<T> {
    const db = await this.#open()
    return new Promise<T>((resolve, reject) => {
      let result: T
      let failure: unknown
      const tx = db.transaction(stores, mode)
      tx.oncomplete = () => resolve(result)
      tx.onerror = () =>
        reject(new Error(`IndexedDB '${this.databaseName}': ${tx.error?.message ?? 'transaction failed'}`))
      tx.onabort = () =>
        reject(
          failure instanceof Error
            ? failure
            : new Error(
                `IndexedDB '${this.databaseName}': the transaction was aborted${tx.error ? ` (${tx.error.message})` : failure !== undefined ? ` (${JSON.stringify(failure)})` : ''}; nothing was changed`,
              ),
        )
      body(
        tx,
        (value) => (result = value),
        (error) => {
          failure = error
          tx.abort()
        },
      )
    })
  }

  #open(): Promise<IDBDatabase> {
    this.#db ??= new Promise<IDBDatabase>((resolve, reject) => {
      const factory = this.#options.indexedDB ?? globalThis.indexedDB
      if (!factory) return reject(new Error('This environment has no IndexedDB; use InMemoryChatMemoryRepository'))
      const request = factory.open(this.databaseName, MEMORY_DB_VERSION)
      request.onupgradeneeded = (event) => upgrade(request.result, request.transaction!, event.oldVersion)
      request.onblocked = () =>
        console.warn(`IndexedDB '${this.databaseName}' waits for another tab to close its older connection`)
      request.onerror = () => {
        this.#db = undefined
        reject(
          new Error(`Could not open IndexedDB '${this.databaseName}': ${request.error?.message ?? 'unknown error'}`),
        )
      }
      request.onsuccess = () => {
        const db = request.result
        // A newer tab wants to upgrade: let it, and reopen on the next use.
        db.onversionchange = () => {
          db.close()
          this.#db = undefined
        }
        resolve(db)
      }
    })
    return this.#db
  }

  #valid(records: MessageRecord[]): Message[] {
    const messages: Message[] = []
    for (const record of records) {
      if (isMessage(record.message)) messages.push(record.message)
      else {
        const problem = {
          conversationId: record.conversationId,
          seq: record.seq,
          reason: 'the stored record is not a valid message',
        }
        if (this.#options.onCorruptRecord) this.#options.onCorruptRecord(problem)
        else
          console.warn(
            `Skipped a corrupt message in conversation '${problem.conversationId}' (#${problem.seq}): ${problem.reason}`,
          )
      }
    }
    return messages
  }
}

function range(conversationId: string): IDBKeyRange {
  return IDBKeyRange.bound([conversationId, 0], [conversationId, Number.MAX_SAFE_INTEGER])
}

function titleOf(messages: readonly Message[]): string {
  const first = messages.find((message) => message.role === 'user')
  const text = first?.role === 'user' ? first.text.trim().replace(/\s+/g, ' ') : ''
  return text.length > 80 ? `${text.slice(0, 79)}…` : text
}

/**
 * Schema history. v1 kept each conversation as one record `{ id, messages }`; v2 keeps one record
 * per message (so a save never rewrites a whole conversation blob) and conversation metadata.
 */
function upgrade(db: IDBDatabase, tx: IDBTransaction, oldVersion: number): void {
  if (oldVersion < 1) {
    db.createObjectStore(MESSAGES, { keyPath: ['conversationId', 'seq'] })
    db.createObjectStore(CONVERSATIONS, { keyPath: 'id' })
    return
  }
  if (oldVersion < 2) {
    const messages = db.createObjectStore(MESSAGES, { keyPath: ['conversationId', 'seq'] })
    const conversations = tx.objectStore(CONVERSATIONS)
    const cursor = conversations.openCursor()
    cursor.onsuccess = () => {
      const current = cursor.result
      if (!current) return
      const record = current.value as { id: string; messages?: unknown[] }
      const stored = Array.isArray(record.messages) ? record.messages : []
      stored.forEach((message, seq) => messages.put({ conversationId: record.id, seq, message }))
      const now = Date.now()
      current.update({
        id: record.id,
        title: titleOf(stored.filter(isMessage)),
        createdAt: now,
        updatedAt: now,
        messageCount: stored.length,
      })
      current.continue()
    }
  }
}
