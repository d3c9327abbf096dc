import { isMessage, type Message } from '../core'
import { IndexedDBConnection, isQuotaExceeded } from '../storage'
import type { ChatMemoryRepository } from './chat-memory'
import { ChatMemoryError } from './chat-memory-error'
import {
  CONVERSATIONS,
  MESSAGES,
  UnstorableMessages,
  append,
  range,
  readAll,
  resultOf,
  rewrite,
  stateOf,
  titleOf,
  unstorableOf,
  updateWindow,
  type ConversationInfo,
  type CorruptReport,
  type LogStores,
} from './indexeddb-log'
import { WindowCache } from './indexeddb-window-cache'

export type { ConversationInfo } from './indexeddb-log'

/** The schema version; `upgrade` moves older databases forward. */
export const MEMORY_DB_VERSION = 3

export interface CorruptRecord {
  conversationId: string
  seq: number
  reason: string
}

export interface IndexedDBChatMemoryRepositoryOptions {
  databaseName?: string
  /** Told about a stored record that is not a valid message of plain data; it is skipped and the rest are read. */
  onCorruptRecord?: (record: CorruptRecord) => void
  /** Another IndexedDB (tests); default the page's. */
  indexedDB?: IDBFactory
}

/**
 * Conversations in the browser's IndexedDB: they survive a reload. Each message is its own record
 * and a conversation is a log: an add appends (and, with a full window, deletes what falls out of
 * it) in one transaction, reading and writing about one window of records however long the
 * conversation is; a window is read from the log's end. Every step is one transaction, all or
 * nothing. Images and files are kept as Blobs (a `data:` URL is turned into one), never as base64
 * text inside the record. Failures are ChatMemoryErrors that say what happened (`quota` when the
 * site's storage is full).
 */
export class IndexedDBChatMemoryRepository implements ChatMemoryRepository {
  readonly databaseName: string
  readonly sharedStorageName: string
  readonly #options: IndexedDBChatMemoryRepositoryOptions
  readonly #windows = new WindowCache()
  readonly #connection: IndexedDBConnection

  constructor(options: IndexedDBChatMemoryRepositoryOptions = {}) {
    this.databaseName = options.databaseName ?? 'advisor-chain-memory'
    this.sharedStorageName = `indexeddb:${this.databaseName}`
    this.#options = options
    this.#connection = new IndexedDBConnection({
      factory: options.indexedDB,
      name: this.databaseName,
      version: MEMORY_DB_VERSION,
      upgrade,
      instead: 'use InMemoryChatMemoryRepository',
    })
  }

  async findConversationIds(): Promise<string[]> {
    return (await this.conversations()).map((conversation) => conversation.id)
  }

  /** Every conversation with its title and times, most recently updated first. */
  async conversations(): Promise<ConversationInfo[]> {
    const records = await this.#run(undefined, 'readonly', async (stores) => {
      const all = (await resultOf(stores.conversations.getAll())) as ConversationInfo[]
      return all.map(({ id, title, createdAt, updatedAt, messageCount }) => ({
        id,
        title,
        createdAt,
        updatedAt,
        messageCount,
      }))
    })
    return records.sort((a, b) => b.updatedAt - a.updatedAt)
  }

  /** Every message stored for the conversation, oldest first (its window is `findWindow`). */
  findByConversationId(conversationId: string): Promise<Message[]> {
    return this.#run(conversationId, 'readonly', (stores) =>
      readAll(stores, conversationId, this.#report(conversationId)),
    )
  }

  /**
   * The window, reading only the records appended since this repository last read it (by this tab
   * or another). The messages may be shared with later reads: treat them as read-only.
   */
  findWindow(conversationId: string, maxMessages: number): Promise<Message[]> {
    return this.#run(conversationId, 'readonly', async (stores) => {
      const window = await this.#windows.read(stores, conversationId, maxMessages, this.#report(conversationId))
      return window.map((entry) => entry.message)
    })
  }

  append(conversationId: string, messages: Message[], maxMessages: number): Promise<void> {
    if (messages.length === 0) return Promise.resolve()
    const problem = unstorableOf(messages)
    if (problem) return Promise.reject(this.#unstorable(conversationId, problem))
    return this.#run(conversationId, 'readwrite', (stores) =>
      append(stores, conversationId, messages, maxMessages, this.#report(conversationId)),
    )
  }

  updateWindow(conversationId: string, maxMessages: number, change: (window: Message[]) => Message[]): Promise<void> {
    return this.#run(conversationId, 'readwrite', (stores) =>
      updateWindow(stores, conversationId, maxMessages, change, this.#report(conversationId)),
    )
  }

  saveAll(conversationId: string, messages: Message[]): Promise<void> {
    return this.update(conversationId, () => messages)
  }

  /** Reads, changes and rewrites the whole conversation in one transaction (its cost grows with it: prefer `append`). */
  update(conversationId: string, change: (messages: Message[]) => Message[]): Promise<void> {
    return this.#run(conversationId, 'readwrite', async (stores) => {
      const { record } = await stateOf(stores, conversationId)
      const changed = change(await readAll(stores, conversationId, this.#report(conversationId)))
      const problem = unstorableOf(changed)
      if (problem) throw new UnstorableMessages(problem)
      rewrite(stores, conversationId, record, changed)
    })
  }

  deleteByConversationId(conversationId: string): Promise<void> {
    return this.#run(conversationId, 'readwrite', async (stores) => {
      stores.messages.delete(range(conversationId))
      stores.conversations.delete(conversationId)
    })
  }

  /** Closes the connection (it reopens on the next use). */
  async close(): Promise<void> {
    this.#windows.clear()
    await this.#connection.close()
  }

  /**
   * Runs `step` in one transaction; resolves with its result once the transaction commits. A step
   * that throws aborts it, so nothing of it is written.
   */
  #run<T>(
    conversationId: string | undefined,
    mode: IDBTransactionMode,
    step: (stores: LogStores) => Promise<T>,
  ): Promise<T> {
    return this.#connection.transaction(
      [MESSAGES, CONVERSATIONS],
      mode,
      (tx) => step({ messages: tx.objectStore(MESSAGES), conversations: tx.objectStore(CONVERSATIONS) }),
      {
        open: (why, cause) => new ChatMemoryError('unavailable', conversationId, why, { cause }),
        refused: (error) => this.#failure(conversationId, error),
        step: (error) =>
          error instanceof UnstorableMessages
            ? this.#unstorable(conversationId, error.message)
            : error instanceof DOMException
              ? this.#failure(conversationId, error)
              : error instanceof Error
                ? error
                : new Error(
                    `The change of conversation '${conversationId}' threw ${String(error)}; nothing was written`,
                  ),
      },
    )
  }

  /** What a refused or aborted step means, in words an app can show and act on. */
  #failure(conversationId: string | undefined, error: unknown): ChatMemoryError {
    const name = error instanceof DOMException ? error.name : 'Error'
    const detail = error instanceof Error && error.message ? `: ${error.message}` : ''
    const which = conversationId === undefined ? '' : ` for conversation '${conversationId}'`
    if (isQuotaExceeded(error))
      return new ChatMemoryError(
        'quota',
        conversationId,
        `Chat memory could not save${which}: the storage quota of this site is used up (QuotaExceededError). Nothing of this save was written; the earlier messages are as they were. Free space (delete old conversations, e.g. with deleteByConversationId) or ask for more (navigator.storage.persist()), then send again.`,
        { cause: error },
      )
    if (name === 'DataCloneError') return this.#unstorable(conversationId, `a value IndexedDB cannot store${detail}`)
    return new ChatMemoryError(
      'failed',
      conversationId,
      `Chat memory in IndexedDB '${this.databaseName}' failed${which} (${name}${detail}); nothing of this step was written. Try again; if it keeps failing, the database may be damaged (delete it in the browser's site data).`,
      { cause: error },
    )
  }

  #unstorable(conversationId: string | undefined, problem: string): ChatMemoryError {
    return new ChatMemoryError(
      'unstorable',
      conversationId,
      `Chat memory cannot store conversation '${conversationId}': ${problem}. A message must be plain data (JSON values, Blobs and Files): convert the value, or keep it out of the message; nothing was written.`,
    )
  }

  #report(conversationId: string): CorruptReport {
    return (seq, reason) => {
      const problem = { conversationId, seq, reason }
      if (this.#options.onCorruptRecord) this.#options.onCorruptRecord(problem)
      else console.warn(`Skipped a corrupt message in conversation '${conversationId}' (#${seq}): ${reason}`)
    }
  }
}

/**
 * Schema history. v1 kept each conversation as one record `{ id, messages }`; v2 keeps one record
 * per message (so a save never rewrites a whole conversation blob) and conversation metadata; v3
 * reads each conversation as a log with a window start (same stores: a v2 conversation is read as
 * it is and takes the v3 fields on its next change).
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
