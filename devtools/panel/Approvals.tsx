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
        <div key={approval.id} className="approval" data-testid="pending-approval">
          <strong>Approve {approval.toolCall.name}?</strong>
          <code>{prettyJson(approval.toolCall.arguments)}</code>
          <button type="button" className="primary" onClick={() => queue.decide(approval.id, { type: 'approve' })}>
            Approve
          </button>
          <button
            type="button"
            className="secondary"
            onClick={() => queue.decide(approval.id, { type: 'reject', message: 'Rejected from the devtools' })}
          >
            Reject
          </button>
        </div>
      ))}
    </section>
  )
}
