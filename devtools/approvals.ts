import type { ToolCall } from 'advisor-chain/trace'

/** A tool call waiting for the user, as the panel shows it. */
export interface PendingToolApproval {
  /** The key to answer with. */
  id: string
  toolCall: ToolCall
  /** Asked inside a sub-agent: the agent tools on the way down, then the call's tool. */
  path?: readonly string[]
}

/**
 * What the panel needs to show pending approvals and answer them. The library's `ApprovalQueue`
 * fits it; so does any object of the app's own with these three methods.
 */
export interface ApprovalSource {
  /** The approvals waiting, oldest first; the same array until something changes. */
  pending(): readonly PendingToolApproval[]
  subscribe(listener: () => void): () => void
  decide(id: string, decision: { type: 'approve' } | { type: 'reject'; message?: string }): void
}
