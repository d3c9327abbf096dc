import { abortError, type ToolCall } from '../core'

export type ApprovalDecision =
  | { type: 'approve' }
  /** Run the call with these arguments instead (an object, or raw JSON text). */
  | { type: 'edit'; arguments: Record<string, unknown> | string }
  /** Do not run the call; `message` is what the user said, passed on to the model. */
  | { type: 'reject'; message?: string }

export interface ApprovalRequest {
  toolCall: ToolCall
  /** The arguments parsed from JSON, or undefined when they are not JSON. */
  arguments: unknown
  runId?: string
  round?: number
  /** Asked inside a sub-agent (agentTool): the agent tools on the way down, then this call's tool, e.g. `['researcher', 'fetch_page']`. */
  path?: string[]
  signal?: AbortSignal
}

export type ApprovalHandler = (request: ApprovalRequest) => Promise<ApprovalDecision>

export interface PendingApproval extends ApprovalRequest {
  /** The id to answer with: the tool call's id, with the run's id in front when another run waits on the same call id. */
  id: string
  requestedAt: number
}

const queues = new WeakMap<ApprovalHandler, ApprovalQueue>()

/** The queue whose `handler` this is, if any (a chat finds the queue of a client's ToolApprovalAdvisor). */
export function queueOfHandler(handler: ApprovalHandler): ApprovalQueue | undefined {
  return queues.get(handler)
}

/**
 * Holds the approvals waiting for the user, for any UI to show and answer: the app's own dialog
 * and the devtools panel can both read `pending()` and call `decide()`. Its `handler` is what a
 * ToolApprovalAdvisor asks.
 */
export class ApprovalQueue {
  readonly #pending = new Map<string, { approval: PendingApproval; resolve: (decision: ApprovalDecision) => void }>()
  readonly #listeners = new Set<() => void>()
  #snapshot: readonly PendingApproval[] = []

  readonly handler: ApprovalHandler = (request) =>
    new Promise<ApprovalDecision>((resolve, reject) => {
      const signal = request.signal
      if (signal?.aborted) return reject(abortError(signal))
      const id = this.#keyFor(request)
      const onAbort = () => {
        this.#remove(id)
        reject(abortError(signal))
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      const approval: PendingApproval = { ...request, id, requestedAt: Date.now() }
      this.#pending.set(id, {
        approval,
        resolve: (decision) => {
          signal?.removeEventListener('abort', onAbort)
          resolve(decision)
        },
      })
      this.#changed()
    })

  constructor() {
    queues.set(this.handler, this)
  }

  /** The approvals waiting, oldest first (the same array until something changes). */
  pending(): readonly PendingApproval[] {
    return this.#snapshot
  }

  /** Answers the approval with this `id` (from `pending()`), or the one approval waiting for a tool call of this id. */
  decide(id: string, decision: ApprovalDecision): void {
    const key = this.#pending.has(id) ? id : this.#keyOfCall(id)
    const entry = this.#pending.get(key)
    if (!entry) throw new Error(`No approval is waiting for tool call '${id}'`)
    this.#remove(key)
    entry.resolve(decision)
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  // Usually the call id; two runs (or a model that repeats ids) waiting on one call id get the run in the key.
  #keyFor(request: ApprovalRequest): string {
    const callId = request.toolCall.id
    if (!this.#pending.has(callId)) return callId
    const base = request.runId === undefined ? callId : `${request.runId}/${callId}`
    let key = base
    for (let n = 2; this.#pending.has(key); n++) key = `${base}#${n}`
    return key
  }

  #keyOfCall(callId: string): string {
    const keys = [...this.#pending].filter(([, entry]) => entry.approval.toolCall.id === callId).map(([key]) => key)
    if (keys.length > 1) {
      throw new Error(
        `${keys.length} approvals are waiting for tool call '${callId}' (in different runs); answer with the id from pending(): ${keys.join(', ')}`,
      )
    }
    return keys[0] ?? callId
  }

  #remove(id: string): void {
    if (this.#pending.delete(id)) this.#changed()
  }

  #changed(): void {
    this.#snapshot = [...this.#pending.values()].map((entry) => entry.approval)
    for (const listener of this.#listeners) listener()
  }
}
