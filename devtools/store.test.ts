// Runs recorded for real, through the library's layers (a test may reach past the trace entry).
import { ObserverAdvisor } from '../src/advisors'
import { ChatClient } from '../src/client'
import { ScriptedChatModel } from '../src/models'
import { defineTool } from '../src/tools'
import { TraceCollector, type TraceEvent } from 'advisor-chain/trace'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { sampleEvent, sampleRun } from '../src/trace/testing/sample-trace'
import { roundFigures, runFigures } from './figures'
import { createDevtoolsStore, HIDDEN_FLUSH_MS, LIVE_FLUSH_MS } from './store'

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
    store.flush()
    expect(store.getState().droppedRuns).toBe(2)
  })

  it('drops the oldest runs past maxEvents', async () => {
    const store = createDevtoolsStore({ maxEvents: 30 })
    for (const question of ['a', 'b', 'c']) await conversation(store, question)
    expect(store.runs().length).toBeLessThan(3)
    expect(store.runs()[0]!.label).toBe('c')
    store.flush()
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
    store.flush()
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

/** A shuffle that is the same on every run of the tests. */
function shuffled<T>(items: readonly T[], seed = 7): T[] {
  const copy = [...items]
  let state = seed
  for (let i = copy.length - 1; i > 0; i--) {
    state = (state * 48271) % 2147483647
    const j = state % (i + 1)
    ;[copy[i], copy[j]] = [copy[j]!, copy[i]!]
  }
  return copy
}

const shape = (store: ReturnType<typeof createDevtoolsStore>) =>
  store.runs().map((run) => ({
    id: run.id,
    label: run.label,
    status: run.status,
    usage: run.usage,
    toolCalls: run.toolCalls,
    seqs: run.events.map((event) => event.seq),
    rounds: run.rounds.map((round) => ({
      round: round.round,
      status: round.status,
      model: [round.model?.start, round.model?.end, round.model?.firstToken, round.model?.chunks],
      request: round.model?.request?.seq,
      tools: round.tools.map((tool) => [tool.id, tool.start, tool.end, tool.result]),
    })),
  }))

describe('devtools store, from hand-written events', () => {
  it('groups a run into rounds: model call with its streaming part, then the tools the round asked for', () => {
    const store = createDevtoolsStore()
    for (const event of sampleRun({ t0: 1000 })) store.emit(event)
    const [run] = store.runs()
    expect(run).toMatchObject({ label: 'What time is it?', status: 'ok', mode: 'stream', toolCalls: 1, live: true })
    const [first, second] = run!.rounds
    expect(first!.model).toMatchObject({ start: 1000, end: 1060, firstToken: 1020, chunks: 1 })
    expect(first!.tools).toEqual([
      expect.objectContaining({ name: 'local_time', arguments: '{"zone":"UTC"}', start: 1060, end: 1180 }),
    ])
    expect(second!.model).toMatchObject({ chunks: 3, firstToken: 1210 })
    expect(second!.model!.response!.text).toBe('It is 12:00 in UTC.')
  })

  it('keeps streamed reasoning apart from the streamed text of a round', () => {
    const store = createDevtoolsStore()
    let thought = 0
    for (const event of sampleRun({ t0: 1000 })) {
      const withReasoning = event.type === 'model-chunk' && event.round === 2 && thought++ < 2
      store.emit(withReasoning ? { ...event, reasoning: `step ${thought}. ` } : event)
    }
    const model = store.runs()[0]!.rounds[1]!.model!
    expect(model.streamedReasoning).toBe('step 1. step 2. ')
    expect(model.streamed).not.toContain('step')
  })

  it('counts a reasoning chunk as the first token of a thinking model', () => {
    const store = createDevtoolsStore()
    for (const event of sampleRun({ t0: 1000 })) {
      const first = event.type === 'model-chunk' && event.round === 2 && event.index === 0
      store.emit(first ? { ...event, text: '', reasoning: 'thinking', t: event.t - 5 } : event)
    }
    const model = store.runs()[0]!.rounds[1]!.model!
    expect(model.firstToken).toBe(1205)
  })

  it('derives round figures: the round spans its tools, model time apart from tool time, TTFT and tokens/s', () => {
    const store = createDevtoolsStore()
    for (const event of sampleRun({ t0: 1000, parallel: 2 })) store.emit(event)
    const [first, second] = store.runs()[0]!.rounds
    expect(roundFigures(first!)).toMatchObject({
      start: 1000,
      end: 1190,
      durationMs: 190,
      modelMs: 60,
      // Two parallel calls of 120 and 130 ms overlap: 130 ms of tool time.
      toolMs: 130,
      timeToFirstTokenMs: 20,
      status: 'ok',
      usage: { promptTokens: 20, completionTokens: 5, totalTokens: 25 },
    })
    expect(roundFigures(second!).tokensPerSecond).toBeCloseTo(5 / 0.045)
  })

  it('derives run figures: status, duration, rounds and tokens in → out', () => {
    const store = createDevtoolsStore()
    for (const event of sampleRun({ t0: 1000, toolRounds: 2 })) store.emit(event)
    expect(runFigures(store.runs()[0]!)).toEqual({
      status: 'ok',
      hasProblem: false,
      // Two tool rounds of 60 ms model and 120 ms tool, then 75 ms of streamed answer.
      durationMs: 180 * 2 + 75,
      rounds: 3,
      usage: { promptTokens: 120, completionTokens: 15, totalTokens: 135 },
      toolCalls: 2,
      toolErrors: 0,
    })
  })

  it('sums the usage of the responses while the run is still going', () => {
    const store = createDevtoolsStore()
    const events = sampleRun({ toolRounds: 2 })
    const secondResponse = events.filter((event) => event.type === 'model-response')[1]!
    for (const event of events.slice(0, events.indexOf(secondResponse) + 1)) store.emit(event)
    expect(store.runs()[0]).toMatchObject({ status: 'running', usage: { promptTokens: 60, completionTokens: 10 } })
  })

  it('keeps a round running while one of its tools is still running', () => {
    const store = createDevtoolsStore()
    const events = sampleRun()
    for (const event of events.slice(
      0,
      events.findIndex((event) => event.type === 'tool-end'),
    ))
      store.emit(event)
    const round = store.runs()[0]!.rounds[0]!
    expect(round.status).toBe('ok')
    expect(roundFigures(round)).toMatchObject({ status: 'running', end: undefined, durationMs: undefined })
  })

  it('flags a failed tool on its round and on the run, although the run ended ok', () => {
    const store = createDevtoolsStore()
    for (const event of sampleRun({ toolError: true, parallel: 2 })) store.emit(event)
    const run = store.runs()[0]!
    expect([run.status, run.hasProblem, run.toolErrors]).toEqual(['ok', true, 1])
    expect(run.rounds.map((round) => round.hasProblem)).toEqual([true, false])
    expect(run.rounds[0]!.tools.map((tool) => tool.error)).toEqual(['Error: the clock is broken', undefined])
  })

  it('puts run-level events (round 0) on the run, not on its first round', () => {
    const store = createDevtoolsStore()
    const events = sampleRun()
    const header = { v: 1 as const, runId: 'run-1', round: 0, advisor: 'Retry Advisor', t: 1001 }
    store.emit({ ...header, seq: 50, type: 'note', message: 'memory loaded' })
    store.emit({ ...header, seq: 51, type: 'retry', attempt: 1, error: { name: 'E', message: '503' }, delayMs: 5 })
    store.emit({ ...header, seq: 52, type: 'error', error: { name: 'E', message: 'late' }, aborted: false })
    for (const event of events) store.emit(event)
    const run = store.runs()[0]!
    expect([run.notes.length, run.retries.length, run.errors.length]).toEqual([1, 1, 1])
    expect(run.rounds[0]!.notes.concat(run.rounds[0]!.errors as never[])).toEqual([])
    expect(run.rounds[0]!.retries).toEqual([])
    expect(run.hasProblem).toBe(true)
  })

  it('groups concurrent runs whose events arrive shuffled exactly as if they came in order', () => {
    const one = sampleRun({ runId: 'one', question: 'one?', toolRounds: 2, parallel: 2 })
    const two = sampleRun({ runId: 'two', question: 'two?', seq: 100, t0: 1100, toolError: true })
    const inOrder = createDevtoolsStore()
    for (const event of [...one, ...two]) inOrder.emit(event)
    for (const seed of [1, 2, 3, 42]) {
      const store = createDevtoolsStore()
      const events = shuffled([...one, ...two], seed)
      // Runs are listed by the order they first appeared, so start both in order.
      for (const event of events) store.emit(event)
      const byId = (list: ReturnType<typeof shape>) => [...list].sort((a, b) => a.id.localeCompare(b.id))
      expect(byId(shape(store))).toEqual(byId(shape(inOrder)))
    }
  })

  it('labels a run by the user message of its first round even when a later round arrives first', () => {
    const store = createDevtoolsStore()
    const events = sampleRun({ toolRounds: 2 })
    const requests = events.filter((event) => event.type === 'model-request')
    for (const event of [requests[2]!, requests[1]!, requests[0]!]) store.emit(event)
    expect(store.runs()[0]!.label).toBe('What time is it?')
  })

  it('drops the oldest runs past maxEvents, keeps at least the newest run, and publishes the count once a frame', () => {
    const store = createDevtoolsStore({ maxEvents: 30 })
    const runs = ['a', 'b', 'c'].map((id, index) => sampleRun({ runId: id, seq: index * 100 }))
    for (const event of runs.flat()) store.emit(event)
    expect(store.runs().map((run) => run.id)).toEqual(['c'])
    expect(store.getState().droppedRuns).toBe(0)
    store.flush()
    expect(store.getState().droppedRuns).toBe(2)
    const huge = createDevtoolsStore({ maxEvents: 5 })
    for (const event of sampleRun()) huge.emit(event)
    expect(huge.runs()).toHaveLength(1)
  })

  it('forgets the selection when the selected run is dropped', () => {
    const store = createDevtoolsStore({ maxRuns: 1 })
    for (const event of sampleRun({ runId: 'a' })) store.emit(event)
    store.select({ runId: 'a', round: 1 })
    for (const event of sampleRun({ runId: 'b', seq: 100 })) store.emit(event)
    store.flush()
    expect(store.getState().selection).toBeUndefined()
  })

  it('counts the events it did not record while paused', () => {
    const store = createDevtoolsStore()
    store.pause()
    for (const event of sampleRun()) store.emit(event)
    store.flush()
    expect([store.runs().length, store.getState().missed]).toEqual([0, sampleRun().length])
    store.resume()
    expect(store.getState().missed).toBe(0)
  })

  it('filters runs by status, by "has a problem" and by text anywhere in the run', () => {
    const store = createDevtoolsStore()
    for (const event of sampleRun({ runId: 'calm', question: 'Quiet day?', answer: 'Nothing happened.' }))
      store.emit(event)
    for (const event of sampleRun({ runId: 'broken', seq: 100, question: 'Clock?', toolError: true })) store.emit(event)
    for (const event of sampleRun({ runId: 'live', seq: 200, stopAfter: 4 })) store.emit(event)
    store.flush()
    const ids = () => store.visibleRuns().map((run) => run.id)
    expect(ids()).toEqual(['live', 'broken', 'calm'])
    store.setFilter({ status: 'problem' })
    expect(ids()).toEqual(['broken'])
    store.setFilter({ status: 'running' })
    expect(ids()).toEqual(['live'])
    store.setFilter({ status: 'all', text: 'CLOCK IS BROKEN' })
    expect(ids()).toEqual(['broken'])
    store.setFilter({ text: 'nothing happened' })
    expect(ids()).toEqual(['calm'])
    store.setFilter({ text: 'alm' })
    expect(ids()).toEqual(['calm'])
  })

  it('finds a run by the ids of the documents it retrieved', () => {
    const store = createDevtoolsStore()
    for (const event of sampleRun({ runId: 'plain' })) store.emit(event)
    for (const event of sampleRun({ runId: 'grounded', seq: 100 })) store.emit(event)
    store.emit(sampleEvent('retrieval', { runId: 'grounded', seq: 199 }))
    store.flush()
    store.setFilter({ text: 'HOURS.MD' })
    expect(store.visibleRuns().map((run) => run.id)).toEqual(['grounded'])
  })

  it('adds imported runs to those recorded, names the source, and marks imported runs as not live', () => {
    const store = createDevtoolsStore()
    for (const event of sampleRun({ runId: 'here' })) store.emit(event)
    const other = createDevtoolsStore()
    for (const event of sampleRun({ runId: 'there' })) other.emit(event)
    store.importSession(other.exportSession(), 'there.json')
    store.flush()
    expect(store.runs().map((run) => [run.id, run.live])).toEqual([
      ['there', false],
      ['here', true],
    ])
    expect(store.getState().source).toEqual({
      kind: 'file',
      name: 'there.json',
      events: sampleRun().length,
      runs: 1,
      duplicates: 0,
    })
    store.clear()
    store.flush()
    expect(store.getState().source).toEqual({ kind: 'live' })
  })

  it('detects runs it already shows by run id and does not add them twice on import', () => {
    const store = createDevtoolsStore()
    for (const event of sampleRun({ runId: 'a' })) store.emit(event)
    const other = createDevtoolsStore()
    for (const event of [...sampleRun({ runId: 'a' }), ...sampleRun({ runId: 'b', seq: 100 })]) other.emit(event)
    store.importSession(other.exportSession(), 'both.json')
    store.importSession(other.exportSession(), 'both.json')
    store.flush()
    expect(store.runs().map((run) => run.id)).toEqual(['b', 'a'])
    expect(store.run('a')!.events).toHaveLength(sampleRun().length)
    expect(store.eventCount()).toBe(2 * sampleRun().length)
    expect(store.getState().source).toMatchObject({ runs: 0, events: 0, duplicates: 2 })
  })

  it('keeps the head and tail of one run larger than maxEvents, and says what was dropped', () => {
    const events = sampleRun({ runId: 'long', toolRounds: 3, chunks: 40 })
    const store = createDevtoolsStore({ maxEvents: 50 })
    for (const event of events) store.emit(event)
    const run = store.run('long')!
    expect(store.eventCount()).toBeLessThanOrEqual(50)
    expect(run.events.length).toBe(store.eventCount())
    expect(run.events[0]).toBe(events[0])
    expect(run.events.at(-1)).toBe(events.at(-1))
    expect(run.trimmed!.events).toBe(events.length - run.events.length)
    const kept = new Set(run.events.map((event) => event.seq))
    const dropped = events.filter((event) => !kept.has(event.seq)).map((event) => event.seq)
    expect(run.trimmed).toMatchObject({ fromSeq: Math.min(...dropped), toSeq: Math.max(...dropped) })
    // The grouped run is whole: every round and span is still there.
    expect(run.rounds).toHaveLength(4)
    expect(run.status).toBe('ok')
  })

  it('round-trips a session through export and import with the same grouping', () => {
    const store = createDevtoolsStore()
    for (const event of [...sampleRun({ runId: 'a', toolRounds: 2 }), ...sampleRun({ runId: 'b', seq: 50 })])
      store.emit(event)
    const copy = createDevtoolsStore()
    copy.importSession(store.exportSession())
    expect(shape(copy)).toEqual(shape(store))
  })

  it('survives an event it cannot group without throwing into the run that emitted it', () => {
    const store = createDevtoolsStore()
    const broken = { ...sampleRun()[7]!, type: 'tool-end', toolCall: undefined } as never
    const error = console.error
    console.error = () => {}
    try {
      expect(() => store.emit(broken)).not.toThrow()
    } finally {
      console.error = error
    }
  })

  it('groups 10,000 events of 200 runs, keeping every event in seq order', () => {
    const store = createDevtoolsStore({ maxRuns: 500, maxEvents: 50_000 })
    let seq = 0
    let count = 0
    for (let index = 0; index < 200; index++) {
      const events = sampleRun({ runId: `run-${index}`, seq, toolRounds: 3, parallel: 2, chunks: 16 })
      seq += events.length
      count += events.length
      for (const event of events) store.emit(event)
    }
    expect(count).toBeGreaterThanOrEqual(10_000)
    expect(store.eventCount()).toBe(count)
    expect(store.runs()).toHaveLength(200)
    expect(store.runs().every((run) => run.rounds.length === 4 && run.toolCalls === 6)).toBe(true)
  })
})

describe('devtools store, in a page', () => {
  const page = { hidden: true }
  afterEach(() => {
    vi.useRealTimers()
    vi.unstubAllGlobals()
  })

  it('tells subscribers once a second while the page is hidden', () => {
    vi.useFakeTimers()
    page.hidden = true
    vi.stubGlobal('document', page)
    vi.stubGlobal('requestAnimationFrame', (callback: () => void) => setTimeout(callback, 16))
    const store = createDevtoolsStore()
    let notified = 0
    store.subscribe(() => notified++)
    store.emit(sampleEvent('run-start', { runId: 'hidden', round: 0 }))
    vi.advanceTimersByTime(100)
    expect(notified).toBe(0)
    vi.advanceTimersByTime(HIDDEN_FLUSH_MS)
    expect(notified).toBe(1)
  })

  it('tells subscribers of a steady stream of events four times a second, and of the first at once', () => {
    vi.useFakeTimers()
    page.hidden = false
    vi.stubGlobal('document', page)
    vi.stubGlobal('requestAnimationFrame', (callback: () => void) => setTimeout(callback, 16))
    const store = createDevtoolsStore()
    let notified = 0
    store.subscribe(() => notified++)
    const run = sampleRun({ toolRounds: 0, chunks: 400, answer: 'word '.repeat(400) })
    store.emit(run[0]!)
    vi.advanceTimersByTime(16)
    expect(notified).toBe(1)
    // 200 events a second for two seconds.
    for (const event of run.slice(1, 401)) {
      store.emit(event)
      vi.advanceTimersByTime(5)
    }
    vi.advanceTimersByTime(LIVE_FLUSH_MS + 16)
    expect(notified).toBeGreaterThanOrEqual(2000 / (LIVE_FLUSH_MS + 16))
    expect(notified).toBeLessThanOrEqual(2000 / LIVE_FLUSH_MS + 2)
    expect(store.eventCount()).toBe(401)
  })
})
