import { describe, expect, it } from 'vitest'
import { registerSecret } from '../../core'
import { ChatClient } from '../../client'
import { ScriptedChatModel } from '../../models'
import { defineTool } from '../../tools'
import { TraceCollector } from '../../trace'
import { ObserverAdvisor } from './observer'
import { ApprovalQueue } from '../approval-queue'
import { ToolApprovalAdvisor } from '../tool-approval'

const login = defineTool({
  name: 'login',
  description: 'Logs in',
  inputSchema: { type: 'object', properties: { user: { type: 'string' }, password: { type: 'string' } } } as const,
  execute: ({ user }) => `welcome ${user}`,
})
const PASSWORD = 'correct-horse-battery'

describe('ObserverAdvisor keeps secrets out of tool arguments', () => {
  it.each(['call', 'stream'] as const)('masks a password argument in every event of a %s', async (mode) => {
    const collector = new TraceCollector()
    const queue = new ApprovalQueue()
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'c1', name: 'login', arguments: { user: 'ann', password: PASSWORD } }] },
      'Logged in.',
    ])
    const client = ChatClient.builder(model)
      .defaultTools(login)
      .defaultAdvisors(
        new ObserverAdvisor({ sink: collector }),
        ToolApprovalAdvisor.builder().policy('login', 'always').handler(queue.handler).build(),
      )
      .build()
    const unsubscribe = queue.subscribe(
      () => queue.pending()[0] && queue.decide(queue.pending()[0]!.id, { type: 'approve' }),
    )
    if (mode === 'call') await client.prompt('log me in').call().content()
    else for await (const _ of client.prompt('log me in').stream().content());
    unsubscribe()
    expect(JSON.stringify(collector.events)).not.toContain(PASSWORD)
    const started = collector.ofType('tool-start')[0]!
    expect(JSON.parse(started.toolCall.arguments)).toEqual({ user: 'ann', password: '[redacted]' })
    expect(collector.ofType('approval')).toHaveLength(2)
    expect(
      model.prompts[1]!.messages.some((m) => m.role === 'assistant' && m.toolCalls[0]!.arguments.includes(PASSWORD)),
    ).toBe(true)
  })

  it('keeps tool schemas readable (a password field stays) while scrubbing registered secrets from them', async () => {
    const secret = 'tool-desc-secret-9f8e7d6c5b'
    registerSecret(secret)
    const described = defineTool({
      name: 'vault',
      description: `Opens the vault with ${secret}`,
      inputSchema: { type: 'object', properties: { password: { type: 'string' } } },
      execute: () => 'open',
    })
    const collector = new TraceCollector()
    await ChatClient.builder(new ScriptedChatModel(['ok']))
      .defaultTools(described)
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .build()
      .prompt('q')
      .call()
      .content()
    const [tool] = collector.ofType('model-request')[0]!.options.tools!
    expect(tool).toEqual({
      name: 'vault',
      description: 'Opens the vault with [redacted]',
      inputSchema: { type: 'object', properties: { password: { type: 'string' } } },
    })
  })
})
