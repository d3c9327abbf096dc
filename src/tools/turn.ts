import type { Message, ToolCall, ToolResponse } from '../core'
import { jsonFingerprint, textHash } from './json-fingerprint'

/** A call requested in this turn, and how often calls with the same meaning were. */
interface RequestedCall {
  name: string
  arguments: string
  /** The arguments' canonical text, made when another call's fingerprint meets this one's. */
  canonical: string | undefined
  count: number
}

/**
 * What the current turn (everything after the last user message) holds so far: tool responses
 * per tool and in total, and how often each identical call was requested. Kept per conversation
 * so that a round costs the same at round 1000 as at round 10.
 */
export class TurnLedger {
  readonly #perTool = new Map<string, number>()
  /** The calls of the turn by the fingerprint of their name and arguments. */
  readonly #requested = new Map<number, RequestedCall | RequestedCall[]>()
  total = 0

  static of(messages: readonly Message[], turnStart?: Message): TurnLedger {
    const remembered = ledgers.get(messages)
    if (remembered?.length === messages.length) {
      // Used once: a second look at the same conversation recounts.
      remembered.length = -1
      return remembered.ledger
    }
    const ledger = new TurnLedger()
    for (const message of currentTurn(messages, turnStart)) {
      if (message.role === 'assistant') message.toolCalls.forEach((call) => ledger.countCall(call))
      if (message.role === 'tool') message.responses.forEach((response) => ledger.countResponse(response))
    }
    return ledger
  }

  /**
   * Counts a requested call; returns how often this call (name and arguments) was requested in the turn.
   * `args`: the call's arguments as `parsedArguments` gives them, when the caller has them already.
   */
  countCall(call: ToolCall, args: unknown = parsedArguments(call.arguments)): number {
    const fingerprint =
      (textHash(call.name) ^ (args === undefined ? textHash(call.arguments) : jsonFingerprint(args))) & 0x3fffffff
    const requested = {
      name: call.name,
      arguments: call.arguments,
      canonical: undefined as string | undefined,
      count: 1,
    }
    const found = this.#requested.get(fingerprint)
    if (!found) {
      this.#requested.set(fingerprint, requested)
      return 1
    }
    // The same fingerprint: the same call, or (rarely) another one that hashes alike.
    const canonical = (requested.canonical = canonicalArguments(call.arguments))
    const calls = Array.isArray(found) ? found : [found]
    for (const earlier of calls) {
      if (earlier.name === call.name && (earlier.canonical ??= canonicalArguments(earlier.arguments)) === canonical) {
        return ++earlier.count
      }
    }
    calls.push(requested)
    this.#requested.set(fingerprint, calls)
    return 1
  }

  /** Counts an answered call; returns how often this tool was answered in the turn. */
  countResponse(response: Pick<ToolResponse, 'name'>): number {
    const count = (this.#perTool.get(response.name) ?? 0) + 1
    this.#perTool.set(response.name, count)
    this.total++
    return count
  }

  /**
   * Hands the ledger on to the next round of `messages`, once the round's two messages are added
   * to it: the tool loop keeps one history array and appends to it.
   */
  rememberFor(messages: readonly Message[]): void {
    const length = messages.length + 2
    const remembered = ledgers.get(messages)
    if (remembered) {
      remembered.ledger = this
      remembered.length = length
    } else ledgers.set(messages, { length, ledger: this })
  }
}

// Keyed by a conversation's array: a loop's history is one array that grows, so a conversation
// has one entry, updated each round (a new key each round cost a tenth of a tool round). A
// ledger is used once, then recomputed if asked again.
const ledgers = new WeakMap<readonly Message[], { length: number; ledger: TurnLedger }>()

/** A call's arguments as a value (no arguments: `{}`); undefined when they are not JSON (the tool then says why). */
export function parsedArguments(args: string): unknown {
  if (args.trim() === '') return {}
  try {
    return JSON.parse(args) as unknown
  } catch {
    return undefined
  }
}

/** The messages of the current turn: everything after `turnStart` when given and present, else after the last user message. */
export function currentTurn(messages: readonly Message[], turnStart?: Message): readonly Message[] {
  const start = turnStart ? messages.lastIndexOf(turnStart) : -1
  if (start >= 0) return messages.slice(start + 1)
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === 'user') return messages.slice(i + 1)
  }
  return messages
}

/** The arguments as one text whatever their key order and spacing; text that is not JSON as it is. */
function canonicalArguments(args: string): string {
  if (args.trim() === '') return '{}'
  try {
    const value: unknown = JSON.parse(args)
    // Models mostly write keys in order already; then the native encoder gives the same text, faster.
    return keysInOrder(value) ? JSON.stringify(value) : stableStringify(value)
  } catch {
    return args
  }
}

/** Whether every object in a parsed JSON value lists its keys in sorted order. */
function keysInOrder(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true
  if (Array.isArray(value)) return value.every(keysInOrder)
  let previous: string | undefined
  for (const key in value) {
    if (previous !== undefined && key < previous) return false
    if (!keysInOrder((value as Record<string, unknown>)[key])) return false
    previous = key
  }
  return true
}

function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableStringify((value as Record<string, unknown>)[key])}`)
    return `{${entries.join(',')}}`
  }
  return JSON.stringify(value)
}
