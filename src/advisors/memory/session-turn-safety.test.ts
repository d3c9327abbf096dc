// Whatever the strategy, and whether memory sits outside or inside the tool loop, every prompt the
// model gets keeps each tool call with its result and starts its conversation at a turn.
import { describe, expect, it } from 'vitest'
import { HIGHEST_PRECEDENCE, type Message, type Prompt } from '../../core'
import { ChatClient } from '../../client'
import { ScriptedChatModel, type ScriptStep } from '../../models'
import {
  DefaultSessionService,
  InMemorySessionRepository,
  RecursiveSummarizationCompactionStrategy,
  SlidingWindowCompactionStrategy,
  TokenCountCompactionStrategy,
  TurnCountTrigger,
  TurnWindowCompactionStrategy,
  type CompactionStrategy,
  type SummaryClient,
} from '../../session'
import { seeded, toolPairsWhole } from '../../session/testing/events'
import { defineTool } from '../../tools'
import { SessionMemoryAdvisor } from './session-memory-advisor'

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a word up',
  inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  execute: ({ n }: { n: number }) => `entry ${n} `.repeat(8),
})

function summaries(random: () => number): SummaryClient {
  const spec = {
    system: () => spec,
    user: () => spec,
    signal: () => spec,
    call: () => ({
      content: () => (random() < 0.3 ? Promise.reject(new Error('summary failed')) : Promise.resolve('short summary')),
    }),
  }
  return { prompt: () => spec }
}

const strategies: Record<string, (random: () => number) => CompactionStrategy> = {
  'sliding window': (random) => new SlidingWindowCompactionStrategy(1 + Math.floor(random() * 8)),
  'turn window': (random) => new TurnWindowCompactionStrategy(1 + Math.floor(random() * 3)),
  'token count': (random) => new TokenCountCompactionStrategy(50 + Math.floor(random() * 300)),
  'recursive summarization': (random) =>
    new RecursiveSummarizationCompactionStrategy(summaries(random), 1 + Math.floor(random() * 6), 0),
}

/** The prompt without its system messages and a summary in front: what must start at a turn. */
function conversation(messages: readonly Message[]): Message[] {
  const rest = messages.filter((message) => message.role !== 'system')
  return rest[0]?.role === 'user' && rest[0].text.startsWith('Summarize') ? rest.slice(2) : rest
}

describe.each(Object.keys(strategies))('%s compaction seen by the model', (name) => {
  it.each([
    ['outside the tool loop', SessionMemoryAdvisor.DEFAULT_ORDER],
    ['inside the tool loop', HIGHEST_PRECEDENCE + 400],
  ])('%s, never separates a tool call from its result', async (_where, order) => {
    for (let seed = 1; seed <= 12; seed++) {
      const random = seeded(seed * 7919)
      const model = new ScriptedChatModel((prompt: Prompt): ScriptStep => {
        const last = prompt.messages.at(-1)!
        const rounds = prompt.messages.filter((message) => message.role === 'tool').length
        if (last.role === 'user' || (last.role === 'tool' && random() < 0.5 && rounds < 40))
          return { toolCalls: [{ name: 'lookup', arguments: { n: Math.floor(random() * 100) } }] }
        return `answer ${Math.floor(random() * 1000)}`
      })
      const advisor = SessionMemoryAdvisor.builder(new DefaultSessionService(new InMemorySessionRepository()))
        .order(order)
        .compactionTrigger(new TurnCountTrigger(1 + Math.floor(random() * 3)))
        .compactionStrategy(strategies[name]!(random))
        .build()
      const client = ChatClient.builder(model).defaultTools(lookup).defaultAdvisors(advisor).build()
      for (let turn = 0; turn < 8; turn++) await client.prompt(`question ${turn}`).call().content()
      for (const [index, prompt] of model.prompts.entries()) {
        const context = `seed ${seed}, prompt ${index}`
        const sent = conversation(prompt.messages)
        expect(sent[0]?.role, context).toBe('user')
        // The round in progress ends with its own call's result, answered by this prompt's model call.
        expect(toolPairsWhole(sent), context).toBe(true)
      }
    }
  })
})
