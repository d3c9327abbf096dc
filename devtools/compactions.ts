import type { RunView } from 'advisor-chain/trace'

/** A session compaction as the panel draws it, read from the note SessionMemoryAdvisor leaves in the trace. */
export interface CompactionRow {
  covered: number
  strategy: string
  trigger: string
  tokensSaved: number
  /** The view's estimated tokens before → after, when the note says. */
  tokens: [number, number] | undefined
  summary: string
}

/** The run's compactions (the notes whose data holds one), in order; a malformed one is left out. */
export function compactionsOf(run: RunView): CompactionRow[] {
  const rounds = run.rounds.flatMap((round) => round.notes)
  return [...rounds, ...run.notes].flatMap((note) => {
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
      },
    ]
  })
}
