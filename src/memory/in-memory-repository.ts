import type { Message } from '../core'
import type { ChatMemoryRepository } from './chat-memory'

/** Keeps conversations in this page's memory only (gone on reload). */
export class InMemoryChatMemoryRepository implements ChatMemoryRepository {
  readonly #conversations = new Map<string, Message[]>()

  async findConversationIds(): Promise<string[]> {
    return [...this.#conversations.keys()]
  }

  async findByConversationId(conversationId: string): Promise<Message[]> {
    return [...(this.#conversations.get(conversationId) ?? [])]
  }

  async saveAll(conversationId: string, messages: Message[]): Promise<void> {
    this.#conversations.set(conversationId, [...messages])
  }

  async deleteByConversationId(conversationId: string): Promise<void> {
    this.#conversations.delete(conversationId)
  }

  async update(conversationId: string, change: (messages: Message[]) => Message[]): Promise<void> {
    this.#conversations.set(conversationId, change([...(this.#conversations.get(conversationId) ?? [])]))
  }
}
