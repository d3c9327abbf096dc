import { TRACE_VERSION, type TraceEvent } from './events'
import { TRACE_FILE_LIMITS } from './limits'

// Checks an untrusted value against the trace protocol, field by field, and rebuilds it as fresh
// plain data. A problem throws an Error naming the field, e.g. `result must be a string`.

type Check<T = unknown> = (value: unknown, path: string) => T

const fail = (path: string, what: string): never => {
  throw new Error(`${path} must be ${what}`)
}

const str: Check<string> = (value, path) => {
  if (typeof value !== 'string') return fail(path, 'a string')
  if (value.length > TRACE_FILE_LIMITS.stringLength)
    return fail(path, `at most ${TRACE_FILE_LIMITS.stringLength} characters`)
  return value
}
const num: Check<number> = (value, path) =>
  typeof value === 'number' && Number.isFinite(value) ? value : fail(path, 'a finite number')
const count: Check<number> = (value, path) =>
  Number.isInteger(value) && (value as number) >= 0 ? (value as number) : fail(path, 'a whole number ≥ 0')
const bool: Check<boolean> = (value, path) => (typeof value === 'boolean' ? value : fail(path, 'true or false'))
const oneOf =
  <T extends string>(...values: T[]): Check<T> =>
  (value, path) =>
    values.includes(value as T) ? (value as T) : fail(path, `one of ${values.map((v) => JSON.stringify(v)).join(', ')}`)
const optional =
  <T>(check: Check<T>): Check<T | undefined> =>
  (value, path) =>
    value === undefined ? undefined : check(value, path)
const list =
  <T>(check: Check<T>): Check<T[]> =>
  (value, path) =>
    Array.isArray(value) ? value.map((item, index) => check(item, `${path}[${index}]`)) : fail(path, 'an array')

type Shape = Record<string, Check>
type Out<S extends Shape> = { [K in keyof S]: ReturnType<S[K]> }

function object<S extends Shape>(shape: S): Check<Out<S>> {
  return (value, path) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return fail(path, 'an object')
    const input = value as Record<string, unknown>
    const out: Record<string, unknown> = {}
    for (const [key, check] of Object.entries(shape)) {
      const checked = check(Object.hasOwn(input, key) ? input[key] : undefined, path ? `${path}.${key}` : key)
      if (checked !== undefined) out[key] = checked
    }
    return out as Out<S>
  }
}

/** Any plain JSON data, copied, within the depth and size limits; keys that reach prototypes are dropped. */
const json: Check<unknown> = (value, path) => copyJson(value, path, 0)
function copyJson(value: unknown, path: string, depth: number): unknown {
  if (depth > TRACE_FILE_LIMITS.depth) return fail(path, `nested at most ${TRACE_FILE_LIMITS.depth} levels deep`)
  if (value === null || typeof value === 'boolean') return value
  if (typeof value === 'number') return num(value, path)
  if (typeof value === 'string') return str(value, path)
  if (Array.isArray(value)) return value.map((item, index) => copyJson(item, `${path}[${index}]`, depth + 1))
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue
      out[key] = copyJson(item, `${path}.${key}`, depth + 1)
    }
    return out
  }
  return fail(path, 'plain JSON data')
}
const jsonObject: Check<Record<string, unknown>> = (value, path) =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (json(value, path) as Record<string, unknown>)
    : fail(path, 'an object')

const toolCall = object({ id: str, name: str, arguments: str })
const usage = object({
  promptTokens: count,
  completionTokens: count,
  totalTokens: count,
  cacheReadTokens: optional(count),
  cacheWriteTokens: optional(count),
})
const errorInfo = object({ name: str, message: str, status: optional(num), code: optional(str) })
const metadata = optional(jsonObject)

const message: Check = (value, path) => {
  const role = (value as { role?: unknown } | null)?.role
  switch (role) {
    case 'system':
    case 'user':
      return object({ role: oneOf(role), text: str, metadata })(value, path)
    case 'assistant':
      return object({ role: oneOf('assistant'), text: str, toolCalls: list(toolCall), metadata })(value, path)
    case 'tool':
      return object({
        role: oneOf('tool'),
        responses: list(object({ id: str, name: str, responseData: str })),
        metadata,
      })(value, path)
    default:
      return fail(`${path}.role`, 'one of "system", "user", "assistant", "tool"')
  }
}

const toolChoice: Check = (value, path) =>
  typeof value === 'string' ? oneOf('auto', 'none', 'required')(value, path) : object({ name: str })(value, path)

const responseFormat: Check = (value, path) => {
  const type = (value as { type?: unknown } | null)?.type
  switch (type) {
    case 'text':
    case 'json_object':
      return object({ type: oneOf(type) })(value, path)
    case 'json_schema':
      return object({ type: oneOf(type), schema: jsonObject, name: optional(str), strict: optional(bool) })(value, path)
    default:
      return fail(`${path}.type`, 'one of "text", "json_object", "json_schema"')
  }
}

const tracedOptions = object({
  model: optional(str),
  temperature: optional(num),
  topP: optional(num),
  maxTokens: optional(count),
  stopSequences: optional(list(str)),
  seed: optional(num),
  toolChoice: optional(toolChoice),
  responseFormat: optional(responseFormat),
  providerOptions: optional(jsonObject),
  tools: optional(list(object({ name: str, description: str, inputSchema: jsonObject }))),
  toolContextKeys: optional(list(str)),
})

const bodies: Record<TraceEvent['type'], Shape> = {
  'run-start': {
    mode: oneOf('call', 'stream'),
    startedAt: num,
    observer: oneOf('inside-loop', 'outside-loop', 'no-loop'),
    chain: list(object({ name: str, order: num, placement: oneOf('outside-loop', 'tool-loop', 'inside-loop') })),
  },
  'run-end': {
    status: oneOf('ok', 'error', 'aborted'),
    durationMs: num,
    rounds: count,
    usage: optional(usage),
    finishReason: optional(str),
    error: optional(errorInfo),
  },
  'round-start': {},
  'round-end': { status: oneOf('ok', 'error', 'aborted'), durationMs: num },
  'model-request': {
    provider: optional(str),
    messages: list(message),
    shared: optional(count),
    options: tracedOptions,
  },
  'model-chunk': {
    index: count,
    text: str,
    toolCalls: optional(list(toolCall)),
    finishReason: optional(str),
    usage: optional(usage),
  },
  'model-response': {
    text: str,
    toolCalls: list(toolCall),
    finishReason: optional(str),
    usage: optional(usage),
    model: optional(str),
    durationMs: num,
    timeToFirstTokenMs: optional(num),
    tokensPerSecond: optional(num),
    chunks: optional(count),
    metadata,
  },
  'tool-start': { toolCall },
  'tool-end': { toolCall, result: str, error: optional(str), durationMs: num, returnDirect: bool },
  'tool-loop-end': {
    reason: oneOf('answer', 'returnDirect', 'toolCallLimitExceeded', 'error', 'aborted'),
    rounds: count,
  },
  validation: {
    attempt: count,
    valid: bool,
    errors: list(str),
    durationMs: optional(num),
    output: optional(str),
    retryWith: optional(str),
  },
  retry: { attempt: count, error: errorInfo, delayMs: num },
  evaluation: { attempt: count, score: num, passed: bool, feedback: optional(str) },
  approval: {
    phase: oneOf('requested', 'decided'),
    toolCall,
    decision: optional(oneOf('approve', 'edit', 'reject')),
    detail: optional(str),
  },
  error: { error: errorInfo, aborted: bool },
  note: { message: str, data: optional(jsonObject), level: optional(oneOf('warning')) },
}

const header: Shape = {
  v: (value, path) => (value === TRACE_VERSION ? TRACE_VERSION : fail(path, `the protocol version ${TRACE_VERSION}`)),
  seq: count,
  runId: (value, path) => {
    const id = str(value, path)
    return id.length > 0 && id.length <= 200 ? id : fail(path, 'a string of 1–200 characters')
  },
  round: count,
  advisor: str,
  t: num,
}

export function validateEvent(value: unknown): TraceEvent {
  const type = (value as { type?: unknown } | null)?.type
  if (typeof type !== 'string' || !Object.hasOwn(bodies, type)) {
    return fail('type', `a known event type (${Object.keys(bodies).join(', ')})`)
  }
  const shape = bodies[type as TraceEvent['type']]
  return object({ type: oneOf(type), ...header, ...shape })(value, '') as unknown as TraceEvent
}
