import type { WhenBusy } from '../../memory'

/** `policy`, checked: what a memory advisor's turn does when another turn holds its conversation. */
export function whenBusyPolicy(policy: WhenBusy): WhenBusy {
  if (policy !== 'wait' && policy !== 'reject' && policy !== 'interrupt')
    throw new TypeError(`whenBusy must be 'wait', 'reject' or 'interrupt', not ${JSON.stringify(policy)}`)
  return policy
}
