import { StrictMode, useLayoutEffect } from 'react'
import { createRoot } from 'react-dom/client'
import { expect } from 'vitest'
import type { ChatClient } from '../../client'
import type { ChatStatus, ChatMessageView } from '../../client'
import { useChat, type UseChat, type UseChatOptions } from '../use-chat'

/** One render that reached the screen: the status and the bubbles it showed. */
export interface CommittedRender {
  status: ChatStatus
  messages: ChatMessageView[]
  /** The structured answer so far (with `output`). */
  object: unknown
}

/** What a mounted component saw: the hook's latest result, every committed render, and its statuses and answer texts as they changed. */
export interface Probe {
  chat: UseChat | undefined
  renders: CommittedRender[]
  statuses: ChatStatus[]
  answers: string[]
}

export interface MountedChat {
  probe: Probe
  chat: () => UseChat
  container: HTMLElement
  /** Renders the hook again with other options (another conversation, say). */
  rerender: (options: UseChatOptions) => void
  unmount: () => void
}

function ChatProbe({ client, options, probe }: { client: ChatClient; options: UseChatOptions; probe: Probe }) {
  const chat = useChat(client, options)
  const answer = chat.messages.findLast((message) => message.role === 'assistant')
  // In each commit, as it happens: only states that really reached the screen are recorded, in order.
  useLayoutEffect(() => {
    probe.chat = chat
    probe.renders.push({ status: chat.status, messages: chat.messages, object: chat.object })
    if (probe.statuses.at(-1) !== chat.status) probe.statuses.push(chat.status)
    if (answer && probe.answers.at(-1) !== answer.text) probe.answers.push(answer.text)
  })
  return (
    <p data-status={chat.status} data-testid="answer">
      {answer?.text}
    </p>
  )
}

const mounted: Array<() => void> = []

/** Unmounts what the test mounted and left mounted (call from afterEach). */
export function unmountAll(): void {
  mounted.splice(0).forEach((unmount) => unmount())
}

/**
 * Mounts a component that uses the hook with a real React renderer, and waits for its first commit;
 * `strict` mounts it in StrictMode (effects run, are cleaned up and run again, as in development).
 */
export async function mount(
  client: ChatClient,
  options: UseChatOptions = {},
  { strict = false }: { strict?: boolean } = {},
): Promise<MountedChat> {
  const container = document.createElement('div')
  document.body.append(container)
  const root = createRoot(container)
  const probe: Probe = { chat: undefined, renders: [], statuses: [], answers: [] }
  const render = (props: UseChatOptions) => {
    const probed = <ChatProbe client={client} options={props} probe={probe} />
    root.render(strict ? <StrictMode>{probed}</StrictMode> : probed)
  }
  render(options)
  let live = true
  const unmount = () => {
    if (!live) return
    live = false
    root.unmount()
    container.remove()
  }
  mounted.push(unmount)
  await expect.poll(() => probe.chat).toBeDefined()
  return { probe, chat: () => probe.chat!, container, rerender: render, unmount }
}

/** The statuses of the renders committed since `mark` (a length of `probe.renders`), each run of one status once. */
export function statusesSince(probe: Probe, mark: number): ChatStatus[] {
  const statuses: ChatStatus[] = []
  for (const { status } of probe.renders.slice(mark)) if (statuses.at(-1) !== status) statuses.push(status)
  return statuses
}
