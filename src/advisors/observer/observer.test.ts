import { describe, expect, it, vi } from 'vitest'
import { HIGHEST_PRECEDENCE, filePart, imagePart } from '../../core'
import { AdvisorParams, ChatClient } from '../../client'
import { ScriptedChatModel, type ScriptStep } from '../../models'
import { collect } from '../../core/testing/collect'
import { defineTool, ToolCallingManager } from '../../tools'
import { ToolCallingAdvisor } from '../tool-loop/tool-calling'
import { TraceCollector, TraceReader, type TraceEvent, reconstructMessages, validateEvent } from '../../trace'
import { ObserverAdvisor } from './observer'

const usage = (p: number, c: number) => ({ promptTokens: p, completionTokens: c, totalTokens: p + c })

const weather = (returnDirect = false) =>
  defineTool({
    name: 'weather',
    description: 'Weather in a city',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    returnDirect,
    execute: ({ city }) => `sunny in ${city}`,
  })

const twoRounds = (): ScriptStep[] => [
  {
    text: 'Let me look.',
    toolCalls: [{ id: 't1', name: 'weather', arguments: { city: 'Paris' } }],
    usage: usage(10, 5),
  },
  { text: 'It is sunny in Paris.', usage: usage(30, 7) },
]

function setup(script: ScriptStep[], options: { order?: number; tools?: boolean } = {}) {
  const collector = new TraceCollector()
  const observer = new ObserverAdvisor({ sink: collector, ...(options.order ? { order: options.order } : {}) })
  const model = new ScriptedChatModel(script)
  const client = ChatClient.builder(model)
    .defaultSystem('You are brief.')
    .defaultTools(...(options.tools === false ? [] : [weather()]))
    .defaultAdvisors(observer)
    .build()
  return { collector, client, model }
}

const shape = (events: TraceEvent[]) =>
  events.filter((e) => e.type !== 'model-chunk').map((e) => `${e.type}@${e.round}`)

describe('ObserverAdvisor inside the tool loop', () => {
  it("names the model's provider on every request, and the reader puts it on the run", async () => {
    for (const mode of ['call', 'stream'] as const) {
      const { collector, client } = setup(twoRounds())
      const spec = client.prompt('Weather in Paris?')
      if (mode === 'call') await spec.call().content()
      else await collect(spec.stream().content())
      const requests = collector.events.filter((event) => event.type === 'model-request')
      expect(requests.map((event) => event.provider)).toEqual(['scripted', 'scripted'])
      const reader = new TraceReader()
      for (const event of collector.events) reader.add(event, true)
      expect(reader.runs()[0]!.provider).toBe('scripted')
    }
  })

  it('records a two-round tool conversation as run, rounds, requests, responses and tool executions', async () => {
    const { collector, client } = setup(twoRounds())
    await client.prompt('Weather in Paris?').call().content()
    expect(shape(collector.events)).toEqual([
      'run-start@0',
      'round-start@1',
      'model-request@1',
      'model-response@1',
      'round-end@1',
      'tool-start@1',
      'tool-end@1',
      'round-start@2',
      'model-request@2',
      'model-response@2',
      'round-end@2',
      'tool-loop-end@0',
      'run-end@0',
    ])
    expect(new Set(collector.events.map((e) => e.runId)).size).toBe(1)
    expect(collector.events.map((e) => e.seq)).toEqual(collector.events.map((_, i) => i))
  })

  it('describes the chain with the loop boundary', async () => {
    const { collector, client } = setup(twoRounds())
    await client.prompt('q').call().content()
    const start = collector.ofType('run-start')[0]!
    expect(start.observer).toBe('inside-loop')
    expect(start.chain.map((a) => `${a.name}:${a.placement}`)).toEqual([
      'Tool Calling Advisor:tool-loop',
      'Observer Advisor:inside-loop',
      'call:inside-loop',
    ])
  })

  it('records the exact request of each round, later rounds as a delta of the earlier one', async () => {
    const { collector, client, model } = setup(twoRounds())
    await client.prompt('Weather in Paris?').call().content()
    const [first, second] = collector.ofType('model-request')
    expect(first!.shared).toBeUndefined()
    expect(first!.messages).toEqual(model.prompts[0]!.messages)
    expect(second!.shared).toBe(2)
    expect(second!.messages.map((m) => m.role)).toEqual(['assistant', 'tool'])
    expect(reconstructMessages(collector.events, second!)).toEqual(model.prompts[1]!.messages)
    expect(first!.options.tools).toEqual([weather().definition])
  })

  it('records tool arguments, results, durations and returnDirect', async () => {
    const { collector, client } = setup(twoRounds())
    await client.prompt('q').call().content()
    const end = collector.ofType('tool-end')[0]!
    expect(end.toolCall).toEqual({ id: 't1', name: 'weather', arguments: '{"city":"Paris"}' })
    expect(end.result).toBe('sunny in Paris')
    expect(end.returnDirect).toBe(false)
    expect(end.durationMs).toBeGreaterThanOrEqual(0)
    expect(end.advisor).toBe('Tool Calling Advisor')
  })

  it('marks a tool error on the tool-end event', async () => {
    const { collector, client } = setup([{ toolCalls: [{ name: 'weather', arguments: { city: 7 } }] }, 'sorry'])
    await client.prompt('q').call().content()
    expect(collector.ofType('tool-end')[0]!.error).toMatch(/^Error: invalid arguments for tool 'weather'/)
  })

  it('sums usage and keeps the finish reason on run-end', async () => {
    const { collector, client } = setup(twoRounds())
    await client.prompt('q').call().content()
    const end = collector.ofType('run-end')[0]!
    expect(end).toMatchObject({ status: 'ok', rounds: 2, usage: usage(40, 12), finishReason: 'stop' })
  })

  it('records every chunk of every round of a stream, with time to first token', async () => {
    const { collector, client } = setup(twoRounds())
    await collect(client.prompt('q').stream().content())
    const chunks = collector.ofType('model-chunk')
    expect(chunks.filter((c) => c.round === 1).map((c) => c.text)).toEqual(['Let ', 'me ', 'look.', ''])
    expect(chunks.filter((c) => c.round === 1).at(-1)!.toolCalls?.[0]?.name).toBe('weather')
    expect(
      chunks
        .filter((c) => c.round === 2)
        .map((c) => c.text)
        .join(''),
    ).toBe('It is sunny in Paris.')
    const responses = collector.ofType('model-response')
    expect(responses.map((r) => r.timeToFirstTokenMs !== undefined)).toEqual([true, true])
    expect(responses[0]!.toolCalls[0]!.name).toBe('weather')
    expect(collector.ofType('run-end')[0]).toMatchObject({ status: 'ok', rounds: 2, usage: usage(40, 12) })
  })

  it('joins the chunks of a stream faster than a frame into events that count them, keeping text and count exact', async () => {
    const words = Array.from({ length: 3000 }, (_, i) => `w${i} `)
    const { collector, client } = setup([{ text: words.join(''), chunks: words }])
    expect((await collect(client.prompt('q').stream().content())).join('')).toBe(words.join(''))
    const chunks = collector.ofType('model-chunk')
    // The first chunks of a burst stay single events; a live model never streams faster than that.
    expect(chunks.slice(0, 64).every((chunk) => chunk.count === undefined)).toBe(true)
    expect(chunks.some((chunk) => (chunk.count ?? 1) > 1)).toBe(true)
    expect(chunks.map((chunk) => chunk.text).join('')).toBe(words.join(''))
    expect(chunks.reduce((sum, chunk) => sum + (chunk.count ?? 1), 0)).toBe(words.length)
    chunks.forEach((chunk, i) => i > 0 && expect(chunk.index).toBe(chunks[i - 1]!.index + (chunks[i - 1]!.count ?? 1)))
    const reader = new TraceReader()
    collector.events.forEach((event) => reader.add(event, false))
    const model = reader.runs()[0]!.rounds[0]!.model!
    expect(model.chunks).toBe(words.length)
    expect(model.streamed).toBe(words.join(''))
    expect(model.firstToken).toBe(chunks[0]!.t)
  })

  it('ends the run as returnDirect when the tools answered directly', async () => {
    const collector = new TraceCollector()
    const client = ChatClient.builder(
      new ScriptedChatModel([{ toolCalls: [{ name: 'weather', arguments: { city: 'Oslo' } }] }]),
    )
      .defaultTools(weather(true))
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .build()
    await client.prompt('q').call().content()
    expect(collector.ofType('tool-end')[0]!.returnDirect).toBe(true)
    expect(collector.ofType('tool-loop-end')[0]!.reason).toBe('returnDirect')
    expect(collector.ofType('run-end')[0]!.finishReason).toBe('returnDirect')
  })

  it('records a tool call limit breach', async () => {
    const collector = new TraceCollector()
    const advisor = ToolCallingAdvisor.builder()
      .toolCallingManager(ToolCallingManager.builder().limits({ perTool: 1 }).build())
      .build()
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'weather', arguments: { city: 'A' } }] },
      { toolCalls: [{ name: 'weather', arguments: { city: 'B' } }] },
    ])
    const client = ChatClient.builder(model)
      .defaultTools(weather())
      .defaultAdvisors(advisor, new ObserverAdvisor({ sink: collector }))
      .build()
    await client.prompt('q').call().content()
    expect(collector.ofType('tool-loop-end')[0]!.reason).toBe('toolCallLimitExceeded')
    expect(collector.ofType('run-end')[0]!.finishReason).toBe('toolCallLimitExceeded')
  })

  it('records a model error and ends the run with status error', async () => {
    const { collector, client } = setup([{ error: 'provider down' }])
    await expect(client.prompt('q').call().content()).rejects.toThrow('provider down')
    expect(collector.ofType('error')[0]!.error.message).toBe('provider down')
    expect(collector.ofType('round-end')[0]!.status).toBe('error')
    expect(collector.ofType('run-end')[0]!.status).toBe('error')
  })

  it('ends an aborted run with status aborted', async () => {
    const { collector, client } = setup([{ text: 'slow', delayMs: 5_000 }])
    const controller = new AbortController()
    const pending = client.prompt('q').signal(controller.signal).call().content()
    setTimeout(() => controller.abort(), 5)
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect(collector.ofType('run-end')[0]!.status).toBe('aborted')
  })

  it('ends the run when the reader stops a stream early', async () => {
    const { collector, client } = setup([{ text: 'a b c d', delayMs: 1 }])
    for await (const _ of client.prompt('q').stream().content()) break
    expect(collector.ofType('run-end')[0]!.status).toBe('aborted')
  })

  it('keeps concurrent runs through one observer apart', async () => {
    const collector = new TraceCollector()
    const model = new ScriptedChatModel((prompt) =>
      prompt.messages.at(-1)!.role === 'tool'
        ? 'done'
        : { toolCalls: [{ name: 'weather', arguments: { city: 'Rome' } }], delayMs: 2 },
    )
    const client = ChatClient.builder(model)
      .defaultTools(weather())
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .build()
    await Promise.all([client.prompt('one').call().content(), client.prompt('two').call().content()])
    const runs = collector.runIds()
    expect(runs).toHaveLength(2)
    for (const runId of runs) {
      expect(collector.ofType('run-end', runId)).toHaveLength(1)
      expect(collector.ofType('model-request', runId)).toHaveLength(2)
    }
  })

  it('never lets a failing sink break the run', async () => {
    const model = new ScriptedChatModel(['fine'])
    const observer = new ObserverAdvisor({
      sink: {
        emit: () => {
          throw new Error('sink broke')
        },
      },
    })
    const quiet = console.error
    console.error = () => {}
    try {
      expect(await ChatClient.builder(model).defaultAdvisors(observer).build().prompt('q').call().content()).toBe(
        'fine',
      )
    } finally {
      console.error = quiet
    }
  })

  it('mirrors rounds (each a model call) and tools on the performance track, and keeps no entry', async () => {
    performance.clearMeasures()
    // Vitest's console in Node has no timeStamp; a page's console has.
    const original = Object.getOwnPropertyDescriptor(console, 'timeStamp')
    const timeStamp = vi.fn<(...args: unknown[]) => void>()
    console.timeStamp = timeStamp
    const collector = new TraceCollector()
    const observer = new ObserverAdvisor({ sink: collector, performanceTrack: true })
    const client = ChatClient.builder(new ScriptedChatModel(twoRounds()))
      .defaultTools(weather())
      .defaultAdvisors(observer)
      .build()
    try {
      await client.prompt('q').call().content()
    } finally {
      if (original) Object.defineProperty(console, 'timeStamp', original)
      else delete (console as Partial<Console>).timeStamp
    }
    const names = timeStamp.mock.calls.map(([name]) => name)
    expect(names).toEqual(['round 1', 'tool weather', 'round 2'])
    const round1 = timeStamp.mock.calls.find(([name]) => name === 'round 1')!
    expect(round1.slice(3)).toEqual(['advisor-chain', undefined, 'primary'])
    expect(round1[2]).toBe(collector.ofType('round-end')[0]!.t)
    expect(performance.getEntriesByType('measure')).toEqual([])
  })
})

describe('ObserverAdvisor elsewhere in the chain', () => {
  it('records each call as a one-round run when there is no tool loop', async () => {
    const { collector, client } = setup(['hello'], { tools: false })
    await client.prompt('q').advisorParams(AdvisorParams.toolCallingAdvisorAutoRegister(false)).call().content()
    expect(shape(collector.events)).toEqual([
      'run-start@0',
      'round-start@1',
      'model-request@1',
      'model-response@1',
      'round-end@1',
      'run-end@0',
    ])
    expect(collector.ofType('run-start')[0]!.observer).toBe('no-loop')
  })

  it('outside the loop sees the whole call and the tool executions but no rounds', async () => {
    const { collector, client } = setup(twoRounds(), { order: HIGHEST_PRECEDENCE + 100 })
    await client.prompt('q').call().content()
    expect(collector.ofType('run-start')[0]!.observer).toBe('outside-loop')
    expect(collector.ofType('model-request')).toHaveLength(0)
    expect(collector.ofType('tool-end')).toHaveLength(1)
    expect(collector.ofType('run-end')[0]).toMatchObject({ status: 'ok', usage: usage(40, 12) })
  })
})

describe('ObserverAdvisor redaction', () => {
  it('masks secret keys in provider options and secret-looking text at the source', async () => {
    const { collector, client } = setup(['ok'], { tools: false })
    await client
      .prompt('my key is sk-abcdefghijklmnopqrstuvwx, keep it')
      .options({
        providerOptions: { openai: { apiKey: 'plain-secret', headers: { Authorization: 'Bearer abc' }, user: 'ann' } },
      })
      .call()
      .content()
    const text = JSON.stringify(collector.events)
    expect(text).not.toContain('sk-abcdefghijklmnopqrstuvwx')
    expect(text).not.toContain('plain-secret')
    expect(text).not.toContain('Bearer abc')
    expect(text).toContain('"user":"ann"')
    expect(text).toContain('[redacted]')
  })

  it('masks what user rules name', async () => {
    const collector = new TraceCollector()
    const observer = new ObserverAdvisor({
      sink: collector,
      redact: { values: [/\b\d{4}-\d{4}-\d{4}-\d{4}\b/], keys: ['ssn'] },
    })
    const client = ChatClient.builder(new ScriptedChatModel(['card 1234-5678-9012-3456 noted']))
      .defaultAdvisors(observer)
      .build()
    await client
      .prompt('pay with 1234-5678-9012-3456')
      .options({ providerOptions: { x: { ssn: '123' } } })
      .call()
      .content()
    const text = JSON.stringify(collector.events)
    expect(text).not.toContain('1234-5678-9012-3456')
    expect(text).not.toContain('"123"')
  })

  it('records the parts of a message without their bytes: links to show (a Blob as its link in the page), name and size', async () => {
    const { collector, client } = setup(['Two cats and a report.'], { tools: false })
    const small = 'data:image/png;base64,iVBORw0KGgo='
    const large = `data:image/png;base64,${'A'.repeat(200_000)}`
    const photo = new Blob([new Uint8Array(2048)], { type: 'image/jpeg' })
    const pdf = new Blob([new Uint8Array(5000)], { type: 'application/pdf' })
    await client
      .prompt()
      .user('What are these?', [
        imagePart(small),
        imagePart(large),
        imagePart(photo, { name: 'cat.jpg' }),
        filePart(pdf, { name: 'report.pdf' }),
      ])
      .call()
      .content()
    const [request] = collector.ofType('model-request')
    const user = request!.messages.at(-1)!
    expect(user.role === 'user' && user.parts).toEqual([
      { type: 'text', text: 'What are these?' },
      { type: 'image', image: small, mediaType: 'image/png', size: 8 },
      { type: 'image', image: expect.stringMatching(/^blob:/) as string, mediaType: 'image/png', size: 150_000 },
      {
        type: 'image',
        image: expect.stringMatching(/^blob:/) as string,
        mediaType: 'image/jpeg',
        name: 'cat.jpg',
        size: 2048,
      },
      {
        type: 'file',
        data: expect.stringMatching(/^blob:/) as string,
        mediaType: 'application/pdf',
        name: 'report.pdf',
        size: 5000,
      },
    ])
    // A plain JSON trace event that the protocol accepts as it is.
    expect(validateEvent(JSON.parse(JSON.stringify(request)))).toEqual(request)
  })
})
