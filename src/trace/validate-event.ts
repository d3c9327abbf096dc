import type { AssistantPart, Message, ResponseFormat, ToolChoice, UserPart } from '../core'
import type { TraceEvent, TracedOptions } from './events'
import { TRACE_FILE_LIMITS } from './limits'

// The trace protocol, written once: these checks validate an untrusted value field by field and
// rebuild it as fresh plain data (a problem throws an Error naming the field, e.g. `result must be
// a string`), and the event types in ./events are read off them.

/** The version of the trace protocol; a trace file from another version is refused on import. */
export const TRACE_VERSION = 1

type Check<T = unknown> = (value: unknown, path: string) => T
/** A field that may be absent. */
type OptionalCheck<T> = Check<T | undefined> & { readonly optional: true }

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
const optional = <T>(check: Check<T>): OptionalCheck<T> =>
  Object.assign((value: unknown, path: string) => (value === undefined ? undefined : check(value, path)), {
    optional: true as const,
  })
const list =
  <T>(check: Check<T>): Check<T[]> =>
  (value, path) =>
    Array.isArray(value) ? value.map((item, index) => check(item, `${path}[${index}]`)) : fail(path, 'an array')

type Shape = Record<string, Check>
type Simplify<T> = { [K in keyof T]: T[K] } & {}
/** The data a shape checks: a field whose check is optional is an optional property. */
export type Out<S extends Shape> = Simplify<
  { [K in keyof S as S[K] extends { optional: true } ? never : K]: ReturnType<S[K]> } & {
    [K in keyof S as S[K] extends { optional: true } ? K : never]?: Exclude<ReturnType<S[K]>, undefined>
  }
>

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
const toolSource = object({ kind: str, name: str, url: optional(str) })
const usage = object({
  promptTokens: count,
  completionTokens: count,
  totalTokens: count,
  reasoningTokens: optional(count),
  cacheReadTokens: optional(count),
  cacheWriteTokens: optional(count),
})
const errorInfo = object({ name: str, message: str, status: optional(num), code: optional(str) })
const metadata = optional(jsonObject)

/** Checks the fields of the variant `value[key]` names, among `variants`, with `key` first. */
function variant<T>(key: string, variants: Record<string, Shape>): Check<T> {
  return (value, path) => {
    const name = (value as Record<string, unknown> | null)?.[key]
    if (typeof name === 'string' && Object.hasOwn(variants, name))
      return object({ [key]: oneOf(name), ...variants[name] })(value, path) as T
    return oneOf(...Object.keys(variants))(name, `${path}.${key}`) as T
  }
}

const attachment = { mediaType: optional(str), name: optional(str), size: optional(count) }
const text = { text: str }

/**
 * A part of a traced message. Attachments carry no bytes in a trace: `image`/`data` is a link to
 * show (an https URL, a small data URL, or a blob: URL valid in the page that recorded it) or ''.
 */
const userPart = variant<UserPart>('type', {
  text,
  image: { image: str, ...attachment },
  file: { data: str, ...attachment },
})
const assistantPart = variant<AssistantPart>('type', {
  text,
  reasoning: text,
  'tool-call': { id: str, name: str, arguments: str },
})

const message = variant<Message>('role', {
  system: { text: str, metadata },
  user: { text: str, parts: optional(list(userPart)), metadata },
  assistant: {
    text: str,
    toolCalls: list(toolCall),
    reasoning: optional(str),
    parts: optional(list(assistantPart)),
    metadata,
  },
  tool: { responses: list(object({ id: str, name: str, responseData: str })), metadata },
})

const toolChoice: Check<ToolChoice> = (value, path) =>
  typeof value === 'string' ? oneOf('auto', 'none', 'required')(value, path) : object({ name: str })(value, path)

const responseFormat = variant<ResponseFormat>('type', {
  text: {},
  json_object: {},
  json_schema: { schema: jsonObject, name: optional(str), strict: optional(bool) },
})

// Mirrors ChatOptions (tools as their definitions, the tool context as its keys), typed by it.
const tracedOptions: Check<TracedOptions> = object({
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
}) as Check<TracedOptions>

export const tracedAdvisor = object({
  name: str,
  order: num,
  /** Runs once per call, or every round of the tool loop. */
  placement: oneOf('outside-loop', 'tool-loop', 'inside-loop'),
})

/** The body of each event type. */
export const bodies = {
  'run-start': {
    mode: oneOf('call', 'stream'),
    /** Wall-clock start, ms since the epoch. */
    startedAt: num,
    /** Where the observer that recorded the run sits. */
    observer: oneOf('inside-loop', 'outside-loop', 'no-loop'),
    chain: list(tracedAdvisor),
    /** This run re-runs another from one of its rounds (the rounds before came from that run's trace). */
    forkOf: optional(object({ runId: str, round: count })),
    /** This run is a sub-agent's (agentTool): the run that called it, when that run was observed. */
    parentRunId: optional(str),
    /** The parent's tool call that started this run. */
    parentToolCallId: optional(str),
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
    /** The model's provider ('openai', 'webllm', ...), named by the chain's terminal. */
    provider: optional(str),
    /**
     * The messages sent, after every advisor's changes. When `shared` is set, the first `shared`
     * messages are those of the previous model request of the run and `messages` holds the rest.
     */
    messages: list(message),
    shared: optional(count),
    options: tracedOptions,
  },
  'model-chunk': {
    /** Position of the chunk in this model response, from 0. */
    index: count,
    /** The text of the chunk, or of all `count` chunks joined. */
    text: str,
    /** How many consecutive text chunks this event stands for (a fast stream joins them); default 1. */
    count: optional(count),
    /** A delta of what the model thought before answering. */
    reasoning: optional(str),
    toolCalls: optional(list(toolCall)),
    finishReason: optional(str),
    usage: optional(usage),
  },
  'model-response': {
    text: str,
    /** What the model thought before answering (reasoning, thinking), kept apart from the text. */
    reasoning: optional(str),
    toolCalls: list(toolCall),
    /** Reasoning, text and tool calls in the order the model produced them, when not simply that order. */
    parts: optional(list(assistantPart)),
    finishReason: optional(str),
    usage: optional(usage),
    model: optional(str),
    durationMs: num,
    /** Streams only: from the request to the first chunk with content. */
    timeToFirstTokenMs: optional(num),
    /** Completion tokens per second of generation, when the usage is known. */
    tokensPerSecond: optional(num),
    chunks: optional(count),
    /** Extra response metadata (provider ids, thinking, speed figures), masked. */
    metadata,
    /** What the response cost in US dollars, at the observer's pricing for `model`; absent when it has no price. */
    costUsd: optional(num),
    /** The provider reported no usage: the cost is from `estimatedUsage`, token counts guessed from text lengths. */
    costEstimated: optional(bool),
    estimatedUsage: optional(usage),
    /** What the same tokens would have cost at the escalation fallback's price (a round the client's model answered). */
    fallbackCostUsd: optional(num),
  },
  'tool-start': {
    toolCall,
    /** Set for a tool that runs elsewhere, e.g. on an MCP server. */
    source: optional(toolSource),
  },
  'tool-end': {
    toolCall,
    result: str,
    error: optional(str),
    /** The tool's own running time, from after its setup. */
    durationMs: num,
    returnDirect: bool,
    /** Preparing the call before it ran (loading and compiling the argument validator), when that took time. */
    setupMs: optional(num),
    source: optional(toolSource),
    /** What the tool reported about the call, masked (an MCP tool: its JSON-RPC request and response). */
    detail: optional(jsonObject),
  },
  'tool-loop-end': {
    reason: oneOf('answer', 'returnDirect', 'toolCallLimitExceeded', 'error', 'aborted'),
    rounds: count,
  },
  validation: {
    attempt: count,
    valid: bool,
    errors: list(str),
    durationMs: optional(num),
    /** The text the model answered with. */
    output: optional(str),
    /** What is appended to the last user message for the next attempt. */
    retryWith: optional(str),
  },
  retry: { attempt: count, error: errorInfo, delayMs: num },
  evaluation: { attempt: count, score: num, passed: bool, feedback: optional(str) },
  approval: {
    /** `requested`: waiting for the user; `decided`: the user answered. */
    phase: oneOf('requested', 'decided'),
    toolCall,
    decision: optional(oneOf('approve', 'edit', 'reject')),
    /** The edited arguments, or what the user said when rejecting. */
    detail: optional(str),
  },
  /** Documents a retrieval advisor looked up and put into the round's request, best first. */
  retrieval: {
    query: str,
    /** Each document's text is an excerpt (the observer keeps the first 500 characters). */
    documents: list(object({ id: str, score: num, text: str, metadata })),
    topK: count,
    minScore: optional(num),
    durationMs: num,
  },
  /** A round that left the client's model for the fallback (EscalationAdvisor): which models, and why. */
  escalation: {
    from: str,
    to: str,
    reason: oneOf('unavailable', 'context-full', 'invalid-output', 'error', 'slow', 'rejected'),
    /** What was wrong with the local answer or call, masked. */
    detail: optional(str),
    /** The local answer had streamed chunks: the round started over. */
    restarted: optional(bool),
  },
  /** A session's view compacted (SessionMemoryAdvisor): what left it, what replaced it, the tokens, the trigger that fired. */
  compaction: {
    sessionId: str,
    trigger: str,
    strategy: str,
    covered: count,
    preserved: count,
    /** Each message that left the view, oldest first, as `role: excerpt`. */
    left: list(str),
    /** The summary that took their place ('' for a plain window). */
    summary: str,
    tokensSaved: count,
    /** The view's estimated tokens before and after. */
    tokensBefore: optional(count),
    tokensAfter: optional(count),
  },
  error: { error: errorInfo, aborted: bool },
  /** `level: 'warning'` when an advisor had to repair something (memory dropped an orphan tool call). */
  note: { message: str, data: optional(jsonObject), level: optional(oneOf('warning')) },
} satisfies Record<string, Shape>

/** The fields every event carries. */
export const header = {
  /** Protocol version. */
  v: (value: unknown, path: string): typeof TRACE_VERSION =>
    value === TRACE_VERSION ? TRACE_VERSION : fail(path, `the protocol version ${TRACE_VERSION}`),
  /** Order of emission within one observer, from 0. */
  seq: count,
  runId: (value: unknown, path: string): string => {
    const id = str(value, path)
    return id.length > 0 && id.length <= 200 ? id : fail(path, 'a string of 1–200 characters')
  },
  /** The round of the tool loop, from 1; 0 for events of the run as a whole. */
  round: count,
  /** The advisor that reported the event. */
  advisor: str,
  /** Monotonic milliseconds (`performance.now()` of the page that recorded the trace). */
  t: num,
} satisfies Shape

export function validateEvent(value: unknown): TraceEvent {
  const type = (value as { type?: unknown } | null)?.type
  if (typeof type !== 'string' || !Object.hasOwn(bodies, type)) {
    return fail('type', `a known event type (${Object.keys(bodies).join(', ')})`)
  }
  const shape: Shape = bodies[type as TraceEvent['type']]
  return object({ type: oneOf(type), ...header, ...shape })(value, '') as unknown as TraceEvent
}
