import { describe, expect, it } from 'vitest'
import { MessageChatMemoryAdvisor } from '../../advisors'
import { AdvisorChain, assistantMessage, type CallAdvisor, type Message } from '../../core'
import { ChatMemory, MessageWindowChatMemory } from '../../memory'
import { forgetConversation, forgetTurn } from './memory-edits'

const question = (text: string) => ({ role: 'user' as const, text })

async function memoryWith(messages: Message[]): Promise<ChatMemory> {
  const memory = MessageWindowChatMemory.builder().maxMessages(40).build()
  await memory.add('c', messages)
  return memory
}

/** A turn of a memory advisor on `memory` that holds the conversation until `release` settles, then stores an answer. */
function heldTurn(memory: ChatMemory, release: Promise<void>, log: string[]): Promise<unknown> {
  const answering: CallAdvisor = {
    name: 'answering',
    order: 0,
    adviseCall: async (request) => {
      await release
      log.push('turn ended')
      return {
        chatResponse: { results: [{ output: assistantMessage('Late answer.'), metadata: {} }], metadata: {} },
        context: request.context,
      }
    },
  }
  return AdvisorChain.of([MessageChatMemoryAdvisor.builder(memory).build(), answering]).nextCall({
    prompt: { messages: [question('late')], options: {} },
    context: { [ChatMemory.CONVERSATION_ID]: 'c' },
  })
}

describe('memory edits of useChat', () => {
  it('forgetTurn removes the last turn, from the question on', async () => {
    const memory = await memoryWith([question('a'), assistantMessage('A.'), question('b'), assistantMessage('B.')])
    await forgetTurn(memory, 'c', question('b'))
    expect(await memory.get('c')).toEqual([question('a'), assistantMessage('A.')])
  })

  it('forgetTurn is one atomic update when the memory has one: it never clears the conversation', async () => {
    const memory = await memoryWith([question('a'), assistantMessage('A.'), question('b'), assistantMessage('B.')])
    const calls: string[] = []
    const watched: ChatMemory = {
      get: (id) => memory.get(id),
      add: (id, messages) => (calls.push('add'), memory.add(id, messages)),
      clear: (id) => (calls.push('clear'), memory.clear(id)),
      update: (id, change) => (calls.push('update'), memory.update!(id, change)),
    }
    await forgetTurn(watched, 'c', question('b'))
    expect(calls).toEqual(['update'])
    expect(await memory.get('c')).toEqual([question('a'), assistantMessage('A.')])
  })

  it('forgetTurn on a memory without update clears and adds back what is kept', async () => {
    const memory = await memoryWith([question('a'), assistantMessage('A.'), question('b'), assistantMessage('B.')])
    const calls: string[] = []
    const plain: ChatMemory = {
      get: (id) => memory.get(id),
      add: (id, messages) => (calls.push('add'), memory.add(id, messages)),
      clear: (id) => (calls.push('clear'), memory.clear(id)),
    }
    await forgetTurn(plain, 'c', question('b'))
    await forgetTurn(plain, 'c', question('b'))
    expect(calls).toEqual(['clear', 'add'])
    expect(await memory.get('c')).toEqual([question('a'), assistantMessage('A.')])
  })

  it('forgetTurn leaves memory alone when its last turn asked something else (the question was never stored)', async () => {
    const stored = [question('a'), assistantMessage('A.')]
    const memory = await memoryWith(stored)
    await forgetTurn(memory, 'c', question('b'))
    expect(await memory.get('c')).toEqual(stored)
  })

  it('forgetTurn waits for a turn that holds the conversation, and forgets what that turn stored', async () => {
    const memory = await memoryWith([question('a'), assistantMessage('A.')])
    const log: string[] = []
    let release!: () => void
    const turn = heldTurn(memory, new Promise<void>((resolve) => (release = resolve)), log)
    const forgotten = forgetTurn(memory, 'c', question('late')).then(() => log.push('forgotten'))
    release()
    await Promise.all([turn, forgotten])
    expect(log).toEqual(['turn ended', 'forgotten'])
    expect(await memory.get('c')).toEqual([question('a'), assistantMessage('A.')])
  })

  it('forgetConversation waits for a turn that holds the conversation, then empties it', async () => {
    const memory = await memoryWith([question('a'), assistantMessage('A.')])
    const log: string[] = []
    let release!: () => void
    const turn = heldTurn(memory, new Promise<void>((resolve) => (release = resolve)), log)
    const cleared = forgetConversation(memory, 'c').then(() => log.push('forgotten'))
    release()
    await Promise.all([turn, cleared])
    expect(log).toEqual(['turn ended', 'forgotten'])
    expect(await memory.get('c')).toEqual([])
  })
})
