import { useCallback, useEffect, useRef, useState } from 'react'
import { StructuredOutputValidationAdvisor, type ApprovalQueue } from '../advisors'
import type { ChatClient, ChatClientRequestSpec } from '../client'
import {
  assistantMessage,
  filePart,
  imagePart,
  isAbortError,
  OUTPUT_SCHEMA_KEY,
  partsOf,
  userMessageOf,
  type AttachmentPart,
  type Message,
  type StreamPart,
  type UserMessage,
  type UserPart,
  type ToolCallback,
  type Escalation,
} from '../core'
import { ChatMemory } from '../memory'
import type { DeepPartial, Infer, SchemaLike } from '../schema'
import { chatObject } from './chat-object'
import { innermostPart, withStreamPart } from './chat-parts'
import {
  bubbleOf,
  interruptedBubble,
  messagesOf,
  type ToolParts,
  STOPPED,
  toViews,
  viewId,
  type ChatMessageView,
  type ChatPartView,
} from './chat-view'
import { forgetConversation, forgetTurn, replaceConversation } from './memory-edits'

/**
 * What the chat is doing: restoring the conversation, streaming an answer, running tools, waiting
 * for the user to approve a tool call (the answer goes on once answered), idle, or failed.
 */
export type ChatStatus = 'idle' | 'loading' | 'streaming' | 'running-tools' | 'awaiting-approval' | 'error'

/** How an answer ended. */
export interface ChatFinish<Tools = ToolCallback> {
  /** The answer's bubble as it ended. */
  message: ChatMessageView<Tools>
  /** Every bubble, the answer's included. */
  messages: ChatMessageView<Tools>[]
  /** `done`: the model finished; `stopped`: stop(), a later action or an abort ended it; `error`: it failed. */
  reason: 'done' | 'stopped' | 'error'
}

export interface UseChatOptions<Tools = ToolCallback, Output extends SchemaLike = SchemaLike> {
  /**
   * The answer is structured: the schema goes to the model (natively or as format instructions),
   * `object` follows the answer as it streams (complete values only) and is the validated value
   * at the end. An answer that is not the structure ends the turn with an OutputParseError.
   */
  output?: Output
  /** With `output`: an invalid answer is retried with the errors (StructuredOutputValidationAdvisor). */
  validate?: boolean
  /** With memory the conversation is restored on mount (a reload) and only new messages are sent. */
  memory?: ChatMemory
  conversationId?: string
  /** Adds to every request (options, advisors, params) before it is sent. */
  configure?: (spec: ChatClientRequestSpec) => ChatClientRequestSpec
  /** The queue the client's ToolApprovalAdvisor asks; `addToolApproval` answers it. */
  approvals?: ApprovalQueue
  /** Called once when an answer ends, however it ends (see `reason`). */
  onFinish?: (finish: ChatFinish<Tools>) => void
  /** Called when an answer fails (also in `error`); not for a stop. */
  onError?: (error: Error) => void
  /** Called when the model has asked for a tool call whole (its arguments complete), before it runs or is asked about. */
  onToolCall?: (call: ToolParts<Tools>) => void
}

export interface ToolApprovalAnswer {
  /** The tool call's id. */
  id: string
  approved: boolean
  /** When declining: what the user said, passed on to the model. */
  reason?: string
}

/** `Tools`: the tools of the client (`typeof tools[number]`, of `defineTool`): tool parts are typed by them. */
export interface UseChat<Tools = ToolCallback, Output = unknown> {
  messages: ChatMessageView<Tools>[]
  /**
   * With `output`: the structured answer of the latest turn, a deep-partial value while it streams
   * (starting over with each model call), then the validated value. Undefined before it starts.
   */
  object: DeepPartial<Output> | undefined
  status: ChatStatus
  error: Error | undefined
  /** True when the restored conversation ended with tool calls that never ran (the page closed mid-turn). */
  pendingTurn: boolean
  /**
   * Sends a user message (with images or files, optional) and streams the answer into `messages`.
   * An answer still running is stopped first, as `stop()` would (its bubble keeps what arrived).
   * Resolves when the answer ends, however it ends; it never rejects for the model's errors
   * (they show in `status` and `error`).
   */
  send(text: string, attachments?: ReadonlyArray<AttachmentPart | File>): Promise<void>
  /** The same as `send`, as one object: `sendMessage({ text, attachments })`. */
  sendMessage(message: { text: string; attachments?: ReadonlyArray<AttachmentPart | File> }): Promise<void>
  /** Continues a pending turn: its tool calls run (asking for approval again where needed) and the model answers. Does nothing without one. */
  resume(): Promise<void>
  /** Stops the answer being streamed: its model request, running tools and pending approvals are cancelled. */
  stop(): void
  /** Asks the last question again, replacing its answer (failed, stopped, or still running: then it is stopped first). */
  retry(): Promise<void>
  /** The same as `retry`, for an answer that was fine: the old turn is forgotten (in memory too) and asked again. */
  regenerate(): Promise<void>
  /**
   * Answers the approval a tool call waits for, from the message that shows it (its part is
   * `awaiting-approval`). Needs the `approvals` queue the ToolApprovalAdvisor asks.
   */
  addToolApproval(answer: ToolApprovalAnswer): void
  /** Stops what runs and forgets the conversation (and its memory). */
  clear(): Promise<void>
  /**
   * Replaces the bubbles (a list, or a function of the current one), after stopping what runs.
   * What is sent next follows them: without memory the history sent is rebuilt from them; with
   * memory the conversation in memory is replaced by their messages.
   */
  setMessages(
    messages: ChatMessageView<Tools>[] | ((messages: ChatMessageView<Tools>[]) => ChatMessageView<Tools>[]),
  ): Promise<void>
}

/** One answer: while it is the hook's current answer it alone writes the answer's state; once replaced or stopped, nothing. */
interface Answer {
  readonly controller: AbortController
  /** The assistant bubble it streams into. */
  readonly bubbleId: string
}

/** A question and its user bubble. */
interface Question {
  id: string
  message: UserMessage
}

/** A finished question and answer, sent again with the next question when there is no memory. */
interface Exchange {
  questionId: string
  messages: Message[]
}

/** The conversation being restored from memory: actions wait until it is shown. */
interface Restore {
  memory?: ChatMemory
  conversationId: string
  done: boolean
  ready: Promise<void>
  open: () => void
}

/**
 * A chat UI's state for a ChatClient: the messages as ordered parts, the answer streaming into them,
 * tool calls where they happened and in their states (reported from inside the tool loop by
 * `.stream().parts()`, not guessed), approvals answered from the message, attachments, stop,
 * retry and regenerate. One answer runs at a time: sending, retrying, regenerating, resuming or
 * clearing stops the one that runs first, and so does unmounting.
 */
export function useChat<Tools = ToolCallback, Output extends SchemaLike = SchemaLike>(
  client: ChatClient | undefined,
  options: UseChatOptions<Tools, Output> = {},
): UseChat<Tools, Infer<Output>> {
  const { memory, conversationId = ChatMemory.DEFAULT_CONVERSATION_ID, configure, approvals } = options
  // The latest callbacks: an answer that began a render ago calls the ones given since.
  const callbacks = useRef(options)
  callbacks.current = options
  const [messages, setMessages] = useState<ChatMessageView[]>([])
  const [status, setStatus] = useState<ChatStatus>(memory ? 'loading' : 'idle')
  const [error, setError] = useState<Error>()
  const [pendingTurn, setPendingTurn] = useState(false)
  const [object, setObject] = useState<unknown>()
  // The bubbles as the latest change left them, ahead of React's render: actions in one tick build on each other.
  const shown = useRef<ChatMessageView[]>(messages)
  const current = useRef<Answer | undefined>(undefined)
  // Without memory: the finished exchanges, sent again before each new question.
  const exchanges = useRef<Exchange[]>([])
  // `pendingTurn` as resume() must read it: at once, not at the next render.
  const resumable = useRef(false)
  // Set when the component unmounts (not before it mounts: a send may come before the effects run).
  const unmounted = useRef(false)
  // Made during render, so a send right after mounting (before the effect runs) waits for the restore too.
  const restored = useRef<Restore | undefined>(undefined)
  if (restored.current?.memory !== memory || restored.current?.conversationId !== conversationId) {
    // A send still waiting for the conversation before wakes up, and sees that the hook moved on.
    restored.current?.open()
    restored.current = restoreOf(memory, conversationId)
  }
  // This render's conversation: its actions act on it, or on nothing once the hook has left it.
  const restore = restored.current

  const show = (change: (list: ChatMessageView[]) => ChatMessageView[]) => {
    shown.current = change(shown.current)
    setMessages(shown.current)
  }
  const showIn = (bubbleId: string, change: (bubble: ChatMessageView) => ChatMessageView) =>
    show((list) => list.map((bubble) => (bubble.id === bubbleId ? change(bubble) : bubble)))
  const showPendingTurn = (pending: boolean) => {
    resumable.current = pending
    setPendingTurn(pending)
  }

  /** Ends the current answer where it is: its model request, tools and pending approval are aborted, and it writes nothing more. */
  const abandon = (): Answer | undefined => {
    const answer = current.current
    current.current = undefined
    answer?.controller.abort()
    return answer
  }

  /** Tells the app an answer ended (once per answer: only the code that takes it off `current` calls this). */
  const finished = (answer: Answer, reason: ChatFinish['reason'], failure?: Error) => {
    const { onFinish, onError } = callbacks.current
    const message = shown.current.find((bubble) => bubble.id === answer.bubbleId)
    if (failure) safely(() => onError?.(failure))
    if (message) safely(() => onFinish?.({ message, messages: shown.current, reason } as ChatFinish<Tools>))
  }

  /** Makes a new answer the current one, after stopping the one that ran; `showBubbles` adds its bubble. */
  const begin = (bubbleId: string, showBubbles: (list: ChatMessageView[]) => ChatMessageView[]): Answer => {
    const replaced = abandon()
    if (replaced) {
      showIn(replaced.bubbleId, (bubble) => interruptedBubble(bubble, STOPPED))
      finished(replaced, 'stopped')
    }
    const answer: Answer = { controller: new AbortController(), bubbleId }
    current.current = answer
    show(showBubbles)
    setError(undefined)
    showPendingTurn(false)
    setStatus('streaming')
    return answer
  }

  /** Streams the answer to `question`, or (undefined) to the pending turn the conversation ended with, after `prepare`. */
  const stream = async (
    chatClient: ChatClient,
    answer: Answer,
    question: Question | undefined,
    prepare?: Promise<void>,
  ): Promise<void> => {
    const isCurrent = () => current.current === answer
    let reply = ''
    try {
      if (prepare) {
        await prepare
        if (!isCurrent()) return
      }
      let spec = chatClient
        .prompt()
        .advisorParams({ [ChatMemory.CONVERSATION_ID]: conversationId })
        .signal(answer.controller.signal)
      if (!memory) spec = spec.messages(...exchanges.current.flatMap((exchange) => exchange.messages))
      if (question) spec = spec.messages(question.message)
      const { output, validate } = callbacks.current
      const structured = output && chatObject(output)
      if (structured) {
        setObject(undefined)
        spec = spec.advisorParams({ [OUTPUT_SCHEMA_KEY]: structured.jsonSchema })
        if (validate) spec = spec.advisors(new StructuredOutputValidationAdvisor({ outputSchema: output }))
      }
      if (configure) spec = configure(spec)
      // Each event moves the bubble on: text and reasoning grow, tool cards appear where the model started them.
      for await (const event of spec.stream().parts()) {
        if (!isCurrent()) return
        if (!question && isReplayedText(event)) continue
        const inner = innermostPart(event)
        if (inner.type === 'approval-requested') setStatus('awaiting-approval')
        else if (event.type === 'tool-start' || inner.type === 'approval-decided') setStatus('running-tools')
        else if (event.type === 'round-start' && event.round > 1) setStatus('streaming')
        else if (event.type === 'text-delta') reply += event.delta
        if (structured?.read(event)) setObject(structured.value)
        if (event.type === 'finish' && event.model !== undefined)
          showIn(answer.bubbleId, (bubble) => answeredBy(bubble, event.model!, event.escalation))
        showIn(answer.bubbleId, (bubble) => {
          const parts = withStreamPart(bubble.parts, event)
          return parts === bubble.parts ? bubble : bubbleOf(bubble, parts)
        })
        if (event.type === 'tool-call' && callbacks.current.onToolCall) {
          const bubble = shown.current.find(({ id }) => id === answer.bubbleId)
          const call = bubble?.parts.find((part) => part.type === 'tool-call' && part.id === event.id)
          if (call) safely(() => callbacks.current.onToolCall?.(call as ToolParts<Tools>))
        }
      }
      const entity = await structured?.entity()
      if (!isCurrent()) return
      if (structured) setObject(entity)
      current.current = undefined
      if (!memory && question) {
        const messages = [question.message, assistantMessage(reply)]
        exchanges.current = [...exchanges.current, { questionId: question.id, messages }]
      }
      showIn(answer.bubbleId, (bubble) => ({ ...bubble, pending: false }))
      setStatus('idle')
      finished(answer, 'done')
    } catch (failure) {
      if (!isCurrent()) return
      current.current = undefined
      // Aborted by something other than the hook (a signal of `configure`, a provider's timeout): as stopped.
      const stopped = isAbortError(failure)
      showIn(answer.bubbleId, (bubble) => interruptedBubble(bubble, stopped ? STOPPED : (failure as Error).message))
      setStatus(stopped ? 'idle' : 'error')
      if (!stopped) setError(failure as Error)
      finished(answer, stopped ? 'stopped' : 'error', stopped ? undefined : (failure as Error))
    }
  }

  /** Runs an action once the conversation is shown (restored from memory); not at all once the hook has moved on. */
  const whenRestored = (action: () => Promise<void>): Promise<void> => {
    const stillHere = () => restored.current === restore && !unmounted.current
    if (restore.done) return stillHere() ? action() : Promise.resolve()
    return restore.ready.then(() => (stillHere() ? action() : undefined))
  }

  const sendMessage = ({
    text,
    attachments = [],
  }: {
    text: string
    attachments?: ReadonlyArray<AttachmentPart | File>
  }) => {
    const message = userMessageOf([
      ...(text ? [{ type: 'text' as const, text }] : []),
      ...attachments.map(asAttachment),
    ])
    return whenRestored(async () => {
      const chatClient = required(client)
      const question = { id: viewId('u'), message }
      const bubbleId = viewId('a')
      const answer = begin(bubbleId, (list) => [
        ...list,
        bubbleOf({ id: question.id, role: 'user' }, partsOf(message) as ChatPartView[]),
        bubbleOf({ id: bubbleId, role: 'assistant', pending: true }, []),
      ])
      await stream(chatClient, answer, question)
    })
  }

  /** Asks the last question again in a new bubble: the answer it had is forgotten, on screen, in what is sent and in memory. */
  const askAgain = () =>
    whenRestored(async () => {
      const chatClient = required(client)
      const list = shown.current
      const index = list.findLastIndex((bubble) => bubble.role === 'user')
      if (index < 0) return
      const question = { id: list[index]!.id, message: userMessageOf(list[index]!.parts as UserPart[]) }
      const bubbleId = viewId('a')
      const answer = begin(bubbleId, (bubbles) => [
        ...bubbles.slice(0, index + 1),
        bubbleOf({ id: bubbleId, role: 'assistant', pending: true }, []),
      ])
      exchanges.current = exchanges.current.filter((exchange) => exchange.questionId !== question.id)
      // Asked now, not after a wait: the edit takes its place in the conversation before any later turn.
      const forgotten = memory ? forgetTurn(memory, conversationId, question.message) : undefined
      await stream(chatClient, answer, question, forgotten)
    })

  const resume = () =>
    whenRestored(async () => {
      const chatClient = required(client)
      const last = shown.current.at(-1)
      if (!resumable.current || last?.role !== 'assistant') return
      const answer = begin(last.id, (list) =>
        list.map((bubble) => (bubble.id === last.id ? { ...bubble, pending: true } : bubble)),
      )
      await stream(chatClient, answer, undefined)
    })

  const stop = () => {
    const stopped = abandon()
    if (!stopped) return
    showIn(stopped.bubbleId, (bubble) => interruptedBubble(bubble, STOPPED))
    setStatus('idle')
    finished(stopped, 'stopped')
  }

  const replaceMessages = (next: ChatMessageView[] | ((messages: ChatMessageView[]) => ChatMessageView[])) =>
    whenRestored(async () => {
      const list = typeof next === 'function' ? next(shown.current) : next
      abandon()
      show(() => list)
      setError(undefined)
      setStatus('idle')
      const messages = messagesOf(list)
      showPendingTurn(endsWithUnansweredCalls(messages))
      exchanges.current = memory ? [] : exchangesOf(list)
      if (memory) await replaceConversation(memory, conversationId, messages)
    })

  const clear = () =>
    whenRestored(async () => {
      abandon()
      exchanges.current = []
      show(() => [])
      setError(undefined)
      showPendingTurn(false)
      setStatus('idle')
      if (memory) await forgetConversation(memory, conversationId)
    })

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

  useEffect(() => {
    unmounted.current = false
    return () => {
      unmounted.current = true
    }
  }, [])

  useEffect(() => {
    let live = true
    exchanges.current = []
    show(() => [])
    setError(undefined)
    showPendingTurn(false)
    setStatus(memory ? 'loading' : 'idle')
    memory
      ?.get(conversationId)
      .then(
        (stored) => {
          if (!live) return
          show(() => toViews(stored))
          showPendingTurn(endsWithUnansweredCalls(stored))
          setStatus('idle')
        },
        (failure: unknown) => {
          if (!live) return
          setError(failure as Error)
          setStatus('error')
        },
      )
      .finally(() => {
        // Opened by the restore in effect, or after unmounting (actions waiting for it then do nothing).
        if (live || unmounted.current) restore.open()
      })
    return () => {
      live = false
      // Another conversation, or unmounted: the answer of this one stops.
      abandon()
    }
  }, [memory, conversationId])

  return {
    messages: messages as ChatMessageView<Tools>[],
    object: object as DeepPartial<Infer<Output>> | undefined,
    status,
    error,
    pendingTurn,
    send: (text: string, attachments?: ReadonlyArray<AttachmentPart | File>) =>
      sendMessage({ text, ...(attachments ? { attachments } : {}) }),
    sendMessage,
    resume,
    stop,
    retry: askAgain,
    regenerate: askAgain,
    addToolApproval,
    clear,
    setMessages: replaceMessages as UseChat<Tools>['setMessages'],
  }
}

/** An app's callback that throws is reported, and the chat goes on. */
function safely(callback: () => void): void {
  try {
    callback()
  } catch (error) {
    ;(globalThis.reportError ?? console.error)(error)
  }
}

/** Without memory: the history sent again, rebuilt from bubbles (each question with its answer's text). */
function exchangesOf(list: readonly ChatMessageView[]): Exchange[] {
  const exchanges: Exchange[] = []
  for (const [index, bubble] of list.entries()) {
    if (bubble.role !== 'user') continue
    const answer = list[index + 1]
    const messages: Message[] = [userMessageOf(bubble.parts as UserPart[])]
    if (answer?.role === 'assistant' && answer.text) messages.push(assistantMessage(answer.text))
    exchanges.push({ questionId: bubble.id, messages })
  }
  return exchanges
}

/** A restore of the conversation, to wait for; without memory there is nothing to restore. */
function restoreOf(memory: ChatMemory | undefined, conversationId: string): Restore {
  if (!memory) return { conversationId, done: true, ready: Promise.resolve(), open: () => {} }
  let opened!: () => void
  const restore: Restore = {
    memory,
    conversationId,
    done: false,
    ready: new Promise<void>((resolve) => (opened = resolve)),
    open: () => {
      restore.done = true
      opened()
    },
  }
  return restore
}

function required(client: ChatClient | undefined): ChatClient {
  if (!client) throw new Error('useChat has no ChatClient yet; pass one before sending')
  return client
}

/** A picked file as a part: an image when its type says so, else a file. */
function asAttachment(attachment: AttachmentPart | File): AttachmentPart {
  if (!(attachment instanceof Blob)) return attachment
  return attachment.type.startsWith('image/') ? imagePart(attachment) : filePart(attachment)
}

/** A resumed turn's first round replays the message its bubble already shows: its text is not shown twice. */
function isReplayedText(event: StreamPart): boolean {
  return (event.type === 'text-delta' || event.type === 'reasoning-delta') && event.round === 1
}

function endsWithUnansweredCalls(messages: readonly Message[]): boolean {
  const last = messages.at(-1)
  return last?.role === 'assistant' && last.toolCalls.length > 0
}

/** The bubble with the model that wrote it, and the escalation that made another model write it. */
function answeredBy(bubble: ChatMessageView, model: string, escalation: Escalation | undefined): ChatMessageView {
  const { escalation: _earlier, ...rest } = bubble
  return escalation ? { ...rest, model, escalation } : { ...rest, model }
}
