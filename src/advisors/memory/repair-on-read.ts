import { isMessage, type Message } from '../../core'
import { type ChatMemory, dropOrphans } from '../../memory'

/** What a repair on read dropped, for the warning the advisor gives. */
export interface Repair {
  message: string
  data: { dropped: number; skipped?: number }
}

/**
 * The stored conversation, repaired on read: a tool call without its response (a turn cut short,
 * a record lost) or a response without its call is dropped and the repair saved.
 */
export async function loadRepaired(
  chatMemory: ChatMemory,
  id: string,
  keepPendingCalls: boolean,
): Promise<{ messages: Message[]; repair?: Repair }> {
  const read = await chatMemory.get(id)
  // What a repository gives that is not a message is skipped, never a TypeError on every turn.
  const stored = read.filter(isMessage)
  const skipped = read.length - stored.length
  const { messages, dropped } = dropOrphans(stored, keepPendingCalls)
  if (dropped === 0 && skipped === 0) return { messages: stored }
  await replaceWindow(
    chatMemory,
    id,
    read,
    (window) => dropOrphans(window.filter(isMessage), keepPendingCalls).messages,
  )
  const what = [
    ...(dropped > 0
      ? [
          `${dropped} tool call${dropped === 1 ? '' : 's'} or response${dropped === 1 ? '' : 's'} without ${dropped === 1 ? 'its' : 'their'} counterpart`,
        ]
      : []),
    ...(skipped > 0
      ? [`${skipped} stored value${skipped === 1 ? '' : 's'} that ${skipped === 1 ? 'is' : 'are'} not a message`]
      : []),
  ].join(' and ')
  return {
    messages,
    repair: { message: `memory dropped ${what}`, data: { dropped, ...(skipped > 0 ? { skipped } : {}) } },
  }
}

/** After a failed or aborted turn: what the tools did not answer is dropped, never answered with made-up text. */
export async function dropUnanswered(chatMemory: ChatMemory, id: string): Promise<void> {
  const read = await chatMemory.get(id)
  if (dropOrphans(read.filter(isMessage), false).dropped > 0)
    await replaceWindow(chatMemory, id, read, (window) => dropOrphans(window.filter(isMessage), false).messages)
}

/**
 * Replaces the stored window with `change(window)` in one atomic step, so no reader (another tab,
 * a page closed half-way) ever sees the conversation empty. A ChatMemory without `update` is
 * cleared and written again, from `read` (what it gave just before).
 */
export async function replaceWindow(
  chatMemory: ChatMemory,
  id: string,
  read: Message[],
  change: (window: Message[]) => Message[],
): Promise<void> {
  if (chatMemory.update) return chatMemory.update(id, change)
  const messages = change(read)
  await chatMemory.clear(id)
  if (messages.length > 0) await chatMemory.add(id, messages)
}
