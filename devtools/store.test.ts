import {
  ChatClient,
  ObserverAdvisor,
  ScriptedChatModel,
  TraceCollector,
  defineTool,
  type TraceEvent,
} from 'advisor-chain'
import { describe, expect, it } from 'vitest'
import { createDevtoolsStore } from './store'

const weather = defineTool({
  name: 'weather',
  description: 'Weather',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: ({ city }) => `sunny in ${city}`,
})

async function conversation(
  store: { emit(event: TraceEvent): void },
  question = 'Weather in Oslo?',
  city: unknown = 'Oslo',
) {
  const model = new ScriptedChatModel([
    {
      toolCalls: [{ id: `t-${question}`, name: 'weather', arguments: { city } }],
      usage: { promptTokens: 10, completionTokens: 3, totalTokens: 13 },
    },
    { text: 'Sunny.', usage: { promptTokens: 20, completionTokens: 2, totalTokens: 22 } },
  ])
  const client = ChatClient.builder(model)
    .defaultTools(weather)
    .defaultAdvisors(new ObserverAdvisor({ sink: store }))
    .build()
  await client.prompt(question).call().content()
}

describe('devtools store', () => {
  it('groups a run into rounds with the model call and tool spans', async () => {
    const store = createDevtoolsStore()
    await conversation(store)
    const [run] = store.runs()
    expect(run).toMatchObject({
      label: 'Weather in Oslo?',
      status: 'ok',
      mode: 'call',
      toolCalls: 1,
      toolErrors: 0,
      usage: { promptTokens: 30, completionTokens: 5, totalTokens: 35 },
    })
    expect(run!.rounds.map((round) => [round.round, round.status, round.tools.length])).toEqual([
      [1, 'ok', 1],
      [2, 'ok', 0],
    ])
    expect(run!.rounds[0]!.tools[0]).toMatchObject({
      name: 'weather',
      arguments: '{"city":"Oslo"}',
      result: 'sunny in Oslo',
    })
    expect(run!.rounds[0]!.model?.response?.toolCalls[0]?.name).toBe('weather')
    expect(run!.end).toBeGreaterThanOrEqual(run!.start)
  })

  it('flags a tool error on its round and on the run', async () => {
    const store = createDevtoolsStore()
    await conversation(store, 'Weather?', 7)
    const [run] = store.runs()
    expect(run!.toolErrors).toBe(1)
    expect(run!.rounds[0]!.hasProblem).toBe(true)
    expect(run!.rounds[0]!.tools[0]!.error).toMatch(/^Error: invalid arguments/)
  })

  it('keeps interleaved events of concurrent runs apart, newest run first', async () => {
    const collector = new TraceCollector()
    await Promise.all([conversation(collector, 'one'), conversation(collector, 'two')])
    const store = createDevtoolsStore()
    for (const event of collector.events) store.emit(event)
    expect(store.runs().map((run) => run.label)).toEqual(['two', 'one'])
    expect(store.runs().every((run) => run.rounds.length === 2 && run.status === 'ok')).toBe(true)
  })

  it('drops the oldest runs past maxRuns and counts them', async () => {
    const store = createDevtoolsStore({ maxRuns: 2 })
    for (const question of ['a', 'b', 'c', 'd']) await conversation(store, question)
    expect(store.runs().map((run) => run.label)).toEqual(['d', 'c'])
    expect(store.getState().droppedRuns).toBe(2)
  })

  it('drops the oldest runs past maxEvents', async () => {
    const store = createDevtoolsStore({ maxEvents: 30 })
    for (const question of ['a', 'b', 'c']) await conversation(store, question)
    expect(store.runs().length).toBeLessThan(3)
    expect(store.runs()[0]!.label).toBe('c')
    expect(store.getState().droppedRuns).toBeGreaterThan(0)
  })

  it('records nothing while paused', async () => {
    const store = createDevtoolsStore()
    store.pause()
    await conversation(store)
    expect(store.runs()).toEqual([])
    store.resume()
    await conversation(store)
    expect(store.runs()).toHaveLength(1)
  })

  it('clears runs, selection and the dropped count', async () => {
    const store = createDevtoolsStore({ maxRuns: 1 })
    await conversation(store, 'a')
    await conversation(store, 'b')
    store.select({ runId: store.runs()[0]!.id })
    store.clear()
    expect([store.runs().length, store.getState().selection, store.getState().droppedRuns]).toEqual([0, undefined, 0])
  })

  it('exports a session and imports it again into another store', async () => {
    const store = createDevtoolsStore()
    await conversation(store, 'a')
    await conversation(store, 'b')
    const copy = createDevtoolsStore()
    copy.importSession(store.exportSession())
    expect(copy.runs().map((run) => [run.label, run.rounds.length, run.toolCalls])).toEqual(
      store.runs().map((run) => [run.label, run.rounds.length, run.toolCalls]),
    )
  })

  it('keeps what it shows when an import is refused', async () => {
    const store = createDevtoolsStore()
    await conversation(store)
    expect(() => store.importSession('{"format":"nope"}')).toThrow(/not an advisor-chain trace/)
    expect(store.runs()).toHaveLength(1)
  })

  it('tells subscribers about many events once, not once per event', async () => {
    const store = createDevtoolsStore()
    let notified = 0
    store.subscribe(() => notified++)
    await conversation(store)
    store.flush()
    expect(notified).toBeLessThanOrEqual(3)
  })

  it('takes 10,000 events', async () => {
    const collector = new TraceCollector()
    const model = new ScriptedChatModel((prompt) =>
      prompt.messages.length > 600
        ? 'done'
        : { toolCalls: [{ name: 'weather', arguments: { city: `c${prompt.messages.length}` } }] },
    )
    const client = ChatClient.builder(model)
      .defaultTools(weather)
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .build()
    while (collector.events.length < 10_000)
      await client
        .prompt('stress')
        .advisorParams({})
        .call()
        .content()
        .catch(() => undefined)
    const store = createDevtoolsStore({ maxEvents: 50_000 })
    for (const event of collector.events) store.emit(event)
    expect(store.getState().droppedRuns).toBe(0)
    expect(store.runs().reduce((sum, run) => sum + run.events.length, 0)).toBe(collector.events.length)
  })
})
