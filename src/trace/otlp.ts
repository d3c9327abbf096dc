import { scrubSecretsDeep } from '../core'
import type { TraceEvent, TraceEventOf, TraceSink } from './events'

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

/** Turns the events of finished runs into an OTLP trace request: one trace per run. */
export function toOtlp(events: readonly TraceEvent[], options: OtlpOptions = {}): OtlpTraceRequest {
  const runs = new Map<string, TraceEvent[]>()
  for (const event of events) {
    let run = runs.get(event.runId)
    if (!run) runs.set(event.runId, (run = []))
    run.push(event)
  }
  const spans = [...runs.values()].flatMap((run) => runSpans(run))
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

function runSpans(events: readonly TraceEvent[]): OtlpSpan[] {
  const start = events.find((event): event is TraceEventOf<'run-start'> => event.type === 'run-start')
  if (!start) return []
  const end = events.find((event): event is TraceEventOf<'run-end'> => event.type === 'run-end')
  // Run ids share a per-page prefix; a backend needs ids that are random and unique across pages.
  const traceId = randomHex(16)
  const clock = (t: number) => nanos(start.startedAt + (t - start.t))
  const spanIds = new Set<string>()
  const spanId = () => {
    let id = randomHex(8)
    while (spanIds.has(id)) id = randomHex(8)
    spanIds.add(id)
    return id
  }
  const runSpanId = spanId()
  const last = events.at(-1)!
  const spans: OtlpSpan[] = [
    {
      traceId,
      spanId: runSpanId,
      name: 'invoke_agent advisor-chain',
      kind: 1,
      startTimeUnixNano: clock(start.t),
      endTimeUnixNano: clock((end ?? last).t),
      attributes: [
        attribute('gen_ai.operation.name', 'invoke_agent'),
        attribute('gen_ai.agent.name', 'advisor-chain'),
        attribute('advisor_chain.run.id', start.runId),
        attribute('advisor_chain.run.mode', start.mode),
        ...(end ? [attribute('advisor_chain.run.rounds', end.rounds)] : []),
        ...usageAttributes(end?.usage),
      ],
      status: statusOf(end?.status, end?.error?.message),
    },
  ]
  const rounds = new Map<number, OtlpSpan>()
  const pendingCalls = new Map<number, TraceEventOf<'model-request'>>()
  const pendingTools = new Map<string, TraceEventOf<'tool-start'>>()
  const roundSpan = (round: number) => rounds.get(round) ?? spans[0]!
  for (const event of events) {
    switch (event.type) {
      case 'round-start': {
        const span: OtlpSpan = {
          traceId,
          spanId: spanId(),
          parentSpanId: runSpanId,
          name: `round ${event.round}`,
          kind: 1,
          startTimeUnixNano: clock(event.t),
          endTimeUnixNano: clock(event.t),
          attributes: [attribute('advisor_chain.round', event.round)],
          status: { code: 0 },
        }
        rounds.set(event.round, span)
        spans.push(span)
        break
      }
      case 'round-end': {
        const span = rounds.get(event.round)
        if (span) Object.assign(span, { endTimeUnixNano: clock(event.t), status: statusOf(event.status) })
        break
      }
      case 'model-request':
        pendingCalls.set(event.round, event)
        break
      case 'model-response': {
        const request = pendingCalls.get(event.round)
        const model = event.model ?? request?.options.model
        spans.push({
          traceId,
          spanId: spanId(),
          parentSpanId: roundSpan(event.round).spanId,
          name: model ? `chat ${model}` : 'chat',
          kind: 3,
          startTimeUnixNano: clock(request?.t ?? event.t - event.durationMs),
          endTimeUnixNano: clock(event.t),
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
            ...(event.model ? [attribute('gen_ai.response.model', event.model)] : []),
            ...(event.finishReason ? [attribute('gen_ai.response.finish_reasons', [event.finishReason])] : []),
            ...(typeof event.metadata?.['id'] === 'string'
              ? [attribute('gen_ai.response.id', event.metadata['id'])]
              : []),
            ...usageAttributes(event.usage),
            ...(event.timeToFirstTokenMs !== undefined
              ? [attribute('gen_ai.server.time_to_first_token', event.timeToFirstTokenMs / 1000)]
              : []),
            ...(event.toolCalls.length > 0 ? [attribute('advisor_chain.tool_calls', event.toolCalls.length)] : []),
          ],
          status: { code: 1 },
        })
        break
      }
      case 'tool-start':
        pendingTools.set(event.toolCall.id, event)
        break
      case 'tool-end': {
        const started = pendingTools.get(event.toolCall.id)
        spans.push({
          traceId,
          spanId: spanId(),
          parentSpanId: roundSpan(event.round).spanId,
          name: `execute_tool ${event.toolCall.name}`,
          kind: 1,
          startTimeUnixNano: clock(started?.t ?? event.t - event.durationMs),
          endTimeUnixNano: clock(event.t),
          attributes: [
            attribute('gen_ai.operation.name', 'execute_tool'),
            attribute('gen_ai.tool.name', event.toolCall.name),
            attribute('gen_ai.tool.call.id', event.toolCall.id),
            attribute('gen_ai.tool.type', 'function'),
            attribute('advisor_chain.tool.return_direct', event.returnDirect),
            ...(event.error ? [attribute('error.type', 'tool_error')] : []),
          ],
          status: event.error ? { code: 2, message: event.error } : { code: 1 },
        })
        break
      }
      case 'validation':
      case 'retry':
      case 'evaluation':
      case 'error':
      case 'note': {
        const span = roundSpan(event.round)
        ;(span.events ??= []).push({
          timeUnixNano: clock(event.t),
          name: `advisor_chain.${event.type}`,
          attributes: eventAttributes(event),
        })
        break
      }
    }
  }
  return spans
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

/** A trace sink that sends each run to an OTLP collector when it ends. */
export class OtlpTraceSink implements TraceSink {
  readonly #runs = new Map<string, TraceEvent[]>()

  constructor(private readonly options: OtlpExportOptions & { onError?: (error: unknown) => void }) {}

  emit(event: TraceEvent): void {
    let run = this.#runs.get(event.runId)
    if (!run) {
      // Events that arrive after their run was sent (an evaluation) are not sent again.
      if (event.type !== 'run-start') return
      this.#runs.set(event.runId, (run = []))
    }
    run.push(event)
    if (event.type !== 'run-end') return
    this.#runs.delete(event.runId)
    exportToOtlp(run, this.options).catch(
      this.options.onError ?? ((error) => console.warn('OTLP export failed', error)),
    )
  }
}
