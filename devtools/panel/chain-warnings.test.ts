// Runs recorded for real, through the library's layers (a test may reach past the trace entry).
import { MessageChatMemoryAdvisor, ObserverAdvisor, ToolCallingAdvisor } from '../../src/advisors'
import { ChatClient } from '../../src/client'
import { HIGHEST_PRECEDENCE, type Advisor, type CallAdvisor } from '../../src/core'
import { InMemoryChatMemoryRepository, MessageWindowChatMemory } from '../../src/memory'
import { ScriptedChatModel } from '../../src/models'
import { defineTool } from '../../src/tools'
import { TraceCollector, TraceReader, type RunView } from 'advisor-chain/trace'
import { describe, expect, it } from 'vitest'
import { chainWarnings } from './ChainView'

const weather = defineTool({
  name: 'weather',
  description: 'Weather in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  execute: ({ city }) => `sunny in ${String(city)}`,
})

async function recorded(...advisors: Advisor[]): Promise<RunView> {
  const sink = new TraceCollector()
  const model = new ScriptedChatModel([
    { toolCalls: [{ id: 't1', name: 'weather', arguments: { city: 'Oslo' } }] },
    { text: 'Sunny.' },
  ])
  const client = ChatClient.builder(model)
    .defaultTools(weather)
    .defaultAdvisors(new ObserverAdvisor({ sink, performanceTrack: false }), ...advisors)
    .build()
  await client.prompt('Weather in Oslo?').call().content()
  const reader = new TraceReader()
  for (const event of sink.events) reader.add(event, true)
  return reader.runs()[0]!
}

const memoryInsideTheLoop = () =>
  MessageChatMemoryAdvisor.builder(
    MessageWindowChatMemory.builder().chatMemoryRepository(new InMemoryChatMemoryRepository()).build(),
  )
    .order(HIGHEST_PRECEDENCE + 350)
    .build()

const historyWarning = (run: RunView) => chainWarnings(run).filter((warning) => warning.includes('sent twice'))

describe('the chain view’s warning about a history sent twice', () => {
  it('stays quiet for memory inside the loop as the README places it: each message goes once', async () => {
    expect(historyWarning(await recorded(memoryInsideTheLoop()))).toEqual([])
  })

  it('stays quiet when the tool advisor keeps its own history beside memory inside the loop', async () => {
    const toolLoop = ToolCallingAdvisor.builder().build()
    expect(historyWarning(await recorded(memoryInsideTheLoop(), toolLoop))).toEqual([])
  })

  it('speaks when a round’s prompt holds a tool call and its result twice', async () => {
    // An advisor inside the loop that appends the history it is given once more.
    const doubling: CallAdvisor = {
      name: 'Doubling Memory',
      order: HIGHEST_PRECEDENCE + 360,
      adviseCall: (request, chain) => {
        const messages = request.prompt.messages
        const rounds = messages.filter((message) => message.role === 'assistant' || message.role === 'tool')
        return chain.nextCall({ ...request, prompt: { ...request.prompt, messages: [...messages, ...rounds] } })
      },
    }
    expect(historyWarning(await recorded(memoryInsideTheLoop(), doubling))).toHaveLength(1)
  })
})
