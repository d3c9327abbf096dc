import type { TracedAdvisor } from 'advisor-chain'
import type { RunView } from '../trace-model'

/** Known-bad layouts, in words. */
export function chainWarnings(run: RunView): string[] {
  const warnings: string[] = []
  if (run.observer === 'outside-loop') {
    warnings.push(
      'The observer sits outside the tool loop: it sees the whole call but not each round. Give it an order above the tool advisor (e.g. HIGHEST_PRECEDENCE + 400).',
    )
  }
  const memoryInside = run.chain.some((advisor) => advisor.placement === 'inside-loop' && /memory/i.test(advisor.name))
  const secondRound = run.rounds.find((round) => round.round >= 2)?.model?.request
  const historyOn = !!secondRound && ((secondRound.shared ?? 0) > 0 || secondRound.messages.length > 2)
  if (memoryInside && historyOn) {
    warnings.push(
      'A memory advisor sits inside the loop while the tool advisor keeps its own history: every message is sent twice. Disable the loop history (disableInternalConversationHistory()), or let ChatClient register the tool advisor.',
    )
  }
  return warnings
}

/** The advisors in order, with the tool loop drawn around the ones that run every round. */
export function ChainView({ run }: { run: RunView }) {
  const outside = run.chain.filter((advisor) => advisor.placement === 'outside-loop')
  const loop = run.chain.find((advisor) => advisor.placement === 'tool-loop')
  const inside = run.chain.filter((advisor) => advisor.placement === 'inside-loop')
  return (
    <div className="chain" aria-label="Advisor chain">
      {chainWarnings(run).map((warning) => (
        <p key={warning} className="warning" role="note">
          ⚠ {warning}
        </p>
      ))}
      {run.chain.length === 0 && <p className="muted">The chain of this run was not recorded.</p>}
      {outside.map((advisor) => (
        <AdvisorRow key={`${advisor.name}${advisor.order}`} advisor={advisor} note="once per call" />
      ))}
      {loop && (
        <div className="loop" aria-label="Tool loop">
          <AdvisorRow
            advisor={loop}
            note={`loops ${run.rounds.length} round${run.rounds.length === 1 ? '' : 's'}: chain.copy(this) per round`}
          />
          <div className="loop-label">↻ every round</div>
          {inside.map((advisor) => (
            <AdvisorRow key={`${advisor.name}${advisor.order}`} advisor={advisor} note="every round" />
          ))}
        </div>
      )}
      {!loop &&
        inside.map((advisor) => <AdvisorRow key={`${advisor.name}${advisor.order}`} advisor={advisor} note="" />)}
    </div>
  )
}

const PRECEDENCE = { high: -2147483648, low: 2147483647 }

function orderText(order: number): string {
  if (order - PRECEDENCE.high < 100_000) return `HIGHEST + ${order - PRECEDENCE.high}`
  if (PRECEDENCE.low - order < 100_000)
    return order === PRECEDENCE.low ? 'LOWEST' : `LOWEST − ${PRECEDENCE.low - order}`
  return String(order)
}

function AdvisorRow({ advisor, note }: { advisor: TracedAdvisor; note: string }) {
  return (
    <div className="advisor">
      <strong>{advisor.name}</strong>
      <span className="muted">{note}</span>
      <span className="order">{orderText(advisor.order)}</span>
    </div>
  )
}
