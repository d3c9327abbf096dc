import { describe, expect, it } from 'vitest'
import type { ToolResponseMessage } from '../../core'
import { ChatClient } from '../../client'
import { ScriptedChatModel } from '../../models'
import { defineTool } from '../../tools'
import { TraceCollector } from '../../trace'
import { ObserverAdvisor } from '../observer/observer'
import { collect } from '../../core/testing/collect'

const tool = (name: string, execute: () => unknown) =>
  defineTool({ name, description: '', inputSchema: { type: 'object' }, execute })

describe('the tool loop with hostile tools', () => {
  it.each(['call', 'stream'] as const)(
    'turns every throw and every odd return into a string response and finishes the %s',
    async (mode) => {
      const hostileMessage = new Error()
      Object.defineProperty(hostileMessage, 'message', {
        get() {
          throw new Error('gotcha')
        },
      })
      const tools = [
        tool('throws_bare', () => {
          throw Object.create(null)
        }),
        tool('throws_hostile', () => {
          throw hostileMessage
        }),
        tool('returns_function', () => () => 1),
        tool('returns_symbol', () => Symbol('s')),
      ]
      const model = new ScriptedChatModel([{ toolCalls: tools.map((t) => ({ name: t.definition.name })) }, 'recovered'])
      const collector = new TraceCollector()
      const client = ChatClient.builder(model)
        .defaultTools(...tools)
        .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
        .build()
      const answer =
        mode === 'call'
          ? await client.prompt('q').call().content()
          : (await collect(client.prompt('q').stream().content())).join('')
      expect(answer).toBe('recovered')
      const responses = (model.prompts[1]!.messages.at(-1) as ToolResponseMessage).responses.map((r) => r.responseData)
      expect(responses).toEqual([
        "Error: tool 'throws_bare' failed: {}",
        "Error: tool 'throws_hostile' failed: an unreadable error was thrown",
        "Error: tool 'returns_function' returned a function, which cannot be sent to the model; return a string or JSON-encodable data",
        "Error: tool 'returns_symbol' returned a symbol, which cannot be sent to the model; return a string or JSON-encodable data",
      ])
      expect(collector.ofType('tool-end').map((end) => typeof end.result)).toEqual([
        'string',
        'string',
        'string',
        'string',
      ])
      expect(collector.ofType('run-end')[0]!.status).toBe('ok')
    },
  )
})
