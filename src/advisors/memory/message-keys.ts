import { type AssistantMessage, isBlob, type Message } from '../../core'

// Messages compared by content: a stored message read back is a new object.

/** Whether `run` appears, in order and without gaps, somewhere in `messages` (compared by content). */
export function containsRun(messages: readonly Message[], run: readonly Message[]): boolean {
  if (run.length === 0) return true
  if (run.length > messages.length) return false
  const keys = messages.map(key)
  const wanted = run.map(key)
  outer: for (let start = 0; start + wanted.length <= keys.length; start++) {
    for (let i = 0; i < wanted.length; i++) if (keys[start + i] !== wanted[i]) continue outer
    return true
  }
  return false
}

/** Whether two assistant messages make the same tool calls (by id). */
export function sameCalls(saved: AssistantMessage, answer: AssistantMessage): boolean {
  return (
    saved.toolCalls.length > 0 &&
    saved.toolCalls.length === answer.toolCalls.length &&
    saved.toolCalls.every((call, index) => call.id === answer.toolCalls[index]!.id)
  )
}

/** Whether the stored conversation ends with `message` (compared by content). */
export function memoryEndsWith(memory: readonly Message[], message: Message): boolean {
  const last = memory.at(-1)
  return last !== undefined && key(last) === key(message)
}

/** A message's content as text, its metadata left out. */
function key(message: Message): string {
  const { metadata: _metadata, ...content } = message
  try {
    return JSON.stringify(content, blobKey)
  } catch {
    // Not plain data (a BigInt, a cycle) from a repository: equal to nothing rather than a throw on every turn.
    return `unkeyable ${++unkeyable}`
  }
}

let unkeyable = 0

/**
 * A Blob in a message's key: JSON would make every Blob `{}`, so a question sent again with another
 * image would count as the one stored. A Blob read back from IndexedDB is a new object with the same
 * type, size and (a File's) name and date, so those are its key.
 */
function blobKey(_key: string, value: unknown): unknown {
  if (!isBlob(value)) return value
  const file = value as Partial<File>
  return `blob ${value.type} ${value.size} ${file.name ?? ''} ${file.lastModified ?? ''}`
}
