import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HIGHEST_PRECEDENCE, assistantMessage, userMessage, type Message } from '../../core'
import { ChatClient } from '../../client'
import { MessageWindowChatMemory, InMemoryChatMemoryRepository, type ChatMemoryRepository } from '../../memory'
import { ScriptedChatModel } from '../../models'
import { collect } from '../../core/testing/collect'
import { defineTool } from '../../tools'
import { TraceCollector } from '../../trace'
import { ObserverAdvisor } from '../observer/observer'
import { MessageChatMemoryAdvisor } from '.'

const INSIDE = HIGHEST_PRECEDENCE + 350

const unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => unhandled.push(reason)
beforeAll(() => process.on('unhandledRejection', onUnhandled))
afterAll(() => {
  process.off('unhandledRejection', onUnhandled)
  expect(unhandled).toEqual([])
})

/** A repository with only the four required methods, slow enough for writes to overlap. */
class PlainRepository implements ChatMemoryRepository {
  readonly #inner = new InMemoryChatMemoryRepository()
  findConversationIds = () => this.#inner.findConversationIds()
  async findByConversationId(id: string) {
    await new Promise((resolve) => setTimeout(resolve, 1))
    return this.#inner.findByConversationId(id)
  }
  async saveAll(id: string, messages: Message[]) {
    await new Promise((resolve) => setTimeout(resolve, 1))
    return this.#inner.saveAll(id, messages)
  }
  deleteByConversationId = (id: string) => this.#inner.deleteByConversationId(id)
}

/** Every tool call has its response right after it, each answered once: what providers accept. */
function expectWellFormed(messages: readonly Message[]) {
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!
    if (message.role !== 'assistant' || message.toolCalls.length === 0) continue
    const next = messages[i + 1]
    expect(next?.role).toBe('tool')
    if (next?.role === 'tool') expect(next.responses.map((r) => r.id)).toEqual(message.toolCalls.map((c) => c.id))
  }
}

const slowWeather = defineTool({
  name: 'weather',
  description: 'Weather',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  execute: async ({ city }) => {
    await new Promise((resolve) => setTimeout(resolve, 20))
    return `sunny in ${String(city)}`
  },
})

describe('MessageChatMemoryAdvisor takes turns on one conversation', () => {
  it('keeps every one of 20 concurrent adds on a repository without update', async () => {
    const memory = MessageWindowChatMemory.builder()
      .chatMemoryRepository(new PlainRepository())
      .maxMessages(100)
      .build()
    await Promise.all(Array.from({ length: 20 }, (_, i) => memory.add('c', [userMessage(`m${i}`)])))
    expect((await memory.get('c')).map((m) => (m.role === 'user' ? m.text : ''))).toEqual(
      Array.from({ length: 20 }, (_, i) => `m${i}`),
    )
  })

  it.each(['call', 'stream'] as const)(
    'runs two overlapping %s turns with memory inside the loop one after the other, storing only what happened',
    async (mode) => {
      const memory = MessageWindowChatMemory.builder()
        .chatMemoryRepository(new PlainRepository())
        .maxMessages(100)
        .build()
      const model = new ScriptedChatModel((prompt) => {
        const last = prompt.messages.at(-1)!
        if (last.role === 'user') return { toolCalls: [{ name: 'weather', arguments: { city: last.text } }] }
        return `done with ${last.role === 'tool' ? last.responses[0]!.responseData : '?'}`
      })
      const client = ChatClient.builder(model)
        .defaultTools(slowWeather)
        .defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).order(INSIDE).build())
        .build()
      const ask = (city: string) =>
        mode === 'call'
          ? client.prompt(city).call().content()
          : collect(client.prompt(city).stream().content()).then((parts) => parts.join(''))
      const answers = await Promise.all([ask('Oslo'), ask('Rome')])
      expect(answers).toEqual(['done with sunny in Oslo', 'done with sunny in Rome'])
      const stored = await memory.get('default')
      expectWellFormed(stored)
      expect(JSON.stringify(stored)).not.toContain('Error: no result')
      expect(stored.map((m) => m.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'assistant',
        'user',
        'assistant',
        'tool',
        'assistant',
      ])
    },
  )

  it('lets a turn waiting for its conversation be aborted', async () => {
    const memory = MessageWindowChatMemory.builder().build()
    let release!: () => void
    const model = new ScriptedChatModel([
      () => new Promise<string>((resolve) => (release = () => resolve('first'))),
      'second',
    ])
    const client = ChatClient.builder(model).defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).build()).build()
    const first = client.prompt('one').call().content()
    const controller = new AbortController()
    const second = client.prompt('two').signal(controller.signal).call().content()
    await expect.poll(() => model.prompts.length).toBe(1)
    controller.abort()
    await expect(second).rejects.toMatchObject({ name: 'AbortError' })
    release()
    expect(await first).toBe('first')
    expect(await client.prompt('three').call().content()).toBe('second')
  })

  it('repairs a stored tool turn whose response record is gone, and says so in a warning event', async () => {
    const memory = MessageWindowChatMemory.builder().build()
    await memory.add('default', [
      userMessage('Weather?'),
      assistantMessage('', [{ id: 'w1', name: 'weather', arguments: '{"city":"Oslo"}' }]),
      assistantMessage('Sunny.'),
    ])
    const collector = new TraceCollector()
    const model = new ScriptedChatModel(['Fine.'])
    await ChatClient.builder(model)
      .defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).build(), new ObserverAdvisor({ sink: collector }))
      .build()
      .prompt('And tomorrow?')
      .call()
      .content()
    expectWellFormed(model.prompts[0]!.messages)
    expect((await memory.get('default')).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    const warnings = collector.ofType('note').filter((note) => note.level === 'warning')
    expect(warnings.map((w) => w.message)).toEqual(['memory dropped 1 tool call or response without its counterpart'])
  })
})
