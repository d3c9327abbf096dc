/**
 * A readable message for anything a user's code may throw: an Error, a string, `null`, an object
 * without a prototype, an Error whose `message` getter itself throws. Never throws.
 */
export function thrownMessage(thrown: unknown): string {
  try {
    if (thrown instanceof Error) {
      const message: unknown = thrown.message
      return typeof message === 'string' && message !== '' ? message : safeName(thrown)
    }
    if (typeof thrown === 'string') return thrown
    if (thrown === null || thrown === undefined) return String(thrown)
    if (typeof thrown === 'object') {
      const message: unknown = (thrown as { message?: unknown }).message
      if (typeof message === 'string') return message
      return JSON.stringify(thrown) ?? Object.prototype.toString.call(thrown)
    }
    if (typeof thrown === 'symbol') return thrown.toString()
    if (typeof thrown === 'number' || typeof thrown === 'boolean' || typeof thrown === 'bigint') return `${thrown}`
    return 'a function was thrown'
  } catch {
    return `an unreadable ${describeKind(thrown)} was thrown`
  }
}

function safeName(error: Error): string {
  try {
    return typeof error.name === 'string' && error.name !== '' ? error.name : 'Error'
  } catch {
    return 'Error'
  }
}

function describeKind(value: unknown): string {
  if (value instanceof Error) return 'error'
  return value === null ? 'null' : typeof value
}
