import { describe, expect, it } from 'vitest'
import { ChatClient } from '../client'
import { ObserverAdvisor } from '../advisors'
import { ScriptedChatModel } from '../models'
import { TraceCollector, type TraceEventOf } from '../trace'
import { HashingEmbeddingModel } from './hashing-embedding'
import { InMemoryVectorStore } from './in-memory-store'
import { retrievalTool } from './retrieval-tool'

async function store() {
  const documents = new InMemoryVectorStore(new HashingEmbeddingModel())
  await documents.add([
    { id: 'hours.md', text: 'The shop opens at nine.', metadata: { file: 'hours.md' } },
    { id: 'returns.md', text: 'Returns within thirty days.' },
  ])
  return documents
}

const toolResponses = (model: ScriptedChatModel) =>
  model.prompts
    .flatMap((prompt) => prompt.messages)
    .flatMap((message) => (message.role === 'tool' ? message.responses : []))

describe('retrievalTool', () => {
  it('lets the model search the documents inside the tool loop, answering with JSON best first', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 's1', name: 'search_documents', arguments: { query: 'when does the shop open' } }] },
      'At nine.',
    ])
    const collector = new TraceCollector()
    const client = ChatClient.builder(model)
      .defaultTools(retrievalTool(await store(), { topK: 1 }))
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .build()
    expect(await client.prompt('Is it open at 9?').call().content()).toBe('At nine.')
    expect(model.prompts[0]!.options.tools?.map((tool) => tool.definition.name)).toEqual(['search_documents'])
    const [response] = toolResponses(model)
    const found = JSON.parse(response!.responseData) as Array<{ id: string; score: number; text: string }>
    expect(found).toHaveLength(1)
    expect(found[0]).toMatchObject({ id: 'hours.md', text: 'The shop opens at nine.', metadata: { file: 'hours.md' } })
    const end = collector.events.find((event): event is TraceEventOf<'tool-end'> => event.type === 'tool-end')!
    expect(end.detail).toMatchObject({ query: 'when does the shop open', documents: [{ id: 'hours.md' }] })
  })

  it('takes a name and description, and says so when nothing matches', async () => {
    const empty = new InMemoryVectorStore(new HashingEmbeddingModel())
    const tool = retrievalTool(empty, { name: 'search_notes', description: 'Searches my notes' })
    expect(tool.definition).toMatchObject({ name: 'search_notes', description: 'Searches my notes' })
    const answer = await tool.call('{"query":"anything"}', {
      values: {},
      advisorContext: {},
      toolCall: { id: 'x', name: 'search_notes', arguments: '' },
    })
    expect(answer).toBe('No document matches the query.')
  })

  it('answers arguments without a query with an Error: response the model can repair', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 's1', name: 'search_documents', arguments: { q: 'hours' } }] },
      'Sorry.',
    ])
    const client = ChatClient.builder(model)
      .defaultTools(retrievalTool(await store()))
      .build()
    await client.prompt('hours?').call().content()
    expect(toolResponses(model)[0]!.responseData).toMatch(/^Error: invalid arguments for tool 'search_documents'/)
  })

  it('passes the loop’s AbortSignal to the search', async () => {
    const controller = new AbortController()
    controller.abort()
    const tool = retrievalTool(await store())
    await expect(
      tool.call('{"query":"hours"}', {
        values: {},
        advisorContext: {},
        toolCall: { id: 'x', name: 'search_documents', arguments: '' },
        signal: controller.signal,
      }),
    ).rejects.toMatchObject({ name: 'AbortError' })
  })
})
