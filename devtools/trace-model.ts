import type { ErrorInfo, TraceEvent, TraceEventOf, TracedAdvisor, Usage } from 'advisor-chain'

// The runs of a trace, grouped for display: run → rounds → spans. Built incrementally, one event at
// a time, so a live run costs the same per event at event 10,000 as at event 10.

export type Status = 'running' | 'ok' | 'error' | 'aborted'

export interface ToolSpan {
  id: string
  name: string
  arguments: string
  start: number
  end?: number
  result?: string
  error?: string
  returnDirect?: boolean
  approval?: TraceEventOf<'approval'>[]
}

export interface ModelSpan {
  start: number
  end?: number
  /** When the first token arrived (streams). */
  firstToken?: number
  request?: TraceEventOf<'model-request'>
  response?: TraceEventOf<'model-response'>
  chunks: number
}

export interface RoundView {
  round: number
  start: number
  end?: number
  status: Status
  model?: ModelSpan
  tools: ToolSpan[]
  validations: TraceEventOf<'validation'>[]
  retries: TraceEventOf<'retry'>[]
  approvals: TraceEventOf<'approval'>[]
  notes: TraceEventOf<'note'>[]
  errors: TraceEventOf<'error'>[]
  /** A failed tool, validation or model call in this round. */
  hasProblem: boolean
}

export interface RunView {
  id: string
  /** Arrival order, for sorting. */
  order: number
  label: string
  mode: 'call' | 'stream'
  startedAt?: number
  start: number
  end?: number
  status: Status
  observer?: 'inside-loop' | 'outside-loop' | 'no-loop'
  chain: TracedAdvisor[]
  rounds: RoundView[]
  usage?: Usage
  finishReason?: string
  error?: ErrorInfo
  loopEnd?: TraceEventOf<'tool-loop-end'>['reason']
  evaluations: TraceEventOf<'evaluation'>[]
  toolCalls: number
  toolErrors: number
  events: TraceEvent[]
  /** Changes whenever the run does, for cheap re-render checks. */
  version: number
}

export class TraceModel {
  readonly #runs = new Map<string, RunView>()
  #order = 0
  eventCount = 0

  get runs(): IterableIterator<RunView> {
    return this.#runs.values()
  }

  get size(): number {
    return this.#runs.size
  }

  run(id: string): RunView | undefined {
    return this.#runs.get(id)
  }

  add(event: TraceEvent): RunView {
    const run = this.#runFor(event)
    run.events.push(event)
    run.version++
    this.eventCount++
    apply(run, event)
    return run
  }

  /** Removes the oldest run; returns it. */
  dropOldest(): RunView | undefined {
    const oldest = this.#runs.values().next().value
    if (!oldest) return undefined
    this.#runs.delete(oldest.id)
    this.eventCount -= oldest.events.length
    return oldest
  }

  clear(): void {
    this.#runs.clear()
    this.eventCount = 0
  }

  #runFor(event: TraceEvent): RunView {
    let run = this.#runs.get(event.runId)
    if (!run) {
      run = {
        id: event.runId,
        order: this.#order++,
        label: '',
        mode: 'call',
        start: event.t,
        status: 'running',
        chain: [],
        rounds: [],
        evaluations: [],
        toolCalls: 0,
        toolErrors: 0,
        events: [],
        version: 0,
      }
      this.#runs.set(run.id, run)
    }
    return run
  }
}

function apply(run: RunView, event: TraceEvent): void {
  run.start = Math.min(run.start, event.t)
  switch (event.type) {
    case 'run-start':
      run.mode = event.mode
      run.startedAt = event.startedAt
      run.observer = event.observer
      run.chain = event.chain
      run.start = event.t
      return
    case 'run-end':
      run.status = event.status
      run.end = event.t
      if (event.usage) run.usage = event.usage
      if (event.finishReason) run.finishReason = event.finishReason
      if (event.error) run.error = event.error
      for (const round of run.rounds) if (round.status === 'running') round.status = event.status
      return
    case 'round-start':
      roundOf(run, event.round, event.t)
      return
    case 'round-end': {
      const round = roundOf(run, event.round, event.t - event.durationMs)
      round.end = event.t
      round.status = event.status
      if (event.status !== 'ok') round.hasProblem = true
      return
    }
    case 'model-request': {
      const round = roundOf(run, event.round, event.t)
      round.model = { start: event.t, request: event, chunks: 0 }
      if (!run.label) run.label = lastUserText(event.messages)
      return
    }
    case 'model-chunk': {
      const model = modelOf(run, event.round, event.t)
      model.chunks++
      if (model.firstToken === undefined && (event.text !== '' || event.toolCalls?.length)) model.firstToken = event.t
      return
    }
    case 'model-response': {
      const model = modelOf(run, event.round, event.t - event.durationMs)
      model.response = event
      model.end = event.t
      if (model.firstToken === undefined && event.timeToFirstTokenMs !== undefined)
        model.firstToken = model.start + event.timeToFirstTokenMs
      return
    }
    case 'tool-start': {
      const round = roundOf(run, event.round, event.t)
      round.tools.push({
        id: event.toolCall.id,
        name: event.toolCall.name,
        arguments: event.toolCall.arguments,
        start: event.t,
      })
      run.toolCalls++
      return
    }
    case 'tool-end': {
      const round = roundOf(run, event.round, event.t - event.durationMs)
      let span = round.tools.find((tool) => tool.id === event.toolCall.id && tool.end === undefined)
      if (!span) {
        span = {
          id: event.toolCall.id,
          name: event.toolCall.name,
          arguments: event.toolCall.arguments,
          start: event.t - event.durationMs,
        }
        round.tools.push(span)
        run.toolCalls++
      }
      Object.assign(span, {
        end: event.t,
        result: event.result,
        returnDirect: event.returnDirect,
        arguments: event.toolCall.arguments,
      })
      if (event.error !== undefined) {
        span.error = event.error
        round.hasProblem = true
        run.toolErrors++
      }
      return
    }
    case 'tool-loop-end':
      run.loopEnd = event.reason
      return
    case 'validation': {
      const round = roundOf(run, event.round, event.t)
      round.validations.push(event)
      if (!event.valid) round.hasProblem = true
      return
    }
    case 'retry':
      roundOf(run, event.round, event.t).retries.push(event)
      return
    case 'approval':
      roundOf(run, event.round, event.t).approvals.push(event)
      return
    case 'evaluation':
      run.evaluations.push(event)
      return
    case 'error': {
      const round = event.round > 0 ? roundOf(run, event.round, event.t) : undefined
      round?.errors.push(event)
      if (round) round.hasProblem = true
      run.error ??= event.error
      return
    }
    case 'note':
      roundOf(run, event.round, event.t).notes.push(event)
      return
  }
}

function roundOf(run: RunView, number: number, t: number): RoundView {
  const index = Math.max(number, 1)
  const last = run.rounds.at(-1)
  // Almost every event belongs to the latest round.
  let round = last?.round === index ? last : run.rounds.find((candidate) => candidate.round === index)
  if (!round) {
    round = {
      round: index,
      start: t,
      status: 'running',
      tools: [],
      validations: [],
      retries: [],
      approvals: [],
      notes: [],
      errors: [],
      hasProblem: false,
    }
    run.rounds.push(round)
    if (last && last.round > index) run.rounds.sort((a, b) => a.round - b.round)
  }
  if (t < round.start) round.start = t
  return round
}

function modelOf(run: RunView, number: number, t: number): ModelSpan {
  const round = roundOf(run, number, t)
  round.model ??= { start: t, chunks: 0 }
  return round.model
}

function lastUserText(messages: TraceEventOf<'model-request'>['messages']): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!
    if (message.role === 'user') return message.text
  }
  return ''
}
