import { describe, expect, it } from 'vitest'
import { ChatClient } from '../client'
import { ScriptedChatModel } from '../models/scripted'
import { defineTool } from '../tools/define-tool'
import { TraceCollector } from './collector'
import type { TraceEvent } from './events'
import { exportTrace, importTrace, reconstructMessages } from './file'
import { ObserverAdvisor } from './observer'

async function session(): Promise<TraceEvent[]> {
  const collector = new TraceCollector()
  const tool = defineTool({ name: 'now', description: 'Time', inputSchema: { type: 'object' }, execute: () => '12:00' })
  const model = new ScriptedChatModel([
    {
      text: 'Checking.',
      toolCalls: [{ name: 'now' }],
      usage: { promptTokens: 5, completionTokens: 2, totalTokens: 7 },
    },
    'It is noon.',
  ])
  const client = ChatClient.builder(model)
    .defaultSystem('sys')
    .defaultTools(tool)
    .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
    .build()
  for await (const _ of client.prompt('Time?').stream().content()) void _
  return collector.events
}

const file = (events: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ format: 'advisor-chain-trace', version: 1, exportedAt: 'x', events, ...extra })

describe('trace files', () => {
  it('round-trips a session', async () => {
    const events = await session()
    expect(importTrace(exportTrace(events))).toEqual(JSON.parse(JSON.stringify(events)))
  })

  it('rebuilds a later request from the earlier one it shares messages with', async () => {
    const events = await session()
    const requests = events.filter((e) => e.type === 'model-request')
    const second = requests.find((e) => e.shared) as Extract<TraceEvent, { type: 'model-request' }>
    expect(reconstructMessages(events, second).map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool'])
  })

  it('refuses text that is not JSON', () => {
    expect(() => importTrace('{oops')).toThrow(/^The file is not JSON/)
  })

  it('refuses another format or version', () => {
    expect(() => importTrace(JSON.stringify({ format: 'langfuse', events: [] }))).toThrow(
      'The file is not an advisor-chain trace (format must be "advisor-chain-trace")',
    )
    expect(() => importTrace(file([], { version: 2 }))).toThrow('The trace has version 2; this version reads version 1')
  })

  it('names the first malformed event and field', async () => {
    const events = (await session()).map((event) => ({ ...event }))
    const toolEnd = events.findIndex((event) => event.type === 'tool-end')
    ;(events[toolEnd] as Record<string, unknown>)['result'] = 42
    expect(() => importTrace(file(events))).toThrow(`event ${toolEnd} (tool-end): result must be a string`)
  })

  it('refuses a missing field, a wrong header and an unknown event type', () => {
    const base = { v: 1, seq: 0, runId: 'r', round: 0, advisor: 'a', t: 1 }
    expect(() => importTrace(file([{ ...base, type: 'round-end', status: 'ok' }]))).toThrow(
      'event 0 (round-end): durationMs must be a finite number',
    )
    expect(() => importTrace(file([{ ...base, seq: -1, type: 'round-start' }]))).toThrow(
      'event 0 (round-start): seq must be a whole number ≥ 0',
    )
    expect(() => importTrace(file([{ ...base, type: 'exec-script' }]))).toThrow(
      /event 0 \(exec-script\): type must be a known event type/,
    )
    expect(() =>
      importTrace(file([{ ...base, type: 'model-request', messages: [{ role: 'hacker', text: 'x' }], options: {} }])),
    ).toThrow('event 0 (model-request): messages[0].role must be one of "system", "user", "assistant", "tool"')
  })

  it('drops prototype keys instead of letting them through', () => {
    const hostile = `{"format":"advisor-chain-trace","version":1,"exportedAt":"x","events":[{"v":1,"seq":0,"runId":"r","round":1,"advisor":"a","t":1,"type":"note","message":"hi","data":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"ok":1}}]}`
    const [event] = importTrace(hostile)
    expect((event as { data: Record<string, unknown> }).data).toEqual({ ok: 1 })
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
    expect(Object.getPrototypeOf((event as { data: object }).data)).toBe(Object.prototype)
  })

  it('refuses data nested too deep', () => {
    let deep: unknown = 1
    for (let i = 0; i < 40; i++) deep = { deeper: deep }
    const base = { v: 1, seq: 0, runId: 'r', round: 0, advisor: 'a', t: 1, type: 'note', message: 'x', data: deep }
    expect(() => importTrace(file([base]))).toThrow(/nested at most 32 levels deep/)
  })

  it('refuses a file that is too large, before parsing it', () => {
    expect(() => importTrace(' '.repeat(50 * 2 ** 20 + 1))).toThrow('The file is larger than 50 MB')
  })
})
