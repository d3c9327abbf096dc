import type { ChatClient } from '../client'
import { FORK_KEY, RUN_ID_KEY, newId, type ChatResponse, type ForkOrigin } from '../core'
import { forkPlan, type ForkRunRequest } from '../trace'

export interface ForkRunOptions {
  /** Run the fork as a stream (default: as the original run was made). */
  stream?: boolean
  signal?: AbortSignal
}

export interface ForkResult {
  /** The new run: its trace events carry this id, and its `run-start` says which run it forks. */
  runId: string
  forkOf: ForkOrigin
  /** The fork's answer text (null when the model gave none). */
  answer: string | null
  /** The last response (for a stream: the last chunk). */
  chatResponse: ChatResponse | null
}

/**
 * Runs a recorded run again from one of its rounds, with edits: the round's prompt comes from the
 * trace (so the rounds before it are not asked of the model again), goes through the client's
 * chain (its tools, advisors, model), and the loop carries on from there as a new run linked to
 * the original. Chat memory is left alone: a fork is an experiment, not a turn of the conversation.
 */
export async function forkRun(
  client: ChatClient,
  request: ForkRunRequest,
  options: ForkRunOptions = {},
): Promise<ForkResult> {
  const plan = forkPlan(request)
  const runId = newId()
  const [first, ...rest] = plan.messages
  // The recorded system message replaces the client's default one instead of being sent twice.
  const spec =
    first?.role === 'system'
      ? client
          .prompt()
          .system(first.text)
          .messages(...rest)
      : client.prompt().messages(...plan.messages)
  spec.options(plan.options).advisorParams({ [RUN_ID_KEY]: runId, [FORK_KEY]: plan.forkOf })
  if (options.signal) spec.signal(options.signal)
  if (!(options.stream ?? plan.mode === 'stream')) {
    const response = await spec.call().chatClientResponse()
    const chatResponse = response.chatResponse
    return { runId, forkOf: plan.forkOf, answer: chatResponse?.results[0]?.output.text ?? null, chatResponse }
  }
  let answer: string | null = null
  let chatResponse: ChatResponse | null = null
  for await (const chunk of spec.stream().chatResponse()) {
    chatResponse = chunk
    const text = chunk.results[0]?.output.text
    if (text) answer = (answer ?? '') + text
  }
  return { runId, forkOf: plan.forkOf, answer, chatResponse }
}
