import type { Usage } from 'advisor-chain/trace'
import { formatCount } from '../number-format'

export { formatCount }

// Built once, on first use: `toLocaleTimeString(locales, options)` builds a formatter on every call.
let clockFormat: Intl.DateTimeFormat | undefined

export function duration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '…'
  if (ms > 0 && ms < 0.05) return '<0.1 ms'
  if (ms < 10) return `${ms.toFixed(1)} ms`
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`
  return `${Math.floor(ms / 60_000)} m ${Math.round((ms % 60_000) / 1000)} s`
}

/** A duration in as few characters as it takes, for tight spots (`86ms`, `1.2s`). */
export function durationCompact(ms: number): string {
  if (ms < 10) return `${ms < 0.05 && ms > 0 ? '<0.1' : ms.toFixed(1)}ms`
  if (ms < 1000) return `${Math.round(ms)}ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`
  return `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s`
}

export function tokens(usage: Usage | undefined): string {
  return usage ? `${formatCount(usage.promptTokens)} → ${formatCount(usage.completionTokens)} tok` : ''
}

/** Tokens in → out, short, for the run list. */
export function tokensShort(usage: Usage | undefined): string {
  const short = (count: number) => (count < 10_000 ? String(count) : `${Math.round(count / 1000)}k`)
  return usage ? `${short(usage.promptTokens)}→${short(usage.completionTokens)} tok` : ''
}

export function plural(count: number, word: string): string {
  return `${formatCount(count)} ${word}${count === 1 ? '' : 's'}`
}

export function clock(epochMs: number | undefined): string {
  if (epochMs === undefined) return ''
  clockFormat ??= new Intl.DateTimeFormat([], {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  })
  return clockFormat.format(epochMs)
}

/** Pretty JSON of text that may hold JSON; the text itself otherwise. */
export function prettyJson(text: string): string {
  if (text.length > 200_000) return text
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}

/** The end of a run id, enough to tell two runs with the same prompt apart. */
export function shortId(id: string): string {
  return id.slice(-6)
}

/** About `count` ticks (at least two) at a round step (1, 2 or 5 × 10ⁿ ms) that cover `span` ms. */
export function axisTicks(span: number, count = 5): number[] {
  const raw = span / Math.max(count, 1)
  const magnitude = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-3)))
  const distance = (step: number) => Math.abs(Math.log(step / raw))
  let step = [1, 2, 5, 10]
    .map((factor) => factor * magnitude)
    .reduce((best, candidate) => (distance(candidate) < distance(best) ? candidate : best))
  while (span / step < 1) step /= 2
  const ticks: number[] = []
  for (let index = 0; index * step <= span + 1e-9; index++) ticks.push(index * step)
  return ticks
}
