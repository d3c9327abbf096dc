import type { ApprovalSource } from '../approvals'
import { useSyncExternalStore } from 'react'
import { prettyJson } from './format'

/** Tool calls waiting for the user, with buttons to answer them from the panel. */
export function Approvals({ queue }: { queue: ApprovalSource }) {
  const pending = useSyncExternalStore(
    (listener) => queue.subscribe(listener),
    () => queue.pending(),
  )
  if (pending.length === 0) return null
  return (
    <section className="approvals" aria-label="Pending approvals">
      {pending.map((approval) => (
        <div key={approval.id} className="approval-request" data-testid="pending-approval">
          <strong>Run {approval.toolCall.name}?</strong>
          {approval.path && approval.path.length > 1 ? (
            <span className="approval-path" data-testid="approval-path">
              in {approval.path.join(' → ')}
            </span>
          ) : null}
          <code>{prettyJson(approval.toolCall.arguments)}</code>
          {/* Named with the tool: an app's own Approve/Reject buttons must stay the only ones of their name. */}
          <button
            type="button"
            className="primary"
            aria-label={`Allow ${approval.toolCall.name}`}
            onClick={() => queue.decide(approval.id, { type: 'approve' })}
          >
            Allow
          </button>
          <button
            type="button"
            className="secondary"
            aria-label={`Deny ${approval.toolCall.name}`}
            onClick={() => queue.decide(approval.id, { type: 'reject', message: 'Denied from the devtools' })}
          >
            Deny
          </button>
        </div>
      ))}
    </section>
  )
}
