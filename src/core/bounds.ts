import { HIGHEST_PRECEDENCE, LOWEST_PRECEDENCE } from './advisor'

/** Checks a count option at construction, so a bad value never becomes an unbounded loop. */
export function wholeNumber(name: string, value: number, min: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${name} must be a whole number of at least ${min}, got ${String(value)}`)
  }
  return value
}

/** Checks a finite number option (a duration, a threshold) against its bounds at construction. */
export function finiteNumber(name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `between ${min} and ${max}`
    throw new RangeError(`${name} must be a finite number ${range}, got ${String(value)}`)
  }
  return value
}

/** Checks an advisor's order: strictly between the highest and the lowest precedence. */
export function advisorOrder(order: number): number {
  if (!(order > HIGHEST_PRECEDENCE && order < LOWEST_PRECEDENCE)) {
    throw new RangeError('advisorOrder must be between HIGHEST_PRECEDENCE and LOWEST_PRECEDENCE')
  }
  return order
}
