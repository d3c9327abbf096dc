import {
  cutAt,
  snapToTurnStart,
  tokenCut,
  isReal,
  type CompactionStrategy,
  type CompactionTrigger,
} from '../../session'

/** Fires always: the advisor compacts to fit a window it knows the view exceeds. */
export const ALWAYS: CompactionTrigger = { name: 'context-window-exceeded', shouldCompact: () => true }

/**
 * Keeps the newest whole turns that fit in `budget` tokens, never covering the turn in progress
 * (from the user event `turnStart` on): a tool call and its result stay together in the view.
 */
export function fitStrategy(budget: number, turnStart: string | undefined): CompactionStrategy {
  return {
    name: 'fit-to-window',
    async compact(request) {
      const real = request.events.filter(isReal)
      const current = turnStart === undefined ? -1 : real.findIndex((event) => event.id === turnStart)
      const cap = current < 0 ? real.length : current
      const cut = snapToTurnStart(real, await tokenCut(request, budget, request.tokenCountEstimator))
      return cutAt(request, Math.min(cut, cap))
    },
  }
}
