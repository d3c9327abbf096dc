import { useCallback, useEffect, useRef, useState } from 'react'
import type { ApprovalQueue } from '../advisors'
import type { ChatClient, ChatClientRequestSpec } from '../client'
import {
  filePart,
  imagePart,
  isAbortError,
  partsOf,
  userMessageOf,
  type AttachmentPart,
  type Message,
  type UserMessage,
  type UserPart,
} from '../core'
import { ChatMemory } from '../memory'
import { withStreamPart } from './chat-parts'
import { bubbleOf, toViews, viewId, type ChatMessageView, type ChatPartView } from './chat-view'

export type ChatStatus = 'idle' | 'loading' | 'streaming' | 'running-tools' | 'error'

export interface UseChatOptions {
  /** With memory the conversation is restored on mount (a reload) and only new messages are sent. */
  memory?: ChatMemory
  conversationId?: string
  /** Adds to every request (options, advisors, params) before it is sent. */
  configure?: (spec: ChatClientRequestSpec) => ChatClientRequestSpec
  /** The queue the client's ToolApprovalAdvisor asks; `addToolApproval` answers it. */
  approvals?: ApprovalQueue
}

export interface ToolApprovalAnswer {
  /** The tool call's id. */
  id: string
  approved: boolean
  /** When declining: what the user said, passed on to the model. */
  reason?: string
}

export interface UseChat {
  messages: ChatMessageView[]
  status: ChatStatus
  error: Error | undefined
  /** True when the restored conversation ended with tool calls that never ran (the page closed mid-turn). */
  pendingTurn: boolean
  /** Sends a user message (with images or files, optional) and streams the answer into `messages`. */
  send(text: string, attachments?: ReadonlyArray<AttachmentPart | File>): Promise<void>
  /** The same as `send`, as one object: `sendMessage({ text, attachments })`. */
  sendMessage(message: { text: string; attachments?: ReadonlyArray<AttachmentPart | File> }): Promise<void>
  /** Continues a pending turn: its tool calls run (asking for approval again where needed) and the model answers. */
  resume(): Promise<void>
  /** Stops the answer being streamed (and any running tool). */
  stop(): void
  /** Asks again for the last user message, replacing the failed or stopped answer. */
  retry(): Promise<void>
  /** Asks the last question again and replaces its answer, also when the answer was fine (memory forgets the old turn). */
  regenerate(): Promise<void>
  /**
   * Answers the approval a tool call waits for, from the message that shows it (its part is
   * `awaiting-approval`). Needs the `approvals` queue the ToolApprovalAdvisor asks.
   */
  addToolApproval(answer: ToolApprovalAnswer): void
  /** Forgets the conversation (and its memory). */
  clear(): Promise<void>
}

/**
 * A chat UI's state for a ChatClient: the messages as ordered parts, the answer streaming into them,
 * tool calls where they happened and in their states (reported from inside the tool loop by
 * `.stream().parts()`, not guessed), approvals answered from the message, attachments, stop,
 * retry and regenerate.
 */
export function useChat(client: ChatClient | undefined, options: UseChatOptions = {}): UseChat {
  const { memory, conversationId = ChatMemory.DEFAULT_CONVERSATION_ID, configure, approvals } = options
  const [messages, setMessages] = useState<ChatMessageView[]>([])
  const [status, setStatus] = useState<ChatStatus>(memory ? 'loading' : 'idle')
  const [error, setError] = useState<Error>()
  const [pendingTurn, setPendingTurn] = useState(false)
  const abort = useRef<AbortController | undefined>(undefined)
  const history = useRef<Message[]>([])
  const latest = useRef(messages)
  latest.current = messages
  // Opens when the conversation is restored from memory: a send made before then waits for it.
  // Made during render, so a send right after mounting (before the effect runs) waits too.
  const restored = useRef<{ memory?: ChatMemory; conversationId: string; ready: Promise<void>; open: () => void }>(
    undefined,
  )
  const gate = restored.current
  if (!gate || gate.memory !== memory || gate.conversationId !== conversationId) {
    let open = () => {}
    const ready = memory ? new Promise<void>((resolve) => (open = resolve)) : Promise.resolve()
    restored.current = { ...(memory ? { memory } : {}), conversationId, ready, open }
  }

  useEffect(() => {
    let live = true
    history.current = []
    setError(undefined)
    if (!memory) {
      setMessages([])
      setStatus('idle')
      return
    }
    setStatus('loading')
    const { open } = restored.current!
    memory
      .get(conversationId)
      .then((stored) => {
        if (!live) return
        setMessages(toViews(stored))
        setPendingTurn(endsWithUnansweredCalls(stored))
        setStatus('idle')
      })
      .catch((failure: unknown) => {
        if (!live) return
        setError(failure as Error)
        setStatus('error')
      })
      .finally(open)
    return () => {
      live = false
      abort.current?.abort()
    }
  }, [memory, conversationId])

  /** Streams an answer: to a new user message, or (undefined) to the pending turn the conversation ended with. */
  const answer = useCallback(
    async (message: UserMessage | undefined) => {
      if (!client) throw new Error('useChat has no ChatClient yet; pass one before sending')
      await restored.current?.ready
      abort.current?.abort()
      const controller = new AbortController()
      abort.current = controller
      const lastBubble = latest.current.at(-1)
      const bubbleId = message === undefined && lastBubble?.role === 'assistant' ? lastBubble.id : viewId('a')
      const update = (change: (bubble: ChatMessageView) => ChatMessageView) =>
        setMessages((list) => list.map((bubble) => (bubble.id === bubbleId ? change(bubble) : bubble)))
      setPendingTurn(false)
      if (message === undefined) update((bubble) => ({ ...bubble, pending: true }))
      else
        setMessages((list) => [
          ...list,
          bubbleOf({ id: viewId('u'), role: 'user' }, partsOf(message) as ChatPartView[]),
          bubbleOf({ id: bubbleId, role: 'assistant', pending: true }, []),
        ])
      setError(undefined)
      setStatus('streaming')
      let spec = client
        .prompt()
        .advisorParams({ [ChatMemory.CONVERSATION_ID]: conversationId })
        .signal(controller.signal)
      if (!memory) spec = spec.messages(...history.current)
      if (message !== undefined) spec = spec.messages(message)
      if (configure) spec = configure(spec)
      let reply = ''
      try {
        // Each event moves the bubble on: text and reasoning grow, tool cards appear where the model started them.
        for await (const event of spec.stream().parts()) {
          if (controller.signal.aborted) break
          if (event.type === 'tool-start') setStatus('running-tools')
          else if (event.type === 'round-start' && event.round > 1) setStatus('streaming')
          else if (event.type === 'text-delta') reply += event.delta
          update((bubble) => {
            const parts = withStreamPart(bubble.parts, event)
            return parts === bubble.parts ? bubble : bubbleOf(bubble, parts)
          })
        }
        if (!memory && message !== undefined)
          history.current = [...history.current, message, { role: 'assistant', text: reply, toolCalls: [] }]
        update((bubble) => ({ ...bubble, pending: false }))
        setStatus('idle')
      } catch (failure) {
        const stopped = isAbortError(failure)
        update((bubble) => ({ ...bubble, pending: false, problem: stopped ? 'Stopped.' : (failure as Error).message }))
        if (stopped) setStatus('idle')
        else {
          setError(failure as Error)
          setStatus('error')
        }
      } finally {
        if (abort.current === controller) abort.current = undefined
      }
    },
    [client, memory, conversationId, configure],
  )

  /** The user message a bubble showed, attachments included, to send again. */
  const lastQuestion = () => {
    const list = latest.current
    const index = list.findLastIndex((bubble) => bubble.role === 'user')
    return index < 0 ? undefined : { index, message: userMessageOf(list[index]!.parts as UserPart[]) }
  }

  const retry = useCallback(async () => {
    const last = lastQuestion()
    if (!last) return
    setMessages(latest.current.slice(0, last.index))
    await answer(last.message)
  }, [answer])

  const regenerate = useCallback(async () => {
    const last = lastQuestion()
    if (!last) return
    abort.current?.abort()
    setMessages(latest.current.slice(0, last.index))
    // The turn asked again replaces the old one, in the history sent and in memory.
    const lastUser = history.current.findLastIndex((message) => message.role === 'user')
    if (lastUser >= 0) history.current = history.current.slice(0, lastUser)
    if (memory) await forgetLastTurn(memory, conversationId)
    await answer(last.message)
  }, [answer, memory, conversationId])

  const addToolApproval = useCallback(
    ({ id, approved, reason }: ToolApprovalAnswer) => {
      if (!approvals)
        throw new Error(
          'useChat was given no ApprovalQueue: pass { approvals } (the queue of your ToolApprovalAdvisor)',
        )
      const waiting = approvals.pending().find((approval) => approval.toolCall.id === id)
      if (!waiting) throw new Error(`No approval is waiting for tool call '${id}'`)
      approvals.decide(
        waiting.id,
        approved ? { type: 'approve' } : { type: 'reject', ...(reason ? { message: reason } : {}) },
      )
    },
    [approvals],
  )

  const clear = useCallback(async () => {
    abort.current?.abort()
    history.current = []
    setMessages([])
    setError(undefined)
    setStatus('idle')
    await memory?.clear(conversationId)
  }, [memory, conversationId])

  const sendMessage = ({
    text,
    attachments = [],
  }: {
    text: string
    attachments?: ReadonlyArray<AttachmentPart | File>
  }) => answer(userMessageOf([...(text ? [{ type: 'text' as const, text }] : []), ...attachments.map(asAttachment)]))

  return {
    messages,
    status,
    error,
    pendingTurn,
    send: (text: string, attachments?: ReadonlyArray<AttachmentPart | File>) =>
      sendMessage({ text, ...(attachments ? { attachments } : {}) }),
    sendMessage,
    resume: () => answer(undefined),
    stop: () => abort.current?.abort(),
    retry,
    regenerate,
    addToolApproval,
    clear,
  }
}

/** A picked file as a part: an image when its type says so, else a file. */
function asAttachment(attachment: AttachmentPart | File): AttachmentPart {
  if (!(attachment instanceof Blob)) return attachment
  return attachment.type.startsWith('image/') ? imagePart(attachment) : filePart(attachment)
}

/** Removes the last turn (from its user message on) from memory, so asking it again does not store it twice. */
async function forgetLastTurn(memory: ChatMemory, conversationId: string): Promise<void> {
  const stored = await memory.get(conversationId)
  const lastUser = stored.findLastIndex((message) => message.role === 'user')
  if (lastUser < 0) return
  await memory.clear(conversationId)
  if (lastUser > 0) await memory.add(conversationId, stored.slice(0, lastUser))
}

function endsWithUnansweredCalls(messages: readonly Message[]): boolean {
  const last = messages.at(-1)
  return last?.role === 'assistant' && last.toolCalls.length > 0
}
