import type { Escalation } from './chain-events'
import type { Usage } from './model'

/**
 * What happens in a streamed call, as it happens, in order: the typed events of
 * `.stream().parts()`. Rounds are the tool loop's (from 1); tool calls are known by their ids.
 */
export type StreamPart =
  | { type: 'round-start'; round: number }
  | { type: 'reasoning-delta'; round: number; delta: string }
  | { type: 'text-delta'; round: number; delta: string }
  /** The model started a tool call: a UI can draw its card now. */
  | { type: 'tool-call-start'; round: number; id: string; name: string }
  | { type: 'tool-call-delta'; round: number; id: string; argumentsDelta: string }
  /** The call is complete: its whole arguments. */
  | { type: 'tool-call'; round: number; id: string; name: string; arguments: string }
  | { type: 'approval-requested'; round: number; id: string; name: string; arguments: string }
  | {
      type: 'approval-decided'
      round: number
      id: string
      decision: 'approve' | 'edit' | 'reject'
      /** The edited arguments, or what the user said when rejecting. */
      detail?: string
    }
  | { type: 'tool-start'; round: number; id: string; name: string }
  | { type: 'tool-result'; round: number; id: string; name: string; result: string; isError: boolean }
  | { type: 'round-end'; round: number; finishReason?: string }
  /**
   * A part of a sub-agent's stream (`agentTool`), under the tool call `id` (of tool `name`) that
   * started it; a sub-agent's own sub-agents nest further. Its text is the sub-agent's, never the answer's.
   */
  | { type: 'agent-part'; round: number; id: string; name: string; part: StreamPart }
  /** The answer was invalid: a new attempt starts, with these errors sent back (partial values start over). */
  | { type: 'attempt-start'; round: number; attempt: number; errors: string[] }
  /**
   * The last event: how the answer ended, with the usage summed over rounds, the model that wrote
   * the last round (its id as the response names it) and, when that round left the client's model
   * for a fallback (EscalationAdvisor), which models and why.
   */
  | { type: 'finish'; finishReason?: string; usage?: Usage; model?: string; escalation?: Escalation }
