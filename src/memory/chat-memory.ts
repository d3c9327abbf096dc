import type { Message } from '../core'

/** The messages of conversations, kept between calls. */
export interface ChatMemory {
  get(conversationId: string): Promise<Message[]>
  add(conversationId: string, messages: Message[]): Promise<void>
  clear(conversationId: string): Promise<void>
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
}
