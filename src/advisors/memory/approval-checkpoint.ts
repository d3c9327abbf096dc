import type { AssistantMessage } from '../../core'
import type { ChatMemory } from '../../memory'
import { memoryEndsWith, sameCalls } from './message-keys'
import { replaceWindow } from './repair-on-read'

/**
 * Inside the tool loop, a tool approval may keep a round waiting for the user: the assistant
 * message is saved before it waits (so a reload can resume), and replaced if the user edits it.
 */
export class ApprovalCheckpoint {
  /** Conversations whose latest answer was saved before a tool approval. */
  readonly #saved = new Set<string>()

  constructor(private readonly chatMemory: ChatMemory) {}

  async save(message: AssistantMessage, id: string): Promise<void> {
    if (!memoryEndsWith(await this.chatMemory.get(id), message)) await this.chatMemory.add(id, [message])
    this.#saved.add(id)
  }

  /** Whether the answer is the message saved before the approval (then stored already, or put in its place). */
  async settles(id: string, answers: readonly AssistantMessage[]): Promise<boolean> {
    if (!this.#saved.delete(id) || answers.length !== 1) return false
    const answer = answers[0]!
    const memory = await this.chatMemory.get(id)
    const saved = memory.at(-1)
    if (saved && JSON.stringify(saved) === JSON.stringify(answer)) return true
    if (saved?.role !== 'assistant' || !sameCalls(saved, answer)) return false
    // Decided (its marks) or edited by the user: the decided message replaces the saved one.
    await replaceWindow(this.chatMemory, id, memory, (window) => [...window.slice(0, -1), answer])
    return true
  }
}
