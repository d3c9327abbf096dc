import type { TraceEventOf } from './events'
import { validateEvent } from './validate-event'

/**
 * A compaction as traces recorded it before it had its own event type: a `note` whose data holds
 * `compaction` (and the session's id). Read as the `compaction` event it now is, with no excerpts of
 * what left the view (those notes had none); undefined for any other note, or a malformed one.
 */
export function compactionOfNote(note: TraceEventOf<'note'>): TraceEventOf<'compaction'> | undefined {
  const compaction = note.data?.['compaction']
  if (compaction === null || typeof compaction !== 'object' || Array.isArray(compaction)) return undefined
  const { trigger, strategy, covered, preserved, summary, tokensSaved, tokensBefore, tokensAfter } =
    compaction as Record<string, unknown>
  const sessionId = note.data?.['sessionId']
  const { v, seq, runId, round, advisor, t } = note
  try {
    return validateEvent({
      v,
      seq,
      runId,
      round,
      advisor,
      t,
      type: 'compaction',
      sessionId: typeof sessionId === 'string' ? sessionId : '',
      trigger: trigger ?? 'trigger',
      strategy: strategy ?? 'strategy',
      covered,
      preserved: preserved ?? 0,
      left: [],
      summary: summary ?? '',
      tokensSaved: tokensSaved ?? 0,
      tokensBefore,
      tokensAfter,
    }) as TraceEventOf<'compaction'>
  } catch {
    return undefined
  }
}
