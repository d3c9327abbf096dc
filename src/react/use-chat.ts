import { useCallback, useEffect, useRef, useState } from 'react'
import { ObserverAdvisor } from '../advisors'
import type { ChatClient, ChatClientRequestSpec } from '../client'
import { isAbortError, type Message } from '../core'
import { ChatMemory } from '../memory'
import { TraceReader, type TraceEvent } from '../trace'
import { joined, toolCallViews, toViews, viewId, type ChatMessageView, type ToolCallView } from './chat-view'

export type ChatStatus = 'idle' | 'loading' | 'streaming' | 'running-tools' | 'error'

export interface UseChatOptions {
  /** With memory the conversation is restored on mount (a reload) and only new messages are sent. */
  memory?: ChatMemory
  conversationId?: string
  /** Adds to every request (options, advisors, params) before it is sent. */
  configure?: (spec: ChatClientRequestSpec) => ChatClientRequestSpec
}

export interface UseChat {
  messages: ChatMessageView[]
  status: ChatStatus
  error: Error | undefined
  /** True when the restored conversation ended with tool calls that never ran (the page closed mid-turn). */
  pendingTurn: boolean
  /** Sends a user message and streams the answer into `messages`. */
  send(text: string): Promise<void>
  /** Continues a pending turn: its tool calls run (asking for approval again where needed) and the model answers. */
  resume(): Promise<void>
  /** Stops the answer being streamed (and any running tool). */
  stop(): void
  /** Asks again for the last user message, replacing the failed or stopped answer. */
  retry(): Promise<void>
  /** Forgets the conversation (and its memory). */
  clear(): Promise<void>
}

/**
 * A chat UI's state for a ChatClient: the messages, the answer streaming into them, tool calls as
 * they run (seen by an ObserverAdvisor inside the tool loop, not guessed), stop and retry.
 */
export function useChat(client: ChatClient | undefined, options: UseChatOptions = {}): UseChat {
  const { memory, conversationId = ChatMemory.DEFAULT_CONVERSATION_ID, configure } = options
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

  /** Streams an answer: to `text`, or (undefined) to the pending turn the conversation ended with. */
  const answer = useCallback(
    async (text: string | undefined) => {
      if (!client) throw new Error('useChat has no ChatClient yet; pass one before sending')
      await restored.current?.ready
      abort.current?.abort()
      const controller = new AbortController()
      abort.current = controller
      const resuming = text === undefined
      const lastBubble = latest.current.at(-1)
      const bubbleId = resuming && lastBubble?.role === 'assistant' ? lastBubble.id : viewId('a')
      const update = (change: (bubble: ChatMessageView) => ChatMessageView) =>
        setMessages((list) => list.map((message) => (message.id === bubbleId ? change(message) : message)))
      setPendingTurn(false)
      // The calls the bubble had before this run; the run's own come from the trace reader.
      let before: ToolCallView[] = []
      if (resuming) {
        // The calls are answered again by this run; its events fill them in.
        before = lastBubble?.toolCalls.filter((call) => call.status !== 'running') ?? []
        update((bubble) => ({ ...bubble, pending: true, toolCalls: before }))
      } else {
        setMessages((list) => [
          ...list,
          { id: viewId('u'), role: 'user', text, toolCalls: [] },
          { id: bubbleId, role: 'assistant', text: '', toolCalls: [], pending: true },
        ])
      }
      setError(undefined)
      setStatus('streaming')
      // Tool rounds as the loop runs them: an observer inside the loop reports each execution.
      const reader = new TraceReader()
      let round = 0
      const watcher = new ObserverAdvisor({
        name: 'useChat',
        chunks: false,
        performanceTrack: false,
        sink: {
          emit: (event: TraceEvent) => {
            if (controller.signal.aborted) return
            if (event.type === 'tool-start') setStatus('running-tools')
            if (event.type === 'round-start') round = event.round
            if (event.type === 'round-start' && event.round > 1) {
              setStatus('streaming')
              // Text of a later round starts a new paragraph, not the end of the last word.
              update((bubble) =>
                bubble.text && !/\s$/.test(bubble.text) ? { ...bubble, text: `${bubble.text}\n\n` } : bubble,
              )
            }
            const run = reader.add(event, true)
            if (event.type === 'tool-start' || event.type === 'tool-end')
              update((bubble) => ({ ...bubble, toolCalls: [...before, ...toolCallViews(run)] }))
          },
        },
      })
      let spec = client
        .prompt()
        .advisors(watcher)
        .advisorParams({ [ChatMemory.CONVERSATION_ID]: conversationId })
        .signal(controller.signal)
      if (!memory) spec = spec.messages(...history.current)
      if (text !== undefined) spec = spec.user(text)
      if (configure) spec = configure(spec)
      let reply = ''
      try {
        let reasoningRound = 0
        for await (const chunk of spec.stream().chatResponse()) {
          const output = chunk.results[0]?.output
          const delta = output?.text ?? ''
          const reasoning = output?.reasoning ?? ''
          if (reasoning) {
            // A new round's reasoning is a new paragraph, the same round's deltas run on.
            const fresh = reasoningRound !== round
            reasoningRound = round
            update((bubble) => ({
              ...bubble,
              reasoning: fresh ? joined(bubble.reasoning, reasoning) : (bubble.reasoning ?? '') + reasoning,
            }))
          }
          if (!delta) continue
          reply += delta
          update((bubble) => ({ ...bubble, text: bubble.text + delta }))
        }
        if (!memory && text !== undefined)
          history.current = [
            ...history.current,
            { role: 'user', text },
            { role: 'assistant', text: reply, toolCalls: [] },
          ]
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

  const retry = useCallback(async () => {
    const list = latest.current
    const lastUser = list.findLastIndex((message) => message.role === 'user')
    if (lastUser < 0) return
    const text = list[lastUser]!.text
    setMessages(list.slice(0, lastUser))
    await answer(text)
  }, [answer])

  const clear = useCallback(async () => {
    abort.current?.abort()
    history.current = []
    setMessages([])
    setError(undefined)
    setStatus('idle')
    await memory?.clear(conversationId)
  }, [memory, conversationId])

  return {
    messages,
    status,
    error,
    pendingTurn,
    send: (text: string) => answer(text),
    resume: () => answer(undefined),
    stop: () => abort.current?.abort(),
    retry,
    clear,
  }
}

function endsWithUnansweredCalls(messages: readonly Message[]): boolean {
  const last = messages.at(-1)
  return last?.role === 'assistant' && last.toolCalls.length > 0
}
