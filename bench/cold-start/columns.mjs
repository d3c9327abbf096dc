// The bench's figures from what one page recorded: its Resource Timing entries (one clock with
// performance.now()) and the turn's call and first-text times. Then min / median / max over runs.
import { URL } from 'node:url'
import { MODEL_PATH } from './model-script.mjs'

/**
 * @typedef {{ name: string, startTime: number, responseEnd: number }} Resource a PerformanceResourceTiming, as JSON
 * @typedef {{ callAt: number, firstTextAt: number }} TurnTimes
 * @typedef {{
 *   jsRequests: number,
 *   dependentFetches: number,
 *   dependentDepth: number,
 *   callToFirstModelRequest: number,
 *   jsBetweenRounds: number,
 *   jsBetweenRoundsDepth: number,
 *   gapBetweenModelRequests: number,
 *   callToFirstText: number,
 * }} Columns
 */

/** The columns in table order: key, header, and whether it is a time in ms (else a count). */
export const COLUMNS = /** @type {const} */ ([
  { key: 'jsRequests', header: 'JS requests', ms: false },
  { key: 'dependentFetches', header: 'dependent fetches', ms: false },
  { key: 'dependentDepth', header: '(chain)', ms: false },
  { key: 'callToFirstModelRequest', header: 'call → 1st model request ms', ms: true },
  { key: 'jsBetweenRounds', header: 'JS between rounds', ms: false },
  { key: 'jsBetweenRoundsDepth', header: '(chain)', ms: false },
  { key: 'gapBetweenModelRequests', header: 'gap ms', ms: true },
  { key: 'callToFirstText', header: 'call → first token ms', ms: true },
])

const pathOf = (/** @type {Resource} */ resource) => new URL(resource.name).pathname
export const isScript = (/** @type {Resource} */ resource) => pathOf(resource).endsWith('.js')
export const isModelRequest = (/** @type {Resource} */ resource) => pathOf(resource) === MODEL_PATH

/**
 * One run's columns. A dependent fetch is a JS request that starts after the call and before the
 * first model request; the JS between rounds starts after the first model request and before the
 * second. A chain is the longest run of such requests each started after the one before ended: each
 * link costs the server's delay at least. The gap runs from the end of the first model response to
 * the second request.
 * @param {Resource[]} resources
 * @param {TurnTimes} turn
 * @returns {Columns}
 */
export function columnsOf(resources, { callAt, firstTextAt }) {
  const requests = resources.filter(isModelRequest).sort((a, b) => a.startTime - b.startTime)
  if (requests.length !== 2)
    throw new Error(`expected 2 model requests (one tool round), the page made ${requests.length}`)
  const [first, second] = /** @type {[Resource, Resource]} */ (requests)
  const scripts = resources.filter(isScript)
  const startedIn = (/** @type {number} */ from, /** @type {number} */ to) =>
    scripts.filter((script) => script.startTime >= from && script.startTime < to)
  const dependent = startedIn(callAt, first.startTime)
  const betweenRounds = startedIn(first.startTime, second.startTime)
  return {
    jsRequests: scripts.length,
    dependentFetches: dependent.length,
    dependentDepth: longestChain(dependent),
    callToFirstModelRequest: first.startTime - callAt,
    jsBetweenRounds: betweenRounds.length,
    jsBetweenRoundsDepth: longestChain(betweenRounds),
    gapBetweenModelRequests: second.startTime - first.responseEnd,
    callToFirstText: firstTextAt - callAt,
  }
}

/**
 * The most requests of `resources` that ran one after another: each started once the one before
 * it had ended, as a chunk that another chunk imports.
 * @param {Resource[]} resources
 */
export function longestChain(resources) {
  const byStart = [...resources].sort((a, b) => a.startTime - b.startTime)
  /** @type {number[]} */
  const depths = []
  byStart.forEach((resource, index) => {
    const before = byStart
      .slice(0, index)
      .flatMap((earlier, at) => (earlier.responseEnd <= resource.startTime ? [depths[at]] : []))
    depths.push(1 + Math.max(0, ...before))
  })
  return Math.max(0, ...depths)
}

/** @param {number[]} values */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/**
 * Min, median and max of each column over an app's runs.
 * @param {Columns[]} runs
 * @returns {Record<keyof Columns, { min: number, median: number, max: number }>}
 */
export function spreadOf(runs) {
  if (runs.length === 0) throw new Error('no runs to summarize')
  return /** @type {Record<keyof Columns, { min: number, median: number, max: number }>} */ (
    Object.fromEntries(
      COLUMNS.map(({ key }) => {
        const values = runs.map((run) => run[key])
        return [key, { min: Math.min(...values), median: median(values), max: Math.max(...values) }]
      }),
    )
  )
}

/** `value / baseline`, or null when the baseline is zero. */
export function ratio(/** @type {number} */ value, /** @type {number} */ baseline) {
  return baseline === 0 ? null : value / baseline
}
