import type { RunView } from 'advisor-chain/trace'

/** A session compaction as the panel draws it, read from the run's `compaction` events. */
export interface CompactionRow {
  covered: number
  strategy: string
  trigger: string
  tokensSaved: number
  /** The view's estimated tokens before → after, when the event says. */
  tokens: [number, number] | undefined
  summary: string
  /** What left the view, one masked excerpt a message ("user: …"); empty for the older note form. */
  left: string[]
}

/**
 * The run's compactions, in order; a trace recorded before compactions had their own event holds
 * them as notes whose data has `compaction` (a malformed one is left out).
 */
export function compactionsOf(run: RunView): CompactionRow[] {
  const rows = run.compactions.map(
    ({ covered, strategy, trigger, tokensSaved, tokensBefore, tokensAfter, summary, left }) => ({
      covered,
      strategy,
      trigger,
      tokensSaved,
      tokens:
        tokensBefore !== undefined && tokensAfter !== undefined
          ? ([tokensBefore, tokensAfter] as [number, number])
          : undefined,
      summary,
      left,
    }),
  )
  return [...rows, ...[...run.rounds.flatMap((round) => round.notes), ...run.notes].flatMap(fromNote)]
}

function fromNote(note: RunView['notes'][number]): CompactionRow[] {
  const compaction = note.data?.['compaction']
  if (compaction === null || typeof compaction !== 'object' || Array.isArray(compaction)) return []
  const { covered, strategy, trigger, tokensSaved, tokensBefore, tokensAfter, summary } = compaction as Record<
    string,
    unknown
  >
  if (typeof covered !== 'number') return []
  return [
    {
      covered,
      strategy: typeof strategy === 'string' ? strategy : 'strategy',
      trigger: typeof trigger === 'string' ? trigger : 'trigger',
      tokensSaved: typeof tokensSaved === 'number' ? tokensSaved : 0,
      tokens:
        typeof tokensBefore === 'number' && typeof tokensAfter === 'number' ? [tokensBefore, tokensAfter] : undefined,
      summary: typeof summary === 'string' ? summary : '',
      left: [],
    },
  ]
}
