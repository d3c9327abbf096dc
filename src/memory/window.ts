import type { Message } from '../core'
import type { ChatMemory, ChatMemoryRepository } from './chat-memory'
import { InMemoryChatMemoryRepository } from './in-memory-repository'
import { ConversationQueue } from './conversation-queue'
import { WindowCut } from './window-cut'

/**
 * Keeps the last `maxMessages` messages of each conversation. System messages are always kept, a
 * new one replaces the old; when the window is full the oldest messages go, and the cut moves on
 * to the next user message, so a window never starts mid-turn (or with a tool response whose
 * call is gone). The window applies when reading too, so a lowered `maxMessages` holds at once.
 * A repository with `append`, `findWindow` and `updateWindow` (IndexedDB's) reads and writes only
 * the window; with only the four required methods a conversation is read and rewritten whole.
 */
export class MessageWindowChatMemory implements ChatMemory {
  // Without an atomic `update`, a read and the write after it must not interleave with another add.
  readonly #writes = new ConversationQueue()
  readonly sharedStorageName: string | undefined

  constructor(
    private readonly repository: ChatMemoryRepository,
    readonly maxMessages: number,
  ) {
    if (!Number.isInteger(maxMessages) || maxMessages < 1)
      throw new RangeError(`maxMessages must be a whole number of at least 1, got ${maxMessages}`)
    this.sharedStorageName = repository.sharedStorageName
  }

  static builder(): MessageWindowChatMemoryBuilder {
    return new MessageWindowChatMemoryBuilder()
  }

  async get(conversationId: string): Promise<Message[]> {
    const repository = this.repository
    if (repository.findWindow) return repository.findWindow(conversationId, this.maxMessages)
    return windowOf(await repository.findByConversationId(conversationId), [], this.maxMessages)
  }

  async add(conversationId: string, messages: Message[]): Promise<void> {
    if (messages.length === 0) return
    const repository = this.repository
    if (repository.append) return repository.append(conversationId, messages, this.maxMessages)
    const change = (stored: Message[]) => windowOf([...stored], messages, this.maxMessages)
    if (repository.update) return repository.update(conversationId, change)
    return this.#writes.run(conversationId, async () =>
      repository.saveAll(conversationId, change(await repository.findByConversationId(conversationId))),
    )
  }

  /** Replaces the window (what `get` returns) with `change(window)` as one step; what was outside it goes. */
  async update(conversationId: string, change: (window: Message[]) => Message[]): Promise<void> {
    const repository = this.repository
    if (repository.updateWindow) return repository.updateWindow(conversationId, this.maxMessages, change)
    const rewrite = (stored: Message[]) => change(windowOf(stored, [], this.maxMessages))
    if (repository.update) return repository.update(conversationId, rewrite)
    return this.#writes.run(conversationId, async () =>
      repository.saveAll(conversationId, rewrite(await repository.findByConversationId(conversationId))),
    )
  }

  clear(conversationId: string): Promise<void> {
    return this.#writes.run(conversationId, () => this.repository.deleteByConversationId(conversationId))
  }
}

export class MessageWindowChatMemoryBuilder {
  #repository: ChatMemoryRepository = new InMemoryChatMemoryRepository()
  #maxMessages = 20

  chatMemoryRepository(repository: ChatMemoryRepository): this {
    this.#repository = repository
    return this
  }

  maxMessages(count: number): this {
    this.#maxMessages = count
    return this
  }

  build(): MessageWindowChatMemory {
    return new MessageWindowChatMemory(this.#repository, this.#maxMessages)
  }
}

/** The stored messages with `added` appended, cut to the window (see `WindowCut`). */
export function windowOf(stored: Message[], added: readonly Message[], maxMessages: number): Message[] {
  const newSystem = added.some((message) => message.role === 'system')
  const all = [...(newSystem ? stored.filter((message) => message.role !== 'system') : stored), ...added]
  if (all.length <= maxMessages) return all
  const system = all.filter((message) => message.role === 'system')
  const rest = all.filter((message) => message.role !== 'system')
  const cut = new WindowCut(Math.max(0, maxMessages - system.length))
  for (let i = rest.length - 1; i >= 0; i--) if (!cut.older(rest[i]!.role)) break
  return [...system, ...rest.slice(rest.length - cut.kept)]
}
