import {
  ApprovalQueue,
  approvalQueueOf,
  isMemoryAdvisor,
  SessionMemoryAdvisor,
  ToolApprovalAdvisor,
} from '../../advisors'
import type { AnyAdvisor } from '../../core'
import type { ChatMemory } from '../../memory'
import type { SessionService } from '../../session'
import { ChatClient } from '../client'

// What a chat finds on its client, so an app gives memory and approvals once: to the client.

/** The ChatMemory of the client's memory advisor: the chat restores the conversation it keeps. */
export function memoryOf(client: ChatClient | undefined): ChatMemory | undefined {
  if (!client) return undefined
  for (const advisor of ChatClient.defaultsOf(client).advisors) {
    const memory = isMemoryAdvisor(advisor) ? (advisor as { chatMemory?: ChatMemory }).chatMemory : undefined
    if (memory) return memory
  }
}

/** The SessionService of the client's SessionMemoryAdvisor: the chat shows the session's whole log. */
export function sessionOf(client: ChatClient | undefined): SessionService | undefined {
  if (!client) return undefined
  const advisor = ChatClient.defaultsOf(client).advisors.find((advisor) => advisor instanceof SessionMemoryAdvisor)
  return advisor?.sessionService
}

/** Where a chat answers approvals, and the advisor it adds to each request to ask them (none when the client has one). */
export interface ApprovalWiring {
  queue: ApprovalQueue | undefined
  advisor: AnyAdvisor | undefined
}

/**
 * The queue of the client's ToolApprovalAdvisor; or, when a tool of the client `needsApproval`
 * and no advisor would ask, the chat's own queue with an advisor that asks it (`own`, made once).
 */
export function approvalWiring(
  client: ChatClient,
  own: () => { queue: ApprovalQueue; advisor: ToolApprovalAdvisor },
): ApprovalWiring {
  const defaults = ChatClient.defaultsOf(client)
  const given = defaults.advisors.find((advisor) => advisor instanceof ToolApprovalAdvisor)
  if (given) return { queue: approvalQueueOf(given), advisor: undefined }
  if (!defaults.tools.some((tool) => tool.metadata.needsApproval)) return { queue: undefined, advisor: undefined }
  return own()
}

/** A chat's own approvals: its queue (the one it was given, or a new one) and the advisor that asks it. */
export function ownApprovals(given?: ApprovalQueue): { queue: ApprovalQueue; advisor: ToolApprovalAdvisor } {
  const queue = given ?? new ApprovalQueue()
  return { queue, advisor: new ToolApprovalAdvisor({ handler: queue.handler }) }
}
