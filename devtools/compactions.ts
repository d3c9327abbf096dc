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
}

/** The run's compactions, in order (an older trace's compaction notes are read as compactions too). */
export function compactionsOf(run: RunView): CompactionRow[] {
  return run.compactions.map(({ covered, strategy, trigger, tokensSaved, tokensBefore, tokensAfter, summary }) => ({
    covered,
    strategy,
    trigger,
    tokensSaved,
    tokens: tokensBefore !== undefined && tokensAfter !== undefined ? [tokensBefore, tokensAfter] : undefined,
    summary,
  }))
}
