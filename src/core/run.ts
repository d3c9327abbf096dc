import { isAbortError, readerStopped } from './abort'
import type { Advisor, ChatClientRequest, ChatClientResponse } from './advisor'
import {
  type ChainEvent,
  emitChainEvent,
  errorInfo,
  isChainEventListener,
  newId,
  type RunAdvisor,
} from './chain-events'
import { RUN_ID_KEY } from './context-keys'
import { streamStage } from './stream-stage'

const TOOL_ADVISOR = Symbol.for('advisor-chain.tool-advisor')

/** Marks the advisor that runs the tool loop; a chain may hold at most one. */
export interface ToolAdvisor extends Advisor {
  readonly [TOOL_ADVISOR]: true
}

export function isToolAdvisor(advisor: unknown): advisor is ToolAdvisor {
  return (advisor as Partial<ToolAdvisor> | null)?.[TOOL_ADVISOR] === true
}

export { TOOL_ADVISOR }

/** What a chain knows of the runs it starts: who listens, and where each advisor sits against the tool loop. */
export interface RunPlan {
  /** Whether a run needs an id: someone hears its events, or its tool loop's approvals are told apart by run. */
  readonly named: boolean
  readonly listeners: readonly Advisor[]
  readonly advisors: readonly RunAdvisor[]
}

export function runPlan(advisors: readonly Advisor[]): RunPlan {
  const loop = advisors.find(isToolAdvisor)
  const loopOrder = loop?.order ?? Number.POSITIVE_INFINITY
  const listeners = advisors.filter(isChainEventListener)
  return {
    named: listeners.length > 0 || loop !== undefined,
    listeners,
    advisors: advisors.map(({ name, order }) => ({
      name,
      order,
      placement: order < loopOrder ? 'outside-loop' : order === loopOrder ? 'tool-loop' : 'inside-loop',
    })),
  }
}

/**
 * A call as one run: the one place a run id is minted (unless the caller named the run, as a fork
 * does); the listeners hear of its start before any advisor reports on it, and of its end.
 */
export function callRun(
  plan: RunPlan,
  request: ChatClientRequest,
  call: (request: ChatClientRequest) => Promise<ChatClientResponse>,
): Promise<ChatClientResponse> {
  if (!plan.named) return call(request)
  const started = startRun(plan, request, 'call')
  if (plan.listeners.length === 0) return call(started)
  return call(started).then(
    (response) => {
      endRun(plan, started, undefined)
      return response
    },
    (error: unknown) => {
      endRun(plan, started, error)
      throw error
    },
  )
}

/** A stream as one run (see `callRun`): it ends when the stream ends, fails or its reader leaves. */
export function streamRun(
  plan: RunPlan,
  request: ChatClientRequest,
  stream: (request: ChatClientRequest) => AsyncIterable<ChatClientResponse>,
): AsyncIterable<ChatClientResponse> {
  if (!plan.named) return stream(request)
  const started = startRun(plan, request, 'stream')
  if (plan.listeners.length === 0) return stream(started)
  return streamStage<ChatClientResponse>({
    open: () => stream(started),
    end: () => endRun(plan, started, undefined),
    fail: (error) => {
      endRun(plan, started, error)
      throw error
    },
    stop: () => endRun(plan, started, readerStopped()),
  })
}

function startRun(plan: RunPlan, request: ChatClientRequest, mode: 'call' | 'stream'): ChatClientRequest {
  const started =
    RUN_ID_KEY in request.context ? request : { ...request, context: { ...request.context, [RUN_ID_KEY]: newId() } }
  if (plan.listeners.length > 0) {
    emitChainEvent(plan.listeners, { type: 'run-start', mode, advisors: plan.advisors }, started.context, 'chain')
  }
  return started
}

function endRun(plan: RunPlan, request: ChatClientRequest, error: unknown): void {
  const event: ChainEvent =
    error === undefined
      ? { type: 'run-end', status: 'ok' }
      : { type: 'run-end', status: isAbortError(error) ? 'aborted' : 'error', error: errorInfo(error) }
  emitChainEvent(plan.listeners, event, request.context, 'chain')
}
