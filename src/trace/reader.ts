import { addUsage, type ErrorInfo, type ToolSource, type Usage } from '../core'
import type { TraceEvent, TraceEventOf, TracedAdvisor } from './events'

// The runs of a trace, grouped for display: run → rounds → spans. Built incrementally, one event at
// a time and in any order (concurrent runs interleave; a file may come shuffled), so a live run
// costs the same per event at event 10,000 as at event 10.

export type RunViewStatus = 'running' | 'ok' | 'error' | 'aborted'

export interface ToolSpan {
  id: string
  name: string
  arguments: string
  start: number
  end?: number
  result?: string
  error?: string
  returnDirect?: boolean
  /** Preparing the call before it ran (loading and compiling the argument validator), not counted as the tool's time. */
  setup?: { start: number; end: number }
  /** Where the tool ran, when not in the page (an MCP server). */
  source?: ToolSource
  /** What the tool reported about the call (an MCP tool: its request and response). */
  detail?: Record<string, unknown>
}

/** A tool call held for the user's approval: human time, neither the model's nor the tool's. */
export interface ApprovalWait {
  /** The tool call's id. */
  id: string
  name: string
  start: number
  end?: number
  decision?: 'approve' | 'edit' | 'reject'
}

export interface ModelSpan {
  start: number
  /** When the model's answer was in: the response, or an approval wait that began before it was reported. */
  end?: number
  /** When the first token arrived (streams). */
  firstToken?: number
  request?: TraceEventOf<'model-request'>
  response?: TraceEventOf<'model-response'>
  chunks: number
  /** The text streamed so far, in arrival order (the response, once in, has the whole text). */
  streamed: string
  /** The reasoning streamed so far, kept apart from the text. */
  streamedReasoning: string
}

export interface RoundView {
  round: number
  start: number
  /** The end of the model call as the observer saw it (`round-end`); tools run after it. */
  end?: number
  status: RunViewStatus
  model?: ModelSpan
  tools: ToolSpan[]
  /** Tool calls held for the user's approval, in the order they were asked. */
  waits: ApprovalWait[]
  validations: TraceEventOf<'validation'>[]
  retries: TraceEventOf<'retry'>[]
  approvals: TraceEventOf<'approval'>[]
  notes: TraceEventOf<'note'>[]
  /** Documents looked up for this round's request (a QuestionAnswerAdvisor), in the order they were. */
  retrievals: TraceEventOf<'retrieval'>[]
  errors: TraceEventOf<'error'>[]
  /** The round left the client's model for the fallback (EscalationAdvisor): which models, and why. */
  escalation?: TraceEventOf<'escalation'>
  /** A failed tool, validation or model call in this round. */
  hasProblem: boolean
  /** The run has ended: a span still open was cut off, it is not running. */
  closed: boolean
}

export interface RunView {
  id: string
  /** Arrival order, for sorting. */
  order: number
  /** The user's message: the last user message of the earliest request seen. */
  label: string
  mode: 'call' | 'stream'
  /** The model's provider ('openai', 'webllm', ...), from the first request that names it. */
  provider?: string
  startedAt?: number
  start: number
  end?: number
  /** The latest time any event of the run carries. */
  lastT: number
  status: RunViewStatus
  /** Recorded in this page (its times share this page's clock), not imported from a file. */
  live: boolean
  observer?: 'inside-loop' | 'outside-loop' | 'no-loop'
  chain: TracedAdvisor[]
  /** The run this one re-runs from one of its rounds (see `forkRun`). */
  forkOf?: { runId: string; round: number }
  /** A sub-agent's run (agentTool): the run and the tool call that started it. */
  parent?: { runId: string; toolCallId: string }
  rounds: RoundView[]
  /** The run's usage: from `run-end`, or summed over the responses so far. */
  usage?: Usage
  finishReason?: string
  error?: ErrorInfo
  loopEnd?: TraceEventOf<'tool-loop-end'>['reason']
  evaluations: TraceEventOf<'evaluation'>[]
  /** Events of the run as a whole (round 0): notes, errors, retries outside the loop. */
  notes: TraceEventOf<'note'>[]
  /**
   * The session compactions of the run (SessionMemoryAdvisor), in order, from any round. Traces
   * recorded before this event type hold them as notes whose data has `compaction`.
   */
  compactions: TraceEventOf<'compaction'>[]
  errors: TraceEventOf<'error'>[]
  retries: TraceEventOf<'retry'>[]
  toolCalls: number
  toolErrors: number
  /** A failed tool, validation, model call or round, even when the run itself ended ok. */
  hasProblem: boolean
  /** Ordered by `seq`. */
  events: TraceEvent[]
  /** Events dropped from the middle of a run too large to keep whole (its head and tail are kept). */
  trimmed?: { events: number; fromSeq: number; toSeq: number }
  /** Changes whenever the run does, for cheap re-render checks and caches. */
  version: number
}

/** The label round of a run labelled by its retrieval's query: no request's text replaces it. */
const RETRIEVED = -1

interface RunState {
  view: RunView
  /** The round whose request labels the run (RETRIEVED: the retrieval's query did). */
  labelRound: number
  /** Usage summed over responses, until `run-end` says. */
  summed?: Usage
  ended: boolean
}

export class TraceReader {
  readonly #runs = new Map<string, RunState>()
  #order = 0
  eventCount = 0

  /** The runs, oldest first. */
  runs(): RunView[] {
    return Array.from(this.#runs.values(), (state) => state.view)
  }

  get size(): number {
    return this.#runs.size
  }

  run(id: string): RunView | undefined {
    return this.#runs.get(id)?.view
  }

  add(event: TraceEvent, live: boolean): RunView {
    const state = this.#stateFor(event, live)
    const run = state.view
    insertBySeq(run.events, event)
    run.version++
    this.eventCount++
    if (event.t > run.lastT) run.lastT = event.t
    apply(state, event)
    return run
  }

  /** Removes the oldest run (by arrival); returns it. */
  dropOldest(): RunView | undefined {
    const oldest = this.#runs.values().next().value
    if (!oldest) return undefined
    this.#runs.delete(oldest.view.id)
    this.eventCount -= oldest.view.events.length
    return oldest.view
  }

  /**
   * Keeps `keep` events of a run: its first half and its latest, dropping the middle (mostly
   * chunks). Its rounds and spans stay as they were grouped; the run says what was dropped.
   */
  trim(id: string, keep: number): number {
    const run = this.#runs.get(id)?.view
    if (!run || run.events.length <= keep) return 0
    const head = Math.ceil(keep / 2)
    const dropped = run.events.splice(head, run.events.length - keep)
    const fromSeq = Math.min(dropped[0]!.seq, run.trimmed?.fromSeq ?? Infinity)
    const toSeq = Math.max(dropped.at(-1)!.seq, run.trimmed?.toSeq ?? -Infinity)
    run.trimmed = { events: (run.trimmed?.events ?? 0) + dropped.length, fromSeq, toSeq }
    run.version++
    this.eventCount -= dropped.length
    return dropped.length
  }

  clear(): void {
    this.#runs.clear()
    this.eventCount = 0
  }

  #stateFor(event: TraceEvent, live: boolean): RunState {
    let state = this.#runs.get(event.runId)
    if (!state) {
      state = {
        labelRound: Infinity,
        ended: false,
        view: {
          id: event.runId,
          order: this.#order++,
          label: '',
          mode: 'call',
          start: event.t,
          lastT: event.t,
          status: 'running',
          live,
          chain: [],
          rounds: [],
          evaluations: [],
          notes: [],
          compactions: [],
          errors: [],
          retries: [],
          toolCalls: 0,
          toolErrors: 0,
          hasProblem: false,
          events: [],
          version: 0,
        },
      }
      this.#runs.set(event.runId, state)
    }
    return state
  }
}

/** Events nearly always come in `seq` order; a late one is put in its place. */
function insertBySeq(events: TraceEvent[], event: TraceEvent): void {
  const last = events.at(-1)
  if (!last || last.seq <= event.seq) {
    events.push(event)
    return
  }
  let low = 0
  let high = events.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (events[middle]!.seq <= event.seq) low = middle + 1
    else high = middle
  }
  events.splice(low, 0, event)
}

function apply(state: RunState, event: TraceEvent): void {
  const run = state.view
  if (event.t < run.start) run.start = event.t
  switch (event.type) {
    case 'run-start':
      run.mode = event.mode
      run.startedAt = event.startedAt
      run.observer = event.observer
      run.chain = event.chain
      if (event.forkOf) run.forkOf = event.forkOf
      if (event.parentRunId !== undefined && event.parentToolCallId !== undefined)
        run.parent = { runId: event.parentRunId, toolCallId: event.parentToolCallId }
      return
    case 'run-end':
      state.ended = true
      run.status = event.status
      if (event.status === 'error') run.hasProblem = true
      run.end = event.t
      run.usage = event.usage ?? state.summed
      if (event.finishReason) run.finishReason = event.finishReason
      if (event.error) run.error = event.error
      for (const round of run.rounds) {
        if (round.status === 'running') round.status = event.status
        round.closed = true
      }
      return
    case 'round-start':
      roundOf(run, event.round, event.t)
      return
    case 'round-end': {
      const round = roundOf(run, event.round, event.t - event.durationMs)
      round.end = event.t
      round.status = event.status
      if (event.status === 'error') flag(run, round)
      return
    }
    case 'model-request': {
      const round = roundOf(run, event.round, event.t)
      const model = (round.model ??= { start: event.t, chunks: 0, streamed: '', streamedReasoning: '' })
      model.start = event.t
      model.request = event
      run.provider ??= event.provider
      if (event.round < state.labelRound) {
        const text = lastUserText(event.messages)
        if (text !== undefined) {
          run.label = text
          state.labelRound = event.round
        }
      }
      return
    }
    case 'model-chunk': {
      const model = modelOf(run, event.round, event.t)
      model.chunks += event.count ?? 1
      model.streamed += event.text
      if (event.reasoning) model.streamedReasoning += event.reasoning
      // A chunk held for an approval (the one with the tool calls) arrived when the wait began.
      const arrived = Math.min(event.t, firstWaitAfter(roundOf(run, event.round, event.t), model.start) ?? Infinity)
      if (
        (event.text !== '' || event.reasoning || event.toolCalls?.length) &&
        (model.firstToken === undefined || arrived < model.firstToken)
      )
        model.firstToken = arrived
      return
    }
    case 'model-response': {
      const round = roundOf(run, event.round, event.t - event.durationMs)
      const model = (round.model ??= {
        start: event.t - event.durationMs,
        chunks: 0,
        streamed: '',
        streamedReasoning: '',
      })
      model.response = event
      if (round.tools.length > 1) round.tools.sort(byCallOrder(round))
      if (model.request === undefined) model.start = event.t - event.durationMs
      // The response is reported after the approvals of its tool calls; the model was done when they began.
      model.end = Math.min(event.t, firstWaitAfter(round, model.start) ?? Infinity)
      if (model.firstToken === undefined && event.timeToFirstTokenMs !== undefined)
        model.firstToken = Math.min(model.start + event.timeToFirstTokenMs, model.end)
      if (event.usage) {
        state.summed = addUsage(state.summed, event.usage)
        if (!state.ended) run.usage = state.summed
      }
      return
    }
    case 'tool-start': {
      const round = roundOf(run, event.round, event.t)
      let span = round.tools.find((tool) => tool.id === event.toolCall.id)
      if (span) span.start = event.t
      else {
        addTool(round, (span = toolSpan(event.toolCall, event.t)))
        run.toolCalls++
      }
      if (event.source) span.source = event.source
      return
    }
    case 'tool-end': {
      const start = event.t - event.durationMs
      const round = roundOf(run, event.round, start)
      let span = round.tools.find((tool) => tool.id === event.toolCall.id && tool.end === undefined)
      if (!span) {
        addTool(round, (span = toolSpan(event.toolCall, start)))
        run.toolCalls++
      }
      span.end = event.t
      if (event.setupMs !== undefined) {
        span.start = start
        span.setup = { start: start - event.setupMs, end: start }
      }
      span.result = event.result
      span.returnDirect = event.returnDirect
      span.arguments = event.toolCall.arguments
      if (event.source) span.source = event.source
      if (event.detail) span.detail = event.detail
      if (event.error !== undefined) {
        span.error = event.error
        flag(run, round)
        run.toolErrors++
      }
      return
    }
    case 'tool-loop-end':
      run.loopEnd = event.reason
      return
    case 'validation': {
      const round = roundOf(run, event.round, event.t - (event.durationMs ?? 0))
      round.validations.push(event)
      if (!event.valid) flag(run, round)
      return
    }
    case 'retry':
      if (event.round > 0) roundOf(run, event.round, event.t).retries.push(event)
      else run.retries.push(event)
      return
    case 'approval': {
      const round = roundOf(run, event.round, event.t)
      round.approvals.push(event)
      if (event.phase === 'requested') {
        round.waits.push({ id: event.toolCall.id, name: event.toolCall.name, start: event.t })
        // An approval reviews the model's answer: the model was done when the wait began.
        const model = round.model
        if (model && event.t >= model.start && (model.end === undefined || event.t < model.end)) model.end = event.t
      } else {
        const wait = round.waits.find((candidate) => candidate.id === event.toolCall.id && candidate.end === undefined)
        if (wait) {
          wait.end = event.t
          if (event.decision) wait.decision = event.decision
        }
      }
      return
    }
    case 'evaluation':
      run.evaluations.push(event)
      return
    case 'error': {
      if (event.round > 0) {
        const round = roundOf(run, event.round, event.t)
        round.errors.push(event)
        flag(run, round)
      } else {
        run.errors.push(event)
        run.hasProblem = true
      }
      run.error ??= event.error
      return
    }
    case 'retrieval':
      roundOf(run, event.round, event.t).retrievals.push(event)
      // The request holds the question inside the retrieval template: the query is the question.
      if (state.labelRound !== RETRIEVED) {
        run.label = event.query
        state.labelRound = RETRIEVED
      }
      return
    case 'note':
      if (event.round > 0) roundOf(run, event.round, event.t).notes.push(event)
      else run.notes.push(event)
      return
    case 'compaction':
      run.compactions.push(event)
      return
    case 'escalation':
      roundOf(run, event.round, event.t).escalation = event
      return
  }
}

/** Marks a round, and so its run, as having had a problem. */
function flag(run: RunView, round: RoundView): void {
  round.hasProblem = true
  run.hasProblem = true
}

/** Tool spans are listed in the order the model asked for them, whatever order their events came in. */
function addTool(round: RoundView, span: ToolSpan): void {
  round.tools.push(span)
  if (round.tools.length > 1) round.tools.sort(byCallOrder(round))
}

function byCallOrder(round: RoundView): (a: ToolSpan, b: ToolSpan) => number {
  const calls = round.model?.response?.toolCalls ?? []
  const rank = (span: ToolSpan) => {
    const index = calls.findIndex((call) => call.id === span.id)
    return index === -1 ? calls.length : index
  }
  return (a, b) => rank(a) - rank(b) || a.start - b.start || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
}

function toolSpan(call: { id: string; name: string; arguments: string }, start: number): ToolSpan {
  return { id: call.id, name: call.name, arguments: call.arguments, start }
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
      waits: [],
      validations: [],
      retries: [],
      approvals: [],
      notes: [],
      retrievals: [],
      errors: [],
      hasProblem: false,
      closed: false,
    }
    run.rounds.push(round)
    if (last && last.round > index) run.rounds.sort((a, b) => a.round - b.round)
  }
  if (t < round.start) round.start = t
  return round
}

/** The start of the round's first approval wait from `from` on. */
function firstWaitAfter(round: RoundView, from: number): number | undefined {
  let first: number | undefined
  for (const wait of round.waits)
    if (wait.start >= from && (first === undefined || wait.start < first)) first = wait.start
  return first
}

function modelOf(run: RunView, number: number, t: number): ModelSpan {
  const round = roundOf(run, number, t)
  round.model ??= { start: t, chunks: 0, streamed: '', streamedReasoning: '' }
  return round.model
}

function lastUserText(messages: TraceEventOf<'model-request'>['messages']): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!
    if (message.role === 'user') return message.text
  }
  return undefined
}
