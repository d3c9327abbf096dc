// The bench's results from every app's runs: the JSON figures (min / median / max per column, the
// advisor-chain stream app against the AI SDK and the hand-written loop) and the table on stderr.
import { COLUMNS, ratio, spreadOf } from './columns.mjs'

/**
 * @typedef {import('./columns.mjs').Columns} Columns
 * @typedef {{ name: string, label: string, wholeAnswer?: boolean }} App
 * @typedef {{ path: string, start: number, end: number }} Request on a clock that starts at the call
 * @typedef {{ columns: Columns, timeline: Request[] }} Run
 */

/** The app each ratio puts over the others, and the apps it is put over. */
export const MEASURED = 'advisor-chain-stream'
export const BASELINES = ['ai-sdk', 'hand']

export const round = (/** @type {number | null} */ value, digits = 1) =>
  value === null ? null : Math.round(value * 10 ** digits) / 10 ** digits

/**
 * @param {App[]} apps
 * @param {Record<string, Run[]>} runs each app's runs, by name
 * @param {Record<string, number>} jsKB each app's gzipped JS, by name
 */
export function summarize(apps, runs, jsKB) {
  const byApp = Object.fromEntries(
    apps.map(({ name, label, wholeAnswer }) => {
      const spread = spreadOf(runs[name].map((run) => run.columns))
      const byFirstText = [...runs[name]].sort((a, b) => a.columns.callToFirstText - b.columns.callToFirstText)
      return [
        name,
        {
          label,
          ...(wholeAnswer ? { firstToken: 'the whole answer (.call())' } : {}),
          jsKBGzip: round(jsKB[name]),
          ...Object.fromEntries(COLUMNS.map(({ key }) => [key, roundAll(spread[key])])),
          runs: runs[name].map((run) => roundAll(run.columns)),
          medianRunTimeline: byFirstText[Math.floor(byFirstText.length / 2)].timeline,
        },
      ]
    }),
  )
  const ratios = Object.fromEntries(
    BASELINES.filter((baseline) => byApp[baseline] && byApp[MEASURED]).map((baseline) => [
      `${MEASURED} / ${baseline}`,
      Object.fromEntries(
        COLUMNS.filter(({ ms }) => ms).map(({ key }) => [
          key,
          round(ratio(byApp[MEASURED][key].median, byApp[baseline][key].median), 2),
        ]),
      ),
    ]),
  )
  return { apps: byApp, ratios }
}

/**
 * The table and the ratios, as text.
 * @param {App[]} apps
 * @param {ReturnType<typeof summarize>} summary
 */
export function tableText(apps, summary) {
  const rows = [
    ['app', 'JS KB gz', ...COLUMNS.map(({ header }) => header)],
    ...apps.map(({ name, label, wholeAnswer }) => [
      wholeAnswer ? `${label} *` : label,
      summary.apps[name].jsKBGzip.toFixed(1),
      ...COLUMNS.map(({ key, ms }) => spreadText(summary.apps[name][key], ms ? 1 : 0)),
    ]),
  ]
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)))
  const lines = rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('  ')
      .trimEnd(),
  )
  if (apps.some(({ wholeAnswer }) => wholeAnswer)) lines.push('* its first token is the whole answer')
  for (const [pair, figures] of Object.entries(summary.ratios)) {
    const text = COLUMNS.filter(({ ms }) => ms).map(
      ({ key, header }) => `${header.replace(/ ms$/, '')} ${figures[key] === null ? '—' : `${figures[key]}×`}`,
    )
    lines.push(`${pair} (medians): ${text.join(', ')}`)
  }
  return lines.join('\n')
}

/** `min / median / max`, or the one value when they are equal. */
export function spreadText(/** @type {{ min: number, median: number, max: number }} */ spread, digits = 1) {
  const { min, median, max } = spread
  return min === max ? min.toFixed(digits) : [min, median, max].map((value) => value.toFixed(digits)).join(' / ')
}

/** @param {Record<string, number>} figures */
const roundAll = (figures) => Object.fromEntries(Object.entries(figures).map(([key, value]) => [key, round(value)]))
