import type { RunView } from 'advisor-chain/trace'
import type { Selection } from '../store'

/** How often at most the inspector moves on to a newer round while it follows the last round of a run. */
export const FOLLOW_ROUND_MS = 1000

/** What the inspector was last told to show: the run, its last round then, since when, and the key. */
export interface InspectorFollow {
  run: RunView
  round: number | undefined
  at: number
  /** Changes when what the inspector shows may have (its `change` prop). */
  change: string
}

/**
 * When the inspector may show something new: on any change of the run while it shows the run's last
 * round (which grows), else only when the run's status changes (an earlier round is over). Following
 * the last round of a fast loop, it moves on to a newer round at most once every FOLLOW_ROUND_MS
 * (`now`, the time of this update): each move renders a whole prompt, and rounds that pass faster
 * cannot be read. A run that ended, or another run, is shown at once.
 */
export function followInspector(
  before: InspectorFollow | undefined,
  run: RunView,
  selection: Selection | undefined,
  now: number,
): InspectorFollow {
  const last = run.rounds.at(-1)?.round
  const shown = selection?.runId === run.id ? (selection.round ?? last) : last
  const change = shown === last ? `${run.status} ${run.version}` : run.status
  if (!before || before.run !== run) return { run, round: last, at: now, change }
  if (before.round === last) return { ...before, change }
  return run.status === 'running' && now - before.at < FOLLOW_ROUND_MS ? before : { run, round: last, at: now, change }
}
