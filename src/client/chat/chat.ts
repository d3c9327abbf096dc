import {
  assistantMessage,
  filePart,
  imagePart,
  isAbortError,
  partsOf,
  userMessageOf,
  type AttachmentPart,
  type Message,
  type StreamPart,
  type ToolCallback,
  type UserMessage,
  type UserPart,
} from '../../core'
import { ChatMemory } from '../../memory'
import type { SessionService } from '../../session'
import { resolveSchema, type Infer, type SchemaLike } from '../../schema'
import { answerJson } from '../answer-json'
import { askForEntity, type ChatClient } from '../client'
import { AnswerBubble } from './answer-bubble'
import { innermostPart } from './chat-parts'
import { bubbleOf, interruptedBubble, messagesOf, STOPPED, toViews, viewId, type ChatMessageView } from './chat-view'
import type { Chat, ChatFinish, ChatState, CreateChatOptions, ToolApprovalAnswer } from './chat-state'
import { forgetConversation, forgetTurn, replaceConversation } from './memory-edits'
import { approvalWiring, memoryOf, ownApprovals, sessionOf, type ApprovalWiring } from './client-wiring'
import { markViewStart, readSession, replaceSession } from './chat-session'

/** One answer: while it is the chat's current answer it alone writes the answer's state; once replaced or stopped, nothing. */
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

/**
 * A chat UI's state for a ChatClient: the messages as ordered parts, the answer streaming into them,
 * tool calls where they happened and in their states (reported from inside the tool loop by
 * `.stream().parts()`, not guessed), approvals answered from the message, attachments, stop,
 * retry and regenerate. One answer runs at a time: sending, retrying, regenerating, resuming or
 * clearing stops the one that runs first, and so does the last subscriber leaving.
 */
export function createChat<Tools = ToolCallback, Output extends SchemaLike = SchemaLike>(
  client: ChatClient | undefined,
  options: CreateChatOptions<Tools, Output> = {},
): Chat<Tools, Infer<Output>> {
  // Memory (or the session) given to the client's memory advisor is the chat's too: it is given once.
  const { conversationId = ChatMemory.DEFAULT_CONVERSATION_ID } = options
  const session = options.session ?? sessionOf(client)
  const memory = session ? undefined : (options.memory ?? memoryOf(client))
  // The conversation is kept (in memory or a session): it is restored, and only new messages are sent.
  const kept = memory !== undefined || session !== undefined
  let latest: { client: ChatClient | undefined; options: CreateChatOptions } = {
    client,
    options: options as CreateChatOptions,
  }
  let state: ChatState = {
    messages: [],
    object: undefined,
    status: kept ? 'loading' : 'idle',
    error: undefined,
    pendingTurn: false,
  }
  const listeners = new Set<(state: ChatState) => void>()
  // True once every subscriber has left: nothing may act on the chat any more (until one comes back).
  let left = false
  let current: Answer | undefined
  // Without memory: the finished exchanges, sent again before each new question.
  let exchanges: Exchange[] = []
  // Restoring the conversation from memory (started by the first subscriber or command): commands wait for it.
  let restoring: Promise<void> | undefined
  let restored = !kept

  const set = (change: Partial<ChatState>) => {
    state = { ...state, ...change }
    for (const listener of listeners) listener(state)
  }
  const withBubble = (id: string, change: (bubble: ChatMessageView) => ChatMessageView) =>
    state.messages.map((bubble) => (bubble.id === id ? change(bubble) : bubble))

  // The chat's own approvals, made when a tool needsApproval and the client has no ToolApprovalAdvisor.
  let own: ReturnType<typeof ownApprovals> | undefined
  const approvals = (chatClient: ChatClient): ApprovalWiring =>
    approvalWiring(chatClient, () => (own ??= ownApprovals(latest.options.approvals)))

  /** The kept conversation as bubbles (on a session, the whole log with the view's start marked). */
  const read = async (): Promise<Pick<ChatState, 'messages' | 'pendingTurn'>> => {
    if (session) {
      const { messages, viewStart } = await readSession(session, conversationId)
      return { messages: markViewStart(toViews(messages), viewStart), pendingTurn: endsWithUnansweredCalls(messages) }
    }
    const stored = memory ? await memory.get(conversationId) : []
    return { messages: toViews(stored), pendingTurn: endsWithUnansweredCalls(stored) }
  }

  const restore = (): Promise<void> =>
    (restoring ??= !kept
      ? Promise.resolve()
      : read()
          .then(
            (shown) => set({ ...shown, status: 'idle' }),
            (failure: unknown) => set({ error: failure as Error, status: 'error' }),
          )
          .then(() => {
            restored = true
          }))

  /** After a turn on a session: the marker moves to where the model's view now begins (compaction may have moved it). */
  const showViewStart = (service: SessionService): Promise<void> =>
    readSession(service, conversationId).then(
      ({ viewStart }) => {
        const messages = markViewStart(state.messages, viewStart)
        if (messages !== state.messages) set({ messages })
      },
      (failure: unknown) => (globalThis.reportError ?? console.error)(failure),
    )

  /** Runs a command once the conversation is shown (at once when it is); not at all once everyone has left. */
  const whenRestored = (command: () => Promise<void>): Promise<void> => {
    if (left) return Promise.resolve()
    if (restored) return command()
    return restore().then(() => (left ? undefined : command()))
  }

  /** Ends the current answer where it is: its model request, tools and pending approval are aborted, and it writes nothing more. */
  const abandon = (): Answer | undefined => {
    const answer = current
    current = undefined
    answer?.controller.abort()
    return answer
  }

  /** Tells the app an answer ended (once per answer: only the code that takes it off `current` calls this). */
  const finished = (answer: Answer, reason: ChatFinish['reason'], failure?: Error) => {
    const { onFinish, onError } = latest.options
    const message = state.messages.find((bubble) => bubble.id === answer.bubbleId)
    if (failure) safely(() => onError?.(failure))
    if (message) safely(() => onFinish?.({ message, messages: state.messages, reason }))
  }

  /** Makes a new answer the current one, after stopping the one that ran; `showBubbles` adds its bubble. */
  const begin = (bubbleId: string, showBubbles: (list: ChatMessageView[]) => ChatMessageView[]): Answer => {
    const replaced = abandon()
    if (replaced) {
      set({ messages: withBubble(replaced.bubbleId, (bubble) => interruptedBubble(bubble, STOPPED)) })
      finished(replaced, 'stopped')
    }
    const answer: Answer = { controller: new AbortController(), bubbleId }
    current = answer
    set({ messages: showBubbles(state.messages), error: undefined, pendingTurn: false, status: 'streaming' })
    return answer
  }

  /** Streams the answer to `question`, or (undefined) to the pending turn the conversation ended with, after `prepare`. */
  const stream = async (
    chatClient: ChatClient,
    answer: Answer,
    question: Question | undefined,
    prepare?: Promise<void>,
  ): Promise<void> => {
    const isCurrent = () => current === answer
    let reply = ''
    try {
      if (prepare) {
        await prepare
        if (!isCurrent()) return
      }
      const { output, validate, configure } = latest.options
      let spec = chatClient
        .prompt()
        .advisorParams({ [ChatMemory.CONVERSATION_ID]: conversationId })
        .signal(answer.controller.signal)
      const asking = approvals(chatClient).advisor
      if (asking) spec = spec.advisors(asking)
      if (!kept) spec = spec.messages(...exchanges.flatMap((exchange) => exchange.messages))
      if (question) spec = spec.messages(question.message)
      const resolved = output && resolveSchema(output, 'output')
      const json = resolved && answerJson(resolved)
      if (resolved) {
        set({ object: undefined })
        spec = askForEntity(spec, resolved, output, { validate: validate ?? false })
      }
      if (configure) spec = configure(spec)
      let index = state.messages.findIndex((bubble) => bubble.id === answer.bubbleId)
      const bubble = new AnswerBubble(state.messages[index]!)
      let shownVersion = -1
      // Each event moves the bubble on: text and reasoning grow, tool cards appear where the model started them.
      for await (const event of spec.stream().parts()) {
        if (!isCurrent()) return
        if (!question && isReplayedText(event)) continue
        const change: Partial<ChatState> = {}
        const inner = innermostPart(event)
        if (inner.type === 'approval-requested') change.status = 'awaiting-approval'
        else if (event.type === 'tool-start' || inner.type === 'approval-decided') change.status = 'running-tools'
        else if (event.type === 'round-start' && event.round > 1) change.status = 'streaming'
        else if (event.type === 'text-delta') reply += event.delta
        if (json && (event.type === 'round-start' || event.type === 'attempt-start')) {
          json.restart()
          change.object = undefined
          shownVersion = -1
        } else if (json && event.type === 'text-delta') {
          json.add(event.delta)
          if (json.parse() && json.parser.version !== shownVersion) {
            shownVersion = json.parser.version
            change.object = json.parser.value
          }
        }
        if (bubble.apply(event)) {
          // The list is the chat's own while an answer runs (every command that changes it abandons the answer first).
          if (state.messages[index]?.id !== answer.bubbleId)
            index = state.messages.findIndex(({ id }) => id === answer.bubbleId)
          change.messages = state.messages.with(index, bubble.bubble)
        }
        if (hasChanges(change, state)) set(change)
        if (event.type === 'tool-call' && latest.options.onToolCall) {
          const call = bubble.call(event.id)
          if (call) safely(() => latest.options.onToolCall?.(call))
        }
      }
      const entity = await json?.entity()
      if (!isCurrent()) return
      current = undefined
      if (!kept && question) {
        const messages = [question.message, assistantMessage(reply)]
        exchanges = [...exchanges, { questionId: question.id, messages }]
      }
      set({
        messages: withBubble(answer.bubbleId, (bubble) => ({ ...bubble, pending: false })),
        status: 'idle',
        ...(json ? { object: entity } : {}),
      })
      finished(answer, 'done')
      if (session) await showViewStart(session)
    } catch (failure) {
      if (!isCurrent()) return
      current = undefined
      // Aborted by something other than the chat (a signal of `configure`, a provider's timeout): as stopped.
      const stopped = isAbortError(failure)
      set({
        messages: withBubble(answer.bubbleId, (bubble) =>
          interruptedBubble(bubble, stopped ? STOPPED : (failure as Error).message),
        ),
        status: stopped ? 'idle' : 'error',
        ...(stopped ? {} : { error: failure as Error }),
      })
      finished(answer, stopped ? 'stopped' : 'error', stopped ? undefined : (failure as Error))
      if (session) await showViewStart(session)
    }
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
      const chatClient = required(latest.client)
      const question = { id: viewId('u'), message }
      const bubbleId = viewId('a')
      const answer = begin(bubbleId, (list) => [
        ...list,
        bubbleOf({ id: question.id, role: 'user' }, partsOf(message) as ChatMessageView['parts']),
        bubbleOf({ id: bubbleId, role: 'assistant', pending: true }, []),
      ])
      await stream(chatClient, answer, question)
    })
  }

  /** Asks the last question again in a new bubble: the answer it had is forgotten, on screen, in what is sent and in memory. */
  const askAgain = () =>
    whenRestored(async () => {
      const chatClient = required(latest.client)
      const list = state.messages
      const index = list.findLastIndex((bubble) => bubble.role === 'user')
      if (index < 0) return
      const question = { id: list[index]!.id, message: userMessageOf(list[index]!.parts as UserPart[]) }
      const bubbleId = viewId('a')
      const answer = begin(bubbleId, (bubbles) => [
        ...bubbles.slice(0, index + 1),
        bubbleOf({ id: bubbleId, role: 'assistant', pending: true }, []),
      ])
      exchanges = exchanges.filter((exchange) => exchange.questionId !== question.id)
      // Asked now, not after a wait: the edit takes its place in the conversation before any later turn.
      const forgotten = memory ? forgetTurn(memory, conversationId, question.message) : undefined
      await stream(chatClient, answer, question, forgotten)
    })

  const resume = () =>
    whenRestored(async () => {
      const chatClient = required(latest.client)
      const last = state.messages.at(-1)
      if (!state.pendingTurn || last?.role !== 'assistant') return
      const answer = begin(last.id, (list) =>
        list.map((bubble) => (bubble.id === last.id ? { ...bubble, pending: true } : bubble)),
      )
      await stream(chatClient, answer, undefined)
    })

  const stop = () => {
    const stopped = abandon()
    if (!stopped) return
    set({ messages: withBubble(stopped.bubbleId, (bubble) => interruptedBubble(bubble, STOPPED)), status: 'idle' })
    finished(stopped, 'stopped')
  }

  const setMessages = (next: ChatMessageView[] | ((messages: ChatMessageView[]) => ChatMessageView[])) =>
    whenRestored(async () => {
      const list = typeof next === 'function' ? next(state.messages) : next
      abandon()
      const messages = messagesOf(list)
      // A session made again from the bubbles has no compaction yet: the model sees them all.
      const shown = session ? markViewStart(list, undefined) : list
      set({ messages: shown, error: undefined, status: 'idle', pendingTurn: endsWithUnansweredCalls(messages) })
      exchanges = kept ? [] : exchangesOf(list)
      if (memory) await replaceConversation(memory, conversationId, messages)
      if (session) await replaceSession(session, conversationId, messages)
    })

  const clear = () =>
    whenRestored(async () => {
      abandon()
      exchanges = []
      set({ messages: [], error: undefined, pendingTurn: false, status: 'idle' })
      if (memory) await forgetConversation(memory, conversationId)
      if (session) await session.delete(conversationId)
    })

  const addToolApproval = ({ id, approved, reason }: ToolApprovalAnswer) => {
    const queue = latest.options.approvals ?? (latest.client && approvals(latest.client).queue)
    if (!queue)
      throw new Error(
        'The chat has no approvals to answer: give a tool needsApproval, or give the client a ToolApprovalAdvisor asking an ApprovalQueue (or pass that queue as { approvals })',
      )
    const waiting = queue.pending().find((approval) => approval.toolCall.id === id)
    if (!waiting) throw new Error(`No approval is waiting for tool call '${id}'`)
    queue.decide(
      waiting.id,
      approved ? { type: 'approve' } : { type: 'reject', ...(reason ? { message: reason } : {}) },
    )
  }

  const chat: Chat = {
    memory,
    session,
    conversationId,
    getSnapshot: () => state,
    subscribe: (listener) => {
      listeners.add(listener)
      left = false
      void restore()
      return () => {
        if (!listeners.delete(listener) || listeners.size > 0) return
        left = true
        abandon()
      }
    },
    setOptions: (client, options) => {
      latest = { client, options }
    },
    send: (text, attachments) => sendMessage({ text, ...(attachments ? { attachments } : {}) }),
    sendMessage,
    resume,
    stop,
    retry: askAgain,
    regenerate: askAgain,
    addToolApproval,
    clear,
    setMessages,
  }
  return chat as unknown as Chat<Tools, Infer<Output>>
}

/** Whether a change holds a value the state does not. */
function hasChanges(change: Partial<ChatState>, state: ChatState): boolean {
  for (const key in change) if (change[key as keyof ChatState] !== state[key as keyof ChatState]) return true
  return false
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

function required(client: ChatClient | undefined): ChatClient {
  if (!client) throw new Error('The chat has no ChatClient yet: pass one to useChat (or createChat) before sending')
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
