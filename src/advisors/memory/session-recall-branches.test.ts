// What left the view stays findable (conversation_search), and sub-agents keep to their branches.
import { describe, expect, it } from 'vitest'
import type { Message, Prompt } from '../../core'
import { agentTool, ChatClient } from '../../client'
import { ScriptedChatModel, type ScriptStep } from '../../models'
import {
  DefaultSessionService,
  EventFilter,
  InMemorySessionRepository,
  TurnCountTrigger,
  TurnWindowCompactionStrategy,
  sessionEventTools,
} from '../../session'
import { SessionMemoryAdvisor } from './session-memory-advisor'

const words = (messages: readonly Message[]) =>
  messages.map((message) => ('text' in message ? message.text : message.responses.map((r) => r.responseData).join()))

describe('conversation_search', () => {
  it('finds what compaction took out of the view', async () => {
    const service = new DefaultSessionService(new InMemorySessionRepository())
    const model = new ScriptedChatModel((prompt: Prompt): ScriptStep => {
      const last = prompt.messages.at(-1)!
      if (last.role === 'tool') return `From the log: ${last.responses[0]!.responseData}`
      if (last.role === 'user' && last.text.includes('called?'))
        return { toolCalls: [{ name: 'conversation_search', arguments: { query: 'tom' } }] }
      return 'Noted.'
    })
    const advisor = SessionMemoryAdvisor.builder(service)
      .defaultSessionId('s')
      .compactionTrigger(new TurnCountTrigger(1))
      .compactionStrategy(new TurnWindowCompactionStrategy(1))
      .build()
    const client = ChatClient.builder(model)
      .defaultTools(...sessionEventTools(service))
      .defaultAdvisors(advisor)
      .build()
    for (const text of ['My cat is called Tom.', 'I like tea.', 'It rains.']) await client.prompt(text).call().content()
    expect(words((await service.getEvents('s')).map((event) => event.message))).not.toContain('My cat is called Tom.')
    const answer = await client.prompt('What is my cat called?').call().content()
    expect(answer).toContain('My cat is called Tom.')
    expect(answer).toContain('"role":"user"')
  })
})

describe('sub-agents on branches of the session', () => {
  it('write to their branch and see it and the root events only; the root sees no branch', async () => {
    const service = new DefaultSessionService(new InMemorySessionRepository())
    const childPrompts: Prompt[] = []
    const child = (name: string) =>
      ChatClient.builder(
        new ScriptedChatModel((prompt: Prompt) => {
          childPrompts.push(prompt)
          return `${name} did it`
        }),
      )
        .defaultAdvisors(SessionMemoryAdvisor.builder(service).build())
        .build()
    const parentModel = new ScriptedChatModel((prompt: Prompt): ScriptStep => {
      const last = prompt.messages.at(-1)!
      if (last.role === 'tool') return 'Done.'
      const tool = last.role === 'user' && last.text.startsWith('research') ? 'researcher' : 'writer'
      return { toolCalls: [{ name: tool, arguments: { task: `${tool} task` } }] }
    })
    const parent = ChatClient.builder(parentModel)
      .defaultTools(
        agentTool(child('researcher'), { name: 'researcher', description: 'Researches', sessionBranch: 'researcher' }),
        agentTool(child('writer'), { name: 'writer', description: 'Writes', sessionBranch: 'writer' }),
      )
      .defaultAdvisors(SessionMemoryAdvisor.builder(service).defaultSessionId('s').build())
      .build()
    await parent.prompt('research one').call().content()
    await parent.prompt('write two').call().content()
    await parent.prompt('research three').call().content()

    const branches = (await service.getEvents('s', EventFilter.all())).map((event) => event.branch)
    expect(branches.filter((branch) => branch === 'researcher')).toHaveLength(4)
    expect(branches.filter((branch) => branch === 'writer')).toHaveLength(2)
    const lastResearch = words(childPrompts.at(-1)!.messages)
    expect(lastResearch).toContain('researcher task')
    expect(lastResearch).toContain('researcher did it')
    expect(lastResearch).toContain('write two')
    expect(lastResearch).not.toContain('writer task')
    expect(words(parentModel.prompts.at(-1)!.messages)).not.toContain('researcher task')
  })
})
