import { scrubAndTruncate } from '../core'
import { streamError, type ErrorContext } from './errors'
import type { ServerSentEvent } from './sse'

// Guards for provider JSON: a body of the wrong shape becomes one clear ChatModelError, never a TypeError.

export type WireObject = Record<string, unknown>

/** The error for a body that parsed as JSON but is not of the shape the provider documents. */
export function invalidResponse(context: ErrorContext, problem: string, value: unknown) {
  return unreadable(
    `the response cannot be read: ${problem}, got ${preview(value)}. The server may not speak this API; check the base URL and the model.`,
    context,
  )
}

/** An answer that cannot be read (not JSON, or not of the shape documented): an `invalid_response`, not retryable. */
export function unreadable(message: string, context: ErrorContext) {
  return streamError(message, context, { retryable: false, code: 'invalid_response' })
}

function preview(value: unknown): string {
  if (value === undefined) return 'nothing'
  const text = JSON.stringify(value) ?? typeof value
  return text.length > 80 ? `${text.slice(0, 80)}…` : text
}

export function isWireObject(value: unknown): value is WireObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** A field that must be an object. */
export function objectAt(value: unknown, path: string, context: ErrorContext): WireObject {
  if (!isWireObject(value)) throw invalidResponse(context, `${path} must be an object`, value)
  return value
}

/** A field that may be missing or null, else must be an object. */
export function optionalObject(value: unknown, path: string, context: ErrorContext): WireObject | undefined {
  return value === undefined || value === null ? undefined : objectAt(value, path, context)
}

/** A field that may be missing or null (read as empty), else must be an array. */
export function optionalArray(value: unknown, path: string, context: ErrorContext): unknown[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) throw invalidResponse(context, `${path} must be an array`, value)
  return value
}

/** A field that may be missing or null, else must be a string. */
export function optionalString(value: unknown, path: string, context: ErrorContext): string | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') throw invalidResponse(context, `${path} must be a string`, value)
  return value
}

/** A field that may be missing or null, else must be a non-negative integer. */
export function optionalIndex(value: unknown, path: string, context: ErrorContext): number | undefined {
  if (value === undefined || value === null) return undefined
  if (!Number.isSafeInteger(value) || (value as number) < 0)
    throw invalidResponse(context, `${path} must be a non-negative integer`, value)
  return value as number
}

/** A number for usage counts; anything else reads as missing (usage never fails a response). */
export function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined
}

/** The first id or model name that is not empty (Azure's router sends empty ones first). */
export function firstNonEmpty(current: string | undefined, value: unknown): string | undefined {
  return current || (typeof value === 'string' && value !== '' ? value : undefined)
}

/**
 * One server-sent event's data as an object; a line that is not JSON is an `invalid_response`, but
 * the last event of a body that ended inside it (`cut`) is nothing: the reader then says what was missing.
 */
export function streamEvent(event: ServerSentEvent, what: string, context: ErrorContext): WireObject | undefined {
  const data = event.data
  let parsed: unknown
  try {
    parsed = JSON.parse(data) as unknown
  } catch {
    if (event.cut) return undefined
    throw unreadable(`the stream sent a line that is not JSON: ${scrubAndTruncate(data, 120)}`, context)
  }
  return objectAt(parsed, what, context)
}
