import { describe, expect, it } from 'vitest'
import { imagePart, registerSecret, type Message } from '../core'
import { defineTool } from '../tools'
import { ChatClient } from '../client'
import { MessageChatMemoryAdvisor, ObserverAdvisor } from '../advisors'
import { MessageWindowChatMemory } from '../memory'
import { ScriptedChatModel, type ScriptStep } from '../models'
import { TraceCollector, TraceReader, validateEvent, type TraceEventOf } from '../trace'
import { collect } from '../core/testing/collect'
import { HashingEmbeddingModel } from './hashing-embedding'
import { InMemoryVectorStore } from './in-memory-store'
import { QuestionAnswerAdvisor } from './question-answer-advisor'
import type { ScoredDocument } from './document'

const documents = [
  { id: 'hours.md', text: 'The shop opens at nine and closes at five.', metadata: { topic: 'hours' } },
  { id: 'returns.md', text: 'Returns are accepted within thirty days.', metadata: { topic: 'policy' } },
  { id: 'delivery.md', text: 'Delivery takes two days.', metadata: { topic: 'policy' } },
]

async function storeWithDocuments() {
  const store = new InMemoryVectorStore(new HashingEmbeddingModel())
  await store.add(documents)
  return store
}

async function setup(
  script: ScriptStep[],
  build = (builder: ReturnType<typeof QuestionAnswerAdvisor.builder>) => builder,
) {
  const store = await storeWithDocuments()
  const collector = new TraceCollector()
  const model = new ScriptedChatModel(script)
  const advisor = build(QuestionAnswerAdvisor.builder(store)).build()
  const client = ChatClient.builder(model)
    .defaultAdvisors(advisor, new ObserverAdvisor({ sink: collector }))
    .build()
  return { client, model, collector, store }
}

const lastUserText = (messages: Message[]) => messages.findLast((message) => message.role === 'user')!.text
const retrievals = (collector: TraceCollector) =>
  collector.events.filter((event): event is TraceEventOf<'retrieval'> => event.type === 'retrieval')

describe('QuestionAnswerAdvisor', () => {
  it("puts the retrieved documents into the user message through Spring AI's template (call)", async () => {
    const { client, model } = await setup(['At nine.'])
    const answer = await client.prompt('When does the shop open?').call().chatClientResponse()
    const sent = lastUserText(model.prompts[0]!.messages)
    expect(
      sent.startsWith('When does the shop open?\n\nContext information is below, surrounded by ---------------------'),
    ).toBe(true)
    expect(sent).toContain('---------------------\nThe shop opens at nine and closes at five.\n')
    expect(sent).toContain("If the answer is not in the context, inform\nthe user that you can't answer the question.")
    const found = answer.context[QuestionAnswerAdvisor.RETRIEVED_DOCUMENTS] as ScoredDocument[]
    expect(found[0]!.id).toBe('hours.md')
    expect(answer.chatResponse!.metadata[QuestionAnswerAdvisor.RETRIEVED_DOCUMENTS]).toBe(found)
  })

  it('does the same in a stream, the documents on every chunk’s context and on the last chunk’s metadata', async () => {
    const { client, model } = await setup(['It opens at nine.'])
    const chunks = await collect(client.prompt('When does the shop open?').stream().chatClientResponse())
    expect(lastUserText(model.prompts[0]!.messages)).toContain('The shop opens at nine')
    for (const chunk of chunks) expect(chunk.context[QuestionAnswerAdvisor.RETRIEVED_DOCUMENTS]).toBeDefined()
    const last = chunks.at(-1)!.chatResponse!
    expect((last.metadata[QuestionAnswerAdvisor.RETRIEVED_DOCUMENTS] as ScoredDocument[])[0]!.id).toBe('hours.md')
    for (const chunk of chunks.slice(0, -1))
      expect(chunk.chatResponse!.metadata[QuestionAnswerAdvisor.RETRIEVED_DOCUMENTS]).toBeUndefined()
  })

  it('takes topK, minScore and the template from its builder', async () => {
    const { client, model } = await setup(['ok'], (builder) =>
      builder.topK(1).minScore(0.05).promptTemplate('Q: {query}\nDocs:\n{question_answer_context}'),
    )
    await client.prompt('returns within thirty days?').call().content()
    expect(lastUserText(model.prompts[0]!.messages)).toBe(
      'Q: returns within thirty days?\nDocs:\nReturns are accepted within thirty days.',
    )
  })

  it("leaves a placeholder in the user's question as the user's text", async () => {
    const { client, model } = await setup(['ok'], (builder) =>
      builder.topK(1).promptTemplate('Q: {query}\nDocs:\n{question_answer_context}'),
    )
    await client.prompt('What does {question_answer_context} or {query} mean, returns?').call().content()
    expect(lastUserText(model.prompts[0]!.messages)).toBe(
      'Q: What does {question_answer_context} or {query} mean, returns?\nDocs:\nReturns are accepted within thirty days.',
    )
  })

  it('takes a filter, topK and minScore for one request through advisor params', async () => {
    const { client, model } = await setup(['ok', 'ok'])
    await client
      .prompt('When does the shop open?')
      .advisorParams({
        [QuestionAnswerAdvisor.FILTER_EXPRESSION]: (metadata: Record<string, unknown>) =>
          metadata['topic'] === 'policy',
        [QuestionAnswerAdvisor.TOP_K]: 1,
      })
      .call()
      .content()
    const sent = lastUserText(model.prompts[0]!.messages)
    expect(sent).not.toContain('The shop opens')
    expect(sent.match(/Returns|Delivery/g)).toHaveLength(1)
    await client
      .prompt('When does the shop open?')
      .advisorParams({ [QuestionAnswerAdvisor.MIN_SCORE]: 0.99 })
      .call()
      .content()
    expect(lastUserText(model.prompts[1]!.messages)).toContain('---------------------\n\n---------------------')
  })

  it('refuses a filter param that is not a function, and a template without its placeholders', async () => {
    const { client } = await setup(['ok'])
    await expect(
      client
        .prompt('hours?')
        .advisorParams({ [QuestionAnswerAdvisor.FILTER_EXPRESSION]: "topic == 'policy'" })
        .call()
        .content(),
    ).rejects.toThrow('Advisor param qa_filter_expression must be a function (metadata) => boolean')
    const store = await storeWithDocuments()
    expect(() => QuestionAnswerAdvisor.builder(store).promptTemplate('Answer {query}').build()).toThrow(
      'must contain {query} and {question_answer_context}; missing {question_answer_context}',
    )
  })

  it('sits outside the tool loop: one retrieval for a call with tool rounds', async () => {
    const { client, store } = await setup([
      { toolCalls: [{ id: 't1', name: 'clock', arguments: {} }] },
      'It is nine, the shop is open.',
    ])
    let searches = 0
    const search = store.search.bind(store)
    store.search = (query) => (searches++, search(query))
    const clock = defineTool({
      name: 'clock',
      description: 'Time',
      inputSchema: { type: 'object' },
      execute: () => '09:00',
    })
    await client.prompt('Is the shop open now?').tools(clock).call().content()
    expect(searches).toBe(1)
    expect(QuestionAnswerAdvisor.DEFAULT_ORDER).toBeLessThan(-2147483648 + 300)
  })

  it('keeps images of the user message and leaves a message that is not the user’s alone', async () => {
    const { client, model } = await setup(['ok'])
    await client
      .prompt()
      .messages({
        role: 'user',
        text: 'hours?',
        parts: [{ type: 'text', text: 'hours?' }, imagePart('https://example.test/a.png')],
      })
      .call()
      .content()
    const sent = model.prompts[0]!.messages.at(-1)!
    expect(sent.role === 'user' && sent.parts?.map((part) => part.type)).toEqual(['text', 'image'])
    expect(lastUserText(model.prompts[0]!.messages)).toContain('Context information')
  })

  it('lets memory store the question as asked, not the augmented one', async () => {
    const store = await storeWithDocuments()
    const memory = MessageWindowChatMemory.builder().maxMessages(10).build()
    const model = new ScriptedChatModel(['At nine.'])
    const client = ChatClient.builder(model)
      .defaultAdvisors(
        MessageChatMemoryAdvisor.builder(memory).conversationId('c1').build(),
        QuestionAnswerAdvisor.builder(store).build(),
      )
      .build()
    await client.prompt('When does the shop open?').call().content()
    expect((await memory.get('c1')).map((message) => message.role === 'user' && message.text)).toContain(
      'When does the shop open?',
    )
    expect(JSON.stringify(await memory.get('c1'))).not.toContain('Context information')
  })

  it('records a retrieval event with the query, the documents and their scores under round 1', async () => {
    const { client, collector } = await setup(['At nine.'], (builder) => builder.topK(2))
    await client.prompt('When does the shop open?').call().content()
    const [event] = retrievals(collector)
    expect(event).toMatchObject({
      round: 1,
      advisor: 'Question Answer Advisor',
      query: 'When does the shop open?',
      topK: 2,
      minScore: 0,
    })
    expect(event!.documents.map((document) => document.id)).toEqual(['hours.md', expect.any(String)])
    expect(event!.documents[0]).toMatchObject({ text: documents[0]!.text, metadata: { topic: 'hours' } })
    expect(validateEvent(JSON.parse(JSON.stringify(event)))).toEqual(event)
    const reader = new TraceReader()
    for (const traced of collector.events) reader.add(traced, true)
    const run = reader.runs()[0]!
    expect(run.rounds[0]!.retrievals).toHaveLength(1)
    expect(run.rounds).toHaveLength(1)
  })

  it('titles the run with the question, not the template around it, in whatever order the events come', async () => {
    const { client, collector } = await setup(['At nine.'])
    await client.prompt('When does the shop open?').call().content()
    for (const events of [collector.events, [...collector.events].reverse()]) {
      const reader = new TraceReader()
      for (const traced of events) reader.add(traced, true)
      expect(reader.runs()[0]!.label).toBe('When does the shop open?')
    }
  })

  it('records the retrieval of a stream too, and masks secrets and long texts in the trace', async () => {
    const secret = 'sk-test-retrieval-secret-123456'
    registerSecret(secret)
    const store = new InMemoryVectorStore(new HashingEmbeddingModel())
    await store.add([{ id: 'keys.md', text: `The key is ${secret}. ${'filler '.repeat(200)}` }])
    const collector = new TraceCollector()
    const client = ChatClient.builder(new ScriptedChatModel(['ok']))
      .defaultAdvisors(QuestionAnswerAdvisor.builder(store).build(), new ObserverAdvisor({ sink: collector }))
      .build()
    await collect(client.prompt('what is the key?').stream().content())
    const [event] = retrievals(collector)
    expect(event!.documents[0]!.text).not.toContain(secret)
    expect(event!.documents[0]!.text.length).toBeLessThanOrEqual(501)
  })

  it('runs before the model is asked and rejects the call when the store fails', async () => {
    const model = new ScriptedChatModel(['never'])
    const client = ChatClient.builder(model)
      .defaultAdvisors(
        QuestionAnswerAdvisor.builder({
          add: async () => {},
          delete: async () => {},
          search: async () => {
            throw new Error('IndexedDB is gone')
          },
        }).build(),
      )
      .build()
    await expect(client.prompt('hours?').call().content()).rejects.toThrow('IndexedDB is gone')
    expect(model.prompts).toHaveLength(0)
  })
})
