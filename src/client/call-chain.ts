import {
  AdvisorChain,
  contextValue,
  modelCallAdvisor,
  OUTPUT_SCHEMA_KEY,
  type AnyAdvisor,
  type ChatModel,
  type PromptShaper,
} from '../core'
import { withOutputFormat } from './output-format'

/**
 * The chain of a client's last call. Apps call with the same advisors again and again, and a chain
 * is immutable (each run keeps its state in its own request and loop): while the advisors are the
 * same objects, the next call reuses the chain instead of sorting and indexing it again.
 */
export interface ChainMemo {
  advisors: readonly AnyAdvisor[]
  chain: AdvisorChain | undefined
}

export function chainMemo(): ChainMemo {
  return { advisors: [], chain: undefined }
}

/** The chain of `advisors` and the model's terminal. */
export function callChain(memo: ChainMemo, advisors: readonly AnyAdvisor[], model: ChatModel): AdvisorChain {
  if (memo.chain && sameAdvisors(memo.advisors, advisors)) return memo.chain
  memo.advisors = advisors
  return (memo.chain = AdvisorChain.of([...advisors, modelCallAdvisor(model, outputShaper)]))
}

function sameAdvisors(a: readonly AnyAdvisor[], b: readonly AnyAdvisor[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** The terminal's prompt shaper: a call or stream that asks for structured output gets the format its model takes. */
export const outputShaper: PromptShaper = (prompt, context, model) =>
  contextValue(context, OUTPUT_SCHEMA_KEY) === undefined ? prompt : withOutputFormat(prompt, context, model)
