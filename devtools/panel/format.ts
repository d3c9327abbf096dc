import type { Usage } from 'advisor-chain'

export function duration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '…'
  if (ms < 1) return `${ms.toFixed(2)} ms`
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`
  return `${Math.floor(ms / 60_000)} m ${Math.round((ms % 60_000) / 1000)} s`
}

export function tokens(usage: Usage | undefined): string {
  return usage ? `${usage.promptTokens.toLocaleString()} → ${usage.completionTokens.toLocaleString()} tok` : 'no usage'
}

export function clock(epochMs: number | undefined): string {
  return epochMs === undefined
    ? ''
    : new Date(epochMs).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })
}

/** Pretty JSON of text that may hold JSON; the text itself otherwise. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}

export function shortId(id: string): string {
  return id.slice(-6)
}
