import { afterEach, describe, expect, it, vi } from 'vitest'
import { ChatResponseAggregator, type ChatModel } from '../../core'
import { ChatClient } from '../../client'
import { ScriptedChatModel } from '../../models'
import { defineTool } from '../../tools'
import { TraceCollector } from '../../trace'
import { collect } from '../../core/testing/collect'
import { ObserverAdvisor } from './observer'

const weather = defineTool({
  name: 'weather',
  description: 'Weather in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: ({ city }) => `sunny in ${city}`,
})

/** The scripted model, counting the chunks it streams. */
function countingModel(): { model: ChatModel & { prompts: ScriptedChatModel['prompts'] }; streamed: () => number } {
  const scripted = new ScriptedChatModel([
    {
      text: 'Let me look it up.',
      toolCalls: [{ id: 't1', name: 'weather', arguments: { city: 'Paris' } }],
    },
    'It is sunny in Paris today.',
  ])
  let streamed = 0
  const model = Object.assign(Object.create(scripted) as ScriptedChatModel, {
    stream: async function* (prompt: Parameters<ChatModel['stream']>[0], signal?: AbortSignal) {
      for await (const chunk of scripted.stream(prompt, signal)) {
        streamed++
        yield chunk
      }
    },
  })
  return { model, streamed: () => streamed }
}

describe('The tool loop and the observer inside it', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('fold each streamed chunk once: the loop takes the aggregate the observer keeps', async () => {
    const { model, streamed } = countingModel()
    const add = vi.spyOn(ChatResponseAggregator.prototype, 'add')
    const collector = new TraceCollector()
    const client = ChatClient.builder(model)
      .defaultTools(weather)
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .build()
    expect((await collect(client.prompt('Weather in Paris?').stream().content())).join('')).toBe(
      'Let me look it up.It is sunny in Paris today.',
    )
    expect(add).toHaveBeenCalledTimes(streamed())
    // The loop's round response is the whole first answer: its text and tool call reach the next prompt.
    const answered = model.prompts[1]!.messages.find((message) => message.role === 'assistant')!
    expect(answered).toMatchObject({ text: 'Let me look it up.', toolCalls: [{ id: 't1', name: 'weather' }] })
    expect(collector.ofType('model-response').map((event) => event.text)).toEqual([
      'Let me look it up.',
      'It is sunny in Paris today.',
    ])
  })

  it('fold them in the loop when nothing below it keeps an aggregate', async () => {
    const { model, streamed } = countingModel()
    const add = vi.spyOn(ChatResponseAggregator.prototype, 'add')
    const client = ChatClient.builder(model).defaultTools(weather).build()
    await collect(client.prompt('Weather in Paris?').stream().content())
    expect(add).toHaveBeenCalledTimes(streamed())
    const answered = model.prompts[1]!.messages.find((message) => message.role === 'assistant')!
    expect(answered).toMatchObject({ text: 'Let me look it up.', toolCalls: [{ id: 't1', name: 'weather' }] })
  })
})
