// The advisor-context keys the built-in advisors read and write. A key is a plain string at run
// time (contexts stay plain, cloneable records) that carries the type of its value for TypeScript.

import type { JsonSchema } from './json-schema'
import type { AssistantMessage, Message } from './messages'
import type { ChatResponseAggregator } from './stream'
import type { StreamReader } from './stream-stage'

declare const valueType: unique symbol

/** A key of the advisor context whose value is a `T`. */
export type ContextKey<T> = string & { readonly [valueType]?: T }

/** The value under `key`, as its key types it; `undefined` when absent. */
export function contextValue<T>(context: Readonly<Record<string, unknown>>, key: ContextKey<T>): T | undefined {
  return context[key] as T | undefined
}

const key = <T>(name: string) => name as ContextKey<T>

/** The id that ties every event of one call (run) together; minted by the chain that starts the run. */
export const RUN_ID_KEY = key<string>('advisor-chain.run-id')

/** The round of the tool loop the request belongs to, from 1. */
export const ROUND_KEY = key<number>('advisor-chain.round')

/**
 * The streamed round's answer so far, as the tool loop folds it: an advisor inside the loop that
 * wants the round's aggregate reads it here instead of folding every chunk again.
 */
export const ROUND_ANSWER_KEY = key<ChatResponseAggregator>('advisor-chain.round-answer')

/** The JSON Schema an `entity()` call wants its answer in. */
export const OUTPUT_SCHEMA_KEY = key<JsonSchema>('advisor-chain.output-schema')

/** The budget spent so far in this call (LoopBudgetAdvisor; its own state type). */
export const BUDGET_KEY = key<unknown>('advisor-chain.budget')

/** Answers given to tool calls before they run, by call id (e.g. the user declined the call). */
export const TOOL_ANSWERS_KEY = key<Readonly<Record<string, string>>>('advisor-chain.tool-answers')

/**
 * A list the tool loop adds each tool round's messages to (the assistant message with its calls,
 * then their results) when a request carries one: memory outside the loop keeps them with the
 * answer, for a chat to show after a reload (never sent to the model again).
 */
export const TURN_ROUNDS_KEY = key<Message[]>('advisor-chain.turn-rounds')

/**
 * An assistant message with tool calls that a conversation ended with before its tools ran (a page
 * reload during an approval): the first round replays it instead of asking the model again.
 */
export const PENDING_TOOL_CALLS_KEY = key<AssistantMessage>('advisor-chain.pending-tool-calls')

/** Where a forked run comes from: the run and round it re-runs from. */
export interface ForkOrigin {
  runId: string
  round: number
}

/**
 * Set on a call that re-runs a recorded run from one of its rounds (`forkRun`): the run and round
 * it forks. The tool loop numbers its rounds on from there, and an observer links the two runs.
 */
export const FORK_KEY = key<ForkOrigin>('advisor-chain.fork')

/** The fork origin a context carries, when it is a well-formed one. */
export function forkOriginOf(context: Readonly<Record<string, unknown>>): ForkOrigin | undefined {
  const value = contextValue(context, FORK_KEY) as Partial<ForkOrigin> | null | undefined
  if (typeof value?.runId !== 'string' || !Number.isInteger(value.round) || value.round! < 1) return undefined
  return { runId: value.runId, round: value.round! }
}

/** A sub-agent's call (agentTool): what started it, and the agents on the way down to it. */
export interface AgentCall {
  /** The parent's run. */
  parentRunId?: string
  /** The parent's tool call that started the sub-agent. */
  parentToolCallId: string
  /** The agent tools called on the way, outermost first, by name (this one last). */
  path: string[]
  /** The same agents by identity, for the cycle check. */
  agents: string[]
}

/** Set on a sub-agent's request by agentTool; read by agentTool (depth, cycles) and an observer (run links). */
export const AGENT_CALL_KEY = key<AgentCall>('advisor-chain.agent-call')

/**
 * The streamed round starts over (a validation retry, an escalation to another model): what the
 * tool loop folded of it so far is dropped, so its answer is the new attempt's alone.
 */
export function startRoundOver(context: Readonly<Record<string, unknown>>): void {
  contextValue(context, ROUND_ANSWER_KEY)?.clear()
}

/** The reader of the caller's stream, on a streamed call: a turn holding a conversation tells it when another turn waits. */
export const READER_KEY = key<StreamReader>('advisor-chain.reader')
