import type { Message } from '../core'

/** The messages of conversations, kept between calls. */
export interface ChatMemory {
  get(conversationId: string): Promise<Message[]>
  add(conversationId: string, messages: Message[]): Promise<void>
  clear(conversationId: string): Promise<void>
  /**
   * Replaces what `get` returns with `change(it)` as one atomic step (a repair, an edited message).
   * Without it a replacement is a `clear` and an `add`, and a reader between the two sees nothing.
   */
  update?(conversationId: string, change: (messages: Message[]) => Message[]): Promise<void>
  /** See `ChatMemoryRepository.sharedStorageName`. */
  readonly sharedStorageName?: string
}

// Interface and value share the name, as in Spring: `ChatMemory.CONVERSATION_ID`.
export const ChatMemory = {
  /** The advisor-context key (advisor param) that names the conversation. */
  CONVERSATION_ID: 'chat_memory_conversation_id',
  DEFAULT_CONVERSATION_ID: 'default',
} as const

/** Where a ChatMemory keeps its messages. */
export interface ChatMemoryRepository {
  findConversationIds(): Promise<string[]>
  findByConversationId(conversationId: string): Promise<Message[]>
  saveAll(conversationId: string, messages: Message[]): Promise<void>
  deleteByConversationId(conversationId: string): Promise<void>
  /**
   * Reads, changes and writes one conversation as one atomic step, so two writers (two tabs) never
   * lose each other's messages. Repositories without it are read and written in two steps.
   */
  update?(conversationId: string, change: (messages: Message[]) => Message[]): Promise<void>
  /**
   * Appends `messages` and moves the start of the conversation's window (see `windowOf`) as one
   * atomic step whose cost does not grow with the conversation. Repositories without it are read
   * and rewritten whole on every add.
   */
  append?(conversationId: string, messages: Message[], maxMessages: number): Promise<void>
  /** The conversation's window of `maxMessages` (see `windowOf`), reading only the window. */
  findWindow?(conversationId: string, maxMessages: number): Promise<Message[]>
  /** Replaces the window of `maxMessages` with `change(window)` as one atomic step; what is outside the window goes. */
  updateWindow?(conversationId: string, maxMessages: number, change: (window: Message[]) => Message[]): Promise<void>
  /**
   * Names storage that other tabs of this origin share (an IndexedDB database): turns on one of its
   * conversations then take a lock of that name across tabs, so they never interleave.
   */
  readonly sharedStorageName?: string
}
