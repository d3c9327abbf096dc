import type { ApprovalQueue } from 'advisor-chain'
import { useState, useSyncExternalStore } from 'react'

/** Asks the user about each tool call a ToolApprovalAdvisor holds: allow, change the arguments, or deny. */
export function ApprovalPrompt({ queue }: { queue: ApprovalQueue }) {
  const pending = useSyncExternalStore(
    (listener) => queue.subscribe(listener),
    () => queue.pending(),
  )
  const [editing, setEditing] = useState<string>()
  const [reason, setReason] = useState('')
  const approval = pending[0]
  if (!approval) return null
  return (
    <div
      className="approval-prompt"
      role="alertdialog"
      aria-label={`Approve ${approval.toolCall.name}`}
      data-testid="approval-prompt"
    >
      <strong>
        Allow <code>{approval.toolCall.name}</code>?
      </strong>
      {approval.path && approval.path.length > 1 ? (
        <span className="approval-path" data-testid="approval-path">
          asked by a sub-agent: {approval.path.join(' → ')}
        </span>
      ) : null}
      {editing !== undefined ? (
        <textarea
          aria-label="Arguments"
          value={editing}
          onChange={(event) => setEditing(event.target.value)}
          rows={3}
        />
      ) : (
        <code className="arguments">{approval.toolCall.arguments}</code>
      )}
      <input
        aria-label="Reason (sent to the model when you deny)"
        placeholder="Reason, if you deny (optional)"
        value={reason}
        onChange={(event) => setReason(event.target.value)}
      />
      <div className="actions">
        <button
          type="button"
          className="primary"
          onClick={() => {
            queue.decide(
              approval.id,
              editing !== undefined ? { type: 'edit', arguments: editing } : { type: 'approve' },
            )
            setEditing(undefined)
            setReason('')
          }}
        >
          {editing !== undefined ? 'Run with these arguments' : 'Allow'}
        </button>
        {editing === undefined && (
          <button type="button" className="secondary" onClick={() => setEditing(approval.toolCall.arguments)}>
            Edit
          </button>
        )}
        <button
          type="button"
          className="secondary"
          onClick={() => {
            queue.decide(approval.id, { type: 'reject', ...(reason ? { message: reason } : {}) })
            setEditing(undefined)
            setReason('')
          }}
        >
          Deny
        </button>
      </div>
    </div>
  )
}
