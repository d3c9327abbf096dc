import type { StreamPart } from '../../core'
import { callMove, startedCall } from './chat-parts'
import {
  joined,
  toolCallView,
  withParagraph,
  type ChatMessageView,
  type ChatPartView,
  type ToolCallPartView,
} from './chat-view'

/**
 * The assistant bubble an answer streams into, moved on by each event of `.stream().parts()` as
 * `withStreamPart` and `bubbleOf` would, with work for what the event changed only: a delta grows
 * the last part and the bubble's text, a tool event replaces its call's part and view (found by id,
 * not searched for). What did not change keeps its identity, so a UI redraws only the changed part.
 */
export class AnswerBubble {
  #bubble: ChatMessageView
  /** Where each tool call sits in the bubble's parts and in its `toolCalls`. */
  readonly #calls = new Map<string, { part: number; view: number }>()

  constructor(bubble: ChatMessageView) {
    this.#bubble = bubble
    let view = 0
    for (const [part, shown] of bubble.parts.entries())
      if (shown.type === 'tool-call' && !this.#calls.has(shown.id)) this.#calls.set(shown.id, { part, view: view++ })
  }

  get bubble(): ChatMessageView {
    return this.#bubble
  }

  /** The card of a tool call, when the bubble shows it. */
  call(id: string): ToolCallPartView | undefined {
    const at = this.#calls.get(id)
    return at && (this.#bubble.parts[at.part] as ToolCallPartView)
  }

  /** Moves the bubble on by one event; true when it changed (a new bubble object). */
  apply(event: StreamPart): boolean {
    const bubble = this.#bubble
    const { parts } = bubble
    switch (event.type) {
      case 'text-delta': {
        const last = parts.at(-1)
        const continued = last?.type === 'text'
        this.#bubble = {
          ...bubble,
          text: continued ? bubble.text + event.delta : withParagraph(bubble.text, event.delta),
          parts: continued ? parts.with(-1, { type: 'text', text: last.text + event.delta }) : [...parts, delta(event)],
        }
        return true
      }
      case 'reasoning-delta': {
        const last = parts.at(-1)
        const continued = last?.type === 'reasoning'
        const reasoning = continued ? (bubble.reasoning ?? '') + event.delta : joined(bubble.reasoning, event.delta)
        const { reasoning: _before, ...rest } = bubble
        this.#bubble = {
          ...rest,
          ...(reasoning ? { reasoning } : {}),
          parts: continued
            ? parts.with(-1, { type: 'reasoning', text: last.text + event.delta })
            : [...parts, delta(event)],
        }
        return true
      }
      case 'finish': {
        if (event.model === undefined) return false
        // The model that wrote the round, and the escalation that made another model write it.
        const { escalation: _earlier, ...rest } = bubble
        this.#bubble = { ...rest, model: event.model, ...(event.escalation ? { escalation: event.escalation } : {}) }
        return true
      }
      case 'tool-call-start': {
        if (this.#calls.has(event.id)) return false
        const call = startedCall(event)
        this.#calls.set(event.id, { part: parts.length, view: bubble.toolCalls.length })
        this.#bubble = { ...bubble, parts: [...parts, call], toolCalls: [...bubble.toolCalls, toolCallView(call)] }
        return true
      }
    }
    const moved = callMove(event)
    const at = moved && this.#calls.get(moved.id)
    if (!moved || !at) return false
    const call = parts[at.part] as ToolCallPartView
    const next = moved.change(call)
    if (next === call) return false
    const view = toolCallView(next)
    const before = bubble.toolCalls[at.view]!
    const viewChanged = (Object.keys(view) as Array<keyof typeof view>).some((key) => view[key] !== before[key])
    this.#bubble = {
      ...bubble,
      parts: parts.with(at.part, next),
      toolCalls: viewChanged ? bubble.toolCalls.with(at.view, view) : bubble.toolCalls,
    }
    return true
  }
}

function delta(event: { type: 'text-delta' | 'reasoning-delta'; delta: string }): ChatPartView {
  return { type: event.type === 'text-delta' ? 'text' : 'reasoning', text: event.delta }
}
