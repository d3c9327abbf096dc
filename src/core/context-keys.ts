// The advisor-context keys the built-in advisors read and write. Values under them are plain data,
// except SAVE_PENDING_KEY, a callback that lives only for the call.

import type { AssistantMessage } from './messages'

/** The id that ties every event of one call (run) together; set by the tool loop or an observer. */
export const RUN_ID_KEY = 'advisor-chain.run-id'

/** The round of the tool loop the request belongs to, from 1. */
export const ROUND_KEY = 'advisor-chain.round'

/** The JSON Schema an `entity()` call wants its answer in. */
export const OUTPUT_SCHEMA_KEY = 'advisor-chain.output-schema'

/** The budget spent so far in this call (LoopBudgetAdvisor). */
export const BUDGET_KEY = 'advisor-chain.budget'

/** Answers given to tool calls before they run, by call id (e.g. the user declined the call). */
export const TOOL_ANSWERS_KEY = 'advisor-chain.tool-answers'

/**
 * An assistant message with tool calls that a conversation ended with before its tools ran (a page
 * reload during an approval): the first round replays it instead of asking the model again.
 */
export const PENDING_TOOL_CALLS_KEY = 'advisor-chain.pending-tool-calls'

/**
 * Set by a memory advisor inside the tool loop: saves an assistant message with tool calls before
 * a tool approval waits for the user, so a reload during the wait can resume the turn.
 */
export const SAVE_PENDING_KEY = 'advisor-chain.save-pending'

export type SavePending = (message: AssistantMessage) => Promise<void>

/**
 * Set on a call that re-runs a recorded run from one of its rounds (`forkRun`): the run and round
 * it forks. The tool loop numbers its rounds on from there, and an observer links the two runs.
 */
export const FORK_KEY = 'advisor-chain.fork'

export interface ForkOrigin {
  runId: string
  round: number
}

/** The fork origin a context carries, when it is a well-formed one. */
export function forkOriginOf(context: Readonly<Record<string, unknown>>): ForkOrigin | undefined {
  const value = context[FORK_KEY] as Partial<ForkOrigin> | null | undefined
  if (typeof value?.runId !== 'string' || !Number.isInteger(value.round) || value.round! < 1) return undefined
  return { runId: value.runId, round: value.round! }
}
