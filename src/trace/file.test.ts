import { describe, expect, it } from 'vitest'
import { ChatClient } from '../client'
import { ScriptedChatModel } from '../models'
import { defineTool } from '../tools'
import { TraceCollector } from './collector'
import type { TraceEvent, TraceEventOf } from './events'
import { exportTrace, importTrace, reconstructMessages } from './file'
import { TRACE_FILE_LIMITS } from './limits'
import { ObserverAdvisor } from '../advisors'
import { SAMPLE_BODIES, sampleEvent, sampleRun } from './testing/sample-trace'

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

  it('accepts one valid event of every type', () => {
    const events = Object.keys(SAMPLE_BODIES).map((type, seq) => sampleEvent(type as TraceEvent['type'], { seq }))
    expect(importTrace(file(events))).toEqual(events)
  })

  const fields = Object.entries(SAMPLE_BODIES).flatMap(([type, body]) =>
    Object.keys(body)
      .filter((field) => field !== 'type')
      .map((field) => ({ type: type as TraceEvent['type'], field, value: (body as Record<string, unknown>)[field] })),
  )

  it.each(fields.filter(({ type, field }) => !isOptional(type, field)))(
    'refuses a $type event without its $field',
    ({ type, field }) => {
      const event: Record<string, unknown> = { ...sampleEvent(type) }
      delete event[field]
      expect(() => importTrace(file([event]))).toThrow(new RegExp(`^event 0 \\(${type}\\): ${field} must be `))
    },
  )

  it.each(fields)('refuses a $type event whose $field has the wrong type', ({ type, field, value }) => {
    const event = { ...sampleEvent(type), [field]: typeof value === 'string' ? 42 : 'wrong' }
    expect(() => importTrace(file([event]))).toThrow(new RegExp(`^event 0 \\(${type}\\): ${field}\\b.* must be `))
  })

  it('refuses a wrongly typed header field with the event index and type', () => {
    const events = sampleRun()
    const bad = { ...events[5]!, t: 'soon' }
    expect(() => importTrace(file([...events.slice(0, 5), bad]))).toThrow(
      `event 5 (${bad.type}): t must be a finite number`,
    )
    expect(() => importTrace(file([{ ...events[0]!, v: 2 }]))).toThrow(
      'event 0 (run-start): v must be the protocol version 1',
    )
    expect(() => importTrace(file([{ ...events[0]!, runId: '' }]))).toThrow(
      'runId must be a string of 1–200 characters',
    )
  })

  it('checks the options of a request field by field', () => {
    const request = (options: unknown) => file([{ ...sampleEvent('model-request'), options }])
    expect(() => importTrace(request({ temperature: 'hot' }))).toThrow('options.temperature must be a finite number')
    expect(() => importTrace(request({ toolChoice: 'always' }))).toThrow(/options.toolChoice must be one of "auto"/)
    expect(() => importTrace(request({ tools: [{ name: 'x', description: 'y' }] }))).toThrow(
      'options.tools[0].inputSchema must be an object',
    )
    expect(() => importTrace(request({ responseFormat: { type: 'yaml' } }))).toThrow(
      'options.responseFormat.type must be one of "text", "json_object", "json_schema"',
    )
  })

  it('refuses an event that is not an object, and an events field that is not an array', () => {
    expect(() => importTrace(file([null]))).toThrow(/^event 0: type must be a known event type/)
    expect(() => importTrace(file(['run-start']))).toThrow(/^event 0: type must be a known event type/)
    expect(() => importTrace(JSON.stringify({ format: 'advisor-chain-trace', version: 1, events: {} }))).toThrow(
      'The trace has no events array',
    )
    expect(() => importTrace('[]')).toThrow('The file is not an advisor-chain trace (expected an object)')
  })

  it('refuses too many events and too long strings', () => {
    const many = `{"format":"advisor-chain-trace","version":1,"events":[${'0,'.repeat(TRACE_FILE_LIMITS.events)}0]}`
    expect(() => importTrace(many)).toThrow(`The trace has ${TRACE_FILE_LIMITS.events + 1} events; at most`)
    const long = { ...sampleEvent('note'), message: 'x'.repeat(TRACE_FILE_LIMITS.stringLength + 1) }
    expect(() => importTrace(file([long]))).toThrow(`event 0 (note): message must be at most`)
  })

  it('keeps prototype keys out of messages, metadata and options', () => {
    const hostile = JSON.stringify({ format: 'advisor-chain-trace', version: 1, events: [] }).replace(
      '[]',
      `[{"v":1,"seq":0,"runId":"r","round":1,"advisor":"a","t":1,"type":"model-request","__proto__":{"polluted":1},
        "messages":[{"role":"user","text":"hi","__proto__":{"polluted":1},"metadata":{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}}],
        "options":{"__proto__":{"polluted":1},"providerOptions":{"p":{"__proto__":{"polluted":1}}}}}]`,
    )
    const [event] = importTrace(hostile) as Array<TraceEventOf<'model-request'>>
    expect(event!.messages[0]).toEqual({ role: 'user', text: 'hi', metadata: {} })
    expect(event!.options).toEqual({ providerOptions: { p: {} } })
    for (const value of [event, event!.messages[0], event!.options, {}]) {
      expect((value as Record<string, unknown>)['polluted']).toBeUndefined()
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    }
  })

  it('refuses arrays nested too deep as well as objects', () => {
    const deep = JSON.parse(`${'['.repeat(40)}1${']'.repeat(40)}`) as unknown
    expect(() => importTrace(file([{ ...sampleEvent('note'), data: { deep } }]))).toThrow(/nested at most 32 levels/)
  })

  it('never evaluates what it reads: code in strings stays text', () => {
    const payload = '<img src=x onerror="globalThis.pwned=1">${globalThis.pwned=1}'
    const [event] = importTrace(file([{ ...sampleEvent('model-response'), text: payload }]))
    expect((event as TraceEventOf<'model-response'>).text).toBe(payload)
    expect((globalThis as Record<string, unknown>)['pwned']).toBeUndefined()
  })

  it('keeps the order of the file', () => {
    const one = sampleRun({ runId: 'a' })
    const two = sampleRun({ runId: 'b', seq: 100 })
    const interleaved = one.flatMap((event, index) => [event, ...(two[index] ? [two[index]] : [])]).reverse()
    expect(importTrace(file(interleaved))).toEqual(interleaved)
  })
})

describe('reconstructMessages', () => {
  const requests = (events: TraceEvent[]) =>
    events.filter((event): event is TraceEventOf<'model-request'> => event.type === 'model-request')

  it('resolves a chain of shared prefixes, whatever the order of the events', () => {
    const events = sampleRun({ toolRounds: 3 })
    const last = requests(events).at(-1)!
    const expected = ['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool']
    expect(reconstructMessages(events, last).map((message) => message.role)).toEqual(expected)
    expect(reconstructMessages([...events].reverse(), last).map((message) => message.role)).toEqual(expected)
  })

  it('ignores the requests of other runs', () => {
    const events = [...sampleRun({ runId: 'a', toolRounds: 2 }), ...sampleRun({ runId: 'b', question: 'other' })]
    const last = requests(events)
      .filter((event) => event.runId === 'a')
      .at(-1)!
    expect(reconstructMessages(events, last)[1]).toEqual({ role: 'user', text: 'What time is it?' })
  })

  it('returns a request that shares nothing as it is', () => {
    const [first] = requests(sampleRun())
    expect(reconstructMessages([], first!)).toBe(first!.messages)
  })

  it('says which request shares more messages than the one before it had', () => {
    const events = sampleRun()
    const [, second] = requests(events)
    expect(() => reconstructMessages(events, { ...second!, shared: 9 })).toThrow(
      `model-request ${second!.seq} of run run-1 shares 9 messages but the request before it has 2`,
    )
    expect(() => reconstructMessages([], second!)).toThrow('shares 2 messages but the request before it has 0')
  })
})

function isOptional(type: string, field: string): boolean {
  const optional: Record<string, string[]> = {
    'run-end': ['usage', 'finishReason', 'error'],
    'model-request': ['provider', 'shared'],
    'model-chunk': ['count', 'toolCalls', 'finishReason', 'usage'],
    'model-response': ['finishReason', 'usage', 'model', 'timeToFirstTokenMs', 'tokensPerSecond', 'chunks', 'metadata'],
    'tool-start': ['source'],
    'tool-end': ['error', 'source', 'detail'],
    validation: ['durationMs', 'output', 'retryWith'],
    evaluation: ['feedback'],
    approval: ['decision', 'detail'],
    note: ['data'],
    retrieval: ['minScore'],
    compaction: ['tokensBefore', 'tokensAfter'],
    escalation: ['detail', 'restarted'],
  }
  return optional[type]?.includes(field) ?? false
}
