import { describe, expect, it } from 'vitest'
import {
  ApprovalQueue,
  LoopBudgetAdvisor,
  MessageChatMemoryAdvisor,
  ObserverAdvisor,
  RetryAdvisor,
  ToolApprovalAdvisor,
} from '../advisors'
import { InMemoryChatMemoryRepository, MessageWindowChatMemory } from '../memory'
import { ScriptedChatModel } from '../models'
import { ChatClient } from './client'

/** Microtask turns until `promise` settles. */
async function turnsUntil(promise: Promise<unknown>): Promise<number> {
  let settled = false
  void promise.then(() => (settled = true))
  let turns = 0
  while (!settled) {
    await Promise.resolve()
    turns++
  }
  return turns
}

/** Turns for each of `count` text chunks after the first few, read from `stream`. */
async function turnsPerChunk(stream: AsyncIterable<unknown>, count: number): Promise<number[]> {
  const iterator = stream[Symbol.asyncIterator]()
  for (let i = 0; i < 3; i++) await iterator.next()
  const turns: number[] = []
  for (let i = 0; i < count; i++) turns.push(await turnsUntil(iterator.next()))
  await iterator.return?.()
  return turns
}

const words = Array.from({ length: 40 }, (_, index) => `w${index} `)

describe('the stream layers of a chain', () => {
  it('hand a text chunk to the caller in as many microtask turns with every built-in layer as with none', async () => {
    const bare = ChatClient.create(new ScriptedChatModel([{ chunks: words }]))
    const memory = MessageWindowChatMemory.builder().chatMemoryRepository(new InMemoryChatMemoryRepository()).build()
    const full = ChatClient.builder(new ScriptedChatModel([{ chunks: words }, { chunks: words }]))
      .defaultAdvisors(
        MessageChatMemoryAdvisor.builder(memory).build(),
        new ObserverAdvisor({ sink: { emit() {} } }),
        new RetryAdvisor(),
        new ToolApprovalAdvisor({ handler: new ApprovalQueue().handler }),
        new LoopBudgetAdvisor({ maxRounds: 5 }),
      )
      .build()
    const alone = await turnsPerChunk(bare.prompt('q').stream().content(), 10)
    const layered = await turnsPerChunk(full.prompt('q').stream().content(), 10)
    const parts = await turnsPerChunk(full.prompt('q').stream().parts(), 10)
    expect(layered).toEqual(alone)
    expect(Math.max(...parts)).toBeLessThanOrEqual(Math.max(...alone) + 2)
  })
})
