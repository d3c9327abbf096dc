import { MessageChatMemoryAdvisor } from '../advisors'
import { AdvisorChain, HIGHEST_PRECEDENCE, type CallAdvisor, type Message, type UserMessage } from '../core'
import { ChatMemory } from '../memory'

/**
 * Forgets the turn that asked `question` (from that user message on), when it is the last turn
 * memory holds, so asking it again stores it once.
 */
export function forgetTurn(memory: ChatMemory, conversationId: string, question: UserMessage): Promise<void> {
  return asTurn(memory, conversationId, async () => {
    const stored = await memory.get(conversationId)
    const lastUser = stored.findLastIndex((message) => message.role === 'user')
    if (lastUser < 0 || !sameQuestion(stored[lastUser]!, question)) return
    await memory.clear(conversationId)
    if (lastUser > 0) await memory.add(conversationId, stored.slice(0, lastUser))
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
