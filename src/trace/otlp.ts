import { scrubSecretsDeep } from './scrub-deep'
import type { TraceEvent, TraceEventOf, TraceSink } from './events'
import { TraceReader, type ModelSpan, type RunView } from './reader'

// OTLP/HTTP JSON (opentelemetry-proto), spans named and attributed after the GenAI semantic conventions.

type AnyValue =
  | { stringValue: string }
  | { intValue: string }
  | { doubleValue: number }
  | { boolValue: boolean }
  | { arrayValue: { values: AnyValue[] } }

export interface OtlpAttribute {
  key: string
  value: AnyValue
}

export interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  /** 1 internal, 3 client. */
  kind: 1 | 3
  startTimeUnixNano: string
  endTimeUnixNano: string
  attributes: OtlpAttribute[]
  events?: Array<{ timeUnixNano: string; name: string; attributes: OtlpAttribute[] }>
  /** 0 unset, 1 ok, 2 error. */
  status: { code: 0 | 1 | 2; message?: string }
}

export interface OtlpTraceRequest {
  resourceSpans: Array<{
    resource: { attributes: OtlpAttribute[] }
    scopeSpans: Array<{ scope: { name: string; version: string }; spans: OtlpSpan[] }>
  }>
}

export interface OtlpOptions {
  /** `service.name` of the resource (default `advisor-chain`). */
  serviceName?: string
}

const SCOPE = { name: 'advisor-chain', version: '1' }

/** A tool span, by `${runId} ${toolCallId}`: where a sub-agent's run (agentTool) hangs. */
type ToolSpans = Map<string, { traceId: string; spanId: string }>

/**
 * Turns the events of finished runs into an OTLP trace request: one trace per run, except that a
 * sub-agent's run (its run-start names `parentRunId` and `parentToolCallId`) is a child of its
 * parent's tool span, in the parent's trace, when the parent is among the events.
 */
export function toOtlp(events: readonly TraceEvent[], options: OtlpOptions = {}): OtlpTraceRequest {
  const reader = new TraceReader()
  for (const event of events) reader.add(event, false)
  // Runs in the order they started: a parent's tool span exists before its sub-agent's run.
  const toolSpans: ToolSpans = new Map()
  const spans = reader.runs().flatMap((run) => runSpans(run, toolSpans))
  // A trace imported from elsewhere may hold a secret this page registered.
  return scrubSecretsDeep({
    resourceSpans: [
      {
        resource: { attributes: [attribute('service.name', options.serviceName ?? 'advisor-chain')] },
        scopeSpans: [{ scope: SCOPE, spans }],
      },
    ],
  })
}

function runSpans(run: RunView, toolSpans: ToolSpans): OtlpSpan[] {
  const start = run.events.find((event): event is TraceEventOf<'run-start'> => event.type === 'run-start')
  if (!start) return []
  const end = run.events.find((event): event is TraceEventOf<'run-end'> => event.type === 'run-end')
  const parent = toolSpans.get(`${start.parentRunId} ${start.parentToolCallId}`)
  // Run ids share a per-page prefix; a backend needs ids that are random and unique across pages.
  const traceId = parent?.traceId ?? randomHex(16)
  const clock = (t: number) => nanos(start.startedAt + (t - start.t))
  const spanIds = new Set<string>()
  const spanId = () => {
    let id = randomHex(8)
    while (spanIds.has(id)) id = randomHex(8)
    spanIds.add(id)
    return id
  }
  const runSpan: OtlpSpan = {
    traceId,
    spanId: spanId(),
    name: 'invoke_agent advisor-chain',
    kind: 1,
    startTimeUnixNano: clock(start.t),
    endTimeUnixNano: clock(run.end ?? run.lastT),
    attributes: [
      attribute('gen_ai.operation.name', 'invoke_agent'),
      attribute('gen_ai.agent.name', 'advisor-chain'),
      attribute('advisor_chain.run.id', run.id),
      attribute('advisor_chain.run.mode', run.mode),
      ...(end ? [attribute('advisor_chain.run.rounds', end.rounds)] : []),
      ...usageAttributes(end?.usage),
    ],
    status: statusOf(end?.status, end?.error?.message),
  }
  if (parent) runSpan.parentSpanId = parent.spanId
  const spans = [runSpan]
  addEvents(runSpan, [...run.retries, ...run.errors, ...run.notes, ...run.compactions, ...run.evaluations], clock)
  for (const round of run.rounds) {
    const roundSpan: OtlpSpan = {
      traceId,
      spanId: spanId(),
      parentSpanId: runSpan.spanId,
      name: `round ${round.round}`,
      kind: 1,
      startTimeUnixNano: clock(round.start),
      endTimeUnixNano: clock(round.end ?? round.start),
      attributes: [attribute('advisor_chain.round', round.round)],
      status: round.end === undefined ? { code: 0 } : statusOf(round.status),
    }
    spans.push(roundSpan)
    addEvents(
      roundSpan,
      [...round.validations, ...round.retries, ...round.errors, ...round.notes, ...round.retrievals],
      clock,
    )
    const response = round.model?.response
    if (round.model && response) spans.push(modelSpan(round.model, response, roundSpan, spanId(), clock))
    for (const tool of round.tools) {
      if (tool.end === undefined) continue
      const toolSpanId = spanId()
      toolSpans.set(`${run.id} ${tool.id}`, { traceId, spanId: toolSpanId })
      spans.push({
        traceId,
        spanId: toolSpanId,
        parentSpanId: roundSpan.spanId,
        name: `execute_tool ${tool.name}`,
        kind: 1,
        startTimeUnixNano: clock(tool.start),
        endTimeUnixNano: clock(tool.end),
        attributes: [
          attribute('gen_ai.operation.name', 'execute_tool'),
          attribute('gen_ai.tool.name', tool.name),
          attribute('gen_ai.tool.call.id', tool.id),
          attribute('gen_ai.tool.type', 'function'),
          attribute('advisor_chain.tool.return_direct', tool.returnDirect ?? false),
          ...(tool.error ? [attribute('error.type', 'tool_error')] : []),
        ],
        status: tool.error ? { code: 2, message: tool.error } : { code: 1 },
      })
    }
  }
  return spans
}

function modelSpan(
  model: ModelSpan,
  response: TraceEventOf<'model-response'>,
  round: OtlpSpan,
  spanId: string,
  clock: (t: number) => string,
): OtlpSpan {
  const request = model.request
  const name = response.model ?? request?.options.model
  return {
    traceId: round.traceId,
    spanId,
    parentSpanId: round.spanId,
    name: name ? `chat ${name}` : 'chat',
    kind: 3,
    startTimeUnixNano: clock(request?.t ?? response.t - response.durationMs),
    endTimeUnixNano: clock(response.t),
    attributes: [
      attribute('gen_ai.operation.name', 'chat'),
      ...(request?.provider ? [attribute('gen_ai.provider.name', request.provider)] : []),
      ...(request?.options.model ? [attribute('gen_ai.request.model', request.options.model)] : []),
      ...(request?.options.temperature !== undefined
        ? [attribute('gen_ai.request.temperature', request.options.temperature)]
        : []),
      ...(request?.options.maxTokens !== undefined
        ? [attribute('gen_ai.request.max_tokens', request.options.maxTokens)]
        : []),
      ...(response.model ? [attribute('gen_ai.response.model', response.model)] : []),
      ...(response.finishReason ? [attribute('gen_ai.response.finish_reasons', [response.finishReason])] : []),
      ...(typeof response.metadata?.['id'] === 'string'
        ? [attribute('gen_ai.response.id', response.metadata['id'])]
        : []),
      ...usageAttributes(response.usage),
      ...(response.timeToFirstTokenMs !== undefined
        ? [attribute('gen_ai.server.time_to_first_token', response.timeToFirstTokenMs / 1000)]
        : []),
      ...(response.toolCalls.length > 0 ? [attribute('advisor_chain.tool_calls', response.toolCalls.length)] : []),
    ],
    status: { code: 1 },
  }
}

/** Validations, retries, evaluations, errors and notes as span events, in time order. */
function addEvents(span: OtlpSpan, events: readonly TraceEvent[], clock: (t: number) => string): void {
  if (events.length === 0) return
  span.events = [...events]
    .sort((a, b) => a.seq - b.seq)
    .map((event) => ({
      timeUnixNano: clock(event.t),
      name: `advisor_chain.${event.type}`,
      attributes: eventAttributes(event),
    }))
}

function eventAttributes(event: TraceEvent): OtlpAttribute[] {
  switch (event.type) {
    case 'validation':
      return [attribute('attempt', event.attempt), attribute('valid', event.valid), attribute('errors', event.errors)]
    case 'retry':
      return [
        attribute('attempt', event.attempt),
        attribute('error.type', event.error.name),
        attribute('delay_ms', event.delayMs),
      ]
    case 'evaluation':
      return [attribute('attempt', event.attempt), attribute('score', event.score), attribute('passed', event.passed)]
    case 'error':
      return [attribute('error.type', event.error.name), attribute('message', event.error.message)]
    case 'note':
      return [attribute('message', event.message)]
    case 'compaction':
      return [
        attribute('session.id', event.sessionId),
        attribute('trigger', event.trigger),
        attribute('strategy', event.strategy),
        attribute('covered', event.covered),
        attribute('tokens_saved', event.tokensSaved),
      ]
    case 'retrieval':
      return [
        attribute('query', event.query),
        attribute('top_k', event.topK),
        attribute(
          'documents',
          event.documents.map((document) => document.id),
        ),
        attribute(
          'scores',
          event.documents.map((document) => document.score.toFixed(4)),
        ),
      ]
    default:
      return []
  }
}

function usageAttributes(usage: { promptTokens: number; completionTokens: number } | undefined): OtlpAttribute[] {
  if (!usage) return []
  return [
    attribute('gen_ai.usage.input_tokens', usage.promptTokens),
    attribute('gen_ai.usage.output_tokens', usage.completionTokens),
  ]
}

function statusOf(status: string | undefined, message?: string): OtlpSpan['status'] {
  if (status === 'ok') return { code: 1 }
  if (status === 'error' || status === 'aborted') return { code: 2, message: message ?? status }
  return { code: 0 }
}

function attribute(key: string, value: string | number | boolean | string[]): OtlpAttribute {
  return { key, value: anyValue(value) }
}

function anyValue(value: string | number | boolean | string[]): AnyValue {
  if (Array.isArray(value)) return { arrayValue: { values: value.map((item) => ({ stringValue: item })) } }
  if (typeof value === 'string') return { stringValue: value }
  if (typeof value === 'boolean') return { boolValue: value }
  return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value }
}

/** Milliseconds since the epoch as integer nanoseconds, exact beyond 2^53. */
/** `bytes` random bytes as lowercase hex, never all zero (an invalid OTLP id). */
function randomHex(bytes: number): string {
  const buffer = new Uint8Array(bytes)
  do crypto.getRandomValues(buffer)
  while (buffer.every((byte) => byte === 0))
  return Array.from(buffer, (byte) => byte.toString(16).padStart(2, '0')).join('')
}

function nanos(ms: number): string {
  const whole = Math.floor(ms)
  return (BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1_000_000))).toString()
}

export interface OtlpExportOptions extends OtlpOptions {
  /** The collector's traces endpoint, e.g. `http://localhost:4318/v1/traces`. */
  url: string
  headers?: Record<string, string>
  fetch?: typeof fetch
  signal?: AbortSignal
}

/** Posts the runs of `events` to an OTLP/HTTP collector as JSON. */
export async function exportToOtlp(events: readonly TraceEvent[], options: OtlpExportOptions): Promise<void> {
  const fetcher = options.fetch ?? globalThis.fetch
  const response = await fetcher(options.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: JSON.stringify(toOtlp(events, options)),
    ...(options.signal ? { signal: options.signal } : {}),
  })
  if (!response.ok) {
    const detail = (await response.text().catch(() => '')).slice(0, 300)
    throw new Error(`The OTLP collector at ${options.url} refused the traces: HTTP ${response.status} ${detail}`.trim())
  }
}

/**
 * A trace sink that sends each run to an OTLP collector when it ends; a sub-agent's run goes with
 * the run that called it (when this sink saw that run start), as a child of its tool span.
 */
export class OtlpTraceSink implements TraceSink {
  /** Each open run's batch: the events of its outermost run and of the sub-agents' runs inside it. */
  readonly #runs = new Map<string, { root: string; events: TraceEvent[]; members: string[] }>()

  constructor(private readonly options: OtlpExportOptions & { onError?: (error: unknown) => void }) {}

  emit(event: TraceEvent): void {
    let run = this.#runs.get(event.runId)
    if (!run) {
      // Events that arrive after their run was sent (an evaluation) are not sent again.
      if (event.type !== 'run-start') return
      const parent = event.parentRunId === undefined ? undefined : this.#runs.get(event.parentRunId)
      run = parent ?? { root: event.runId, events: [], members: [] }
      run.members.push(event.runId)
      this.#runs.set(event.runId, run)
    }
    run.events.push(event)
    if (event.type !== 'run-end' || event.runId !== run.root) return
    for (const id of run.members) this.#runs.delete(id)
    exportToOtlp(run.events, this.options).catch(
      this.options.onError ?? ((error) => console.warn('OTLP export failed', error)),
    )
  }
}
