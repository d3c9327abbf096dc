import type { RunView, RunViewStatus as Status } from 'advisor-chain/trace'

export type StatusFilter = Status | 'all' | 'problem'

export interface RunFilter {
  status: StatusFilter
  /** Free text: the prompt, the answer, tool names, arguments and results, errors, the run id. */
  text: string
}

// The text a run is searched by, rebuilt only when the run changed since the last search.
const indexed = new WeakMap<RunView, { version: number; text: string }>()

function searchText(run: RunView): string {
  const cached = indexed.get(run)
  if (cached?.version === run.version) return cached.text
  const parts: string[] = [run.id, run.label, run.error?.message ?? '']
  for (const round of run.rounds) {
    parts.push(round.model?.response?.text ?? '')
    for (const tool of round.tools) parts.push(tool.name, tool.arguments, tool.result ?? '')
    for (const validation of round.validations) parts.push(...validation.errors)
    for (const error of round.errors) parts.push(error.error.message)
    // A run is found by the documents it retrieved (their ids are usually file names).
    for (const retrieval of round.retrievals) parts.push(...retrieval.documents.map((document) => document.id))
  }
  const text = parts.join('\n').toLowerCase()
  indexed.set(run, { version: run.version, text })
  return text
}

export function matchesFilter(run: RunView, filter: RunFilter): boolean {
  if (filter.status === 'problem' ? !run.hasProblem : filter.status !== 'all' && run.status !== filter.status)
    return false
  const needle = filter.text.trim().toLowerCase()
  return needle === '' || searchText(run).includes(needle)
}
