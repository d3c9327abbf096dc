import { MessageChatMemoryAdvisor } from '../../advisors'
import { AdvisorChain, HIGHEST_PRECEDENCE, type CallAdvisor, type Message, type UserMessage } from '../../core'
import { ChatMemory } from '../../memory'

/**
 * Forgets the turn that asked `question` (from that user message on), when it is the last turn
 * memory holds, so asking it again stores it once. With a memory that has `update` (a
 * MessageWindowChatMemory) this is one atomic step: no other tab, and no page closed half-way,
 * ever sees the conversation empty.
 */
export function forgetTurn(memory: ChatMemory, conversationId: string, question: UserMessage): Promise<void> {
  const forget = (stored: Message[]): Message[] => {
    const lastUser = stored.findLastIndex((message) => message.role === 'user')
    return lastUser < 0 || !sameQuestion(stored[lastUser]!, question) ? stored : stored.slice(0, lastUser)
  }
  return asTurn(memory, conversationId, async () => {
    if (memory.update) return memory.update(conversationId, forget)
    const stored = await memory.get(conversationId)
    const kept = forget(stored)
    if (kept === stored) return
    await memory.clear(conversationId)
    if (kept.length > 0) await memory.add(conversationId, kept)
  })
}

/** Replaces the conversation with `messages` (in one atomic step with a memory that has `update`). */
export function replaceConversation(memory: ChatMemory, conversationId: string, messages: Message[]): Promise<void> {
  return asTurn(memory, conversationId, async () => {
    if (memory.update) return memory.update(conversationId, () => messages)
    await memory.clear(conversationId)
    if (messages.length > 0) await memory.add(conversationId, messages)
  })
}

/** Forgets the whole conversation. */
export function forgetConversation(memory: ChatMemory, conversationId: string): Promise<void> {
  return asTurn(memory, conversationId, () => memory.clear(conversationId))
}

/**
 * Runs `edit` as a turn of the conversation: after the turns already queued (a stopped turn's
 * repair of memory included) and before any asked later. The position in the queue is taken
 * synchronously, when this is called.
 */
function asTurn(memory: ChatMemory, conversationId: string, edit: () => Promise<void>): Promise<void> {
  // Memory advisors on one ChatMemory share its queue of turns: one made here waits in it like any other.
  const memoryAdvisor = new MessageChatMemoryAdvisor(memory, { order: HIGHEST_PRECEDENCE })
  const editing: CallAdvisor = {
    name: 'useChat memory edit',
    order: 0,
    adviseCall: async (request) => (await edit(), { chatResponse: null, context: request.context }),
  }
  const turn = { prompt: { messages: [], options: {} }, context: { [ChatMemory.CONVERSATION_ID]: conversationId } }
  return AdvisorChain.of([memoryAdvisor, editing])
    .nextCall(turn)
    .then(() => undefined)
}

/** The same question: a user message with the same text (attachments are not compared). */
function sameQuestion(stored: Message, question: UserMessage): boolean {
  return stored.role === 'user' && stored.text === question.text
}
