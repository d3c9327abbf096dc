import type { InitProgressReport } from '@mlc-ai/web-llm'

/** Loading progress, as WebLLM reports it: a fraction from 0 to 1 and a line of text. */
export interface LoadProgress {
  fraction: number
  text: string
  /** Megabytes fetched so far and in all, when WebLLM's text says so. */
  loadedMB?: number
  totalMB?: number
  elapsedSeconds: number
}

/** WebLLM reports e.g. "Fetching param cache[12/40]: 310MB fetched. 45% completed, 30 secs elapsed." */
export function toProgress(report: InitProgressReport): LoadProgress {
  const progress: LoadProgress = { fraction: report.progress, text: report.text, elapsedSeconds: report.timeElapsed }
  const fetched = /(\d+(?:\.\d+)?)\s*MB fetched/i.exec(report.text)
  if (fetched) progress.loadedMB = Number(fetched[1])
  const total = /of\s+(\d+(?:\.\d+)?)\s*MB/i.exec(report.text)
  if (total) progress.totalMB = Number(total[1])
  return progress
}
