import type { ChatClient } from '../client'
import { agentAt } from '../client/agent-runs'
import { FORK_KEY, RUN_ID_KEY, newId, type ChatResponse, type ForkOrigin } from '../core'
import { ForkError, forkPlan, type ForkRunRequest, type TraceEvent } from '../trace'

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
  const { agent, observer } = runner(client, request.trace, plan.forkOf.runId)
  // The recorded system message replaces the client's default one instead of being sent twice.
  const spec =
    first?.role === 'system'
      ? agent
          .prompt()
          .system(first.text)
          .messages(...rest)
      : agent.prompt().messages(...plan.messages)
  if (observer) spec.advisors(observer)
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

/** The client that made a run: the app's, or for a sub-agent's run (agentTool) the agent tool's client. */
function runner(client: ChatClient, trace: readonly TraceEvent[], runId: string): ReturnType<typeof agentAt> {
  const path = agentPath(trace, runId)
  try {
    return agentAt(client, path)
  } catch (error) {
    throw new ForkError(`Run ${runId} is a sub-agent's (${path.join(' → ')}): ${(error as Error).message}`)
  }
}

/** The agent tools on the way down to a run, outermost first, from the runs' parent links. */
function agentPath(trace: readonly TraceEvent[], runId: string): string[] {
  const path: string[] = []
  const seen = [runId]
  for (let run = runId; ;) {
    const start = trace.find((event) => event.type === 'run-start' && event.runId === run)
    if (start?.type !== 'run-start' || start.parentRunId === undefined || start.parentToolCallId === undefined)
      return path
    const { parentRunId, parentToolCallId } = start
    // An imported trace is untrusted: its parent links may go round.
    if (seen.includes(parentRunId))
      throw new ForkError(`The parent links of run ${runId} go round: ${[...seen, parentRunId].join(' → ')}`)
    const call = trace.find(
      (event) => event.type === 'tool-start' && event.runId === parentRunId && event.toolCall.id === parentToolCallId,
    )
    if (call?.type !== 'tool-start')
      throw new ForkError(
        `Run ${run} is a sub-agent's, started by tool call ${parentToolCallId} of run ${parentRunId}, which the trace does not hold`,
      )
    path.unshift(call.toolCall.name)
    seen.push(parentRunId)
    run = parentRunId
  }
}
